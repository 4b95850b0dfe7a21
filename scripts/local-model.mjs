#!/usr/bin/env node
// citeflow's built-in local model: an OpenAI-compatible server (chat completions, streamed or
// whole, and embeddings) so the demo, the examples and the tests run the whole pipeline offline.
// It is not a language model: it answers from the numbered sources in the prompt by word
// overlap, writes its reasoning in <think> tags, and cites every sentence with [n] markers,
// which is exactly the shape of output citeflow exists to handle.
//
//   node scripts/local-model.mjs            # listens on 127.0.0.1:8081 (PORT to change)
//   base URL http://127.0.0.1:8081/v1, any API key, models "citeflow-local" and "citeflow-embed"
import { createServer } from "node:http";

export const CHAT_MODEL = "citeflow-local";
export const EMBED_MODEL = "citeflow-embed";
const DIMENSIONS = 256;
const STOP = new Set(
  "a an and are as at be by can do does for from has have how i in is it its of on or so that the their this to was what when where which who why will with would you your me tell each other not"
    .split(" "),
);

/**
 * Lower-case words (numbers like 0.1 kept whole), stop words out, a plural "s" off.
 * snake_case identifiers (metadata keys such as file_name) carry no meaning and are dropped.
 */
export function words(text) {
  return (text.toLowerCase().match(/[\p{L}\p{N}_]+(?:[.,]\p{N}+)*/gu) ?? [])
    .filter((w) => !w.includes("_") && !STOP.has(w) && (w.length > 2 || /\d/.test(w)))
    .map((w) => (w.length > 4 && w.endsWith("s") && !w.endsWith("ss") ? w.slice(0, -1) : w));
}

/** A bag-of-words vector: each distinct word hashed (FNV-1a) into one of 256 slots, normalised. */
export function embed(text) {
  const v = new Array(DIMENSIONS).fill(0);
  for (const w of new Set(words(text))) {
    let h = 0x811c9dc5;
    for (let i = 0; i < w.length; i++) h = Math.imul(h ^ w.charCodeAt(i), 0x01000193);
    v[(h >>> 0) % DIMENSIONS] += 1;
  }
  const norm = Math.hypot(...v) || 1;
  return v.map((x) => x / norm);
}

/**
 * The question (the last user message) and the numbered sources of a prompt, as Citeformer
 * writes them ("Source N: title" then the content, blocks apart by a blank line) or as
 * "[N] content" lines.
 */
function readPrompt(messages) {
  const all = messages.map((m) => String(m.content ?? "")).join("\n\n");
  const question = String(messages.filter((m) => m.role === "user").at(-1)?.content ?? "");
  let sources = [...all.matchAll(/^Source (\d+):[^\n]*\n((?:[^\n]+\n?)+)/gm)].map((m) => ({
    n: Number(m[1]),
    text: m[2].trim(),
  }));
  if (sources.length === 0) {
    sources = [...all.matchAll(/^\[(\d+)\]\s*(.+)$/gm)].map((m) => ({ n: Number(m[1]), text: m[2] }));
  }
  return { question, sources };
}

const sentences = (text) => text.split(/(?<=[.!?])\s+(?=[A-Z])/);

/** The answer: reasoning, then per matching source its best sentence with its marker. */
export function answer(messages) {
  const { question, sources } = readPrompt(messages);
  const asked = new Set(words(question));
  const scored = sources
    .map((s) => ({ ...s, hits: [...new Set(words(s.text))].filter((w) => asked.has(w)) }))
    .filter((s) => s.hits.length > 0)
    .sort((a, b) => b.hits.length - a.hits.length || a.n - b.n)
    .slice(0, 2)
    .sort((a, b) => a.n - b.n);
  const about = [...asked].join(", ") || "nothing I can look up";
  if (scored.length === 0) {
    return `<think>The question is about ${about}. None of the ${sources.length} sources mentions any of that.</think>` +
      "None of the sources I was given answers that question, so I cannot answer it with a citation.";
  }
  const notes = scored.map((s) => `source ${s.n} mentions ${s.hits.join(", ")}`).join("; ");
  const parts = scored.map((s) => {
    const best = sentences(s.text)
      .map((x) => ({ x, k: words(x).filter((w) => asked.has(w)).length }))
      .sort((a, b) => b.k - a.k)[0].x;
    return `${best.replace(/[.!?]+$/, "")} [${s.n}].`;
  });
  return `<think>The question is about ${about}. Looking at the sources: ${notes}. I will answer from ${
    scored.map((s) => `[${s.n}]`).join(" and ")
  } and cite each sentence.</think>${parts.join(" ")}`;
}

/** Pieces of one to three words, cutting tags and markers wherever they fall, like a tokenizer. */
function tokens(text) {
  const out = [];
  let i = 0;
  let k = 0;
  while (i < text.length) {
    const n = [3, 5, 9, 2, 7, 4][k++ % 6];
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

const chunk = (delta, finish = null) =>
  `data: ${
    JSON.stringify({
      id: "chatcmpl-local",
      object: "chat.completion.chunk",
      model: CHAT_MODEL,
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  }\n\n`;
function usage(messages, text) {
  const prompt = words(messages.map((m) => m.content).join(" ")).length;
  const completion = tokens(text).length;
  return { prompt_tokens: prompt, completion_tokens: completion, total_tokens: prompt + completion };
}

async function readJson(req) {
  let raw = "";
  for await (const c of req) raw += c;
  return JSON.parse(raw || "{}");
}

function send(res, status, value) {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(value));
}

/**
 * What every `/v1` server here does first (this one and the real model, scripts/model-server.mjs):
 * the path of a `/v1/...` request to route, with CORS allowed; otherwise the handler's result:
 * false for a path outside `/v1/`, true for a preflight (answered here).
 */
export function openRoute(req, res) {
  const path = new URL(req.url, "http://localhost").pathname;
  if (!path.startsWith("/v1/")) return false;
  res.setHeader("access-control-allow-origin", "*");
  if (req.method !== "OPTIONS") return path;
  res.writeHead(204, {
    "access-control-allow-headers": "authorization, content-type",
    "access-control-allow-methods": "GET, POST",
  });
  res.end();
  return true;
}

/**
 * Handles `/v1/...` requests; returns false for anything else (so a static server can mount it).
 * `delayMs`: the pause between streamed tokens.
 */
export async function handleLocalModel(req, res, { delayMs = 25 } = {}) {
  const path = openRoute(req, res);
  if (typeof path !== "string") return path;
  try {
    if (req.method === "GET" && path === "/v1/models") {
      send(res, 200, {
        object: "list",
        data: [CHAT_MODEL, EMBED_MODEL].map((id) => ({ id, object: "model", owned_by: "citeflow" })),
      });
    } else if (req.method === "POST" && path === "/v1/embeddings") {
      const body = await readJson(req);
      const input = typeof body.input === "string" ? [body.input] : body.input;
      if (!Array.isArray(input)) {
        return send(res, 400, {
          error: { message: "`input` must be a string or an array of strings", type: "invalid_request_error" },
        }),
          true;
      }
      send(res, 200, {
        object: "list",
        model: EMBED_MODEL,
        data: input.map((t, index) => ({ object: "embedding", index, embedding: embed(String(t)) })),
        usage: { prompt_tokens: input.length, total_tokens: input.length },
      });
    } else if (req.method === "POST" && path === "/v1/chat/completions") {
      const body = await readJson(req);
      if (!Array.isArray(body.messages)) {
        return send(res, 400, { error: { message: "`messages` must be an array", type: "invalid_request_error" } }),
          true;
      }
      const text = answer(body.messages);
      const used = usage(body.messages, text);
      if (!body.stream) {
        send(res, 200, {
          id: "chatcmpl-local",
          object: "chat.completion",
          model: CHAT_MODEL,
          choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
          usage: used,
        });
        return true;
      }
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-store" });
      let closed = false;
      req.on("close", () => (closed = true));
      res.write(chunk({ role: "assistant", content: "" }));
      for (const t of tokens(text)) {
        if (closed) return true;
        if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
        res.write(chunk({ content: t }));
      }
      res.write(chunk({}, "stop"));
      res.write(
        `data: ${
          JSON.stringify({
            id: "chatcmpl-local",
            object: "chat.completion.chunk",
            model: CHAT_MODEL,
            choices: [],
            usage: used,
          })
        }\n\n`,
      );
      res.end("data: [DONE]\n\n");
    } else {
      send(res, 404, { error: { message: `no route ${req.method} ${path}`, type: "invalid_request_error" } });
    }
  } catch (e) {
    send(res, 400, { error: { message: `bad request: ${e.message}`, type: "invalid_request_error" } });
  }
  return true;
}

/** The local model on its own port; resolves with `{ base, close }`. */
export async function startLocalModel({ port = 0, host = "127.0.0.1", delayMs } = {}) {
  const server = createServer((req, res) => {
    handleLocalModel(req, res, { delayMs }).then((handled) =>
      handled || send(res, 404, { error: { message: "not found" } })
    );
  });
  await new Promise((r) => server.listen(port, host, r));
  return { base: `http://${host}:${server.address().port}/v1`, close: () => server.close() };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { base } = await startLocalModel({ port: Number(process.env.PORT ?? 8081) });
  console.log(`citeflow local model: ${base} (models ${CHAT_MODEL}, ${EMBED_MODEL})`);
}
