#!/usr/bin/env node
// The real local model: an OpenAI-compatible server over node-llama-cpp, so the demo and the
// integration tests meet a language model (real tokenisation, real log-probabilities, a grammar
// really constraining decoding, real embeddings) with no network and no API key.
//
//   bash scripts/models.sh                  # once: the models and node-llama-cpp, cached
//   node scripts/model-server.mjs           # 127.0.0.1:8082 (PORT to change; 0 picks a port)
//
// Chat: SmolLM2-135M-Instruct (ChatML). Embeddings: all-MiniLM-L6-v2 (384 dimensions, mean
// pooled, normalised). Any `model` name is accepted and answered by the one model of its kind.
// Routes: GET /v1/models, POST /v1/chat/completions (stream or whole; `temperature` (default
// 0: greedy, so answers repeat), `top_p`, `seed`, `max_tokens`, `stop`, `logprobs`,
// `top_logprobs`, `grammar` (GBNF), `response_format` json_schema / json_object; a stream ends
// with a usage chunk), POST /v1/embeddings (`encoding_format` float or base64).
// Requests are served one at a time on one CPU thread: on a busy 2-core machine one thread
// was faster than two.
import { createServer } from "node:http";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { openRoute } from "./local-model.mjs";

export const CACHE = process.env.CITEFLOW_CACHE ?? join(homedir(), ".cache", "citeflow");
export const CHAT_MODEL = "SmolLM2-135M-Instruct";
export const EMBED_MODEL = "all-MiniLM-L6-v2";
const CHAT_FILE = "models/SmolLM2-135M-Instruct.Q4_1.gguf";
const EMBED_FILE = "models/all-MiniLM-L6-v2.F16.gguf";
const RUNTIME_ENTRY = "model-runtime/node_modules/node-llama-cpp/dist/index.js";
const THREADS = 1;
const CHAT_CONTEXT_TOKENS = 2048;
const EMBED_CONTEXT_TOKENS = 512;
const DEFAULT_MAX_TOKENS = 256;
const MAX_TOP_LOGPROBS = 20;
const MAX_STOPS = 4;
const MAX_BODY_BYTES = 4 << 20;
const GRAMMAR_CACHE_SIZE = 16;
// What SmolLM2's own chat template puts first when a conversation has no system message.
const DEFAULT_SYSTEM = "You are a helpful AI assistant named SmolLM, trained by Hugging Face";
// OpenAI's stand-in for the log-probability of a token the sampler could never pick.
const LOGPROB_FLOOR = -9999;

class RequestError extends Error {
  constructor(message, status = 400, code = null) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** Serialises work on the one model context: each call waits for the previous one. */
function serial() {
  let tail = Promise.resolve();
  return (job) => {
    const run = tail.then(job, job);
    tail = run.catch(() => {});
    return run;
  };
}

/**
 * Loads node-llama-cpp from its cached prefix and both models. Throws with what to run when
 * the set-up has not happened.
 */
export async function loadModels({ cache = CACHE } = {}) {
  for (const file of [RUNTIME_ENTRY, CHAT_FILE, EMBED_FILE]) {
    if (!existsSync(join(cache, file))) {
      throw new Error(
        `${join(cache, file)} is missing: run \`bash scripts/models.sh\` (or \`make demo\`, which runs it) first`,
      );
    }
  }
  const { getLlama, LlamaGrammarEvaluationState } = await import(pathToFileURL(join(cache, RUNTIME_ENTRY)).href);
  // Prebuilt CPU binary only: never compile, never download.
  const llama = await getLlama({
    gpu: false,
    build: "never",
    usePrebuiltBinaries: true,
    progressLogs: false,
    logLevel: "error",
    maxThreads: THREADS,
  });
  const chat = await llama.loadModel({ modelPath: join(cache, CHAT_FILE) });
  const context = await chat.createContext({ contextSize: CHAT_CONTEXT_TOKENS, threads: THREADS, sequences: 1 });
  const embed = await llama.loadModel({ modelPath: join(cache, EMBED_FILE) });
  const embedContext = await embed.createEmbeddingContext({ contextSize: EMBED_CONTEXT_TOKENS, threads: THREADS });
  return {
    llama,
    chat,
    sequence: context.getSequence(),
    embed,
    embedContext,
    GrammarState: LlamaGrammarEvaluationState,
    grammars: new Map(),
    queue: serial(),
    async dispose() {
      await embedContext.dispose();
      await context.dispose();
      await embed.dispose();
      await chat.dispose();
      await llama.dispose();
    },
  };
}

// --- requests ---------------------------------------------------------------------------------

async function readJson(req) {
  const parts = [];
  let size = 0;
  for await (const part of req) {
    size += part.length;
    if (size > MAX_BODY_BYTES) throw new RequestError(`the request body is larger than ${MAX_BODY_BYTES} bytes`, 413);
    parts.push(part);
  }
  try {
    const value = JSON.parse(Buffer.concat(parts).toString("utf8") || "{}");
    if (value === null || typeof value !== "object" || Array.isArray(value)) throw new Error("not an object");
    return value;
  } catch (e) {
    throw new RequestError(`the request body must be a JSON object (${e.message})`);
  }
}

function number(body, key, { min, max, integer = false, fallback }) {
  const v = body[key];
  if (v === undefined || v === null) return fallback;
  if (typeof v !== "number" || !Number.isFinite(v) || v < min || v > max || (integer && !Number.isInteger(v))) {
    throw new RequestError(
      `\`${key}\` must be ${integer ? "an integer" : "a number"} from ${min} to ${max}; got ${JSON.stringify(v)}`,
    );
  }
  return v;
}

/** A message's text: a string, or the text parts of an array of content parts. */
function textOf(content, i) {
  if (typeof content === "string") return content;
  if (content === null || content === undefined) return "";
  if (Array.isArray(content) && content.every((p) => p && p.type === "text" && typeof p.text === "string")) {
    return content.map((p) => p.text).join("");
  }
  throw new RequestError(`messages[${i}].content must be a string or an array of text parts`);
}

/** The conversation's turns (roles checked, text only, SmolLM2's default system message first if none). */
function chatTurns(messages) {
  if (!Array.isArray(messages) || messages.length === 0) throw new RequestError("`messages` must be a non-empty array");
  const turns = messages.map((m, i) => {
    if (m === null || typeof m !== "object" || !["system", "user", "assistant", "developer"].includes(m.role)) {
      throw new RequestError(`messages[${i}].role must be system, developer, user or assistant`);
    }
    return { role: m.role === "developer" ? "system" : m.role, content: textOf(m.content, i) };
  });
  if (turns[0].role !== "system") turns.unshift({ role: "system", content: DEFAULT_SYSTEM });
  return turns;
}

/**
 * The grammar a request asks for, compiled once per text: `{ grammar, json }` (`json`: the answer
 * is one JSON value and ends when it is complete), or null.
 */
async function grammarOf(models, body) {
  const format = body.response_format;
  const wantsFormat = format && format.type && format.type !== "text";
  if (body.grammar !== undefined && body.grammar !== null && wantsFormat) {
    throw new RequestError("give either `grammar` or `response_format`, not both");
  }
  let key;
  let build;
  let json = true;
  if (typeof body.grammar === "string") {
    key = `gbnf:${body.grammar}`;
    build = () => models.llama.createGrammar({ grammar: body.grammar });
    json = false;
  } else if (body.grammar !== undefined && body.grammar !== null) {
    throw new RequestError("`grammar` must be a GBNF string");
  } else if (wantsFormat && format.type === "json_schema") {
    const schema = format.json_schema?.schema;
    if (schema === null || typeof schema !== "object") {
      throw new RequestError("response_format.json_schema.schema must be a JSON schema object");
    }
    key = `schema:${JSON.stringify(schema)}`;
    build = () => models.llama.createGrammarForJsonSchema(schema);
  } else if (wantsFormat && format.type === "json_object") {
    key = "json";
    build = () => models.llama.getGrammarFor("json");
  } else if (wantsFormat) {
    throw new RequestError(
      `response_format.type ${JSON.stringify(format.type)} is not one of text, json_object, json_schema`,
    );
  } else {
    return null;
  }
  if (!models.grammars.has(key)) {
    let grammar;
    try {
      grammar = await build();
    } catch (e) {
      throw new RequestError(`the grammar could not be used: ${e.message}`);
    }
    if (models.grammars.size >= GRAMMAR_CACHE_SIZE) models.grammars.delete(models.grammars.keys().next().value);
    models.grammars.set(key, grammar);
  }
  return { grammar: models.grammars.get(key), json };
}

const SEED_RANGE = 2 ** 32;
const seedOf = (seed) => (seed === undefined ? undefined : ((seed % SEED_RANGE) + SEED_RANGE) % SEED_RANGE);

function chatParams(body) {
  if (body.n !== undefined && body.n !== null && body.n !== 1) throw new RequestError("only `n: 1` is supported");
  const stop = body.stop === undefined || body.stop === null
    ? []
    : typeof body.stop === "string"
    ? [body.stop]
    : body.stop;
  if (!Array.isArray(stop) || stop.length > MAX_STOPS || stop.some((s) => typeof s !== "string" || s === "")) {
    throw new RequestError(`\`stop\` must be a non-empty string or an array of at most ${MAX_STOPS} of them`);
  }
  const topLogprobs = number(body, "top_logprobs", { min: 0, max: MAX_TOP_LOGPROBS, integer: true, fallback: 0 });
  if (body.logprobs !== undefined && body.logprobs !== null && typeof body.logprobs !== "boolean") {
    throw new RequestError("`logprobs` must be a boolean");
  }
  if (topLogprobs > 0 && body.logprobs !== true) throw new RequestError("`top_logprobs` needs `logprobs: true`");
  return {
    stream: body.stream === true,
    temperature: number(body, "temperature", { min: 0, max: 2, fallback: 0 }),
    topP: number(body, "top_p", { min: 0, max: 1, fallback: 1 }),
    // Any safe integer, folded into the sampler's 32-bit seed.
    seed: seedOf(
      number(body, "seed", {
        min: Number.MIN_SAFE_INTEGER,
        max: Number.MAX_SAFE_INTEGER,
        integer: true,
        fallback: undefined,
      }),
    ),
    maxTokens:
      number(body, "max_completion_tokens", { min: 1, max: CHAT_CONTEXT_TOKENS, integer: true, fallback: undefined }) ??
        number(body, "max_tokens", { min: 1, max: CHAT_CONTEXT_TOKENS, integer: true, fallback: DEFAULT_MAX_TOKENS }),
    stop,
    logprobs: body.logprobs === true,
    topLogprobs,
  };
}

/** Length of the longest end of `text` that is the start of a stop string (held back while streaming). */
function partialStop(text, stops) {
  let longest = 0;
  for (const s of stops) {
    for (let n = Math.min(s.length - 1, text.length); n > longest; n--) {
      if (text.endsWith(s.slice(0, n))) {
        longest = n;
        break;
      }
    }
  }
  return longest;
}

function completeJson(text) {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const logprob = (p) => (p > 0 ? Math.log(p) : LOGPROB_FLOOR);

function tokenEntry(text, p) {
  return { token: text, logprob: logprob(p), bytes: [...Buffer.from(text, "utf8")] };
}

/**
 * The prompt's tokens in ChatML, as SmolLM2 was trained on, ending with the opened assistant
 * turn; refused when they and the answer would not fit the context. Only the template's own
 * markers are special tokens: "<|im_end|>" written in a message stays text.
 */
function promptTokens(models, turns, params) {
  const { chat } = models;
  const tokens = [];
  for (const t of turns) {
    tokens.push(
      ...chat.tokenize(`<|im_start|>${t.role}\n`, true),
      ...chat.tokenize(t.content, false),
      ...chat.tokenize("<|im_end|>\n", true),
    );
  }
  tokens.push(...chat.tokenize("<|im_start|>assistant\n", true));
  if (tokens.length + params.maxTokens > CHAT_CONTEXT_TOKENS) {
    throw new RequestError(
      `the prompt is ${tokens.length} tokens and max_tokens ${params.maxTokens}; together they may be at most ${CHAT_CONTEXT_TOKENS}`,
      400,
      "context_length_exceeded",
    );
  }
  return tokens;
}

/**
 * Generates one answer on the model's one sequence. `onText(delta, logprobs)` receives the text
 * as it becomes final (never half a character or the start of a possible stop string) with the
 * log-probabilities of the tokens it completes. `isCancelled()` stops early (a closed client).
 */
async function generate(models, tokens, constraint, params, onText, isCancelled = () => false) {
  const { chat, sequence } = models;
  // Every prompt is evaluated whole, in one batch. Reusing a cached prefix would save a fraction
  // of a second but changes the arithmetic (other batch shapes), and with it, at near-ties, the
  // greedy answer: the same request must give the same answer whatever came before it.
  await sequence.clearHistory();

  const wantProbabilities = params.logprobs;
  const options = {
    temperature: params.temperature,
    topP: params.topP,
    seed: params.seed ?? (params.temperature > 0 ? Math.floor(Math.random() * SEED_RANGE) : undefined),
    grammarEvaluationState: constraint
      ? new models.GrammarState({ model: chat, grammar: constraint.grammar })
      : undefined,
  };
  const generated = [];
  const pending = []; // log-probability entries of tokens whose text is not released yet
  let released = "";
  let cut = null; // the whole answer, when a stop string or a complete JSON value ended it
  let finishReason = "length";
  for await (const step of sequence.evaluateWithMetadata(tokens, { probabilities: wantProbabilities }, options)) {
    if (isCancelled()) {
      finishReason = "cancelled";
      break;
    }
    generated.push(step.token);
    if (wantProbabilities) {
      const top = [];
      for (const [token, p] of step.probabilities) {
        if (top.length >= params.topLogprobs) break;
        top.push(tokenEntry(chat.detokenize([token], true), p));
      }
      pending.push({
        ...tokenEntry(chat.detokenize([step.token], true), step.probabilities.get(step.token) ?? 0),
        top_logprobs: top,
      });
    }
    const text = chat.detokenize(generated, false);
    const stopAt = params.stop.reduce((at, s) => {
      const i = text.indexOf(s, Math.max(0, released.length - s.length));
      return i >= 0 && (at < 0 || i < at) ? i : at;
    }, -1);
    if (stopAt >= 0) {
      onText(text.slice(released.length, Math.max(released.length, stopAt)), pending.splice(0));
      released = cut = text.slice(0, Math.max(released.length, stopAt));
      finishReason = "stop";
      break;
    }
    // A JSON answer is complete once its value is: the grammar would allow only whitespace
    // after it, which a small model can emit until max_tokens.
    if (constraint?.json && /[}\]"]\s*$/.test(text) && completeJson(text)) {
      onText(text.trimEnd().slice(released.length), pending.splice(0));
      released = cut = text.trimEnd();
      finishReason = "stop";
      break;
    }
    // Hold back a split character (U+FFFD until its last byte arrives), a possible stop start,
    // and in a JSON answer trailing whitespace (dropped at the end).
    let end = text.length - partialStop(text, params.stop);
    if (text.endsWith("\uFFFD")) end = Math.min(end, text.length - 1);
    if (constraint?.json) end = Math.min(end, text.trimEnd().length);
    if (end > released.length) {
      onText(text.slice(released.length, end), pending.splice(0));
      released = text.slice(0, end);
    }
    if (generated.length >= params.maxTokens) break;
  }
  if (finishReason === "length" && generated.length < params.maxTokens) finishReason = "stop"; // an end-of-generation token
  if (finishReason !== "cancelled") {
    let text = cut ?? chat.detokenize(generated, false);
    if (constraint?.json) text = text.trimEnd();
    if (text.length > released.length || pending.length) onText(text.slice(released.length), pending.splice(0));
  }
  return {
    finishReason,
    usage: {
      prompt_tokens: tokens.length,
      completion_tokens: generated.length,
      total_tokens: tokens.length + generated.length,
    },
  };
}

// --- routes -----------------------------------------------------------------------------------

const json = (res, status, value) => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
};

let counter = 0;
const completionId = () => `chatcmpl-citeflow-${Date.now().toString(36)}-${(counter++).toString(36)}`;

async function chatCompletions(models, req, res) {
  const body = await readJson(req);
  const params = chatParams(body);
  const tokens = promptTokens(models, chatTurns(body.messages), params);
  const id = completionId();
  const created = Math.floor(Date.now() / 1000);
  const base = { id, created, model: CHAT_MODEL, system_fingerprint: "citeflow-local" };
  if (!params.stream) {
    let content = "";
    const entries = [];
    const { finishReason, usage } = await models.queue(async () =>
      generate(models, tokens, await grammarOf(models, body), params, (delta, lp) => {
        content += delta;
        entries.push(...lp);
      })
    );
    json(res, 200, {
      ...base,
      object: "chat.completion",
      choices: [{
        index: 0,
        message: { role: "assistant", content },
        logprobs: params.logprobs ? { content: entries } : null,
        finish_reason: finishReason,
      }],
      usage,
    });
    return;
  }
  let closed = false;
  res.on("close", () => (closed = !res.writableFinished));
  const send = (choices, extra = {}) =>
    res.write(`data: ${JSON.stringify({ ...base, object: "chat.completion.chunk", choices, ...extra })}\n\n`);
  await models.queue(async () => {
    const constraint = await grammarOf(models, body); // a bad grammar is still a plain 400
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
    send([{ index: 0, delta: { role: "assistant", content: "" }, logprobs: null, finish_reason: null }]);
    try {
      const { finishReason, usage } = await generate(models, tokens, constraint, params, (delta, lp) => {
        if (delta || lp.length) {
          send([{
            index: 0,
            delta: { content: delta },
            logprobs: params.logprobs ? { content: lp } : null,
            finish_reason: null,
          }]);
        }
      }, () => closed);
      if (closed) return;
      send([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason }]);
      send([], { usage });
      res.end("data: [DONE]\n\n");
    } catch (e) {
      // The status line is gone; an error event is how an OpenAI-style stream reports it.
      res.end(`data: ${JSON.stringify({ error: { message: e.message, type: "server_error" } })}\n\n`);
    }
  });
}

async function embeddings(models, req, res) {
  const body = await readJson(req);
  const input = typeof body.input === "string" ? [body.input] : body.input;
  if (!Array.isArray(input) || input.length === 0 || input.some((t) => typeof t !== "string")) {
    throw new RequestError("`input` must be a string or a non-empty array of strings");
  }
  const format = body.encoding_format ?? "float";
  if (format !== "float" && format !== "base64") throw new RequestError("`encoding_format` must be float or base64");
  const dimensions = models.embed.embeddingVectorSize;
  if (body.dimensions !== undefined && body.dimensions !== null && body.dimensions !== dimensions) {
    throw new RequestError(`this model has ${dimensions} dimensions`);
  }
  const limit = EMBED_CONTEXT_TOKENS - 2; // [CLS] and [SEP]
  let tokens = 0;
  const data = await models.queue(async () => {
    const out = [];
    for (const [index, text] of input.entries()) {
      const n = models.embed.tokenize(text).length;
      if (n > limit) throw new RequestError(`input[${index}] is ${n} tokens; this model reads at most ${limit}`);
      tokens += n + 2;
      // A text with no tokens (empty, blank) is [CLS] [SEP], as the original tokenizer makes it;
      // node-llama-cpp would give an empty vector.
      const { vector } = await models.embedContext.getEmbeddingFor(
        n > 0 ? text : models.embed.tokenize("[CLS][SEP]", true),
      );
      const norm = Math.hypot(...vector) || 1;
      const unit = Float32Array.from(vector, (x) => x / norm);
      out.push({
        object: "embedding",
        index,
        embedding: format === "base64" ? Buffer.from(unit.buffer).toString("base64") : [...unit],
      });
    }
    return out;
  });
  json(res, 200, { object: "list", model: EMBED_MODEL, data, usage: { prompt_tokens: tokens, total_tokens: tokens } });
}

/** Handles `/v1/...` with the loaded `models`; returns false for anything else (so a static server can mount it). */
export async function handleModel(models, req, res) {
  const path = openRoute(req, res);
  if (typeof path !== "string") return path;
  try {
    if (req.method === "GET" && path === "/v1/models") {
      json(res, 200, {
        object: "list",
        data: [
          {
            id: CHAT_MODEL,
            object: "model",
            owned_by: "citeflow",
            parameters: "135M",
            description: "SmolLM2-135M-Instruct, Q4_1, on the CPU through node-llama-cpp",
          },
          {
            id: EMBED_MODEL,
            object: "model",
            owned_by: "citeflow",
            parameters: "22M",
            description: "all-MiniLM-L6-v2 sentence embeddings, 384 dimensions",
          },
        ],
      });
    } else if (req.method === "POST" && path === "/v1/chat/completions") {
      await chatCompletions(models, req, res);
    } else if (req.method === "POST" && path === "/v1/embeddings") {
      await embeddings(models, req, res);
    } else {
      json(res, 404, { error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } });
    }
  } catch (e) {
    if (res.headersSent) {
      res.destroy(e);
    } else {
      const status = e instanceof RequestError ? e.status : 500;
      json(res, status, {
        error: {
          message: e.message,
          type: status < 500 ? "invalid_request_error" : "server_error",
          code: e.code ?? null,
        },
      });
    }
  }
  return true;
}

/** Loads the models and serves them; resolves with `{ base, close }` (close also frees the models). */
export async function startModelServer({ port = 0, host = "127.0.0.1", cache } = {}) {
  const models = await loadModels({ cache });
  const server = createServer((req, res) => {
    handleModel(models, req, res).then((handled) => handled || json(res, 404, { error: { message: "not found" } }));
  });
  await new Promise((resolve) => server.listen(port, host, resolve));
  return {
    base: `http://${host}:${server.address().port}/v1`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await models.dispose();
    },
  };
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  const { base, close } = await startModelServer({ port: Number(process.env.PORT ?? 8082) });
  console.log(`citeflow model server: ${base} (chat ${CHAT_MODEL}, embeddings ${EMBED_MODEL})`);
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => close().then(() => process.exit(0)));
}
