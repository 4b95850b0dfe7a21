// "citeflow/ai-sdk" behind real AI SDK provider packages: @ai-sdk/google and @ai-sdk/anthropic
// reading recorded bodies (tests/fixtures/providers/, see SOURCES.md there) through a custom
// `fetch`, with and without the middleware, as `useChat` receives the answer and as
// generateText returns it.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { createAnthropic } from "@ai-sdk/anthropic";
import { createGoogleGenerativeAI } from "@ai-sdk/google";
import { generateText, readUIMessageStream, streamText, wrapLanguageModel } from "ai";
import { citeflowMiddleware } from "citeflow/ai-sdk";

const SOURCES = [{ content: "The tower is 330 m tall.", metadata: { url: "https://example.org/tower" } }];
const FIXTURES = new URL("../fixtures/providers/", import.meta.url);

/** A `fetch` answering every request with the recorded body `file`. */
function recorded(file) {
  const body = readFileSync(new URL(file, FIXTURES));
  const type = file.endsWith(".sse") ? "text/event-stream" : "application/json";
  return async () => new Response(body, { headers: { "content-type": type } });
}

/** A model of the provider the recording `file` is from, answered with it. */
function modelOf(file) {
  const fetch = recorded(file);
  if (file.startsWith("anthropic/")) return createAnthropic({ apiKey: "test", fetch })("claude-sonnet-4-20250514");
  return createGoogleGenerativeAI({ apiKey: "test", fetch })("gemini-2.5-pro");
}

const wrap = (model, middleware) => middleware === null ? model : wrapLanguageModel({ model, middleware });

/** The final UI message's parts (as useChat holds them) and the call's provider metadata. */
async function streamed(file, middleware) {
  const result = streamText({ model: wrap(modelOf(file), middleware), prompt: "q" });
  let last;
  for await (const message of readUIMessageStream({ stream: result.toUIMessageStream({ sendSources: true }) })) {
    last = message;
  }
  const parts = last.parts.filter((p) => p.type !== "step-start");
  return { parts, metadata: (await result.providerMetadata).google };
}

async function generated(file, middleware) {
  const result = await generateText({ model: wrap(modelOf(file), middleware), prompt: "q" });
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

/** The parts without the text parts' citations. */
const uncited = (parts) => parts.map(({ citations: _, ...p }) => p);

/** What a grounding chunk's source part shows: its URL, or its title. */
const shown = (chunk) => chunk.web?.uri ?? chunk.retrievedContext?.title ?? "Unknown Document";

/**
 * The middleware's citations of a Gemini answer: every support cites each of its chunks at its
 * segment, found by `String.slice` on the text part, naming a source part sent in the stream
 * (or in the content), none sent twice; the rest of the answer as the provider gave it.
 */
function assertGrounded(wrapped, plain, count, name) {
  assert.deepEqual(noIds(uncited(wrapped.parts)), noIds(plain.parts), name);
  const { groundingChunks, groundingSupports } = plain.metadata.groundingMetadata;
  const cited = wrapped.parts.filter((p) => p.type === "text").flatMap((p) =>
    (p.citations ?? []).map((c) => `${p.text.slice(c.startIndex, c.endIndex)} | ${c.source.url ?? c.source.title}`)
  );
  const expected = groundingSupports.flatMap(({ segment, groundingChunkIndices }) =>
    groundingChunkIndices.map((i) => `${segment.text} | ${shown(groundingChunks[i])}`)
  );
  assert.equal(cited.length, count, name);
  assert.deepEqual(cited.toSorted(), expected.toSorted(), name);
  const sourceIds = wrapped.parts.filter((p) => p.type.startsWith("source")).map((p) => p.sourceId ?? p.id);
  assert.equal(new Set(sourceIds).size, sourceIds.length, name);
  for (const p of wrapped.parts.filter((p) => p.citations !== undefined)) {
    for (const c of p.citations) assert.ok(sourceIds.includes(c.source.sourceId ?? c.source.id), name);
  }
}

const MIDDLEWARES = [
  ["citeflowMiddleware({})", () => citeflowMiddleware({})],
  ["citeflowMiddleware({sources})", () => citeflowMiddleware({ sources: SOURCES })],
];

test("@ai-sdk/google, web search stream: source parts, no positions; the middleware places the grounding", async () => {
  const plain = await streamed("google/web-search-grounding.sse", null);
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

  // With the middleware: 8 supports citing 9 (segment, chunk) pairs, each found by slice.
  for (const [name, make] of MIDDLEWARES) {
    const wrapped = await streamed("google/web-search-grounding.sse", make());
    assertGrounded(wrapped, plain, 9, name);
    assert.deepEqual(wrapped.metadata, plain.metadata, name);
  }
});

test("@ai-sdk/google, web search generate: the same, through generateText", async () => {
  const plain = await generated("google/web-search-grounding.json", null);
  assert.deepEqual(plain.parts.map((p) => p.type), ["text", "source", "source", "source"]);
  assert.equal(plain.parts[0].citations, undefined);
  const segs = segments(plain.parts[0].text, plain.metadata);
  assert.equal(segs.length, 6);
  assert.deepEqual(segs.filter((s) => s.byBytes !== s.text), []);
  assert.deepEqual(segs.filter((s) => s.byUnits === s.text), []);

  for (const [name, make] of MIDDLEWARES) {
    const wrapped = await generated("google/web-search-grounding.json", make());
    assertGrounded(wrapped, plain, 6, name);
  }
});

test("@ai-sdk/google, file search: one document source part, cited at its segment by the middleware, not duplicated", async () => {
  for (
    const [file, run] of [["google/file-search-grounding-gemini3.sse", streamed], [
      "google/file-search-grounding-gemini3.json",
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
      assertGrounded(wrapped, plain, 1, `${file} ${name}`);
    }
  }
});

test("@ai-sdk/anthropic, web search: citations without positions on the cited text parts, unchanged by the middleware", async () => {
  // Anthropic sends each cited passage as a text block of its own, with its citations; the
  // provider package puts them on that text part as {source, citedText}, with no startIndex.
  const plain = await streamed("anthropic/web-search-citations.sse", null);
  const texts = plain.parts.filter((p) => p.type === "text");
  const cited = texts.filter((p) => p.citations !== undefined);
  assert.equal(plain.parts.filter((p) => p.type === "source-url").length, 10);
  assert.equal(texts.length, 19);
  assert.equal(cited.length, 9);
  const citations = cited.flatMap((p) => p.citations);
  assert.equal(citations.length, 14);
  assert.deepEqual(citations.filter((c) => "startIndex" in c || "endIndex" in c), []);
  assert.match(cited[0].text, /^Apple today announced the grand reopening of Apple Ginza/);
  assert.equal(
    cited[0].citations[0].source.url,
    "https://www.apple.com/newsroom/2025/09/the-all-new-apple-ginza-opens-this-friday-september-26-in-tokyo/",
  );
  assert.match(cited[0].citations[0].citedText, /^Apple today announce/);

  for (const [name, make] of MIDDLEWARES) {
    const wrapped = await streamed("anthropic/web-search-citations.sse", make());
    assert.deepEqual(noIds(wrapped.parts), noIds(plain.parts), name);
  }

  const whole = await generated("anthropic/web-search-citations.json", null);
  assert.deepEqual(whole.parts.map((p) => p.type).filter((t, i, all) => t !== all[i - 1]), [
    "tool-call",
    "tool-result",
    "source",
    "text",
    "tool-call",
    "tool-result",
    "text",
  ]);
  assert.equal(whole.parts.filter((p) => p.citations !== undefined).length, 3);
  for (const [name, make] of MIDDLEWARES) {
    const wrapped = await generated("anthropic/web-search-citations.json", make());
    assert.deepEqual(noIds(wrapped.parts), noIds(whole.parts), name);
  }
});

test("@ai-sdk/google through the middleware: Gemini's UTF-8 byte offsets become UTF-16 positions", async () => {
  // A hand-built Gemini stream (not a recording): a thought summary (not counted by Gemini's
  // offsets), then answer text with 2-, 3- and 4-byte characters before the cited segment.
  const before = "東京 😀 café, ";
  const segment = "the tower is 330 m tall 🗼.";
  const bytes = (s) => new TextEncoder().encode(s).length;
  const message = (value) => `data: ${JSON.stringify(value)}\r\n\r\n`;
  const parts = (...p) => ({ candidates: [{ content: { role: "model", parts: p } }] });
  const body = message(parts({ text: "Thinking about 東京 🤔", thought: true })) +
    message(parts({ text: before })) +
    message({
      candidates: [{
        content: { role: "model", parts: [{ text: segment }] },
        finishReason: "STOP",
        groundingMetadata: {
          groundingChunks: [{ web: { uri: "https://example.org/tower", title: "example.org" } }],
          groundingSupports: [{
            segment: { startIndex: bytes(before), endIndex: bytes(before + segment), text: segment },
            groundingChunkIndices: [0],
          }],
        },
      }],
      usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 9, totalTokenCount: 12 },
    });
  const fetch = async () => new Response(body, { headers: { "content-type": "text/event-stream" } });
  const model = createGoogleGenerativeAI({ apiKey: "test", fetch })("gemini-2.5-pro");
  const result = streamText({ model: wrap(model, citeflowMiddleware({})), prompt: "q" });
  let last;
  for await (const m of readUIMessageStream({ stream: result.toUIMessageStream({ sendSources: true }) })) last = m;
  const text = last.parts.find((p) => p.type === "text");
  assert.equal(text.text, before + segment);
  assert.equal(text.citations.length, 1);
  const [c] = text.citations;
  // By bytes the segment starts at 19; in UTF-16 units at 12.
  assert.deepEqual([bytes(before), c.startIndex, c.endIndex], [19, before.length, (before + segment).length]);
  assert.equal(text.text.slice(c.startIndex, c.endIndex), segment);
  assert.equal(c.source.url, "https://example.org/tower");
  assert.deepEqual(last.parts.filter((p) => p.type === "source-url").map((p) => p.url), ["https://example.org/tower"]);
});
