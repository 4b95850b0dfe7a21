import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  CitationParser,
  decodeProviderStream,
  OutputTransformerChain,
  ProviderStreamDecoder,
  SSEDecoder,
  ThinkTagOutputTransformer,
} from "citeflow";
import { assertCode, rng } from "./helpers.mjs";

const { cases } = JSON.parse(readFileSync(new URL("../fixtures/provider_streams.json", import.meta.url), "utf8"));
const enc = new TextEncoder();

function bodyOf(bytes, random) {
  return new ReadableStream({
    start(c) {
      let i = 0;
      while (i < bytes.length) {
        const n = 1 + Math.floor(random() * 40);
        c.enqueue(bytes.slice(i, i + n));
        // Empty chunks, as a fetch body may deliver them, change nothing.
        if (random() < 0.2) c.enqueue(new Uint8Array(0));
        i += n;
      }
      c.close();
    },
  });
}

for (const c of cases) {
  test(`fixture: ${c.name}`, async () => {
    const random = rng(c.name.length);
    for (let round = 0; round < 20; round++) {
      const events = [];
      let error = null;
      try {
        for await (const e of decodeProviderStream(bodyOf(enc.encode(c.sse), random), c.format)) events.push(e);
      } catch (e) {
        error = e.code;
      }
      assert.deepEqual(events.map((e) => [e.type, e.value]), c.events);
      assert.equal(error, c.error ?? null);
    }
  });
}

test("a full client-side pipeline: bytes → SSE → OpenAI deltas → think tags → citations", async () => {
  const chunk = (content) =>
    `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const sse = ["<thi", "nk>Source 1 says so.</th", "ink>Water boils [", "1]."].map(chunk).join("") +
    `data: ${
      JSON.stringify({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })
    }\n\ndata: [DONE]\n\n`;
  const chain = new OutputTransformerChain([new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 1 })]);
  const events = [];
  for await (
    const e of decodeProviderStream(bodyOf(enc.encode(sse), rng(3)), "openai").pipeThrough(chain.transformStream())
  ) events.push(e);
  const answer = events.filter((e) => e.type === "response").map((e) => e.value).join("");
  assert.equal(answer, "Water boils [1].");
  assert.equal(events.filter((e) => e.type === "thinking").map((e) => e.value).join(""), "Source 1 says so.");
  const [cite] = events.filter((e) => e.type === "citation").map((e) => e.value);
  assert.equal(answer.slice(...cite.span), "[1]");
});

// ProviderStreamDecoder frames each message again for the engine: fed SSEDecoder's messages
// of a fixture, it gives the fixture's events, and a message's own line breaks stay inside it.
for (const c of cases.filter((c) => c.error === undefined)) {
  test(`fixture through SSEDecoder + ProviderStreamDecoder: ${c.name}`, () => {
    const sse = new SSEDecoder();
    const messages = [...sse.push(c.sse), ...sse.finish()];
    const d = new ProviderStreamDecoder(c.format);
    const events = messages.flatMap((m) => d.push(m));
    events.push(...d.finish());
    assert.deepEqual(events.map((e) => [e.type, e.value]), c.events);
  });
}

test("ProviderStreamDecoder: a message's line breaks stay in its data, its one-line fields are checked", () => {
  const chunk = { choices: [{ index: 0, delta: { content: "a\nb" } }] };
  for (const eol of ["\n", "\r\n", "\r"]) {
    const data = JSON.stringify(chunk, null, 2).replaceAll("\n", eol);
    const events = new ProviderStreamDecoder("openai").push({ event: "message", data, id: "7", retry: 0 });
    assert.deepEqual(events.map((e) => [e.type, e.value]), [["response_start", ""], ["response", "a\nb"]], eol);
  }
  // A blank line inside `data` does not end the message: a second message cannot be smuggled in.
  const two = `${JSON.stringify(chunk)}\n\ndata: ${JSON.stringify(chunk)}`;
  assertCode(() => new ProviderStreamDecoder("openai").push({ data: two }), "INVALID_PROVIDER_DATA");
  for (
    const bad of [
      { data: "{}", event: "message\ndata: [DONE]" },
      { data: "{}", id: "1\r" },
      { data: "{}", event: 1 },
      { data: "{}", id: {} },
      { data: "{}", retry: -1 },
      { data: "{}", retry: 1.5 },
      { data: "{}", retry: "5" },
      { data: 5 },
      {},
    ]
  ) assertCode(() => new ProviderStreamDecoder("openai").push(bad), "INVALID_EVENT");
  // A message far larger than the engine's input buffer so far: its fields' lines, written
  // before the buffer grows for its data, are still there.
  const grown = new ProviderStreamDecoder("openai");
  grown.push({ data: JSON.stringify(chunk) });
  const big = "é".repeat(200_000);
  const [text] = grown.push({
    event: "message",
    id: "9",
    data: JSON.stringify({ choices: [{ delta: { content: big } }] }),
  });
  assert.equal(text.value, big);
  // Held to the byte decoders' default limits, as documented.
  const long = JSON.stringify({ choices: [{ index: 0, delta: { content: "a".repeat(1 << 20) } }] });
  assertCode(() => new ProviderStreamDecoder("openai").push({ data: long }), "SSE_LINE_TOO_LONG");
  // Anthropic's pings are told by their event name.
  const anthropic = new ProviderStreamDecoder("anthropic");
  assert.deepEqual(anthropic.push({ event: "ping", data: '{"type": "ping"}' }), []);
});

test("finish reason, and bad input", () => {
  const d = new ProviderStreamDecoder("openai");
  d.push({ data: JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "length" }] }) });
  assert.equal(d.finishReason, "length");
  assert.deepEqual(d.finish(), []);
  assertCode(() => new ProviderStreamDecoder("gemini"), "UNKNOWN_PROVIDER");
  assertCode(() => new ProviderStreamDecoder("openai").push("data: x"), "INVALID_EVENT");
  assertCode(() => new ProviderStreamDecoder("openai").push({ data: "{not json" }), "INVALID_PROVIDER_DATA");
  assertCode(() => new ProviderStreamDecoder("anthropic").push({ data: "{}" }), "INVALID_PROVIDER_DATA");
  assertCode(() => decodeProviderStream("body", "openai"), "INVALID_OPTION");
  assert.ok(new SSEDecoder());
});

test("hostile block indexes: no panic, no gigabytes, the instance keeps working", () => {
  for (const index of [4294967295, 1.5e9, 2 ** 53]) {
    const d = new ProviderStreamDecoder("anthropic");
    const events = d.push({
      data: JSON.stringify({ type: "content_block_start", index, content_block: { type: "text" } }),
    });
    assert.deepEqual(events.map((e) => e.type), ["response_start"]);
    assert.deepEqual(d.push({ data: JSON.stringify({ type: "content_block_stop", index }) }).map((e) => e.type), [
      "response_end",
    ]);
  }
  assertCode(
    () =>
      new ProviderStreamDecoder("anthropic").push({
        data: JSON.stringify({ type: "content_block_start", index: -1, content_block: { type: "text" } }),
      }),
    "INVALID_PROVIDER_DATA",
  );
  assert.equal(new SSEDecoder().push("data: still alive\n\n")[0].data, "still alive");
});

test("usage objects keep a __proto__ key as an own key, on every decoder path", async () => {
  const data = '{"choices": [], "usage": {"prompt_tokens": 1, "__proto__": {"polluted": true}}}';
  const check = (usage, where) => {
    assert.equal(Object.getPrototypeOf(usage), Object.prototype, where);
    assert.ok(Object.hasOwn(usage, "__proto__"), where);
    assert.equal(usage.polluted, undefined, where);
  };
  check(new ProviderStreamDecoder("openai").push({ data })[0].value.raw, "ProviderStreamDecoder.push");
  const anthropic = new ProviderStreamDecoder("anthropic");
  anthropic.push({
    data: '{"type": "message_start", "message": {"id": "m", "usage": {"__proto__": {"polluted": true}}}}',
  });
  check(
    anthropic.push({ data: '{"type": "message_delta", "delta": {}, "usage": {"output_tokens": 2}}' })[0].value.raw,
    "anthropic message_start + message_delta",
  );
  const events = [];
  for await (
    const e of decodeProviderStream(ReadableStream.from([enc.encode(`data: ${data}\n\ndata: [DONE]\n\n`)]), "openai")
  ) events.push(e);
  check(events[0].value.raw, "decodeProviderStream");
});
