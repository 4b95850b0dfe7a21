// "citeflow/ai-sdk" behind a real AI SDK provider package: @ai-sdk/google reading recorded Gemini
// bodies (tests/fixtures/providers/google/, see SOURCES.md there) through a custom `fetch`, with
// and without the middleware, as `useChat` receives the answer and as generateText returns it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, readUIMessageStream, streamText, wrapLanguageModel } from "ai";
import { citeflowMiddleware } from "citeflow/ai-sdk";

const SOURCES = [{ content: "The tower is 330 m tall.", metadata: { url: "https://example.org/tower" } }];
const FIXTURES = new URL("../fixtures/providers/google/", import.meta.url);

/** A Gemini model whose every request is answered with the recorded body `file`. */
function gemini(file) {
  const body = readFileSync(new URL(file, FIXTURES));
  const type = file.endsWith(".sse") ? "text/event-stream" : "application/json";
  const google = createGoogleGenerativeAI({
    apiKey: "test",
    fetch: async () => new Response(body, { headers: { "content-type": type } }),
  });
  return google("gemini-2.5-pro");
}

const wrap = (model, middleware) => middleware === null ? model : wrapLanguageModel({ model, middleware });

/** The final UI message's parts (as useChat holds them) and the call's provider metadata. */
async function streamed(file, middleware) {
  const result = streamText({ model: wrap(gemini(file), middleware), prompt: "q" });
  let last;
  for await (const message of readUIMessageStream({ stream: result.toUIMessageStream({ sendSources: true }) })) {
    last = message;
  }
  const parts = last.parts.filter((p) => p.type !== "step-start");
  return { parts, metadata: (await result.providerMetadata).google };
}

async function generated(file, middleware) {
  const result = await generateText({ model: wrap(gemini(file), middleware), prompt: "q" });
  return { parts: result.content, metadata: result.providerMetadata.google };
}

/** Parts without the ids the provider draws at random for its source parts, nor undefined fields. */
const noIds = (parts) =>
  parts.map((p) =>
    Object.fromEntries(Object.entries(p).filter(([k, v]) => v !== undefined && k !== "sourceId" && k !== "id"))
  );

/** Each grounding support's segment, read from the text by UTF-8 bytes and by UTF-16 units. */
function segments(text, metadata) {
  const bytes = new TextEncoder().encode(text);
  return metadata.groundingMetadata.groundingSupports.map(({ segment }) => {
    const start = segment.startIndex ?? 0;
    return {
      text: segment.text,
      byBytes: new TextDecoder().decode(bytes.subarray(start, segment.endIndex)),
      byUnits: text.slice(start, segment.endIndex),
    };
  });
}

const MIDDLEWARES = [
  ["citeflowMiddleware({})", () => citeflowMiddleware({})],
  ["citeflowMiddleware({sources})", () => citeflowMiddleware({ sources: SOURCES })],
];

test("@ai-sdk/google, web search stream: source parts, no positions; the middleware changes nothing", async () => {
  const plain = await streamed("web-search-grounding.sse", null);
  assert.deepEqual(plain.parts.map((p) => p.type), [
    "text",
    "source-url",
    "source-url",
    "source-url",
    "source-url",
    "source-url",
  ]);
  const text = plain.parts[0];
  assert.equal(text.citations, undefined);
  assert.match(text.text, /around 69°F \(21°C\)/);
  assert.equal(plain.parts[1].url, "https://www.google.com/search?q=weather+in+San Francisco, CA,+US");
  assert.equal(plain.parts[2].title, "timeanddate.com");
  // The grounding reaches the app only as provider metadata, its offsets in UTF-8 bytes: every
  // segment is found by bytes, none by UTF-16 units (String.slice; each ends after a `°`).
  const segs = segments(text.text, plain.metadata);
  assert.equal(segs.length, 8);
  assert.deepEqual(segs.filter((s) => s.byBytes !== s.text), []);
  assert.deepEqual(segs.filter((s) => s.byUnits === s.text), []);

  for (const [name, make] of MIDDLEWARES) {
    const wrapped = await streamed("web-search-grounding.sse", make());
    assert.deepEqual(noIds(wrapped.parts), noIds(plain.parts), name);
    assert.deepEqual(wrapped.metadata, plain.metadata, name);
  }
});

test("@ai-sdk/google, web search generate: the same, through generateText", async () => {
  const plain = await generated("web-search-grounding.json", null);
  assert.deepEqual(plain.parts.map((p) => p.type), ["text", "source", "source", "source"]);
  assert.equal(plain.parts[0].citations, undefined);
  const segs = segments(plain.parts[0].text, plain.metadata);
  assert.equal(segs.length, 6);
  assert.deepEqual(segs.filter((s) => s.byBytes !== s.text), []);
  assert.deepEqual(segs.filter((s) => s.byUnits === s.text), []);

  for (const [name, make] of MIDDLEWARES) {
    const wrapped = await generated("web-search-grounding.json", make());
    assert.deepEqual(noIds(wrapped.parts), noIds(plain.parts), name);
  }
});

test("@ai-sdk/google, file search: one document source part, not duplicated by the middleware", async () => {
  for (
    const [file, run] of [["file-search-grounding-gemini3.sse", streamed], [
      "file-search-grounding-gemini3.json",
      generated,
    ]]
  ) {
    const plain = await run(file, null);
    const sources = plain.parts.filter((p) => p.type === "source-document" || p.sourceType === "document");
    assert.equal(sources.length, 1, file);
    assert.equal(sources[0].title, "Unknown Document", file);
    assert.match(sources[0].filename, /^testfilesearchgrounding/, file);
    // Gemini 3's thought signature (sent on the text deltas) stays on the text part, where the
    // AI SDK finds it to send back on the next turn.
    const signature = (parts) => parts.find((p) => p.type === "text").providerMetadata?.google?.thoughtSignature;
    assert.match(signature(plain.parts), /^E/, file);
    for (const [name, make] of MIDDLEWARES) {
      const wrapped = await run(file, make());
      assert.equal(signature(wrapped.parts), signature(plain.parts), `${file} ${name}`);
      assert.deepEqual(noIds(wrapped.parts), noIds(plain.parts), `${file} ${name}`);
    }
  }
});
