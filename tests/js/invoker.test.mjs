import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { DMQuestion, buildDMInvoker, buildEMInvoker, buildLMInvoker, Citeformer, CitationParser, OutputTransformerConfig } from "citeflow";
import { assertCode } from "./helpers.mjs";
import { startFakeProvider } from "./support/fake-provider.mjs";

let server;
before(async () => (server = await startFakeProvider()));
after(() => server.close());

const openai = (model, options = {}) => buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: server.base, ...options });

test("invoke: OpenAI-compatible answer as an LMOutput, request as the API expects", async () => {
  const out = await openai("ok").invoke([{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }], { temperature: 0.2, maxTokens: 50 });
  assert.deepEqual(out.outputs, [{ type: "text", output: "<think>hidden</think>Hello [1]." }]);
  assert.deepEqual(out.usage, { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 });
  assert.equal(out.finishReason, "stop");
  const sent = server.requests.at(-1);
  assert.equal(sent.headers.authorization, "Bearer sk-test");
  assert.deepEqual(sent.body, { model: "ok", messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }], temperature: 0.2, max_tokens: 50 });
});

test("output transformers apply to whole answers and to streams", async () => {
  const lm = openai("ok", { outputTransformers: ["think_tag"] });
  assert.deepEqual((await lm.invoke("Hi")).outputs, [{ type: "thinking", output: "hidden" }, { type: "text", output: "Hello [1]." }]);
  const events = [];
  for await (const e of openai("ok", { outputTransformers: [OutputTransformerConfig.thinkTag()] }).stream("Hi")) events.push(e);
  const text = (type) => events.filter((e) => e.type === type).map((e) => e.value).join("");
  assert.equal(text("thinking"), "Think.more");
  assert.equal(text("response"), "Water boils at 100 °C [1].");
  assert.deepEqual(events.find((e) => e.type === "usage").value, { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 });
  assert.equal(server.requests.at(-1).body.stream, true);
});

test("reasoning_content and structured output", async () => {
  assert.deepEqual((await openai("reasoner").invoke("Hi")).outputs, [{ type: "thinking", output: "Because." }, { type: "text", output: "Answer." }]);
  const out = await openai("ok", { outputTransformers: ["json"] }).invoke("Hi", { responseSchema: { type: "object", properties: { answer: { type: "number" } } } });
  assert.deepEqual(out.outputs, [{ type: "structured", output: { answer: 42 } }]);
  assert.equal(server.requests.at(-1).body.response_format.type, "json_schema");
});

test("retries 429 (honouring Retry-After) and 5xx, not other 4xx", async () => {
  assert.equal((await openai("flaky-429").invoke("Hi")).outputs.length, 1);
  assert.equal((await openai("flaky-500").invoke("Hi")).outputs.length, 1);
  const before = server.requests.length;
  await assert.rejects(openai("bad-request").invoke("Hi"), (e) => {
    assert.equal(e.code, "PROVIDER_ERROR");
    assert.equal(e.status, 400);
    assert.equal(e.providerCode, "model_not_found");
    assert.match(e.providerMessage, /does not exist/);
    assert.equal(e.retryable, false);
    return true;
  });
  assert.equal(server.requests.length - before, 1, "no retry on 400");
  await assert.rejects(openai("always-503", { maxRetries: 1 }).invoke("Hi"), (e) => e.status === 503 && e.retryable && e.attempts === 2);
});

test("errors never carry the API key", async () => {
  const lm = buildLMInvoker("openai-compatible/ok", { apiKey: "sk-secret-123", baseUrl: server.base });
  await assert.rejects(lm.invoke("Hi"), (e) => {
    assert.equal(e.status, 401);
    assert.doesNotMatch(JSON.stringify({ m: e.message, p: e.providerMessage }), /sk-secret-123/);
    assert.match(e.message, /\[redacted\]/);
    return true;
  });
});

test("timeouts, AbortSignal, network errors and fallbacks", async () => {
  await assert.rejects(openai("slow", { timeoutMs: 50, maxRetries: 0 }).invoke("Hi"), (e) => e.code === "TIMEOUT");
  const ac = new AbortController();
  const pending = openai("slow").invoke("Hi", { signal: ac.signal });
  setTimeout(() => ac.abort(new Error("user gave up")), 20);
  await assert.rejects(pending, /user gave up/);
  const dead = buildLMInvoker("openai-compatible/ok", { apiKey: "sk-test", baseUrl: "http://127.0.0.1:9/v1", maxRetries: 0 });
  await assert.rejects(dead.invoke("Hi"), (e) => e.code === "NETWORK_ERROR" && e.retryable);
  const rescued = buildLMInvoker("openai-compatible/bad-request", { apiKey: "sk-test", baseUrl: server.base, fallbackLms: [openai("ok")] });
  assert.equal((await rescued.invoke("Hi")).outputs[0].output, "<think>hidden</think>Hello [1].");
});

test("a stream cut half-way ends in an error, never a short answer", async () => {
  const got = [];
  await assert.rejects(async () => {
    for await (const e of openai("stream-cut").stream("Hi")) got.push(e);
  });
  assert.ok(got.every((e) => e.type === "response"));
});

test("Anthropic: headers, system prompt, thinking, streaming", async () => {
  const lm = buildLMInvoker("anthropic/claude-test", { apiKey: "sk-ant-test", baseUrl: server.base });
  const out = await lm.invoke([{ role: "system", content: "Be kind." }, { role: "user", content: "Hi" }]);
  assert.deepEqual(out.outputs, [{ type: "thinking", output: "Check." }, { type: "text", output: "Hi there." }]);
  assert.deepEqual(out.usage, { input_tokens: 10, output_tokens: 5 });
  const sent = server.requests.at(-1);
  assert.equal(sent.url, "/v1/messages");
  assert.equal(sent.body.system, "Be kind.");
  assert.equal(sent.body.max_tokens, 4096);
  const events = [];
  for await (const e of lm.stream("Hi").pipeThrough(new CitationParser().transformStream())) events.push(e);
  assert.deepEqual(events.filter((e) => !e.type.startsWith("usage")).map((e) => e.type), ["thinking_start", "thinking", "thinking_end", "response_start", "response", "response_end"]);
  await assert.rejects(buildLMInvoker("anthropic/overloaded", { apiKey: "sk-ant-test", baseUrl: server.base, maxRetries: 0 }).invoke("Hi"), (e) => e.status === 529 && e.providerCode === "overloaded_error");
});

test("bad options name the problem", () => {
  assertCode(() => buildLMInvoker("gpt-4o"), "INVALID_MODEL_ID");
  assertCode(() => buildLMInvoker("cohere/command"), "INVALID_MODEL_ID");
  assertCode(() => buildLMInvoker("openai-compatible/llama"), "INVALID_OPTION");
  assertCode(() => buildLMInvoker("openai/gpt-4o", { timeout: 5 }), "INVALID_OPTION");
  assertCode(() => buildLMInvoker("openai/gpt-4o", { maxRetries: -1 }), "INVALID_OPTION");
  assertCode(() => buildLMInvoker("openai/gpt-4o", { outputTransformers: ["magic"] }), "UNKNOWN_TRANSFORMER");
  assertCode(() => buildLMInvoker("openai/gpt-4o", { fallbackLms: [{}] }), "INVALID_OPTION");
  assert.rejects(openai("ok").invoke(42), (e) => e.code === "INVALID_OPTION");
  assert.rejects(openai("ok").invoke("Hi", { temperature: 5 }), (e) => e.code === "INVALID_OPTION");
  assert.rejects(openai("ok").invoke("Hi", { temp: 1 }), (e) => e.code === "INVALID_OPTION");
});

test("an invoker is a Citeformer model; the grammar reaches an OpenAI-compatible server", async () => {
  const cf = new Citeformer({ lmInvoker: openai("ok") });
  const sources = [{ content: "Hello world.", metadata: { type: "webpage", title: "Hello", URL: "https://example.org" } }];
  const result = await cf.generate({ prompt: "Say hello", sources });
  assert.equal(result.text, "Hello [1].");
  assert.deepEqual(result.citations.map((c) => [c.sourceId, c.valid]), [[1, true]]);
  assert.match(server.requests.at(-1).body.grammar, /^root ::= sentence/);
  const streamed = await cf.stream({ prompt: "Say hello", sources }).finalize();
  assert.equal(streamed.text, "Water boils at 100 °C [1].");
});

test("embeddings: batches, input order whatever the server's order, Float32Arrays, retries", async () => {
  const em = buildEMInvoker("openai-compatible/flaky-em", { apiKey: "sk-test", baseUrl: server.base, batchSize: 2 });
  const before = server.requests.length;
  const vectors = await em.invoke(["a", "bb", "ccc", "dddd", "eeeee"]);
  assert.ok(vectors.every((v) => v instanceof Float32Array && v.length === 3));
  assert.deepEqual(vectors.map((v) => v[0]), [1, 2, 3, 4, 5]);
  assert.deepEqual(vectors.map((v) => v[1]), [0, 1, 0, 1, 0]);
  const sent = server.requests.slice(before).filter((r) => r.url === "/v1/embeddings").map((r) => r.body.input);
  assert.deepEqual(sent, [["a", "bb"], ["a", "bb"], ["ccc", "dddd"], ["eeeee"]], "one retry after the 502, then three batches");
  const one = await buildEMInvoker("openai-compatible/e", { apiKey: "sk-test", baseUrl: server.base }).invoke("hello");
  assert.deepEqual([...one], [5, 0, 0.5]);
  assertCode(() => buildEMInvoker("anthropic/claude"), "INVALID_MODEL_ID");
  assertCode(() => buildEMInvoker("openai/e", { batchSize: 0 }), "INVALID_OPTION");
  await assert.rejects(em.invoke([]), (e) => e.code === "INVALID_OPTION");
  await assert.rejects(em.invoke([1]), (e) => e.code === "INVALID_OPTION");
});

test("decision models: System One questions and checked answers", async () => {
  const dm = buildDMInvoker("openrouter/typesafe/flaky", { apiKey: "sk-test", baseUrl: server.base });
  const questions = {
    relevance_chunk_0: DMQuestion.noul({ question: "Is the chunk relevant?", target_chunk: "chunk_0" }, { true: "relevant", false: "not relevant" }),
    tone: DMQuestion.choice("What is the tone?", { formal: "formal", casual: "casual" }),
    quality: DMQuestion.score("How good is it?", ["poor", "fair", "good"]),
  };
  const out = await dm.invoke({ state: { query: "q", chunks: { chunk_0: "relevant text" } }, questions });
  assert.equal(out.answers.relevance_chunk_0.noul, 0.2);
  assert.equal(out.answers.tone.choice, "formal");
  assert.equal(out.answers.quality.score, 2);
  assert.deepEqual(out.usage, { input_tokens: 20, output_tokens: 3 });
  const sent = server.requests.at(-1);
  assert.equal(sent.url, "/v1/systemone");
  assert.equal(sent.body.model, "typesafe/flaky");
  assert.deepEqual(sent.body.questions.quality, { type: "score", instructions: "How good is it?", criteria: ["poor", "fair", "good"] });
  const direct = buildDMInvoker("typesafe/jev-1.13", { apiKey: "sk-test", baseUrl: server.base });
  assert.equal((await direct.invoke({ state: "relevant", questions: { q: DMQuestion.noul("?") } })).answers.q.noul, 0.9);
  await assert.rejects(buildDMInvoker("typesafe/broken", { apiKey: "sk-test", baseUrl: server.base }).invoke({ state: "", questions: { q: DMQuestion.noul("?") } }), (e) => e.code === "INVALID_PROVIDER_DATA");
  await assert.rejects(direct.invoke({ state: "", questions: {} }), (e) => e.code === "INVALID_OPTION");
  await assert.rejects(direct.invoke({ state: "", questions: { q: DMQuestion.score("?", ["one"]) } }), (e) => e.code === "INVALID_OPTION");
  assertCode(() => buildDMInvoker("openai/gpt-4o"), "INVALID_MODEL_ID");
});
