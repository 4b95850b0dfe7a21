// The core's streaming engine as the JS face uses it: a provider decoder running the
// transformers in the same engine, and chains of built-in transformers running as one engine,
// give the same events as each transformer run on its own (their JS fast paths included),
// for any split of the input.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  CitationParser,
  EventFilterOutputTransformer,
  JSONOutputTransformer,
  OutputTransformer,
  OutputTransformerChain,
  OutputTransformerConfig,
  ProviderBodyDecoder,
  ThinkTagOutputTransformer,
  ValidationOutputTransformer,
} from "citeflow";
import { assertCode, merged, pickPiece, rng } from "./helpers.mjs";

const PIECES = [
  "<think>",
  "</think>",
  "<th",
  "ink>",
  "</",
  "<",
  "a",
  "b c",
  "é",
  "😀",
  "[",
  "]",
  "1",
  "2",
  "[1]",
  "(2)",
  " ",
  ".",
  "[1, 2]",
  "\n\n",
];

function randomText(random) {
  let s = "";
  const n = Math.floor(random() * 40);
  for (let i = 0; i < n; i++) s += pickPiece(random, PIECES);
  return s;
}

/** `text` as an OpenAI-style SSE body, one delta per piece, cut into byte chunks anywhere. */
function body(text, random) {
  const deltas = [];
  for (let i = 0; i < text.length;) {
    let j = Math.min(text.length, i + 1 + Math.floor(random() * 8));
    if (j < text.length && /[\udc00-\udfff]/.test(text[j])) j++;
    deltas.push(text.slice(i, j));
    i = j;
  }
  const lines = deltas.map((content) =>
    `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { content } }] })}\n\n`
  );
  lines.push(
    `data: ${
      JSON.stringify({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
    }\n\ndata: [DONE]\n\n`,
  );
  const bytes = new TextEncoder().encode(lines.join(""));
  const chunks = [];
  for (let i = 0; i < bytes.length;) {
    const j = Math.min(bytes.length, i + 1 + Math.floor(random() * 300));
    chunks.push(bytes.slice(i, j));
    i = j;
  }
  return chunks;
}

/** What a UI shows: text merged per block, citations apart (where one falls between text depends on the chunks). */
function shown(events) {
  return {
    events: merged(events.filter((e) => e.type !== "citation" && !(e.type === "response" && e.value === ""))),
    citations: events.filter((e) => e.type === "citation").map((e) => e.value),
  };
}

const transformers = () => [
  new ThinkTagOutputTransformer({ idPrefix: "t" }),
  new CitationParser({ sourceCount: 2 }),
  new EventFilterOutputTransformer(["response", "thinking", "citation"]),
];

function separately(chunks) {
  const decoder = new ProviderBodyDecoder("openai");
  let events = [];
  for (const c of chunks) events.push(...decoder.push(c));
  events.push(...decoder.finish());
  for (const t of transformers()) {
    const next = [];
    for (const e of events) next.push(...t.push(e));
    next.push(...t.finish());
    events = next;
  }
  return events;
}

test("a decoder running the transformers gives what they give one by one, for any split", () => {
  const random = rng(11);
  for (let round = 0; round < 300; round++) {
    const chunks = body(randomText(random), random);
    const fused = new ProviderBodyDecoder("openai", { transformers: transformers() });
    const events = [];
    for (const c of chunks) events.push(...fused.push(c));
    events.push(...fused.finish());
    assert.deepEqual(shown(events), shown(separately(chunks)), `round ${round}`);
    assert.equal(fused.finishReason, "stop");
  }
});

test("a chain of built-in transformers (one engine) gives what they give one by one", () => {
  const random = rng(12);
  for (let round = 0; round < 300; round++) {
    const text = randomText(random);
    const chunks = [];
    for (let i = 0; i < text.length;) {
      let j = Math.min(text.length, i + 1 + Math.floor(random() * 6));
      if (j < text.length && /[\udc00-\udfff]/.test(text[j])) j++;
      chunks.push(
        random() < 0.5 ? text.slice(i, j) : { id: "m", type: "response", value: text.slice(i, j), valueType: "text" },
      );
      i = j;
    }
    const chain = new OutputTransformerChain(transformers());
    const events = [];
    for (const c of chunks) events.push(...chain.push(c));
    events.push(...chain.finish());
    let one = chunks;
    for (const t of transformers()) {
      const next = [];
      for (const e of one) next.push(...t.push(e));
      next.push(...t.finish());
      one = next;
    }
    assert.deepEqual(shown(events), shown(one), `round ${round}`);
  }
});

test("configs work as transformers of a decoder; fields of an event's own are kept by a chain", () => {
  const decoder = new ProviderBodyDecoder("openai", {
    transformers: [OutputTransformerConfig.thinkTag(), { type: "citations", kwargs: { sourceCount: 1 } }],
  });
  const events = [
    ...decoder.push(
      new TextEncoder().encode(
        'data: {"choices":[{"delta":{"content":"<think>x</think>A [1]."},"finish_reason":"stop"}]}\n\n',
      ),
    ),
    ...decoder.finish(),
  ];
  assert.deepEqual(events.filter((e) => e.type === "citation").map((e) => e.value.sourceId), [1]);
  assert.equal(events.filter((e) => e.type === "thinking")[0].value, "x");

  const chain = new OutputTransformerChain([new CitationParser()]);
  const out = [
    ...chain.push({ type: "response", value: "Water [1].", level: 2 }),
    ...chain.push({ type: "status", value: { step: 1 } }),
    ...chain.finish(),
  ];
  assert.ok(out.filter((e) => e.type === "response").every((e) => e.level === 2));
  assert.deepEqual(out.find((e) => e.type === "status").value, { step: 1 });
});

test("transformers written in JS: a chain runs them on their own, a decoder refuses them", () => {
  class Upper extends OutputTransformer {
    push(e) {
      return [typeof e === "string" ? e.toUpperCase() : { ...e, value: String(e.value).toUpperCase() }];
    }
    finish() {
      return [];
    }
  }
  const chain = new OutputTransformerChain([new Upper(), new CitationParser()]);
  const out = [...chain.push("water [1]."), ...chain.finish()];
  assert.equal(out.filter((e) => e.type === "response").map((e) => e.value).join(""), "WATER [1].");
  assertCode(() => new ProviderBodyDecoder("openai", { transformers: [new Upper()] }), "INVALID_OPTION");
  assertCode(() => new ProviderBodyDecoder("openai", { transformer: [] }), "INVALID_OPTION");
  assertCode(() => new ProviderBodyDecoder("openai", { transformers: [{ type: "magic" }] }), "UNKNOWN_TRANSFORMER");
  assertCode(
    () => new ProviderBodyDecoder("openai", { transformers: [{ type: "citations", kwargs: { sourceCont: 1 } }] }),
    "INVALID_OPTION",
  );
});

test("a finished stream releases its wasm memory at once (not at garbage collection), and refuses more input", async () => {
  const { internals } = await import("../portable/internals.mjs");
  const body = new TextEncoder().encode(
    'data: {"choices":[{"delta":{"content":"<think>x</think>A [1]."},"finish_reason":"stop"}]}\n\n',
  );
  const configs = [OutputTransformerConfig.thinkTag(), OutputTransformerConfig.citations({ sourceCount: 2 })];
  const keep = [];
  const run = () => {
    // Configs, not built transformers: these test the decoder's own memory only.
    const decoder = new ProviderBodyDecoder("openai", { transformers: configs });
    decoder.push(body);
    decoder.finish();
    keep.push(decoder); // still reachable: only finish() can have released it
    return decoder;
  };
  for (let i = 0; i < 200; i++) run();
  const before = internals.stream().memoryBytes();
  for (let i = 0; i < 20000; i++) run();
  assert.ok(
    internals.stream().memoryBytes() - before < 4 << 20,
    `wasm memory grew by ${internals.stream().memoryBytes() - before} bytes over 20,000 finished decoders`,
  );
  const last = keep.at(-1);
  assert.equal(last.finishReason, "stop");
  assertCode(() => last.push(body), "STREAM_FINISHED");
  assertCode(() => last.finish(), "STREAM_FINISHED");
});

test("a finished JSON, validation or event-filter transformer releases its wasm memory at once, keeps what it answers after, and refuses more input", async () => {
  const text = (t) => ({ type: "response", id: "a", value: t, valueType: "text" });
  const answer = JSON.stringify({ answer: "x".repeat(2000) });
  const machines = [
    [() => new JSONOutputTransformer(), (t) => t.push(text(answer))],
    [() => new ValidationOutputTransformer({ requiredTypes: ["text"] }), (t) => t.push(text(answer))],
    [() => new EventFilterOutputTransformer(["response"]), (t) => t.push(text("x"))],
  ];
  for (const [make, use] of machines) {
    const keep = [];
    const grew = await growth(20000, () => {
      const t = make();
      use(t);
      t.finish();
      keep.push(t); // still reachable: only finish() can have released its core
    });
    const last = keep.at(-1);
    // Unreleased, 20,000 finished cores measured 1.5-2.5 MB (the memory grows by 64 KB pages).
    assert.ok(grew < 1 << 20, `wasm memory grew by ${grew} bytes over 20,000 finished ${last.constructor.name}s`);
    assertCode(() => last.push(text("y")), "STREAM_FINISHED");
    assertCode(() => last.finish(), "STREAM_FINISHED");
  }
  // After finish: a whole output is still transformed, the allowed types still read.
  const json = new JSONOutputTransformer();
  json.finish();
  const output = { outputs: [{ type: "text", output: '{"b": 2}' }] };
  assert.deepEqual(json.transform(output), new JSONOutputTransformer().transform(output));
  const filter = new EventFilterOutputTransformer(["response"]);
  const allowed = filter.allowedEventTypes;
  filter.finish();
  assert.deepEqual(filter.allowedEventTypes, allowed);
});

// A stream given up on (a failed finish, a cancelled or failed transformStream, an invoker's
// stream stopped mid-answer) lets its wasm memory go at once too, not at garbage collection:
// every machine below stays reachable, so only the release can have freed it.
const cutBody = new TextEncoder().encode('data: {"choices":[{"delta":{"content":"<think>x</think>A [1"}}]}\n\n');
const stageConfigs = () => [OutputTransformerConfig.thinkTag(), OutputTransformerConfig.citations({ sourceCount: 2 })];

// How much the streaming modules' memory (the lean one's and the full one's) grows over `n` runs.
async function growth(n, run) {
  const init = (await import("citeflow")).default;
  const { stream, full } = init[Symbol.for("citeflow.internals")];
  const bytes = () => stream.memoryBytes() + full.memoryBytes();
  for (let i = 0; i < 100; i++) await run();
  const before = bytes();
  for (let i = 0; i < n; i++) await run();
  return bytes() - before;
}

test("a stream whose finish fails (a provider stream cut short) releases its wasm memory and refuses more input", async () => {
  const keep = [];
  const grew = await growth(20000, () => {
    const decoder = new ProviderBodyDecoder("openai", { transformers: stageConfigs() });
    decoder.push(cutBody);
    assertCode(() => decoder.finish(), "STREAM_TRUNCATED");
    keep.push(decoder);
  });
  assert.ok(grew < 4 << 20, `wasm memory grew by ${grew} bytes over 20,000 decoders whose finish failed`);
  assertCode(() => keep.at(-1).push(cutBody), "STREAM_FINISHED");
  assertCode(() => keep.at(-1).finish(), "STREAM_FINISHED");
});

test("a transformStream() cancelled, aborted or failed mid-stream releases its wasm memory", async () => {
  const keep = [];
  const machines = [
    () => new ProviderBodyDecoder("openai", { transformers: stageConfigs() }),
    () => new ThinkTagOutputTransformer(),
    () => new CitationParser({ sourceCount: 2 }),
    () => new OutputTransformerChain([new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 2 })]),
    () => new JSONOutputTransformer(),
    () => new ValidationOutputTransformer({ requiredTypes: ["text"] }),
    () => new EventFilterOutputTransformer(["response"]),
  ];
  // 2 KB of answer: what a stage that keeps the answer's text (JSON extraction) holds.
  const text = `<think>x</think>${"Some words. ".repeat(170)}A [1`;
  const input = (
    m,
  ) => (m instanceof ProviderBodyDecoder
    ? cutBody
    : m instanceof EventFilterOutputTransformer
    ? { type: "response", value: text, valueType: "text" }
    : text);
  for (
    const [how, end] of [
      ["cancelled", ({ reader }) => reader.cancel("stop")],
      ["aborted", ({ writer }) => writer.abort("stop")],
    ]
  ) {
    for (const make of machines) {
      const grew = await growth(3000, async () => {
        const template = make();
        const stream = template.transformStream();
        const writer = stream.writable.getWriter();
        const reader = stream.readable.getReader();
        writer.write(input(template)).catch(() => {});
        await reader.read();
        await end({ writer, reader });
        try {
          template.finish(); // the template's own engine (unused): not what is measured
        } catch {
          // a decoder given nothing is cut short
        }
        keep.push(stream);
      });
      assert.ok(
        grew < 4 << 20,
        `${how}: wasm memory grew by ${grew} bytes over 3,000 streams of ${make().constructor.name}`,
      );
    }
  }
  // A push that throws errors the stream: its machine is let go at once too.
  const grew = await growth(3000, async () => {
    const stream = new ProviderBodyDecoder("openai").transformStream();
    const writer = stream.writable.getWriter();
    const reader = stream.readable.getReader();
    writer.write(new TextEncoder().encode("data: {not json}\n\n")).catch(() => {});
    await assert.rejects(reader.read(), (e) => e.code === "INVALID_PROVIDER_DATA");
    keep.push(stream);
  });
  assert.ok(grew < 4 << 20, `failed: wasm memory grew by ${grew} bytes over 3,000 streams`);
});

test("an invoker's stream stopped mid-answer, and decodeProviderStream, release their wasm memory", async () => {
  const { buildLMInvoker, decodeProviderStream } = await import("citeflow");
  const keep = [];
  // A provider that sends one chunk and then nothing more until the caller gives up.
  const fetch = async () =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(cutBody);
        },
      }),
      { headers: { "content-type": "text/event-stream" } },
    );
  const lm = buildLMInvoker("openai-compatible/m", {
    baseUrl: "http://127.0.0.1:9/v1",
    fetch,
    outputTransformers: stageConfigs(),
  });
  const stopped = await growth(2000, async () => {
    const stream = lm.stream("Hi");
    const reader = stream.getReader();
    await reader.read();
    await reader.cancel("stop");
    keep.push(stream);
  });
  assert.ok(stopped < 4 << 20, `wasm memory grew by ${stopped} bytes over 2,000 stopped invoker streams`);
  const whole = new TextEncoder().encode(
    'data: {"choices":[{"delta":{"content":"A [1]."},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n',
  );
  const decoded = await growth(2000, async () => {
    const body = new Response(whole).body;
    const events = decodeProviderStream(body, "openai", { transformers: stageConfigs() });
    for await (const _ of events);
    keep.push(events);
  });
  assert.ok(decoded < 4 << 20, `wasm memory grew by ${decoded} bytes over 2,000 decoded bodies`);
});

test("transformers a decoder or chain runs as its stages hold no wasm memory of their own, and still work alone", async () => {
  const { internals } = await import("../portable/internals.mjs");
  const body = new TextEncoder().encode(
    'data: {"choices":[{"delta":{"content":"<think>x</think>A [1]."},"finish_reason":"stop"}]}\n\n',
  );
  const keep = [];
  const run = () => {
    const stages = [new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 2 })];
    const decoder = new ProviderBodyDecoder("openai", { transformers: stages });
    decoder.push(body);
    decoder.finish();
    keep.push(stages); // still reachable: nothing was left to garbage collection
  };
  for (let i = 0; i < 200; i++) run();
  const before = internals.stream().memoryBytes();
  for (let i = 0; i < 20000; i++) run();
  assert.ok(
    internals.stream().memoryBytes() - before < 4 << 20,
    `wasm memory grew by ${internals.stream().memoryBytes() - before} bytes over 20,000 decoders' transformers`,
  );
  // A transformer a decoder and a chain took as stages, then used on its own, gives what a
  // new one gives, its ids (its own prefix) and getters included.
  const think = new ThinkTagOutputTransformer({ idPrefix: "p" });
  const cite = new CitationParser({ sourceCount: 2 });
  new ProviderBodyDecoder("openai", { transformers: [think, cite] });
  new OutputTransformerChain([think, cite]);
  const chunks = ["<thi", "nk>a</think>B [", "1] c [2](x)."];
  const alone = (t) => [...chunks.flatMap((c) => t.push(c)), ...t.finish()];
  assert.deepEqual(alone(think), alone(new ThinkTagOutputTransformer({ idPrefix: "p" })));
  assert.equal(think.responseId, "p-2");
  assert.deepEqual(alone(cite), alone(new CitationParser({ sourceCount: 2 })));
  // One with a prefix of its own making keeps it: its blocks are still its own.
  const unnamed = new ThinkTagOutputTransformer();
  new OutputTransformerChain([unnamed]);
  const events = alone(unnamed);
  assert.equal(unnamed.thinkingId, events[0].id);
  assert.ok(unnamed.responseId.startsWith(events[0].id.replace(/-\d+$/, "")));
});

test("block ids come back as given when a stream interleaves more blocks than the engine looks up by number", () => {
  // The engine numbers an id once among the 32 it numbered last; an id out of those gets a new
  // number with the same string. Each event's id must come back as sent, whatever the number.
  const sent = [];
  for (let round = 0; round < 3; round++) {
    for (let i = 0; i < 40; i++) {
      const id = round === 1 ? `block-${39 - i}` : `block-${i}`;
      sent.push({ type: "response", id, value: `r${round} [${i % 3}] ` });
      sent.push({ type: "thinking", id: `why-${i}`, value: `t${i} ` });
    }
  }
  for (let unique = 0; unique < 2000; unique++) {
    sent.push({ type: "response", id: `once-${unique}`, value: `${unique} ` });
  }
  const runs = [
    new CitationParser({ sourceCount: 3 }),
    new OutputTransformerChain([new CitationParser({ sourceCount: 3 })]),
  ];
  for (const transformer of runs) {
    const got = [];
    for (const e of sent) got.push(...transformer.push(e));
    got.push(...transformer.finish());
    const texts = got.filter((e) => e.type === "response" || e.type === "thinking");
    assert.deepEqual(
      texts.map((e) => [e.type, e.id, e.value]),
      sent.map((e) => [e.type, e.id, e.value]),
    );
    assert.equal(got.filter((e) => e.type === "citation").length, 120);
  }
});
