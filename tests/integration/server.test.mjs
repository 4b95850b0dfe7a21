// The model server's OpenAI-compatible surface where citeflow's invokers do not reach: stop
// strings, seeds, JSON mode, and requests it must refuse.
import assert from "node:assert/strict";
import { test } from "node:test";
import { base, post } from "./support.mjs";

const ASK = [{ role: "user", content: "Count from one to ten in words, separated by commas." }];

test("/v1/models names both models", async () => {
  const { data } = await (await fetch(`${base}/models`)).json();
  assert.deepEqual(data.map((m) => m.id), ["SmolLM2-135M-Instruct", "all-MiniLM-L6-v2"]);
});

test("a stop string ends the answer before it, streamed or whole", async () => {
  const whole = await post("/chat/completions", { messages: ASK, max_tokens: 40 });
  const full = whole.body.choices[0].message.content;
  const stop = full.includes(",") ? "," : full.slice(3, 5);
  const cut = full.slice(0, full.indexOf(stop));
  const stopped = await post("/chat/completions", { messages: ASK, max_tokens: 40, stop: [stop] });
  assert.equal(stopped.body.choices[0].message.content, cut);
  assert.equal(stopped.body.choices[0].finish_reason, "stop");
  const res = await fetch(`${base}/chat/completions`, {
    method: "POST",
    body: JSON.stringify({ messages: ASK, max_tokens: 40, stop, stream: true }),
  });
  const chunks = (await res.text()).split("\n\n").filter((l) => l.startsWith("data: {")).map((l) =>
    JSON.parse(l.slice(6))
  );
  assert.equal(chunks.map((c) => c.choices[0]?.delta?.content ?? "").join(""), cut);
  assert.equal(chunks.at(-2).choices[0].finish_reason, "stop");
  assert.deepEqual(Object.keys(chunks.at(-1).usage).sort(), ["completion_tokens", "prompt_tokens", "total_tokens"]);
});

test("sampling with the same seed repeats; greedy decoding always does", async () => {
  const sample = async (seed) =>
    (await post("/chat/completions", { messages: ASK, max_tokens: 16, temperature: 1, seed })).body.choices[0].message
      .content;
  assert.equal(await sample(7), await sample(7));
  const greedy = async () =>
    (await post("/chat/completions", { messages: ASK, max_tokens: 16, temperature: 0 })).body.choices[0].message
      .content;
  assert.equal(await greedy(), await greedy());
});

test("JSON mode answers one complete JSON value and stops there", async () => {
  const schema = {
    type: "object",
    properties: { name: { type: "string" }, year: { type: "integer" } },
    required: ["name", "year"],
    additionalProperties: false,
  };
  const out = await post("/chat/completions", {
    messages: [{ role: "user", content: "Which tower was completed in 1889? Answer in JSON." }],
    max_tokens: 60,
    response_format: { type: "json_schema", json_schema: { name: "tower", schema } },
  });
  const value = JSON.parse(out.body.choices[0].message.content);
  assert.deepEqual(Object.keys(value).sort(), ["name", "year"]);
  assert.ok(Number.isInteger(value.year));
  assert.equal(out.body.choices[0].finish_reason, "stop");
});

test("bad requests are 400s with an OpenAI-style error", async () => {
  for (
    const body of [
      { messages: "hi" },
      { messages: ASK, grammar: "root ::= (" },
      { messages: ASK, temperature: 3 },
      { messages: ASK, top_logprobs: 2 },
      { messages: ASK, grammar: 'root ::= "a"', response_format: { type: "json_object" } },
      { messages: ASK, max_tokens: 5000 },
      { messages: ASK, max_tokens: 2040, stream: true }, // prompt + answer beyond the 2048-token context
    ]
  ) {
    const res = await post("/chat/completions", body);
    assert.equal(res.status, 400, JSON.stringify(body));
    assert.equal(res.body.error.type, "invalid_request_error");
  }
  assert.equal((await post("/embeddings", { input: [1, 2] })).status, 400);
});
