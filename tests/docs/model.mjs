// The model the guides' examples call (as `process.env.BASE_URL`): the scripted local model of
// scripts/local-model.mjs (chat completions streamed or whole, answering from the numbered
// sources with [N] markers; embeddings by word overlap), and two calls it does not answer,
// judged by the same word overlap so the examples' relevance filters keep what a reader expects:
// - a decision call (`logprobs` with `top_logprobs`, as a decision model made of a language
//   model sends): "Yes" and "No" with log-probabilities, P(yes) the share of the query's words
//   that the target chunk holds;
// - a relevance batch (`response_format` json_schema with `results`, as LMRelevanceFilter
//   sends): one `{explanation, is_relevant}` per `[CHUNK]`, relevant when it holds half the
//   query's words.
import { createServer } from "node:http";
import { Readable } from "node:stream";
import { handleLocalModel, words } from "../../scripts/local-model.mjs";

/** The share of the query's words that `text` holds. */
const overlap = (query, text) => {
  const q = new Set(words(query));
  const t = new Set(words(text));
  return q.size === 0 ? 0 : [...q].filter((w) => t.has(w)).length / q.size;
};

const completion = (content, extra = {}) => ({
  id: "chatcmpl-docs",
  object: "chat.completion",
  model: "docs",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop", ...extra }],
  usage: { prompt_tokens: 20, completion_tokens: 1, total_tokens: 21 },
});

/** A decision call's answer: one token, with "Yes" and "No" as its alternatives. */
function decide(prompt) {
  const state = JSON.parse(/State:\n(\{[\s\S]*?\n\})\n/.exec(prompt)?.[1] ?? "{}");
  const target = /"target_chunk": "([^"]+)"/.exec(prompt)?.[1];
  const text = String(state.chunks?.[target] ?? "");
  const p = Math.min(0.98, Math.max(0.02, overlap(String(state.query ?? ""), text)));
  const top = [["Yes", p], ["No", 1 - p]].sort((a, b) => b[1] - a[1]);
  const logprobs = {
    content: [{
      token: top[0][0],
      logprob: Math.log(top[0][1]),
      top_logprobs: top.map(([token, q]) => ({ token, logprob: Math.log(q) })),
    }],
  };
  return completion(top[0][0], { logprobs, finish_reason: "length" });
}

/** A relevance batch's answer: a verdict per `[CHUNK]`, in order. */
function judgeBatch(prompt) {
  const query = /^Query:\n(.*)$/m.exec(prompt)?.[1] ?? "";
  const chunks = prompt.split("[CHUNK]").slice(1);
  const results = chunks.map((c) => {
    const share = overlap(query, c);
    return { explanation: `It shares ${Math.round(share * 100)}% of the query's words.`, is_relevant: share >= 0.5 };
  });
  return completion(JSON.stringify({ results }));
}

/** Starts the server; resolves with `{ base, close }` (`base` ends in `/v1`). */
export async function startDocsModel() {
  const server = createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    const body = req.method === "POST" && raw ? JSON.parse(raw) : {};
    const prompt = String(body.messages?.at(-1)?.content ?? "");
    const send = (value) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify(value));
    };
    if (req.url === "/v1/chat/completions" && body.top_logprobs) return send(decide(prompt));
    if (req.url === "/v1/chat/completions" && body.response_format?.json_schema?.schema?.properties?.results) {
      return send(judgeBatch(prompt));
    }
    // Everything else: the scripted model, given the request as it came.
    const again = Object.assign(Readable.from([raw]), { method: req.method, url: req.url, headers: req.headers });
    const handled = await handleLocalModel(again, res, { delayMs: 0 });
    if (!handled) {
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify({ error: { message: `no route ${req.url}` } }));
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    base: `http://127.0.0.1:${server.address().port}/v1`,
    close: () => {
      server.closeAllConnections?.();
      server.close();
    },
  };
}
