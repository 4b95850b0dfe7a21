// "citeflow/ai-sdk" inside the AI SDK 7: a mock model's stream through `wrapLanguageModel`,
// `streamText`, `toUIMessageStream` and `readUIMessageStream`, as `useChat` reads it; the
// final UI message's parts are what a chat UI shows.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { createOpenAI } from "@ai-sdk/openai";
import { generateText, readUIMessageStream, simulateReadableStream, streamText, wrapLanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";
import { aiSdkRequest, Citeformer } from "citeflow";
import { citeflowMiddleware } from "citeflow/ai-sdk";

const SOURCES = [
  { content: "The tower is 330 m tall.", metadata: { url: "https://example.org/tower", title: "Tower" } },
  { content: "It opened in 1889.", metadata: { title: "Guide", filename: "guide.pdf", mediaType: "application/pdf" } },
];
const usage = {
  inputTokens: { total: 3, noCache: 3, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 5, text: 5, reasoning: 0 },
};
const FINISH = { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage };

/** A stream of these parts, all there at once (`simulateReadableStream` waits a timer per part). */
const streamOf = (parts) =>
  new ReadableStream({
    start(controller) {
      for (const part of parts) controller.enqueue(part);
      controller.close();
    },
  });

/** A model whose stream is one text part made of `chunks`, between `before` and `after`. */
function mockModel(chunks, { before = [], after = [], end = {} } = {}) {
  return new MockLanguageModelV4({
    doStream: async () => ({
      stream: streamOf([
        { type: "stream-start", warnings: [] },
        ...before,
        { type: "text-start", id: "t" },
        ...chunks.map((delta) => ({ type: "text-delta", id: "t", delta })),
        { type: "text-end", id: "t", ...end },
        ...after,
        FINISH,
      ]),
    }),
    doGenerate: async () => ({
      content: [{ type: "text", text: chunks.join(""), ...end }],
      finishReason: { unified: "stop", raw: "stop" },
      usage,
      warnings: [],
    }),
  });
}

/** The final UI message's parts for `model` wrapped in `middleware`, as useChat receives them. */
async function uiParts(model, middleware = citeflowMiddleware({ sources: SOURCES })) {
  const result = streamText({ model: wrapLanguageModel({ model, middleware }), prompt: "How tall is it?" });
  let last;
  for await (const message of readUIMessageStream({ stream: result.toUIMessageStream({ sendSources: true }) })) {
    last = message;
  }
  return last.parts.filter((p) => p.type !== "step-start");
}

/** Parts in short: [kind, text, state, citations as [source id, startIndex, endIndex]]. */
function view(parts) {
  return parts.map((p) => {
    if (p.type === "reasoning") return ["reasoning", p.text, p.state];
    if (p.type === "text") {
      const cites = (p.citations ?? []).map((c) => [c.source.id, c.startIndex, c.endIndex]);
      return ["text", p.text, p.state, ...(cites.length ? [cites] : [])];
    }
    if (p.type === "source-url" || p.type === "source-document") return [p.type, p.sourceId];
    return [p.type];
  });
}

const S1 = "citeflow-source-1";
const S2 = "citeflow-source-2";

/** Every way of cutting `text` into three pieces (empty ones included). */
function* splits(text) {
  for (let i = 0; i <= text.length; i++) {
    for (let j = i; j <= text.length; j++) yield [text.slice(0, i), text.slice(i, j), text.slice(j)];
  }
}

/** The middleware's own output parts for a stream of `chunks`, deltas of one part merged. */
async function middlewareParts(chunks, middleware = citeflowMiddleware({ sources: SOURCES })) {
  const { stream } = await wrapLanguageModel({ model: mockModel(chunks), middleware }).doStream({ prompt: [] });
  const out = [];
  for await (const p of stream) {
    const last = out.at(-1);
    if (p.type.endsWith("-delta") && last?.type === p.type && last.id === p.id) last.delta += p.delta;
    else out.push({ ...p });
  }
  return out;
}

test("split tags: every cut of a short answer gives the same reasoning, text, citation and source", async () => {
  const answer = "<think>a b</think>It is 330 m [1].";
  const expected = [
    ["reasoning", "a b", "done"],
    ["text", "It is 330 m [1].", "done", [[S1, 12, 15]]],
    ["source-url", S1],
  ];
  // Every cut in two, read as useChat reads it.
  for (let i = 0; i <= answer.length; i++) {
    const chunks = [answer.slice(0, i), answer.slice(i)];
    assert.deepEqual(view(await uiParts(mockModel(chunks))), expected, JSON.stringify(chunks));
  }
  // Every cut in three, the middleware's own parts (ids aside) the same as for the whole.
  const whole = await middlewareParts([answer]);
  const noIds = (parts) => parts.map(({ id: _, ...p }) => p);
  for (const chunks of splits(answer)) {
    assert.deepEqual(noIds(await middlewareParts(chunks)), noIds(whole), JSON.stringify(chunks));
  }
});

test("a partial tag at the end is answer text, and the marker before it still cites", async () => {
  assert.deepEqual(view(await uiParts(mockModel(["Answer [1] <th", "i"]))), [
    ["text", "Answer [1] <thi", "done", [[S1, 7, 10]]],
    ["source-url", S1],
  ]);
});

test("an unclosed block ends its reasoning part when the stream ends", async () => {
  const parts = await uiParts(mockModel(["<think>still ", "thinking"]));
  assert.deepEqual(view(parts), [["reasoning", "still thinking", "done"]]);
});

test("a stray close tag is dropped, not shown", async () => {
  assert.deepEqual(view(await uiParts(mockModel(["Hello</thi", "nk> world [2]"]))), [
    ["text", "Hello world [2]", "done", [[S2, 12, 15]]],
    ["source-document", S2],
  ]);
});

test("two blocks stay in order, each text part with its own citations counted from its start", async () => {
  const parts = await uiParts(mockModel(["<think>a</think>One [1].<think>b</thi", "nk>Two [2] and [1]."]));
  assert.deepEqual(view(parts), [
    ["reasoning", "a", "done"],
    ["text", "One [1].", "done", [[S1, 4, 7]]],
    ["source-url", S1],
    ["reasoning", "b", "done"],
    ["text", "Two [2] and [1].", "done", [[S2, 4, 7], [S1, 12, 15]]],
    ["source-document", S2],
  ]);
  // Each source is sent once, its document fields as given.
  const doc = parts.find((p) => p.type === "source-document");
  assert.deepEqual([doc.title, doc.filename, doc.mediaType], ["Guide", "guide.pdf", "application/pdf"]);
});

test("a trailing marker keeps its citation, however the answer is cut", async () => {
  const answer = "The tower is 330 m tall. [2]";
  for (let i = 0; i <= answer.length; i++) {
    const parts = await uiParts(mockModel([answer.slice(0, i), answer.slice(i)]));
    assert.deepEqual(view(parts), [["text", answer, "done", [[S2, 25, 28]]], ["source-document", S2]], `cut at ${i}`);
  }
});

test("emoji and CJK before markers: offsets are UTF-16 units within the text part", async () => {
  const answer = "<think>考える🤔</think>東京タワー🗼は333メートル[1]。😀👍🏽 高い [2]";
  const parts = await uiParts(mockModel([...answer]));
  const text = parts.find((p) => p.type === "text");
  assert.equal(text.text, "東京タワー🗼は333メートル[1]。😀👍🏽 高い [2]");
  assert.deepEqual(text.citations.map((c) => text.text.slice(c.startIndex, c.endIndex)), ["[1]", "[2]"]);
  assert.deepEqual(text.citations.map((c) => c.source.id), [S1, S2]);
});

test("every marker style citeflow reads becomes citations", async () => {
  const cases = {
    bracket: ["Tall [1, 2]. Old [^1]. Both [1-2].", ["[1, 2]", "[1, 2]", "[^1]", "[1-2]", "[1-2]"]],
    paren: ["Tall (1). Old (2).", ["(1)", "(2)"]],
    curly: ["Tall {1}. Old {2}.", ["{1}", "{2}"]],
    caret: ["Tall ^1. Old ^2.", ["^1", "^2"]],
  };
  for (const [markerStyle, [answer, markers]] of Object.entries(cases)) {
    const parts = await uiParts(mockModel([answer]), citeflowMiddleware({ sources: SOURCES, markerStyle }));
    const text = parts.find((p) => p.type === "text");
    assert.equal(text.text, answer, markerStyle);
    assert.deepEqual(text.citations.map((c) => text.text.slice(c.startIndex, c.endIndex)), markers, markerStyle);
  }
});

test("a marker naming no source stays text and cites nothing", async () => {
  assert.deepEqual(view(await uiParts(mockModel(["Tall [7]. Old [0]. Known [1]."]))), [
    ["text", "Tall [7]. Old [0]. Known [1].", "done", [[S1, 25, 28]]],
    ["source-url", S1],
  ]);
});

test("without sources, only reasoning is split; markers are left alone", async () => {
  const parts = await uiParts(mockModel(["<think>x</think>Tall [1]."]), citeflowMiddleware());
  assert.deepEqual(view(parts), [["reasoning", "x", "done"], ["text", "Tall [1].", "done"]]);
});

test("generateText (wrapGenerate) gives the same parts as streaming", async () => {
  const answers = [
    "<think>a</think>One [1].<think>b</think>Two [2] and [1].",
    "<think>unclosed",
    "Hello</think> world 🗼 [2]",
  ];
  for (const answer of answers) {
    const model = mockModel([answer]);
    const streamed = await uiParts(model);
    const generated = await generateText({
      model: wrapLanguageModel({ model, middleware: citeflowMiddleware({ sources: SOURCES }) }),
      prompt: "How tall is it?",
    });
    const asUi = generated.content.map((p) =>
      p.type === "source"
        ? { type: p.sourceType === "url" ? "source-url" : "source-document", sourceId: p.id }
        : { ...p, state: "done" }
    );
    // The stream sends a source before the end of its text part; the UI lists it after the text.
    const order = (parts) =>
      view(parts).sort((a, b) => (a[0].startsWith("source") ? 1 : 0) - (b[0].startsWith("source") ? 1 : 0));
    assert.deepEqual(order(asUi), order(streamed), answer);
    assert.equal(generated.text, streamed.filter((p) => p.type === "text").map((p) => p.text).join(""));
  }
});

test("wrapGenerate: content other than text passes through in order", async () => {
  const provided = { type: "source", sourceType: "url", id: "p1", url: "https://example.org/p" };
  const toolCall = { type: "tool-call", toolCallId: "c1", toolName: "search", input: "{}" };
  const middleware = citeflowMiddleware({ sources: SOURCES });
  const { content } = await middleware.wrapGenerate({
    doGenerate: async () => ({ content: [provided, { type: "text", text: "<think>a</think>B [1]" }, toolCall] }),
  });
  assert.deepEqual(content.map((p) => [p.type, p.id ?? p.text ?? p.toolCallId]), [
    ["source", "p1"],
    ["reasoning", "a"],
    ["text", "B [1]"],
    ["source", S1],
    ["tool-call", "c1"],
  ]);
  assert.equal(content[0], provided);
  assert.equal(content[4], toolCall);
});

test("the rest of the stream passes through untouched and in order", async () => {
  const toolCall = { type: "tool-call", toolCallId: "c1", toolName: "search", input: "{}" };
  const raw = { type: "raw", rawValue: { any: "thing" } };
  const source = { type: "source", sourceType: "url", id: "p1", url: "https://example.org/p" };
  const reasoning = [
    { type: "reasoning-start", id: "r" },
    { type: "reasoning-delta", id: "r", delta: "native" },
    { type: "reasoning-end", id: "r" },
  ];
  const model = mockModel(["<think>x</think>Hi [1]"], { before: [raw, ...reasoning, source], after: [toolCall] });
  const wrapped = wrapLanguageModel({ model, middleware: citeflowMiddleware({ sources: SOURCES }) });
  const { stream } = await wrapped.doStream({ prompt: [] });
  const parts = [];
  for await (const p of stream) parts.push(p);
  const kept = (p) => !/^(text|reasoning)-/.test(p.type) && !(p.type === "source" && p.id.startsWith("citeflow"));
  assert.deepEqual(parts.filter(kept), [{ type: "stream-start", warnings: [] }, raw, source, toolCall, FINISH]);
  assert.deepEqual(parts.slice(2, 5), reasoning);
  // The text part's own parts all come before the tool call, its citation on its end.
  const types = parts.map((p) => p.type);
  assert.ok(types.lastIndexOf("text-end") < types.indexOf("tool-call"));
  assert.deepEqual(parts.find((p) => p.type === "text-end").citations.map((c) => [c.startIndex, c.endIndex]), [[3, 6]]);
});

test("a text part the provider leaves open ends before the finish", async () => {
  const model = new MockLanguageModelV4({
    doStream: async () => ({
      stream: simulateReadableStream({
        chunks: [
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "<think>x</think>Hi [1]" },
          FINISH,
        ],
      }),
    }),
  });
  const { stream } = await wrapLanguageModel({ model, middleware: citeflowMiddleware({ sources: SOURCES }) })
    .doStream({ prompt: [] });
  const parts = [];
  for await (const p of stream) parts.push(p);
  const types = parts.map((p) => p.type).filter((t, i, all) => t !== all[i - 1]);
  assert.deepEqual(types, [
    "reasoning-start",
    "reasoning-delta",
    "reasoning-end",
    "text-start",
    "text-delta",
    "source",
    "text-end",
    "finish",
  ]);
  assert.equal(parts.filter((p) => p.type === "text-delta").map((p) => p.delta).join(""), "Hi [1]");
});

test("a provider's own citations: positional through the AI SDK, unharmed by the middleware", async () => {
  // A recorded OpenAI Responses stream (web search, a url_citation annotation after a `’`),
  // read by @ai-sdk/openai through a custom fetch.
  const body = readFileSync(
    new URL("../fixtures/providers/openai-responses/web-search-url-citation-nonascii.sse", import.meta.url),
  );
  const openai = createOpenAI({
    apiKey: "test",
    fetch: async () => new Response(body, { headers: { "content-type": "text/event-stream" } }),
  });
  const plain = await uiParts(openai("gpt-5.2"), []);
  const wrapped = await uiParts(openai("gpt-5.2"), citeflowMiddleware({ sources: SOURCES }));
  // The same parts, but for the id the provider draws at random for its source part.
  const noId = (parts) => parts.map(({ sourceId: _, ...p }) => p);
  assert.deepEqual(noId(wrapped), noId(plain));
  const text = wrapped.find((p) => p.type === "text");
  assert.equal(text.citations.length, 1);
  const [{ startIndex, endIndex, source }] = text.citations;
  assert.equal(text.text.slice(startIndex, endIndex), `([britannica.com](${source.url}))`);
});

test("a provider's citations after a think block are re-based to the answer's text part", async () => {
  const raw = "<think>why</think>Columbia is high ([site](https://example.org/c)).";
  const at = raw.indexOf("([site]");
  const source = { type: "source", sourceType: "url", id: "https://example.org/c", url: "https://example.org/c" };
  const end = { citations: [{ source, startIndex: at, endIndex: raw.length - 1 }] };
  const parts = await uiParts(mockModel([raw.slice(0, 20), raw.slice(20)], { end }));
  const text = parts.find((p) => p.type === "text");
  assert.equal(text.text, "Columbia is high ([site](https://example.org/c)).");
  assert.deepEqual(text.citations.map((c) => text.text.slice(c.startIndex, c.endIndex)), [
    "([site](https://example.org/c))",
  ]);
});

test("a provider's citation across a think block, or without a position, goes on the last answer part", async () => {
  const raw = "Hi <think>x</think>there.";
  const source = { type: "source", sourceType: "url", id: "https://example.org/c", url: "https://example.org/c" };
  const end = { citations: [{ source, startIndex: 0, endIndex: raw.length }, { source, citedText: "there" }] };
  const parts = await uiParts(mockModel([raw], { end }));
  assert.deepEqual(parts.map((p) => [p.type, p.text, p.citations]), [
    ["text", "Hi ", undefined],
    ["reasoning", "x", undefined],
    ["text", "there.", [{ source }, { source, citedText: "there" }]],
  ]);
});

test("options are checked when the middleware is made", () => {
  const refused = [
    [{ sources: SOURCES, bogus: 1 }, "INVALID_OPTION"],
    [{ sources: SOURCES, tags: () => [] }, "INVALID_OPTION"],
    [{ sources: SOURCES, markerStyle: "angle" }, "INVALID_OPTION"],
    [{ markerStyle: "caret" }, "INVALID_OPTION"],
    [{ tags: ["t".repeat(257)] }, "INVALID_OPTION"],
    [{ tags: ["think"], idPrefix: "x" }, "INVALID_OPTION"],
    [{ sources: "tower" }, "INVALID_SOURCE"],
    [{ sources: [] }, "NO_SOURCES"],
    [{ sources: [{ url: 42 }] }, "INVALID_SOURCE"],
    ["sources", "INVALID_OPTION"],
  ];
  for (const [options, code] of refused) {
    assert.throws(() => citeflowMiddleware(options), { name: "CiteflowError", code }, JSON.stringify(options));
  }
  assert.throws(() => citeflowMiddleware({}, {}), { code: "INVALID_OPTION", message: /as argument 2/ });
  const custom = citeflowMiddleware({ tags: [["<r>", "</r>"]], startInThinking: true });
  assert.equal(custom.specificationVersion, "v4");
});

test("custom tags and a stream that starts inside reasoning", async () => {
  const middleware = citeflowMiddleware({ sources: SOURCES, tags: [["<r>", "</r>"]], startInThinking: true });
  assert.deepEqual(view(await uiParts(mockModel(["pre", "fill</r>Yes [1]. <r>more</r>"]), middleware)), [
    ["reasoning", "prefill", "done"],
    ["text", "Yes [1]. ", "done", [[S1, 4, 7]]],
    ["source-url", S1],
    ["reasoning", "more", "done"],
  ]);
});

test("aiSdkRequest: Citeformer's instructions as `instructions`, the prompt as a user message", async () => {
  const request = aiSdkRequest({ prompt: "How tall is it?", sources: SOURCES, markerStyle: "caret", policy: "auto" });
  const citeformer = new Citeformer({ lmInvoker: { invoke: () => "" }, enforce: "prompt" });
  const { messages } = citeformer.request({
    prompt: "How tall is it?",
    sources: SOURCES,
    markerStyle: "caret",
    policy: "auto",
  });
  assert.deepEqual(request, { instructions: messages[0].content, messages: [messages[1]] });
  assert.equal(messages[0].role, "system");

  // streamText takes it as it is; the model is sent the instructions as its system message.
  const model = mockModel(["Tall ^1."]);
  const result = streamText({
    model: wrapLanguageModel({ model, middleware: citeflowMiddleware({ sources: SOURCES, markerStyle: "caret" }) }),
    ...request,
  });
  assert.equal(await result.text, "Tall ^1.");
  assert.deepEqual(model.doStreamCalls[0].prompt[0], { role: "system", content: request.instructions });

  // A conversation is passed as given.
  const conversation = [{ role: "user", content: "Hi" }, { role: "assistant", content: "Hello" }];
  assert.deepEqual(aiSdkRequest({ messages: conversation, sources: SOURCES }).messages, conversation);

  const refused = [
    [{ prompt: "q", sources: SOURCES, enforce: "schema" }, "INVALID_OPTION"],
    [{ prompt: "q", sources: SOURCES, lmInvoker: {} }, "INVALID_OPTION"],
    [{ prompt: "q", messages: [], sources: SOURCES }, "INVALID_OPTION"],
    [{ sources: SOURCES }, "INVALID_OPTION"],
    [{ prompt: 1, sources: SOURCES }, "INVALID_TEXT"],
    [{ prompt: "q", sources: SOURCES, policy: () => "auto" }, "INVALID_OPTION"],
    [{ prompt: "q", sources: SOURCES, markerStyle: "angle" }, "INVALID_OPTION"],
    [{ prompt: "q" }, "NO_SOURCES"],
  ];
  for (const [args, code] of refused) {
    assert.throws(() => aiSdkRequest(args), { name: "CiteflowError", code }, JSON.stringify(args));
  }
});
