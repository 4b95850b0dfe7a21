// Model invokers over the runtime's own `fetch` (or one you inject). The core builds the
// requests, reads the answers and keeps the transport's rules (the limits, the secrets kept out
// of errors and their redaction: src/wasm/transport.rs); each call is the core's call machine,
// driven by ./call.js.
import * as core from "../gen/citeflow.js";
import { citeflowError, describe, fields, isArray, isInstance, knownFields, list, noMoreArguments } from "./errors.js";
import { Gate } from "./gate.js";
import { call } from "./call.js";
import { ready } from "./runtime.js";
import { ProviderBodyDecoder } from "./sse.js";
import { transformStreamOf } from "./streams.js";
import { OutputTransformerChain, OutputTransformerConfig } from "./transformers.js";

const CALL_OPTIONS = ["signal", "responseSchema", "temperature", "maxTokens", "logprobs", "topLogprobs"];
// What Citeformer passes along. With `enforce`, the core enforces the citations with the
// provider's own mechanism (grammar, schema, forced tool, or the prompt alone); without it,
// only the grammar goes out (to OpenAI-compatible servers).
const CITE_OPTIONS = ["grammar", "policy", "markerStyle", "sourceCount", "enforce"];
/** Mechanisms whose answer is the cited-answer JSON, turned back into marked text by the core. */
const STRUCTURED_CITATIONS = ["schema", "tool"];

/**
 * The one redaction every error path uses, the core's (`src/provider/redact.rs`): each secret
 * of the invoker (found once by `core.invokerSecrets`), and every run of text made of 10-unit
 * pieces of one, becomes "[redacted]". Anything but a string passes unchanged.
 */
function redact(text, secrets) {
  return typeof text === "string" && secrets.length > 0 ? core.redactSecrets(text, secrets) : text;
}

/**
 * An error safe to show. Ours (a `code`, from this file or the core) is rebuilt from redacted
 * strings: message, stack and every field; the original, which may hold a provider's echo of
 * the key, is not kept (not even as `cause`). Anything else (an abort reason, an exception of
 * your own) passes unchanged.
 */
function scrub(error, secrets) {
  if (secrets.length === 0 || !(error instanceof Error) || typeof error.code !== "string") return error;
  const clean = citeflowError(error.code, redact(String(error.message), secrets));
  for (const [key, value] of Object.entries(error)) {
    if (key === "code" || key === "message" || key === "stack" || key === "cause") continue;
    if (value === null || typeof value !== "object") clean[key] = redact(value, secrets);
  }
  return clean;
}

/** An invoker's error with its fields, never carrying a secret. */
function invokerError(code, message, fields, secrets) {
  return scrub(Object.assign(citeflowError(code, message), fields), secrets);
}

function toMessages(input) {
  if (typeof input === "string") return [{ role: "user", content: input }];
  if (isArray(input)) {
    const messages = list(input, "INVALID_OPTION", "the messages").map((m, i) =>
      fields(m, "INVALID_OPTION", `message ${i}`)
    );
    if (messages.length > 0 && messages.every((m) => typeof m.role === "string" && typeof m.content === "string")) {
      return messages.map(({ role, content }) => ({ role, content }));
    }
  }
  throw citeflowError(
    "INVALID_OPTION",
    `an invoker takes a prompt string or messages [{role, content}]; got ${describe(input)}`,
  );
}

/**
 * The headers you add, as `[[name, value]]` strings, given as a plain object, a `Headers`
 * object or an array of pairs (as `fetch` takes them).
 */
function headerPairs(headers) {
  const what = "headers";
  let pairs;
  if (typeof Headers === "function" && isInstance(headers, Headers)) {
    pairs = [...headers];
  } else if (isArray(headers)) {
    pairs = list(headers, "INVALID_OPTION", what).map((pair, i) => list(pair, "INVALID_OPTION", `header ${i}`));
  } else if (headers !== null && typeof headers === "object") {
    pairs = Object.entries(fields(headers, "INVALID_OPTION", what));
  } else {
    throw citeflowError("INVALID_OPTION", `headers must be an object; got ${describe(headers)}`);
  }
  for (const pair of pairs) {
    if (!(pair.length === 2 && typeof pair[0] === "string" && typeof pair[1] === "string")) {
      throw citeflowError("INVALID_OPTION", `headers are names with string values; got ${describe(pair)}`);
    }
  }
  return pairs;
}

/**
 * The options every invoker shares: the plain ones as the core read them (the limits checked,
 * defaults filled in, as for the Rust face), the JS-only ones checked.
 */
function transportOptions(options, plain) {
  const { headers = {}, fetch: fetchFn = globalThis.fetch } = options;
  const { apiKey, baseUrl, timeoutMs, maxRetries, maxResponseBytes } = plain;
  if (typeof fetchFn !== "function") {
    throw citeflowError("INVALID_OPTION", "fetch must be a function (the runtime has none: pass one)");
  }
  const pairs = headerPairs(headers);
  return {
    apiKey,
    baseUrl,
    headers: pairs,
    fetchFn,
    timeoutMs,
    maxRetries,
    maxResponseBytes,
    // Found once per invoker, by the core: the key, credential headers' values, and those
    // values without their scheme.
    secrets: core.invokerSecrets(typeof apiKey === "string" ? apiKey : undefined, pairs.flat()),
  };
}

/** An invoker builder's JS-only options (functions, invokers, `Headers`, transformers). */
const JS_ONLY = ["headers", "fetch", "outputTransformers", "fallbackLms"];

/**
 * What every invoker builder checks first: the id's type, the options' shape; the core reads
 * the plain options (names, types). Returns the options (a plain snapshot, with `batchSize`
 * and `maxConcurrency` as read) and the transport built from them. `args`: the builder's
 * arguments, `(modelId, options)`.
 */
function invokerSetup(builder, example, args) {
  noMoreArguments(args, 2, builder);
  const [modelId, given] = args;
  ready();
  if (typeof modelId !== "string") {
    throw citeflowError("INVALID_MODEL_ID", `a model id is a string like "${example}"; got ${describe(modelId)}`);
  }
  const options = fields(given, "INVALID_OPTION", `${builder} options`);
  // The JS-only values stay here; the core sees only that they were given.
  const plain = Object.fromEntries(Object.entries(options).map(([k, v]) => [k, JS_ONLY.includes(k) ? null : v]));
  const read = core.invokerOptions(builder, plain);
  return [
    { ...options, batchSize: read.batchSize ?? undefined, maxConcurrency: read.maxConcurrency ?? undefined },
    transportOptions(options, read),
  ];
}

/**
 * An LM invoker for `openai/<model>`, `anthropic/<model>`, `openrouter/<vendor>/<model>` or
 * `openai-compatible/<model>` (with `baseUrl`).
 */
export function buildLMInvoker(...args) {
  const [options, transport] = invokerSetup("buildLMInvoker", "openai/gpt-4o-mini", args);
  const modelId = args[0];
  const { apiKey, baseUrl, secrets } = transport;
  const { outputTransformers = [], fallbackLms = [] } = options;
  if (!Array.isArray(fallbackLms) || !fallbackLms.every((f) => f && typeof f.invoke === "function")) {
    throw citeflowError("INVALID_OPTION", "fallbackLms must be an array of invokers");
  }
  // Checks the model id, the base URL and the transformer configs now, not at the first call.
  core.buildHttpRequest(modelId, { messages: [{ role: "user", content: "" }] }, apiKey, baseUrl);
  const transformers =
    () => (outputTransformers.length ? OutputTransformerChain.fromConfigs(outputTransformers) : null);
  transformers();

  /** The request's citations for the core (undefined keys left out: the core refuses unknown ones). */
  function citationsOf({ enforce, policy, markerStyle, sourceCount }) {
    if (enforce === undefined) return undefined;
    return Object.fromEntries(
      Object.entries({ enforce, policy, markerStyle, sourceCount }).filter(([, v]) => v !== undefined),
    );
  }

  async function send(messages, callOptions, stream) {
    const options = knownFields(
      callOptions,
      [...CALL_OPTIONS, ...CITE_OPTIONS],
      "INVALID_OPTION",
      "invoke/stream options",
    );
    const { signal, responseSchema, temperature, maxTokens, logprobs, topLogprobs, grammar } = options;
    const citations = citationsOf(options);
    const http = core.buildHttpRequest(
      modelId,
      { messages, temperature, maxTokens, responseSchema, logprobs, topLogprobs, grammar, citations, stream },
      apiKey,
      baseUrl,
    );
    // A cited answer given as JSON: how the core reads it back (marker style, sources).
    const cited = STRUCTURED_CITATIONS.includes(http.enforce) ? citations : undefined;
    return { ...(await call({ http, transport, signal, stream })), cited };
  }

  async function invokeOnce(input, callOptions) {
    const { text, http, cited } = await send(toMessages(input), callOptions, false);
    // A cited answer's JSON text stays text for the core to read back (prose, from a server
    // that ignored the schema, passes through the marker parser, as in a stream).
    const output = core.parseProviderResponse(http.provider, text, callOptions?.responseSchema !== undefined, cited);
    const chain = transformers();
    return chain ? chain.transform(output) : output;
  }

  return {
    modelId,
    /** A whole answer: LMOutput `{outputs, usage, finishReason}`. Fallbacks are tried in order. */
    async invoke(input, callOptions = {}, ...more) {
      noMoreArguments([input, callOptions, ...more], 2, "invoke");
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
        throw scrub(error, secrets);
      }
    },
    /** A ReadableStream (async-iterable) of events; a cut stream ends in an error. */
    stream(input, callOptions = {}, ...more) {
      noMoreArguments([input, callOptions, ...more], 2, "stream");
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
              throw scrub(error, secrets);
            }
            finish = sent.done;
            // Decoding and the output transformers run as one engine: one step per chunk.
            // A structured answer ends in a `structured` event from every provider (Anthropic
            // sends its forced tool's input; OpenAI-style JSON text is read at the end).
            // A cited answer given as JSON becomes marked text and citation events first.
            const structured = callOptions?.responseSchema !== undefined && sent.http.streamFormat !== "anthropic";
            const json = structured &&
              !outputTransformers.some((c) => OutputTransformerConfig.fromConfig(c).type === "json");
            const citedAnswer = () => ({
              type: "cited_answer",
              kwargs: { markerStyle: sent.cited.markerStyle ?? "bracket", sourceCount: sent.cited.sourceCount },
            });
            const first = sent.cited ? [citedAnswer()] : json ? [{ type: "json" }] : [];
            const decoder = new ProviderBodyDecoder(sent.http.streamFormat, {
              transformers: [...first, ...outputTransformers],
            });
            // The decoder itself (a fresh copy would leave this one's engine to the collector).
            reader = sent.body.pipeThrough(transformStreamOf(decoder)).getReader();
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
            if (callOptions?.signal?.aborted) throw e;
            // Decoder errors quote the stream (in-stream errors, invalid data): redacted too.
            if (typeof e?.code === "string") throw scrub(e, secrets);
            // The body broke off (connection reset, chunked encoding cut): say so, stably.
            throw invokerError("STREAM_INTERRUPTED", `${modelId}: the answer stream broke off: ${e?.message ?? e}`, {
              retryable: true,
            }, secrets);
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

/** `run()`, its errors scrubbed of the invoker's secrets. */
async function scrubbing(secrets, run) {
  try {
    return await run();
  } catch (error) {
    throw scrub(error, secrets);
  }
}

/**
 * An embedding invoker (OpenAI-style `/embeddings`: `openai/`, `openrouter/`,
 * `openai-compatible/`): texts in, Float32Arrays out in input order, in batches.
 */
export function buildEMInvoker(...args) {
  const [options, transport] = invokerSetup("buildEMInvoker", "openai/text-embedding-3-small", args);
  const modelId = args[0];
  const { apiKey, baseUrl, secrets } = transport;
  const { batchSize } = options;
  core.buildEmbeddingsRequest(modelId, [""], apiKey, baseUrl); // checks the id and base URL now
  return {
    modelId,
    /** One text → one Float32Array; a list → a list, in the same order. */
    async invoke(texts, options, ...more) {
      noMoreArguments([texts, options, ...more], 2, "invoke");
      const { signal } = callOptionsOf(options);
      const items = typeof texts === "string"
        ? [texts]
        : isArray(texts)
        ? list(texts, "INVALID_OPTION", "the texts")
        : null;
      if (items === null || items.length === 0 || !items.every((t) => typeof t === "string")) {
        throw citeflowError(
          "INVALID_OPTION",
          `an embedding invoker takes a string or a non-empty array of strings; got ${describe(texts)}`,
        );
      }
      return scrubbing(secrets, async () => {
        const vectors = [];
        for (let i = 0; i < items.length; i += batchSize) {
          const batch = items.slice(i, i + batchSize);
          const http = core.buildEmbeddingsRequest(modelId, batch, apiKey, baseUrl);
          const { text } = await call({ http, transport, signal, stream: false });
          const flat = core.parseEmbeddings(http.provider, text, batch.length);
          const dims = flat.length / batch.length;
          for (let k = 0; k < batch.length; k++) vectors.push(flat.slice(k * dims, (k + 1) * dims));
        }
        return typeof texts === "string" ? vectors[0] : vectors;
      });
    },
  };
}

/** The options of one call of an embedding or decision invoker: `{signal}`. */
const callOptionsOf = (options) => knownFields(options, ["signal"], "INVALID_OPTION", "invoke options");

/** Questions for a decision model (System One wire format). */
export const DMQuestion = Object.freeze({
  /** A yes/no question answered with a probability (`noul`); criteria `{true, false}` optional. */
  noul: (instructions, criteria, ...more) => {
    noMoreArguments([instructions, criteria, ...more], 2, "DMQuestion.noul");
    return { type: "noul", instructions, ...(criteria === undefined ? {} : { criteria }) };
  },
  /** Pick one label of `{label: description}`. */
  choice: (instructions, criteria, ...more) => {
    noMoreArguments([instructions, criteria, ...more], 2, "DMQuestion.choice");
    return { type: "choice", instructions, criteria };
  },
  /** Place on a scale of levels (lowest first). */
  score: (instructions, levels, ...more) => {
    noMoreArguments([instructions, levels, ...more], 2, "DMQuestion.score");
    return { type: "score", instructions, criteria: levels };
  },
});

/**
 * A decision model. `typesafe/<model>` and `openrouter/typesafe/<model>` speak System One;
 * any other OpenAI-style model id (`openai/`, `openrouter/<vendor>/`, `openai-compatible/`)
 * becomes a language-model decision model: each question is one call answered with one token
 * (Yes/No, an option's letter, a level's digit), read from that token's log-probabilities.
 */
export function buildDMInvoker(...args) {
  const [options, transport] = invokerSetup("buildDMInvoker", "openrouter/typesafe/jev-1.13", args);
  const modelId = args[0];
  return core.decisionBackend(modelId) === "system-one"
    ? systemOneInvoker(modelId, transport)
    : lmDecisionInvoker(modelId, options, transport.secrets);
}

function checkDecisionRequest(request) {
  if (request === null || typeof request !== "object") {
    throw citeflowError("INVALID_OPTION", `a decision model takes {state, questions}; got ${describe(request)}`);
  }
  const { state, questions } = knownFields(request, ["state", "questions"], "INVALID_OPTION", "the decision request");
  if (typeof state === "function") {
    throw citeflowError("INVALID_OPTION", "the decision request's `state` is data; got a function");
  }
  const snapshot = questions !== null && typeof questions === "object"
    ? fields(questions, "INVALID_OPTION", "the questions")
    : questions;
  return { state, questions: snapshot };
}

function systemOneInvoker(modelId, transport) {
  const { apiKey, baseUrl, secrets } = transport;
  core.buildDecisionRequest(modelId, "", { probe: DMQuestion.noul("probe") }, apiKey, baseUrl); // checks the id now
  return {
    modelId,
    /** `{state, questions: {name: question}}` → `{model, answers: {name: answer}, usage}`. */
    async invoke(request, options, ...more) {
      noMoreArguments([request, options, ...more], 2, "invoke");
      const { signal } = callOptionsOf(options);
      const { state, questions } = checkDecisionRequest(request);
      const http = core.buildDecisionRequest(modelId, state ?? null, questions, apiKey, baseUrl);
      return scrubbing(secrets, async () => {
        const { text } = await call({ http, transport, signal, stream: false });
        return core.parseDecisionResponse(text, questions);
      });
    },
  };
}

// Decision models built on a language model, each with how it decides under a caller's gate
// (a relevance component's: its maxConcurrency counts their requests, not their calls).
const DECIDE_WITHIN = new WeakMap();

/**
 * `dm.invoke(request, options)` with its HTTP requests waiting their turn at `gate`: each of a
 * language-model decision's requests; one call of any other decision model (System One sends
 * one request per call, and a model of your own is one call).
 */
export function decideWithin(gate, dm, request, options) {
  const decide = DECIDE_WITHIN.get(dm);
  return decide === undefined ? gate.run(() => dm.invoke(request, options)) : decide(request, options, gate);
}

// The calls, their settings and the decision made of their answers are the core's
// (lmDecisionCalls, lmDecisionResult); this sends the calls through the language model, at most
// `maxConcurrency` (read by the core) in flight, and takes the answers back in the questions'
// order.
function lmDecisionInvoker(modelId, options, secrets) {
  const { maxConcurrency, batchSize: _, ...lmOptions } = options;
  const lm = buildLMInvoker(modelId, lmOptions);
  async function decide(request, options, outer) {
    const { signal } = callOptionsOf(options);
    const { state = null, questions } = checkDecisionRequest(request);
    const { calls, options: settings } = core.lmDecisionCalls(state, questions);
    const own = new Gate(maxConcurrency);
    const ask = (messages) => lm.invoke(messages, { ...settings, signal });
    return scrubbing(secrets, async () => {
      const outputs = await Promise.all(
        calls.map((messages) => own.run(() => outer === null ? ask(messages) : outer.run(() => ask(messages)))),
      );
      const answers = outputs.map((o) => ({ usage: o.usage ?? null, logprobs: o.logprobs ?? null }));
      return core.lmDecisionResult(modelId, questions, answers);
    });
  }
  const dm = {
    modelId,
    /** Same contract as a System One model. */
    async invoke(request, options, ...more) {
      noMoreArguments([request, options, ...more], 2, "invoke");
      return decide(request, options, null);
    },
  };
  DECIDE_WITHIN.set(dm, decide);
  return dm;
}
