import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { CitationParser, OutputTransformerChain, ProviderStreamDecoder, SSEDecoder, ThinkTagOutputTransformer, decodeProviderStream } from "citeflow";
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
  const chunk = (content) => `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: { content }, finish_reason: null }] })}\n\n`;
  const sse = ["<thi", "nk>Source 1 says so.</th", "ink>Water boils [", "1]."].map(chunk).join("") + `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta: {}, finish_reason: "stop" }] })}\n\ndata: [DONE]\n\n`;
  const chain = new OutputTransformerChain([new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 1 })]);
  const events = [];
  for await (const e of decodeProviderStream(bodyOf(enc.encode(sse), rng(3)), "openai").pipeThrough(chain.transformStream())) events.push(e);
  const answer = events.filter((e) => e.type === "response").map((e) => e.value).join("");
  assert.equal(answer, "Water boils [1].");
  assert.equal(events.filter((e) => e.type === "thinking").map((e) => e.value).join(""), "Source 1 says so.");
  const [cite] = events.filter((e) => e.type === "citation").map((e) => e.value);
  assert.equal(answer.slice(...cite.span), "[1]");
});

test("finish reason, and bad input", () => {
  const d = new ProviderStreamDecoder("openai");
  d.push({ data: JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: "length" }] }) });
  assert.equal(d.finishReason, "length");
  assert.deepEqual(d.finish(), []);
  assertCode(() => new ProviderStreamDecoder("cohere"), "UNKNOWN_PROVIDER");
  assertCode(() => new ProviderStreamDecoder("openai").push("data: x"), "INVALID_EVENT");
  assertCode(() => new ProviderStreamDecoder("openai").push({ data: "{not json" }), "INVALID_PROVIDER_DATA");
  assertCode(() => new ProviderStreamDecoder("anthropic").push({ data: "{}" }), "INVALID_PROVIDER_DATA");
  assertCode(() => decodeProviderStream("body", "openai"), "INVALID_OPTION");
  assert.ok(new SSEDecoder());
});
