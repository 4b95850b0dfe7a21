// The invoker tests, written once and run in Node (node --test) and in browsers (real fetch,
// real ReadableStream): tests/js/invoker.test.mjs and tests/browser/run.mjs.
// Each case gets { lib, assert, base, requests }: the package, node:assert-like checks, the
// fake provider's OpenAI-style base URL, and a function that reads the provider's request log.
import { drain } from "./drain.mjs";

// A cut connection is a network error in most engines (STREAM_INTERRUPTED); WebKit reads it as
// the body's end, so the decoder reports the missing end marker (STREAM_TRUNCATED).
const CUT_CODES = ["STREAM_INTERRUPTED", "STREAM_TRUNCATED", "SSE_TRUNCATED", "INVALID_PROVIDER_DATA"];
const throwsCode = (assert, fn, code) => assert.throws(fn, (e) => e.code === code);

// A key no test fixture contains by chance; the fake provider's echo-* models send it back.
const SECRET = "sk-live-7Qm2Xr9Lw4Tz8Vb1Nc6Hd3Jf5Kg0Pa-echo-B8e4";

/**
 * Throws unless `error` is a CiteflowError in which no 10-character piece of `key` appears
 * anywhere: message, stack, String(error), the cause chain, every own property (enumerable or
 * not, string or symbol keyed), recursively.
 */
export function assertNoKey(error, key, where) {
  if (!(error instanceof Error) || typeof error.code !== "string") {
    throw new Error(`${where}: expected a CiteflowError, got ${String(error)}`);
  }
  const pieces = new Set();
  for (let i = 0; i + 10 <= key.length; i++) pieces.add(key.slice(i, i + 10));
  const check = (text, path) => {
    for (const piece of pieces) {
      if (text.includes(piece)) throw new Error(`${where}: ${path} holds a piece of the key (${error.code})`);
    }
  };
  const seen = new Set();
  const walk = (value, path) => {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) return check(String(value), path);
    if (seen.has(value)) return;
    seen.add(value);
    for (const k of new Set([...Reflect.ownKeys(value), "message", "stack", "cause"])) {
      let v;
      try {
        v = value[k];
      } catch {
        continue;
      }
      if (v !== undefined) walk(v, `${path}.${String(k)}`);
    }
  };
  walk(error, "error");
  check(String(error), "String(error)");
  return true;
}

export const invokerCases = {
  async "invoke: OpenAI-compatible answer as an LMOutput, request as the API expects"({ lib, assert, base, requests }) {
    const out = await lib.buildLMInvoker("openai-compatible/ok", { apiKey: "sk-test", baseUrl: base }).invoke([{
      role: "system",
      content: "Be brief.",
    }, { role: "user", content: "Hi" }], { temperature: 0.2, maxTokens: 50 });
    assert.deepEqual(out.outputs, [{ type: "text", output: "<think>hidden</think>Hello [1]." }]);
    assert.deepEqual(out.usage, {
      inputTokens: 9,
      outputTokens: 4,
      totalTokens: 13,
      raw: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
    });
    assert.equal(out.finishReason, "stop");
    const sent = (await requests()).at(-1);
    assert.equal(sent.headers.authorization, "Bearer sk-test");
    assert.deepEqual(sent.body, {
      model: "ok",
      messages: [{ role: "system", content: "Be brief." }, { role: "user", content: "Hi" }],
      temperature: 0.2,
      max_tokens: 50,
    });
  },

  async "output transformers apply to whole answers and to streams"({ lib, assert, base, requests }) {
    const lm = lib.buildLMInvoker("openai-compatible/ok", {
      apiKey: "sk-test",
      baseUrl: base,
      outputTransformers: ["think_tag"],
    });
    assert.deepEqual((await lm.invoke("Hi")).outputs, [{ type: "thinking", output: "hidden" }, {
      type: "text",
      output: "Hello [1].",
    }]);
    const events = [];
    const streamed = lib.buildLMInvoker("openai-compatible/ok", {
      apiKey: "sk-test",
      baseUrl: base,
      outputTransformers: [lib.OutputTransformerConfig.thinkTag()],
    });
    await drain(streamed.stream("Hi"), events);
    const text = (type) => events.filter((e) => e.type === type).map((e) => e.value).join("");
    assert.equal(text("thinking"), "Think.more");
    assert.equal(text("response"), "Water boils at 100 °C [1].");
    assert.deepEqual(events.find((e) => e.type === "usage").value, {
      inputTokens: 9,
      outputTokens: 6,
      totalTokens: 15,
      raw: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 },
    });
    assert.equal((await requests()).at(-1).body.stream, true);
  },

  async "reasoning_content and structured output"({ lib, assert, base, requests }) {
    const lm = (model, options = {}) =>
      lib.buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: base, ...options });
    assert.deepEqual((await lm("reasoner").invoke("Hi")).outputs, [{ type: "thinking", output: "Because." }, {
      type: "text",
      output: "Answer.",
    }]);
    const responseSchema = { type: "object", properties: { answer: { type: "number" } } };
    const out = await lm("ok", { outputTransformers: ["json"] }).invoke("Hi", { responseSchema });
    assert.deepEqual(out.outputs, [{ type: "structured", output: { answer: 42 } }]);
    // A structured answer is a structured item (as from Anthropic's forced tool), transformer or not.
    assert.deepEqual((await lm("ok").invoke("Hi", { responseSchema })).outputs, [{
      type: "structured",
      output: { answer: 42 },
    }]);
    const streamed = await drain(lm("json-stream").stream("Hi", { responseSchema }));
    assert.deepEqual(
      streamed.filter((e) => e.type === "structured").map((e) => e.value),
      [{ answer: 42 }],
      "a streamed structured answer ends in one structured event",
    );
    assert.equal(streamed.filter((e) => e.type === "response").map((e) => e.value).join(""), '{"answer": 42}');
    assert.equal((await requests()).at(-1).body.response_format.type, "json_schema");
  },

  async "retries 429 (honouring Retry-After) and 5xx, not other 4xx"({ lib, assert, base, requests }) {
    const lm = (model, options = {}) =>
      lib.buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: base, ...options });
    assert.equal((await lm("flaky-429").invoke("Hi")).outputs.length, 1);
    assert.equal((await lm("flaky-500").invoke("Hi")).outputs.length, 1);
    const before = (await requests()).length;
    await assert.rejects(lm("bad-request").invoke("Hi"), (e) => {
      assert.equal(e.code, "PROVIDER_ERROR");
      assert.equal(e.status, 400);
      assert.equal(e.providerCode, "model_not_found");
      assert.match(e.providerMessage, /does not exist/);
      assert.equal(e.retryable, false);
      return true;
    });
    assert.equal((await requests()).length - before, 1, "no retry on 400");
    await assert.rejects(
      lm("always-503", { maxRetries: 1 }).invoke("Hi"),
      (e) => e.status === 503 && e.retryable && e.attempts === 2,
    );
  },

  async "errors never carry the API key"({ lib, assert, base }) {
    const lm = lib.buildLMInvoker("openai-compatible/ok", { apiKey: "sk-secret-123", baseUrl: base });
    await assert.rejects(lm.invoke("Hi"), (e) => {
      assert.equal(e.status, 401);
      assert.doesNotMatch(JSON.stringify({ m: e.message, p: e.providerMessage }), /sk-secret-123/);
      assert.match(e.message, /\[redacted\]/);
      return true;
    });
  },

  async "timeouts, AbortSignal, network errors and fallbacks"({ lib, assert, base }) {
    const lm = (model, options = {}) =>
      lib.buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: base, ...options });
    await assert.rejects(lm("slow", { timeoutMs: 50, maxRetries: 0 }).invoke("Hi"), (e) => e.code === "TIMEOUT");
    const ac = new AbortController();
    const pending = lm("slow").invoke("Hi", { signal: ac.signal });
    setTimeout(() => ac.abort(new Error("user gave up")), 20);
    await assert.rejects(pending, /user gave up/);
    const dead = lib.buildLMInvoker("openai-compatible/ok", {
      apiKey: "sk-test",
      baseUrl: "http://127.0.0.1:9/v1",
      maxRetries: 0,
    });
    // The error names the URL it tried (each runtime words the cause its own way: Node's has a
    // code, a browser's none; tests/js/network_errors.test.mjs checks Node's).
    await assert.rejects(
      dead.invoke("Hi"),
      (e) =>
        e.code === "NETWORK_ERROR" && e.retryable &&
        e.message.includes("could not reach http://127.0.0.1:9/v1/chat/completions: "),
    );
    const rescued = lm("bad-request", { fallbackLms: [lm("ok")] });
    assert.equal((await rescued.invoke("Hi")).outputs[0].output, "<think>hidden</think>Hello [1].");
    const streamed = [];
    await drain(
      lm("bad-request", { fallbackLms: [lm("always-503", { maxRetries: 0 }), lm("ok")] }).stream("Hi"),
      streamed,
    );
    assert.ok(
      streamed.some((e) => e.type === "response" && e.value.includes("Water boils")),
      "a stream that cannot start falls back in order",
    );
    await assert.rejects(
      () => drain(lm("bad-request", { fallbackLms: [lm("always-503", { maxRetries: 0 })] }).stream("Hi")),
      (e) => e.status === 400,
      "all fail: the first error",
    );
  },

  async "a stream cut half-way or with a garbage line ends in an error, never a short answer"({ lib, assert, base }) {
    for (const model of ["stream-cut", "stream-garbage"]) {
      const got = [];
      await assert.rejects(
        () =>
          drain(
            lib.buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: base }).stream("Hi"),
            got,
          ),
        (e) => CUT_CODES.includes(e.code),
        model,
      );
      assert.ok(got.every((e) => e.type === "response" || e.type === "response_start"), model);
    }
  },

  async "Anthropic: headers, system prompt, thinking, streaming, cut and garbled streams"(
    { lib, assert, base, requests },
  ) {
    const claude = (model, options = {}) =>
      lib.buildLMInvoker(`anthropic/${model}`, { apiKey: "sk-ant-test", baseUrl: base, ...options });
    const out = await claude("claude-test").invoke([{ role: "system", content: "Be kind." }, {
      role: "user",
      content: "Hi",
    }]);
    assert.deepEqual(out.outputs, [{ type: "thinking", output: "Check." }, { type: "text", output: "Hi there." }]);
    assert.deepEqual(out.usage, {
      inputTokens: 10,
      outputTokens: 5,
      totalTokens: 15,
      raw: { input_tokens: 10, output_tokens: 5 },
    });
    const sent = (await requests()).at(-1);
    assert.equal(sent.url, "/v1/messages");
    assert.equal(sent.body.system, "Be kind.");
    assert.equal(sent.body.max_tokens, 4096);
    const events = [];
    await drain(claude("claude-test").stream("Hi").pipeThrough(new lib.CitationParser().transformStream()), events);
    assert.deepEqual(events.filter((e) => !e.type.startsWith("usage")).map((e) => e.type), [
      "thinking_start",
      "thinking",
      "thinking_end",
      "response_start",
      "response",
      "response_end",
    ]);
    await assert.rejects(
      claude("overloaded", { maxRetries: 0 }).invoke("Hi"),
      (e) => e.status === 529 && e.providerCode === "overloaded_error",
    );
    for (const model of ["stream-cut", "stream-garbage"]) {
      await assert.rejects(() => drain(claude(model).stream("Hi")), (e) => CUT_CODES.includes(e.code), model);
    }
  },

  async "the API key, or any 10-character piece of it, is in no error on any path"({ lib, assert, base }) {
    const options = { apiKey: SECRET, baseUrl: base, maxRetries: 0 };
    const lm = (id, more = {}) => lib.buildLMInvoker(id, { ...options, ...more });
    const calls = [];
    for (const provider of ["openai-compatible", "anthropic"]) {
      // HTTP errors (JSON, plain text across the 300-character cut, past a 64 KiB cut), 200
      // with an error, invalid JSON, a redirect with the key in its Location, a reset.
      for (
        const model of [
          "echo-json",
          "echo-text-280",
          "echo-text-290",
          "echo-text-295",
          "echo-long",
          "echo-200-error",
          "echo-200-invalid",
          "echo-redirect",
          "echo-reset",
        ]
      ) {
        calls.push([`${provider}/${model} invoke`, () => lm(`${provider}/${model}`).invoke("Hi")]);
        calls.push([`${provider}/${model} stream`, () => drain(lm(`${provider}/${model}`).stream("Hi"))]);
      }
      // In-stream errors, invalid stream data echoing the key at and across the 80-character
      // cut of the core's message, a stream that breaks off.
      for (
        const model of [
          "echo-stream-error",
          "echo-stream-invalid-0",
          "echo-stream-invalid-60",
          "echo-stream-invalid-75",
          "echo-stream-cut",
        ]
      ) {
        calls.push([`${provider}/${model} stream`, () => drain(lm(`${provider}/${model}`).stream("Hi"))]);
      }
      calls.push([`${provider} timeout`, () => lm(`${provider}/echo-slow`, { timeoutMs: 50 }).invoke("Hi")]);
      calls.push([
        `${provider} network error`,
        () => lm(`${provider}/echo-json`, { baseUrl: "http://127.0.0.1:9/v1" }).invoke("Hi"),
      ]);
    }
    for (const model of ["echo-json", "echo-text-290", "echo-200-error", "echo-200-invalid", "echo-redirect"]) {
      calls.push([
        `embeddings ${model}`,
        () => lib.buildEMInvoker(`openai-compatible/${model}`, options).invoke(["a"]),
      ]);
      calls.push([
        `System One ${model}`,
        () =>
          lib.buildDMInvoker(`typesafe/${model}`, options).invoke({
            state: "s",
            questions: { q: lib.DMQuestion.noul("?") },
          }),
      ]);
      calls.push([
        `LM decision ${model}`,
        () =>
          lib.buildDMInvoker(`openai-compatible/${model}`, options).invoke({
            state: "s",
            questions: { q: lib.DMQuestion.noul("?") },
          }),
      ]);
    }
    const codes = {};
    for (const [where, call] of calls) {
      await assert.rejects(call, (e) => ((codes[where] = e?.code), assertNoKey(e, SECRET, where)), where);
    }
    // Not vacuous: the provider's words came through, with the key cut out.
    await assert.rejects(
      lm("openai-compatible/echo-json").invoke("Hi"),
      (e) => e.status === 401 && e.providerMessage === "Incorrect API key provided: [redacted]",
    );
    await assert.rejects(
      lm("openai-compatible/echo-text-290").invoke("Hi"),
      (e) => e.providerMessage === `${"e".repeat(290)}[redacted]`,
      "redacted, then cut at 300 characters",
    );
    await assert.rejects(
      drain(lm("anthropic/echo-stream-error").stream("Hi")),
      (e) => e.code === "PROVIDER_ERROR" && /invalid key \[redacted\]/.test(e.message),
    );
    assert.equal(codes["openai-compatible/echo-stream-invalid-60 stream"], "INVALID_PROVIDER_DATA");
    assert.equal(codes["openai-compatible timeout"], "TIMEOUT");
  },

  async "redirects: never to another origin; the key never reaches it"({ lib, assert, base, requests }) {
    const options = { apiKey: SECRET, baseUrl: base, maxRetries: 0 };
    for (const id of ["openai-compatible/echo-redirect", "anthropic/echo-redirect"]) {
      await assert.rejects(
        lib.buildLMInvoker(id, options).invoke("Hi"),
        (e) => e.code === "REDIRECT_REFUSED" && e.retryable === false,
        id,
      );
      await assert.rejects(
        drain(lib.buildLMInvoker(id, options).stream("Hi")),
        (e) => e.code === "REDIRECT_REFUSED",
        id,
      );
    }
    await assert.rejects(
      lib.buildEMInvoker("openai-compatible/echo-redirect", options).invoke("a"),
      (e) => e.code === "REDIRECT_REFUSED",
    );
    const reached = (await requests()).filter((r) => r.server === "elsewhere");
    assert.equal(reached.length, 0, "the other origin was never called");
  },

  async "answers: 200 with an error body, content parts, __proto__ keys stay own keys"({ lib, assert, base }) {
    const lm = (model) =>
      lib.buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: base, maxRetries: 0 });
    for (const run of [() => lm("echo-200-error").invoke("Hi"), () => drain(lm("echo-200-error").stream("Hi"))]) {
      await assert.rejects(
        run,
        (e) =>
          e.code === "PROVIDER_ERROR" && e.status === 200 && e.providerMessage === "invalid key [redacted]" &&
          /invalid key/.test(e.message),
      );
    }
    assert.deepEqual((await lm("parts").invoke("Hi")).outputs, [{ type: "text", output: "Part one, part two." }]);
    const own = (usage, where) => {
      assert.equal(Object.getPrototypeOf(usage), Object.prototype, where);
      assert.ok(Object.hasOwn(usage, "__proto__"), where);
      assert.deepEqual(Object.keys(usage), ["prompt_tokens", "__proto__"], where);
      assert.equal(usage.polluted, undefined, where);
    };
    own((await lm("proto-usage").invoke("Hi")).usage.raw, "invoke");
    own((await drain(lm("proto-usage").stream("Hi"))).find((e) => e.type === "usage").value.raw, "stream");
  },

  async "limits: timeoutMs within setTimeout's range, response size"({ lib, assert, base }) {
    for (const timeoutMs of [2 ** 31, Infinity, NaN, 0, -1, "5"]) {
      throwsCode(assert, () => lib.buildLMInvoker("openai/gpt-4o", { timeoutMs }), "INVALID_OPTION");
      throwsCode(assert, () => lib.buildEMInvoker("openai/e", { timeoutMs }), "INVALID_OPTION");
      throwsCode(assert, () => lib.buildDMInvoker("typesafe/m", { timeoutMs }), "INVALID_OPTION");
    }
    const lm = (model, more) =>
      lib.buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: base, maxRetries: 0, ...more });
    assert.equal((await lm("ok", { timeoutMs: 2 ** 31 - 1 }).invoke("Hi")).outputs.length, 1);
    for (const maxResponseBytes of [0, 1.5, -1, "1", Infinity]) {
      throwsCode(assert, () => lib.buildLMInvoker("openai/gpt-4o", { maxResponseBytes }), "INVALID_OPTION");
    }
    await assert.rejects(
      lm("big-5000", { maxResponseBytes: 4000 }).invoke("Hi"),
      (e) => e.code === "RESPONSE_TOO_LARGE" && e.retryable === false,
    );
    assert.equal((await lm("big-5000", { maxResponseBytes: 6000 }).invoke("Hi")).outputs[0].output.length, 5000);
    await assert.rejects(
      lib.buildEMInvoker("openai-compatible/e", { apiKey: "sk-test", baseUrl: base, maxResponseBytes: 10 }).invoke("a"),
      (e) => e.code === "RESPONSE_TOO_LARGE",
    );
  },

  async "bad options name the problem"({ lib, assert, base }) {
    throwsCode(assert, () => lib.buildLMInvoker("gpt-4o"), "INVALID_MODEL_ID");
    throwsCode(assert, () => lib.buildLMInvoker("gemini/gemini-2.5-flash"), "INVALID_MODEL_ID");
    throwsCode(assert, () => lib.buildLMInvoker("openai-compatible/llama"), "INVALID_OPTION");
    throwsCode(assert, () => lib.buildLMInvoker("openai/gpt-4o", { timeout: 5 }), "INVALID_OPTION");
    throwsCode(assert, () => lib.buildLMInvoker("openai/gpt-4o", { maxRetries: -1 }), "INVALID_OPTION");
    throwsCode(
      assert,
      () => lib.buildLMInvoker("openai/gpt-4o", { outputTransformers: ["magic"] }),
      "UNKNOWN_TRANSFORMER",
    );
    throwsCode(assert, () => lib.buildLMInvoker("openai/gpt-4o", { fallbackLms: [{}] }), "INVALID_OPTION");
    const lm = lib.buildLMInvoker("openai-compatible/ok", { apiKey: "sk-test", baseUrl: base });
    await assert.rejects(lm.invoke(42), (e) => e.code === "INVALID_OPTION");
    await assert.rejects(lm.invoke("Hi", { temperature: 5 }), (e) => e.code === "INVALID_OPTION");
    await assert.rejects(lm.invoke("Hi", { temp: 1 }), (e) => e.code === "INVALID_OPTION");
    await assert.rejects(lm.invoke("Hi", { topLogprobs: 50 }), (e) => e.code === "INVALID_OPTION");
  },

  async "an invoker is a Citeformer model; the grammar reaches an OpenAI-compatible server"(
    { lib, assert, base, requests },
  ) {
    const cf = new lib.Citeformer({
      lmInvoker: lib.buildLMInvoker("openai-compatible/ok", { apiKey: "sk-test", baseUrl: base }),
    });
    const sources = [{
      content: "Hello world.",
      metadata: { type: "webpage", title: "Hello", URL: "https://example.org" },
    }];
    const result = await cf.generate({ prompt: "Say hello", sources });
    assert.equal(result.text, "Hello [1].");
    assert.deepEqual(result.citations.map((c) => [c.sourceId, c.valid]), [[1, true]]);
    assert.match((await requests()).at(-1).body.grammar, /^root ::= sentence/);
    const streamed = await cf.stream({ prompt: "Say hello", sources }).finalize();
    assert.equal(streamed.text, "Water boils at 100 °C [1].");
    assert.deepEqual(streamed.usage, {
      inputTokens: 9,
      outputTokens: 6,
      totalTokens: 15,
      raw: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 },
    }, "the streamed answer's usage reaches the result");
    assert.ok(!streamed.text.includes("usage"));
  },

  async "embeddings: batches, input order whatever the server's order, Float32Arrays, retries"(
    { lib, assert, base, requests },
  ) {
    const em = lib.buildEMInvoker("openai-compatible/flaky-em", { apiKey: "sk-test", baseUrl: base, batchSize: 2 });
    const before = (await requests()).length;
    const vectors = await em.invoke(["a", "bb", "ccc", "dddd", "eeeee"]);
    assert.ok(vectors.every((v) => v instanceof Float32Array && v.length === 3));
    assert.deepEqual(vectors.map((v) => v[0]), [1, 2, 3, 4, 5]);
    assert.deepEqual(vectors.map((v) => v[1]), [0, 1, 0, 1, 0]);
    const sent = (await requests()).slice(before).filter((r) => r.url === "/v1/embeddings").map((r) => r.body.input);
    assert.deepEqual(
      sent,
      [["a", "bb"], ["a", "bb"], ["ccc", "dddd"], ["eeeee"]],
      "one retry after the 502, then three batches",
    );
    const one = await lib.buildEMInvoker("openai-compatible/e", { apiKey: "sk-test", baseUrl: base }).invoke("hello");
    assert.deepEqual([...one], [5, 0, 0.5]);
    throwsCode(assert, () => lib.buildEMInvoker("anthropic/claude"), "INVALID_MODEL_ID");
    throwsCode(assert, () => lib.buildEMInvoker("openai/e", { batchSize: 0 }), "INVALID_OPTION");
    await assert.rejects(em.invoke([]), (e) => e.code === "INVALID_OPTION");
    await assert.rejects(em.invoke([1]), (e) => e.code === "INVALID_OPTION");
  },

  async "decision models: System One questions and checked answers"({ lib, assert, base, requests }) {
    const { DMQuestion } = lib;
    const dm = lib.buildDMInvoker("openrouter/typesafe/flaky", { apiKey: "sk-test", baseUrl: base });
    const questions = {
      relevance_chunk_0: DMQuestion.noul({ question: "Is the chunk relevant?", target_chunk: "chunk_0" }, {
        true: "relevant",
        false: "not relevant",
      }),
      tone: DMQuestion.choice("What is the tone?", { formal: "formal", casual: "casual" }),
      quality: DMQuestion.score("How good is it?", ["poor", "fair", "good"]),
    };
    const out = await dm.invoke({ state: { query: "q", chunks: { chunk_0: "relevant text" } }, questions });
    assert.equal(out.answers.relevance_chunk_0.noul, 0.9);
    assert.equal(out.answers.tone.choice, "formal");
    assert.equal(out.answers.quality.score, 2);
    assert.deepEqual(out.usage, {
      inputTokens: 20,
      outputTokens: 3,
      totalTokens: 23,
      raw: { input_tokens: 20, output_tokens: 3 },
    });
    const sent = (await requests()).at(-1);
    assert.equal(sent.url, "/v1/systemone");
    assert.equal(sent.body.model, "typesafe/flaky");
    assert.deepEqual(sent.body.questions.quality, {
      type: "score",
      instructions: "How good is it?",
      criteria: ["poor", "fair", "good"],
    });
    const direct = lib.buildDMInvoker("typesafe/jev-1.13", { apiKey: "sk-test", baseUrl: base });
    assert.equal(
      (await direct.invoke({ state: "relevant", questions: { q: DMQuestion.noul("?") } })).answers.q.noul,
      0.9,
    );
    await assert.rejects(
      lib.buildDMInvoker("typesafe/broken", { apiKey: "sk-test", baseUrl: base }).invoke({
        state: "",
        questions: { q: DMQuestion.noul("?") },
      }),
      (e) => e.code === "INVALID_PROVIDER_DATA",
    );
    await assert.rejects(direct.invoke({ state: "", questions: {} }), (e) => e.code === "INVALID_OPTION");
    await assert.rejects(
      direct.invoke({ state: "", questions: { q: DMQuestion.score("?", ["one"]) } }),
      (e) => e.code === "INVALID_OPTION",
    );
    throwsCode(assert, () => lib.buildDMInvoker("anthropic/claude"), "INVALID_MODEL_ID");
    throwsCode(assert, () => lib.buildDMInvoker("gpt-4o"), "INVALID_MODEL_ID");
  },

  async "decision models backed by a language model read their answers from the first token's logprobs"(
    { lib, assert, base, requests },
  ) {
    const { DMQuestion } = lib;
    const dm = lib.buildDMInvoker("openai-compatible/judge", { apiKey: "sk-test", baseUrl: base });
    const question = (chunk) =>
      DMQuestion.noul({ question: "Does the chunk help answer the query?", target_chunk: chunk }, {
        true: "it does",
        false: "it does not",
      });
    const out = await dm.invoke({
      state: { query: "boiling", chunks: { chunk_0: "relevant: water boils at 100 °C", chunk_1: "cats sleep a lot" } },
      questions: { a: question("chunk_0"), b: question("chunk_1") },
    });
    assert.ok(
      Math.abs(out.answers.a.noul - 0.9) < 1e-6,
      `P(yes) for the targeted relevant chunk: ${out.answers.a.noul}`,
    );
    assert.ok(Math.abs(out.answers.b.noul - 0.2) < 1e-6, `P(yes) for the other chunk: ${out.answers.b.noul}`);
    assert.deepEqual(out.usage, {
      inputTokens: 18,
      outputTokens: 2,
      totalTokens: 20,
      raw: [{ prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 }, {
        prompt_tokens: 9,
        completion_tokens: 1,
        total_tokens: 10,
      }],
    });
    const sent = (await requests()).at(-1).body;
    assert.equal(sent.max_tokens, 1);
    assert.equal(sent.top_logprobs, 20);
    assert.equal(sent.logprobs, true);
    const bare = lib.buildDMInvoker("openai-compatible/ok", { apiKey: "sk-test", baseUrl: base });
    await assert.rejects(
      bare.invoke({ state: "x", questions: { q: DMQuestion.noul("?") } }),
      (e) => e.code === "INVALID_PROVIDER_DATA" && /log-probabilities/.test(e.message),
    );
    const more = await dm.invoke({
      state: "Hi!",
      questions: {
        tone: DMQuestion.choice("What is the tone?", { formal: "stiff", casual: "relaxed", angry: "hostile" }),
        quality: DMQuestion.score("How good?", ["poor", "fair", "good"]),
      },
    });
    assert.equal(more.answers.tone.choice, "casual", "letter B");
    assert.ok(
      Math.abs(more.answers.tone.confidence - 0.6 / 0.9) < 1e-9,
      "normalised over the options' letters (Z is none)",
    );
    assert.ok(Math.abs(more.answers.tone.probabilities.formal - 0.3 / 0.9) < 1e-9);
    assert.deepEqual([more.answers.quality.score, more.answers.quality.legend], [2, ["poor", "fair", "good"]]);
    await assert.rejects(
      dm.invoke({ state: "x", questions: { q: DMQuestion.score("?", Array.from({ length: 11 }, String)) } }),
      (e) => e.code === "INVALID_OPTION",
    );
    await assert.rejects(dm.invoke({ state: "x", questions: {} }), (e) => e.code === "INVALID_OPTION");
    // A question may be named anything: "__proto__" is asked and answered as an own key.
    const named = JSON.parse(
      '{"__proto__": {"type": "noul", "instructions": "?"}, "b": {"type": "noul", "instructions": "?"}}',
    );
    const odd = await dm.invoke({ state: "x", questions: named });
    assert.deepEqual(Object.keys(odd.answers), ["__proto__", "b"]);
    assert.equal(Object.getPrototypeOf(odd.answers), Object.prototype);
    assert.equal(odd.answers["__proto__"].type, "noul");
    assert.equal(odd.usage.raw.length, 2, "one call per question");
  },
};
