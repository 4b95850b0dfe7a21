// Model invokers over the runtime's own `fetch` (or one you inject). The core builds the
// requests, reads the answers, classifies failures and sets the retry schedule; this file
// only moves bytes, waits, and cancels.
import * as core from "../gen/citeflow.js";
import { citeflowError, describe } from "./errors.js";
import { ready } from "./runtime.js";
import { ProviderBodyDecoder } from "./sse.js";
import { OutputTransformerChain } from "./transformers.js";

const DEFAULT_TIMEOUT_MS = 60_000;
const DEFAULT_MAX_RETRIES = 2;
const OPTIONS = ["apiKey", "baseUrl", "headers", "fetch", "timeoutMs", "maxRetries", "outputTransformers", "fallbackLms"];
const CALL_OPTIONS = ["signal", "responseSchema", "temperature", "maxTokens", "logprobs", "topLogprobs"];
// What Citeformer passes along: the grammar goes to OpenAI-compatible servers, the rest is informational.
const CITE_OPTIONS = ["grammar", "policy", "markerStyle", "sourceCount"];

function checkKeys(obj, allowed, what) {
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) throw citeflowError("INVALID_OPTION", `${what} has no option \`${key}\` (it has ${allowed.join(", ")})`);
  }
}

/** An error that never carries the API key, even when the provider echoes it. */
function invokerError(code, message, fields, apiKey) {
  const clean = (s) => (apiKey && typeof s === "string" ? s.split(apiKey).join("[redacted]") : s);
  const error = citeflowError(code, clean(message));
  for (const [k, v] of Object.entries(fields)) error[k] = clean(v);
  return error;
}

function toMessages(input) {
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (Array.isArray(input) && input.length > 0 && input.every((m) => m && typeof m.role === "string" && typeof m.content === "string")) {
    return input.map(({ role, content }) => ({ role, content }));
  }
  throw citeflowError("INVALID_OPTION", `an invoker takes a prompt string or messages [{role, content}]; got ${describe(input)}`);
}

function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal.reason);
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}

/** The options every invoker shares, checked. */
function transportOptions(options) {
  const { apiKey = null, baseUrl = null, headers = {}, fetch: fetchFn = globalThis.fetch, timeoutMs = DEFAULT_TIMEOUT_MS, maxRetries = DEFAULT_MAX_RETRIES } = options;
  if (typeof fetchFn !== "function") throw citeflowError("INVALID_OPTION", "fetch must be a function (the runtime has none: pass one)");
  if (!(typeof timeoutMs === "number" && timeoutMs > 0)) throw citeflowError("INVALID_OPTION", `timeoutMs must be a positive number; got ${describe(timeoutMs)}`);
  if (!(Number.isInteger(maxRetries) && maxRetries >= 0)) throw citeflowError("INVALID_OPTION", `maxRetries must be a whole number ≥ 0; got ${describe(maxRetries)}`);
  if (headers === null || typeof headers !== "object") throw citeflowError("INVALID_OPTION", `headers must be an object; got ${describe(headers)}`);
  return { apiKey, baseUrl, headers, fetchFn, timeoutMs, maxRetries };
}

/** What every invoker builder checks first: the id's type, the options' shape and names. */
function invokerSetup(builder, modelId, example, options, allowed) {
  ready();
  if (typeof modelId !== "string") throw citeflowError("INVALID_MODEL_ID", `a model id is a string like "${example}"; got ${describe(modelId)}`);
  if (options === null || typeof options !== "object") throw citeflowError("INVALID_OPTION", `invoker options must be an object; got ${describe(options)}`);
  checkKeys(options, allowed, builder);
  return transportOptions(options);
}

/** One request with retries, backoff, timeout and cancellation; resolves with the answer. */
async function fetchWithRetries({ http, headers, fetchFn, timeoutMs, maxRetries, signal, apiKey, stream }) {
  const init = { method: "POST", headers: { ...Object.fromEntries(http.headers), ...headers }, body: http.body };
  for (let attempt = 0; ; attempt++) {
    signal?.throwIfAborted();
    const controller = new AbortController();
    const onAbort = () => controller.abort(signal.reason);
    signal?.addEventListener("abort", onAbort, { once: true });
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
    };
    let failure;
    try {
      const res = await fetchFn(http.url, { ...init, signal: controller.signal });
      if (res.ok) {
        if (stream) {
          clearTimeout(timer); // the timeout covers the wait for an answer, not a long stream
          return { res, http, done };
        }
        const text = await res.text();
        done();
        return { text, http };
      }
      const body = await res.text();
      done();
      failure = core.classifyProviderFailure(http.provider, res.status, body, res.headers.get("retry-after") ?? undefined);
    } catch (e) {
      done();
      if (signal?.aborted) throw signal.reason;
      failure = timedOut
        ? { provider: http.provider, status: 0, code: "TIMEOUT", message: `no answer within ${timeoutMs} ms`, retryable: true }
        : { provider: http.provider, status: 0, code: "NETWORK_ERROR", message: String(e?.message ?? e), retryable: true };
    }
    if (failure.retryable && attempt < maxRetries) {
      await sleep(core.retryDelayMs(attempt, failure.retryAfterMs ?? undefined, Math.random()), signal);
      continue;
    }
    const code = failure.status === 0 ? failure.code : "PROVIDER_ERROR";
    const what = failure.status === 0 ? failure.message : `answered ${failure.status}: ${failure.message}`;
    throw invokerError(code, `${failure.provider} ${what}`, {
      provider: failure.provider,
      status: failure.status,
      providerCode: failure.code ?? null,
      providerMessage: failure.message,
      retryable: failure.retryable,
      attempts: attempt + 1,
    }, apiKey);
  }
}

/**
 * An LM invoker for `openai/<model>`, `anthropic/<model>`, `openrouter/<vendor>/<model>` or
 * `openai-compatible/<model>` (with `baseUrl`).
 */
export function buildLMInvoker(modelId, options = {}) {
  const { apiKey, baseUrl, headers, fetchFn, timeoutMs, maxRetries } = invokerSetup("buildLMInvoker", modelId, "openai/gpt-4o-mini", options, OPTIONS);
  const { outputTransformers = [], fallbackLms = [] } = options;
  if (!Array.isArray(fallbackLms) || !fallbackLms.every((f) => f && typeof f.invoke === "function")) {
    throw citeflowError("INVALID_OPTION", "fallbackLms must be an array of invokers");
  }
  // Checks the model id, the base URL and the transformer configs now, not at the first call.
  core.buildHttpRequest(modelId, { messages: [{ role: "user", content: "" }] }, apiKey, baseUrl);
  const transformers = () => (outputTransformers.length ? OutputTransformerChain.fromConfigs(outputTransformers) : null);
  transformers();

  async function send(messages, callOptions, stream) {
    if (callOptions === null || typeof callOptions !== "object") throw citeflowError("INVALID_OPTION", `call options must be an object; got ${describe(callOptions)}`);
    checkKeys(callOptions, [...CALL_OPTIONS, ...CITE_OPTIONS], "invoke/stream");
    const { signal, responseSchema, temperature, maxTokens, logprobs, topLogprobs, grammar } = callOptions;
    const http = core.buildHttpRequest(modelId, { messages, temperature, maxTokens, responseSchema, logprobs, topLogprobs, grammar, stream }, apiKey, baseUrl);
    return fetchWithRetries({ http, headers, fetchFn, timeoutMs, maxRetries, signal, apiKey, stream });
  }

  async function invokeOnce(input, callOptions) {
    const { text, http } = await send(toMessages(input), callOptions, false);
    const output = core.parseProviderResponse(http.provider, text);
    const chain = transformers();
    return chain ? chain.transform(output) : output;
  }

  return {
    modelId,
    /** A whole answer: LMOutput `{outputs, usage, finishReason}`. Fallbacks are tried in order. */
    async invoke(input, callOptions = {}) {
      try {
        return await invokeOnce(input, callOptions);
      } catch (error) {
        if (callOptions?.signal?.aborted) throw error;
        for (const fallback of fallbackLms) {
          try {
            return await fallback.invoke(input, callOptions);
          } catch {
            // the next one, or the first error
          }
        }
        throw error;
      }
    },
    /** A ReadableStream (async-iterable) of events; a cut stream ends in an error. */
    stream(input, callOptions = {}) {
      const messages = toMessages(input);
      let reader = null;
      let finish = null;
      return new ReadableStream({
        async pull(controller) {
          if (reader === null) {
            let sent;
            try {
              sent = await send(messages, callOptions, true);
            } catch (error) {
              if (callOptions?.signal?.aborted) throw error;
              // No answer started: the fallbacks, in order; the first that yields an event wins.
              for (const fallback of fallbackLms) {
                if (typeof fallback.stream !== "function") continue;
                const candidate = fallback.stream(input, callOptions).getReader();
                try {
                  const first = await candidate.read();
                  reader = candidate;
                  finish = () => {};
                  if (first.done) controller.close();
                  else controller.enqueue(first.value);
                  return;
                } catch {
                  // the next one, or the first error
                }
              }
              throw error;
            }
            finish = sent.done;
            let events = sent.res.body.pipeThrough(new ProviderBodyDecoder(sent.http.streamFormat).transformStream());
            const chain = transformers();
            if (chain) events = events.pipeThrough(chain.transformStream());
            reader = events.getReader();
          }
          try {
            const { value, done } = await reader.read();
            if (done) {
              finish();
              controller.close();
            } else {
              controller.enqueue(value);
            }
          } catch (e) {
            finish();
            if (callOptions?.signal?.aborted || typeof e?.code === "string") throw e;
            // The body broke off (connection reset, chunked encoding cut): say so, stably.
            throw invokerError("STREAM_INTERRUPTED", `${modelId}: the answer stream broke off: ${e?.message ?? e}`, { retryable: true }, apiKey);
          }
        },
        cancel(reason) {
          finish?.();
          return reader?.cancel(reason);
        },
      });
    },
  };
}

const EM_OPTIONS = ["apiKey", "baseUrl", "headers", "fetch", "timeoutMs", "maxRetries", "batchSize"];
const DEFAULT_EM_BATCH_SIZE = 100;

/**
 * An embedding invoker (OpenAI-style `/embeddings`: `openai/`, `openrouter/`,
 * `openai-compatible/`): texts in, Float32Arrays out in input order, in batches.
 */
export function buildEMInvoker(modelId, options = {}) {
  const { apiKey, baseUrl, headers, fetchFn, timeoutMs, maxRetries } = invokerSetup("buildEMInvoker", modelId, "openai/text-embedding-3-small", options, EM_OPTIONS);
  const { batchSize = DEFAULT_EM_BATCH_SIZE } = options;
  if (!(Number.isInteger(batchSize) && batchSize >= 1)) throw citeflowError("INVALID_OPTION", `batchSize must be a whole number ≥ 1; got ${describe(batchSize)}`);
  core.buildEmbeddingsRequest(modelId, [""], apiKey, baseUrl); // checks the id and base URL now
  return {
    modelId,
    /** One text → one Float32Array; a list → a list, in the same order. */
    async invoke(texts, { signal } = {}) {
      const list = typeof texts === "string" ? [texts] : texts;
      if (!Array.isArray(list) || list.length === 0 || !list.every((t) => typeof t === "string")) {
        throw citeflowError("INVALID_OPTION", `an embedding invoker takes a string or a non-empty array of strings; got ${describe(texts)}`);
      }
      const vectors = [];
      for (let i = 0; i < list.length; i += batchSize) {
        const batch = list.slice(i, i + batchSize);
        const http = core.buildEmbeddingsRequest(modelId, batch, apiKey, baseUrl);
          const { text } = await fetchWithRetries({ http, headers, fetchFn, timeoutMs, maxRetries, signal, apiKey, stream: false });
        const flat = core.parseEmbeddings(http.provider, text, batch.length);
        const dims = flat.length / batch.length;
        for (let k = 0; k < batch.length; k++) vectors.push(flat.slice(k * dims, (k + 1) * dims));
      }
      return typeof texts === "string" ? vectors[0] : vectors;
    },
  };
}

const DM_OPTIONS = ["apiKey", "baseUrl", "headers", "fetch", "timeoutMs", "maxRetries"];
const TOP_LOGPROBS = 20;

/** Questions for a decision model (System One wire format). */
export const DMQuestion = Object.freeze({
  /** A yes/no question answered with a probability (`noul`); criteria `{true, false}` optional. */
  noul: (instructions, criteria) => ({ type: "noul", instructions, ...(criteria === undefined ? {} : { criteria }) }),
  /** Pick one label of `{label: description}`. */
  choice: (instructions, criteria) => ({ type: "choice", instructions, criteria }),
  /** Place on a scale of levels (lowest first). */
  score: (instructions, levels) => ({ type: "score", instructions, criteria: levels }),
});

const isSystemOne = (modelId) => typeof modelId === "string" && (modelId.startsWith("typesafe/") || modelId.startsWith("openrouter/typesafe/"));

/**
 * A decision model. `typesafe/<model>` and `openrouter/typesafe/<model>` speak System One;
 * any other OpenAI-style model id (`openai/`, `openrouter/<vendor>/`, `openai-compatible/`)
 * becomes a language-model decision model: each question is one call answered with one token
 * (Yes/No, an option's letter, a level's digit), read from that token's log-probabilities.
 */
export function buildDMInvoker(modelId, options = {}) {
  const transport = invokerSetup("buildDMInvoker", modelId, "openrouter/typesafe/jev-1.13", options, DM_OPTIONS);
  return isSystemOne(modelId) ? systemOneInvoker(modelId, transport) : lmDecisionInvoker(modelId, options);
}

function checkDecisionRequest(request) {
  if (request === null || typeof request !== "object") throw citeflowError("INVALID_OPTION", `a decision model takes {state, questions}; got ${describe(request)}`);
  return request;
}

function systemOneInvoker(modelId, { apiKey, baseUrl, headers, fetchFn, timeoutMs, maxRetries }) {
  core.buildDecisionRequest(modelId, "", { probe: DMQuestion.noul("probe") }, apiKey, baseUrl); // checks the id now
  return {
    modelId,
    /** `{state, questions: {name: question}}` → `{model, answers: {name: answer}, usage}`. */
    async invoke(request, { signal } = {}) {
      const { state, questions } = checkDecisionRequest(request);
      const http = core.buildDecisionRequest(modelId, state ?? null, questions, apiKey, baseUrl);
      const { text } = await fetchWithRetries({ http, headers, fetchFn, timeoutMs, maxRetries, signal, apiKey, stream: false });
      return core.parseDecisionResponse(text, questions);
    },
  };
}

function lmDecisionInvoker(modelId, options) {
  if (modelId.startsWith("anthropic/")) {
    throw citeflowError("INVALID_MODEL_ID", `${modelId}: Anthropic models return no log-probabilities; a decision model is typesafe/<model>, openrouter/typesafe/<model> or an OpenAI-style model`);
  }
  const lm = buildLMInvoker(modelId, options);
  return {
    modelId,
    /** Same contract as a System One model. */
    async invoke(request, { signal } = {}) {
      const { state = null, questions } = checkDecisionRequest(request);
      if (questions === null || typeof questions !== "object" || Object.keys(questions).length === 0) {
        throw citeflowError("INVALID_OPTION", `questions must be an object with at least one question; got ${describe(questions)}`);
      }
      const asked = Object.entries(questions).map(([name, q]) => [name, core.lmDecisionMessages(state, name, q)]);
      const outputs = await Promise.all(asked.map(([, messages]) => lm.invoke(messages, { signal, temperature: 0, maxTokens: 1, topLogprobs: TOP_LOGPROBS })));
      const answers = {};
      const usage = { input_tokens: 0, output_tokens: 0 };
      asked.forEach(([name], i) => {
        answers[name] = core.lmDecisionAnswer(name, questions[name], outputs[i].logprobs ?? null);
        usage.input_tokens += outputs[i].usage?.prompt_tokens ?? 0;
        usage.output_tokens += outputs[i].usage?.completion_tokens ?? 0;
      });
      return { model: modelId, answers, usage };
    },
  };
}
