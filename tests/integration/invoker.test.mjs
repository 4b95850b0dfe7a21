// citeflow's LM invoker against a real model over real SSE: whole and streamed answers agree,
// token usage and log-probabilities come through, and a real tokenizer cuts markers anywhere.
import assert from "node:assert/strict";
import { test } from "node:test";
import { CitationParser, parseCitations, ThinkTagOutputTransformer } from "citeflow";
import { boundedCitationGrammar, SMALL_MODEL, withCitedExample } from "../../www/small-model.js";
import { drain, lm, SOURCES, sourcesPrompt, textOf } from "./support.mjs";

const HELLO = [{ role: "user", content: "Say hello to Ada in one short sentence." }];

test("invoke and stream give the same greedy answer; the stream ends with its token usage", async () => {
  const whole = await lm.invoke(HELLO, { temperature: 0, maxTokens: 12 });
  const text = textOf(whole);
  assert.ok(text.length > 0);
  assert.equal(whole.usage.outputTokens, whole.usage.totalTokens - whole.usage.inputTokens);
  assert.ok(whole.usage.outputTokens >= 1 && whole.usage.outputTokens <= 12);
  assert.equal(whole.usage.raw.completion_tokens, whole.usage.outputTokens, "the server's own report under raw");

  const events = await drain(lm.stream(HELLO, { temperature: 0, maxTokens: 12 }));
  const pieces = events.filter((e) => e.type === "response").map((e) => e.value);
  assert.ok(pieces.length > 1, "streamed as several chunks");
  assert.equal(pieces.join(""), text);
  const usage = events.filter((e) => e.type === "usage");
  assert.equal(usage.length, 1);
  assert.equal(events.at(-1).type, "usage");
  assert.deepEqual(usage[0].value, whole.usage);
});

test("maxTokens bounds the answer and logprobs come back per token, greedy picking the most likely", async () => {
  const out = await lm.invoke(HELLO, { temperature: 0, maxTokens: 5, logprobs: true, topLogprobs: 3 });
  assert.equal(out.usage.outputTokens, 5);
  assert.equal(out.finishReason, "length");
  const tokens = out.logprobs.content;
  assert.equal(tokens.length, 5);
  assert.equal(tokens.map((t) => t.token).join(""), textOf(out));
  for (const t of tokens) {
    assert.equal(t.top_logprobs.length, 3);
    assert.ok(t.logprob <= 0);
    assert.equal(t.top_logprobs[0].token, t.token, "temperature 0 takes the most likely token");
    assert.ok(
      t.top_logprobs[0].logprob >= t.top_logprobs[1].logprob && t.top_logprobs[1].logprob >= t.top_logprobs[2].logprob,
    );
    assert.deepEqual(t.bytes, [...Buffer.from(t.token)]);
  }
});

test("markers cut by real tokenisation are found as they stream, as in the whole text", async () => {
  const sources = SOURCES;
  const messages = withCitedExample([
    {
      role: "system",
      content: `Answer from the numbered sources below only. Cite a source as [N].\n\n${sourcesPrompt(sources)}`,
    },
    { role: "user", content: "How do honeybees tell each other where food is?" },
  ]);
  const grammar = boundedCitationGrammar({ sourceCount: sources.length });
  const events = await drain(
    lm.stream(messages, { grammar, temperature: 0, maxTokens: SMALL_MODEL.maxTokens })
      .pipeThrough(new ThinkTagOutputTransformer().transformStream())
      .pipeThrough(new CitationParser({ sourceCount: sources.length }).transformStream()),
  );
  const text = events.filter((e) => e.type === "response").map((e) => e.value).join("");
  const streamed = events.filter((e) => e.type === "citation").map((e) => e.value);
  assert.ok(streamed.length >= 1, text);
  assert.deepEqual(streamed, parseCitations(text, { sourceCount: sources.length }));
  for (const c of streamed) assert.equal(text.slice(...c.span), c.marker);
});

test("a marker arrives split across network chunks (the tokenizer's pieces)", async () => {
  const messages = [{ role: "user", content: "Repeat exactly: Bees dance [2]." }];
  const pieces =
    (await drain(lm.stream(messages, { temperature: 0, maxTokens: 40, grammar: 'root ::= "Bees dance [2]."' }))).filter(
      (e) => e.type === "response",
    ).map((e) => e.value);
  assert.equal(pieces.join(""), "Bees dance [2].");
  assert.ok(!pieces.some((p) => p.includes("[2]")), `the marker is cut: ${JSON.stringify(pieces)}`);
});
