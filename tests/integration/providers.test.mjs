// The Chat-Completions-shaped providers beyond OpenAI's (Perplexity, Mistral) against the real
// local model: their requests are what an OpenAI-like server takes, and their answers, whole and
// streamed, read as any other provider's. (The Responses API, Gemini and Cohere speak their own
// wire formats, which this server does not: recorded answers test those, tests/js/provider_fixtures.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildLMInvoker } from "citeflow";
import { base, drain, textOf } from "./support.mjs";

const HELLO = [{ role: "user", content: "Say hello to Ada in one short sentence." }];

for (const provider of ["perplexity", "mistral"]) {
  test(`${provider}/: invoke and stream give the same greedy answer from an OpenAI-like server`, async () => {
    const requests = [];
    const fetch = (url, init) => {
      requests.push({ url: String(url), body: JSON.parse(init.body) });
      return globalThis.fetch(url, init);
    };
    const lm = buildLMInvoker(`${provider}/SmolLM2-135M-Instruct`, { baseUrl: base, apiKey: "local", fetch });
    const whole = await lm.invoke(HELLO, { temperature: 0, maxTokens: 12 });
    const text = textOf(whole);
    assert.ok(text.length > 0);
    assert.ok(whole.usage.outputTokens >= 1 && whole.usage.outputTokens <= 12);
    assert.equal(whole.usage.totalTokens, whole.usage.inputTokens + whole.usage.outputTokens);

    const events = await drain(lm.stream(HELLO, { temperature: 0, maxTokens: 12 }));
    const pieces = events.filter((e) => e.type === "response").map((e) => e.value);
    assert.ok(pieces.length > 1, "streamed as several chunks");
    assert.equal(pieces.join(""), text);
    assert.deepEqual(events.filter((e) => e.type === "citation"), [], "no sources, no citations");

    assert.deepEqual(requests.map((r) => [new URL(r.url).pathname, r.body.stream ?? false]), [
      ["/v1/chat/completions", false],
      ["/v1/chat/completions", true],
    ]);
  });
}
