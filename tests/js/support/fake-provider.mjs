// A local HTTP server that speaks the OpenAI Chat Completions and Anthropic Messages wire
// formats (shapes from the providers' API references). The model name picks the behaviour.
// A second server on another port (another origin) stands for wherever a hostile redirect
// points: it records what reached it, and the request log shows it as `server: "elsewhere"`.
import { createServer } from "node:http";
import { gzipSync } from "node:zlib";

const completion = (content, extra = {}) => ({
  id: "chatcmpl-1",
  object: "chat.completion",
  model: "m",
  choices: [{ index: 0, message: { role: "assistant", content, ...extra }, finish_reason: "stop" }],
  usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
});
const chunk = (delta, finish = null) =>
  `data: ${
    JSON.stringify({
      id: "chatcmpl-1",
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta, finish_reason: finish }],
    })
  }\n\n`;
const anthropicEvent = (type, data) => `event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`;

// What the fake decision models and judges think of a text: relevant unless it says otherwise.
// "p=0.5" in a text sets the probability exactly.
const relevance = (text) => {
  const p = /p=([0-9.]+)/.exec(text);
  if (p) return Number(p[1]);
  return /\brelevant\b/.test(text) && !/irrelevant|not relevant/.test(text) ? 0.9 : 0.2;
};
// The "semantic" embedding model reads a text's vector from "@[x,y,...]" in it.
const embed = (text) => {
  const v = /@\[([^\]]*)\]/.exec(text);
  return v ? v[1].split(",").map(Number) : [0, 0, 0, 1];
};
const logprobsFor = (p) => ({
  content: [{
    token: "Yes",
    logprob: Math.log(p),
    top_logprobs: [{ token: "Yes", logprob: Math.log(p) }, { token: " No", logprob: Math.log(1 - p) }, {
      token: "Maybe",
      logprob: Math.log(0.001),
    }],
  }],
});
const GATHER_WAIT_MS = 5000;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// The key the caller sent, whichever header carried it.
const keyOf = (req) => req.headers["x-api-key"] ?? req.headers.authorization?.replace(/^Bearer /, "") ?? "";

// 40 MiB of JSON in about 40 KiB of gzip: a small download that inflates past the default
// response limit. Built once, on first use.
let bomb = null;
const gzipBomb = () => (bomb ??= gzipSync(
  Buffer.from(`{"choices":[{"message":{"role":"assistant","content":"${" ".repeat(40 << 20)}"}}]}`),
));

/**
 * Hostile answers, picked by model name (a `typesafe/` prefix is ignored) before any key check,
 * so they answer whatever key was sent. `echo-*` send the caller's key back every way a
 * provider could: in a JSON error (message, code, type) with the key in headers too, in a
 * plain-text body where it straddles the 300-character cut (`echo-text-<offset>`), past a
 * 64 KiB cut (`echo-long`), in a 200 error body, in invalid JSON, in an in-stream error event,
 * in an invalid stream line at any offset (`echo-stream-invalid-<offset>`), in a redirect's
 * Location (to the other origin), in a stream that breaks off; `echo-encoded` sends it back
 * percent-encoded in a 401 (upper- and lower-case hex, some characters left as they are, cut
 * inside an escape). `redirect-*` test the redirect
 * policy; `big-<bytes>` and `gzip-bomb` the response size limit. Returns whether it answered.
 */
function hostile(model, req, res, body, ctx) {
  const name = model.replace(/^typesafe\//, "");
  const key = keyOf(req);
  const anthropic = ctx.path === "/v1/messages";
  const send = (status, type, text, headers = {}) => {
    res.writeHead(status, { "content-type": type, ...headers });
    res.end(text);
  };
  const json = (status, value, headers) => send(status, "application/json", JSON.stringify(value), headers);
  const sse = (parts, cut = false) => {
    res.writeHead(200, { "content-type": "text/event-stream", "x-echo": key });
    for (const p of parts) res.write(p);
    if (cut) setTimeout(() => res.socket.destroy(), 50);
    else res.end();
  };
  const start = anthropic
    ? [anthropicEvent("message_start", { message: { id: "msg_1", usage: { input_tokens: 1, output_tokens: 1 } } })]
    : [chunk({ role: "assistant", content: "Hi" })];
  const offset = Number(/-(\d+)$/.exec(name)?.[1] ?? 0);
  if (name === "echo-json") {
    return json(
      401,
      { type: "error", error: { message: `Incorrect API key provided: ${key}`, type: key, code: key } },
      { "x-echo": key, "www-authenticate": `Bearer realm="${key}"` },
    ),
      true;
  }
  if (name === "echo-encoded") {
    const upper = encodeURIComponent(key);
    const lower = upper.replace(/%[0-9A-F]{2}/g, (e) => e.toLowerCase());
    const some = key.replaceAll("+", "%2B").replaceAll("=", "%3d");
    const message = `Incorrect API key provided: ${upper}. Seen as ${lower} and ${some}; logged ${upper.slice(0, 16)}`;
    return json(401, { type: "error", error: { message, type: "authentication_error" } }), true;
  }
  if (name.startsWith("echo-text-")) {
    return send(500, "text/plain", `${"e".repeat(offset)}${key} is not a valid key`, { "x-echo": key }), true;
  }
  if (name === "echo-long") {
    return send(502, "text/html", `<p>${key}</p>${"x".repeat((64 << 10) - 20)}${key}${"y".repeat(1000)}`), true;
  }
  if (name === "echo-200-error") {
    return json(200, { error: { message: `invalid key ${key}`, code: key, type: key } }, { "x-echo": key }), true;
  }
  if (name === "echo-200-invalid") return send(200, "application/json", `{"choices": [{"message": ${key}`), true;
  if (name === "echo-stream-error") {
    const error = anthropic
      ? `event: error\ndata: ${
        JSON.stringify({ type: "error", error: { type: key, message: `invalid key ${key}` } })
      }\n\n`
      : `data: ${JSON.stringify({ error: { message: `invalid key ${key}`, code: key, type: key } })}\n\n`;
    return sse([...start, error]), true;
  }
  if (name.startsWith("echo-stream-invalid-")) {
    return sse([
      ...start,
      `${anthropic ? "event: content_block_delta\n" : ""}data: ${"x".repeat(offset)}${key} not json\n\n`,
    ]),
      true;
  }
  if (name === "echo-stream-cut") return sse([...start, `data: ${key}`], true), true;
  if (name === "echo-reset") return res.socket.destroy(), true;
  if (name === "echo-slow") {
    return setTimeout(() => res.destroyed || json(401, { error: { message: `too late for ${key}` } }), 400), true;
  }
  if (name === "echo-redirect") {
    return send(307, "text/plain", `moved to ${ctx.elsewhere}`, {
      location: `${ctx.elsewhere}${ctx.path}?stolen=${key}`,
    }),
      true;
  }
  if (name === "redirect-same" && !ctx.url.searchParams.has("hop")) {
    return send(307, "text/plain", "", { location: `${ctx.path}?hop=1` }), true;
  }
  if (name === "redirect-loop") {
    return send(308, "text/plain", "", {
      location: `${ctx.path}?hop=${Number(ctx.url.searchParams.get("hop") ?? 0) + 1}`,
    }),
      true;
  }
  if (name === "redirect-302") return send(302, "text/plain", "", { location: `${ctx.path}?hop=1` }), true;
  if (name.startsWith("big-")) return json(200, completion("x".repeat(offset))), true;
  if (name === "gzip-bomb") return send(200, "application/json", gzipBomb(), { "content-encoding": "gzip" }), true;
  if (name === "huge-error") {
    // An error page that never ends: only a bounded read gets past it.
    res.writeHead(500, { "content-type": "text/html" });
    const piece = "<p>error</p>".repeat(1000);
    const more = () => {
      while (!res.destroyed && res.write(piece));
      if (!res.destroyed) res.once("drain", more);
    };
    res.on("close", () => ctx.record({ url: ctx.path, model, note: "huge-error closed by the client" }));
    more();
    return true;
  }
  void body;
  return false;
}

export async function startFakeProvider() {
  const requests = [];
  // The other origin a hostile redirect points at.
  const elsewhere = createServer(async (req, res) => {
    let raw = "";
    for await (const c of req) raw += c;
    requests.push({ server: "elsewhere", url: req.url, headers: req.headers, body: raw });
    res.writeHead(200, { "content-type": "application/json", "access-control-allow-origin": "*" });
    res.end(JSON.stringify(completion("You reached the other server.")));
  });
  await new Promise((r) => elsewhere.listen(0, "127.0.0.1", r));
  const elsewhereBase = `http://127.0.0.1:${elsewhere.address().port}`;
  const seen = new Map();
  // Decision-model calls in flight now and at most, per model (for concurrency limits): System
  // One calls, and the calls of a decision model made of a language model (`judge-…`).
  const inFlight = new Map();
  const maxInFlight = new Map();
  // `…gather-N` (`typesafe/gather-N`, `judge-…-gather-N`): calls are held until N are in flight
  // at once (then none is held any more), so "N at once" is observed however slow the machine;
  // a client that never sends N at once is answered after GATHER_WAIT_MS and the test sees
  // fewer.
  const waiting = new Map();
  const gathered = (model, now, n) => {
    if (waiting.get(model) === "done") return;
    const held = waiting.get(model) ?? [];
    if (now >= n) {
      waiting.set(model, "done");
      for (const release of held) release();
      return;
    }
    waiting.set(model, held);
    return new Promise((resolve) => {
      held.push(resolve);
      setTimeout(resolve, GATHER_WAIT_MS);
    });
  };
  // A decision call counted in flight while it is held: `…gather-N` until N are in flight at
  // once, then `…slow-<ms>` that long (so that more calls than a client should send at once,
  // sent, are in flight together and counted).
  const holdCall = async (model) => {
    const now = (inFlight.get(model) ?? 0) + 1;
    inFlight.set(model, now);
    maxInFlight.set(model, Math.max(now, maxInFlight.get(model) ?? 0));
    const gather = /gather-(\d+)/.exec(model);
    if (gather) await gathered(model, now, Number(gather[1]));
    const slow = /slow-(\d+)/.exec(model);
    if (slow) await sleep(Number(slow[1]));
    inFlight.set(model, inFlight.get(model) - 1);
  };
  const server = createServer(async (req, res) => {
    // Browsers call it from another origin.
    res.setHeader("access-control-allow-origin", "*");
    if (req.method === "OPTIONS") {
      res.writeHead(204, {
        "access-control-allow-headers": "authorization, content-type, x-api-key, anthropic-version",
        "access-control-allow-methods": "POST",
      });
      return res.end();
    }
    if (req.method === "GET" && req.url === "/__requests") {
      res.writeHead(200, { "content-type": "application/json" });
      return res.end(JSON.stringify({ requests, maxInFlight: Object.fromEntries(maxInFlight) }));
    }
    let raw = "";
    for await (const c of req) raw += c;
    const body = raw ? JSON.parse(raw) : {};
    requests.push({ url: req.url, headers: req.headers, body });
    const model = body.model ?? "";
    const url = new URL(req.url, "http://provider");
    const path = url.pathname;
    if (hostile(model, req, res, body, { path, url, elsewhere: elsewhereBase, record: (r) => requests.push(r) })) {
      return;
    }
    const count = (seen.get(model) ?? 0) + 1;
    seen.set(model, count);
    const json = (status, value, headers = {}) => {
      res.writeHead(status, { "content-type": "application/json", ...headers });
      res.end(JSON.stringify(value));
    };
    const sse = (parts, { cut = false } = {}) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      for (const p of parts) res.write(p);
      // Dies after the client has the headers and the first events: a mid-stream failure.
      if (cut) setTimeout(() => res.socket.destroy(), 50);
      else res.end();
    };
    if (path === "/v1/chat/completions") {
      if (req.headers.authorization !== "Bearer sk-test") {
        return json(401, {
          error: {
            message: `Incorrect API key provided: ${req.headers.authorization?.slice(7)}`,
            type: "invalid_request_error",
            code: "invalid_api_key",
          },
        });
      }
      if (model === "flaky-429" && count === 1) {
        return json(429, { error: { message: "Rate limit reached", type: "requests", code: "rate_limit_exceeded" } }, {
          "retry-after": "0.05",
        });
      }
      if (model === "flaky-500" && count === 1) {
        return json(500, { error: { message: "The server had an error", type: "server_error" } });
      }
      if (model === "always-503") return json(503, { error: { message: "Overloaded", type: "server_error" } });
      if (model === "bad-request") {
        return json(400, {
          error: {
            message: "The model `bad-request` does not exist",
            type: "invalid_request_error",
            code: "model_not_found",
          },
        });
      }
      if (model === "slow") await new Promise((r) => setTimeout(r, 400));
      // A usage object with a `__proto__` key, as JSON text (JSON.stringify cannot write one).
      const protoUsage = '"usage": {"prompt_tokens": 1, "__proto__": {"polluted": true}}';
      if (model === "proto-usage" && body.stream) {
        return sse([
          chunk({ content: "Hi" }, "stop"),
          `data: {"id": "chatcmpl-1", "choices": [], ${protoUsage}}\n\n`,
          "data: [DONE]\n\n",
        ]);
      }
      if (model === "proto-usage") {
        res.writeHead(200, { "content-type": "application/json" });
        return res.end(
          `{"choices": [{"index": 0, "message": {"role": "assistant", "content": "Hi"}, "finish_reason": "stop"}], ${protoUsage}}`,
        );
      }
      // Content as an array of parts (newer APIs and some compatible servers).
      if (model === "parts") {
        return json(
          200,
          completion([{ type: "text", text: "Part one, " }, {
            type: "image_url",
            image_url: { url: "https://example.org/x.png" },
          }, { type: "text", text: "part two." }]),
        );
      }
      if (body.stream) {
        if (model === "json-stream") {
          return sse([
            chunk({ role: "assistant", content: '{"answer": ' }),
            chunk({ content: "42}" }, "stop"),
            "data: [DONE]\n\n",
          ]);
        }
        if (model === "stream-cut") return sse([chunk({ role: "assistant", content: "Half an ans" })], { cut: true });
        if (model === "stream-garbage") {
          return sse([
            chunk({ role: "assistant", content: "Half an ans" }),
            'data: {"choices": [{"delta": tru\n\n',
            "data: [DONE]\n\n",
          ]);
        }
        return sse([
          chunk({ role: "assistant", reasoning_content: "Think." }),
          chunk({ content: "<think>more</think>Water boils " }),
          chunk({ content: "at 100 °C [1]." }),
          chunk({}, "stop"),
          `data: ${
            JSON.stringify({
              id: "chatcmpl-1",
              choices: [],
              usage: { prompt_tokens: 9, completion_tokens: 6, total_tokens: 15 },
            })
          }\n\n`,
          "data: [DONE]\n\n",
        ]);
      }
      if (model === "relevance-judge" || model === "wrong-count") {
        // The relevance filter's batch: one verdict per "[CHUNK]" block (one too few for wrong-count).
        const blocks = body.messages.at(-1).content.split("[CHUNK]").slice(1);
        const results = blocks.map((b) => ({ explanation: "read it", is_relevant: relevance(b) >= 0.5 }));
        if (model === "wrong-count") results.pop();
        return json(200, completion(JSON.stringify({ results })));
      }
      if (model === "ref-judge") {
        // The reference formatter's batch: the labels of the relevant "<Chunk>" blocks, under
        // the key the schema asks for; as prose around JSON when no schema is sent.
        const key = body.response_format?.json_schema?.schema?.required?.[0] ??
          /labelled with its (\S+)\./.exec(body.messages[0].content)?.[1];
        const labels = [
          ...body.messages.at(-1).content.matchAll(/<Chunk>\n[^:\n]+: (.*)\ncontent:\n([\s\S]*?)\n<\/Chunk>/g),
        ].filter((m) => relevance(m[2]) >= 0.5).map((m) => m[1]);
        const answer = JSON.stringify({ [key]: [...labels, "not-a-chunk.pdf"] });
        return json(200, completion(body.response_format ? answer : `The answer uses these: ${answer}`));
      }
      if ((model === "judge" || model.startsWith("judge-")) && body.top_logprobs) {
        await holdCall(model);
        const prompt = body.messages.at(-1).content;
        const target = /"target_chunk": "(chunk_\d+)"/.exec(prompt)?.[1];
        const text = target ? new RegExp(`"${target}": "([^"]*)"`).exec(prompt)?.[1] ?? "" : prompt;
        const top = (pairs) => ({
          content: [{
            token: pairs[0][0],
            logprob: Math.log(pairs[0][1]),
            top_logprobs: pairs.map(([token, p]) => ({ token, logprob: Math.log(p) })),
          }],
        });
        const logprobs = prompt.includes("Answer with the letter")
          ? top([["B", 0.6], [" A", 0.3], ["Z", 0.1]])
          : prompt.includes("Answer with the number")
          ? top([["2", 0.8], ["0", 0.2]])
          : logprobsFor(relevance(text));
        return json(200, {
          ...completion("Yes"),
          usage: { prompt_tokens: 9, completion_tokens: 1, total_tokens: 10 },
          choices: [{ index: 0, message: { role: "assistant", content: "Yes" }, logprobs, finish_reason: "length" }],
        });
      }
      if (model === "reasoner") return json(200, completion("Answer.", { reasoning_content: "Because." }));
      return json(200, completion(body.response_format ? '{"answer": 42}' : "<think>hidden</think>Hello [1]."));
    }
    if (path === "/v1/systemone") {
      if (req.headers.authorization !== "Bearer sk-test") return json(401, { error: { message: "bad key" } });
      if (model === "typesafe/flaky" && count === 1) {
        return json(429, { error: { message: "slow down" } }, { "retry-after": "0" });
      }
      await holdCall(model);
      const answers = {};
      for (const [name, q] of Object.entries(body.questions)) {
        if (model === "typesafe/broken") continue;
        const target = q.instructions?.target_chunk;
        const text = target ? String(body.state?.chunks?.[target] ?? "") : JSON.stringify(body.state);
        if (q.type === "noul") {
          answers[name] = model === "typesafe/wrong-type"
            ? { type: "score", score: 1 }
            : { type: "noul", noul: relevance(text) };
        }
        if (q.type === "choice") {
          answers[name] = { type: "choice", choice: Object.keys(q.criteria)[0], confidence: 0.7, probabilities: {} };
        }
        if (q.type === "score") {
          answers[name] = {
            type: "score",
            score: q.criteria.length - 1,
            confidence: 0.6,
            legend: q.criteria,
            probabilities: {},
          };
        }
      }
      return json(200, { model, answers, usage: { input_tokens: 20, output_tokens: Object.keys(answers).length } });
    }
    if (path === "/v1/embeddings") {
      if (req.headers.authorization !== "Bearer sk-test") {
        return json(401, { error: { message: "bad key", type: "invalid_request_error" } });
      }
      if (model === "flaky-em" && count === 1) return json(502, { error: { message: "Bad gateway" } });
      // Answered in reverse order, as servers may: the index says which input each is.
      const vector = (text, index) => (model === "semantic" ? embed(text) : [text.length, index, 0.5]);
      const data = body.input.map((text, index) => ({ object: "embedding", index, embedding: vector(text, index) }))
        .reverse();
      return json(200, {
        object: "list",
        data,
        model,
        usage: { prompt_tokens: body.input.length, total_tokens: body.input.length },
      });
    }
    if (path === "/v1/messages") {
      if (req.headers["x-api-key"] !== "sk-ant-test" || req.headers["anthropic-version"] !== "2023-06-01") {
        return json(401, { type: "error", error: { type: "authentication_error", message: "invalid x-api-key" } });
      }
      if (model === "overloaded") {
        return json(529, { type: "error", error: { type: "overloaded_error", message: "Overloaded" } });
      }
      if (body.stream && model === "stream-cut") {
        return sse([
          anthropicEvent("message_start", { message: { id: "msg_1", usage: { input_tokens: 10, output_tokens: 1 } } }),
          anthropicEvent("content_block_start", { index: 0, content_block: { type: "text", text: "" } }),
          anthropicEvent("content_block_delta", { index: 0, delta: { type: "text_delta", text: "Half" } }),
        ], { cut: true });
      }
      if (body.stream && model === "stream-garbage") {
        return sse([
          anthropicEvent("message_start", { message: { id: "msg_1", usage: { input_tokens: 10, output_tokens: 1 } } }),
          "event: content_block_delta\ndata: <html>502 Bad Gateway</html>\n\n",
          anthropicEvent("message_stop", {}),
        ]);
      }
      if (body.stream) {
        return sse([
          anthropicEvent("message_start", { message: { id: "msg_1", usage: { input_tokens: 10, output_tokens: 1 } } }),
          anthropicEvent("content_block_start", { index: 0, content_block: { type: "thinking", thinking: "" } }),
          anthropicEvent("content_block_delta", { index: 0, delta: { type: "thinking_delta", thinking: "Check." } }),
          anthropicEvent("content_block_stop", { index: 0 }),
          anthropicEvent("content_block_start", { index: 1, content_block: { type: "text", text: "" } }),
          anthropicEvent("content_block_delta", { index: 1, delta: { type: "text_delta", text: "Hi there." } }),
          anthropicEvent("content_block_stop", { index: 1 }),
          anthropicEvent("message_delta", { delta: { stop_reason: "end_turn" }, usage: { output_tokens: 5 } }),
          anthropicEvent("message_stop", {}),
        ]);
      }
      return json(200, {
        id: "msg_1",
        type: "message",
        role: "assistant",
        model,
        content: [{ type: "thinking", thinking: "Check." }, { type: "text", text: "Hi there." }],
        stop_reason: "end_turn",
        usage: { input_tokens: 10, output_tokens: 5 },
      });
    }
    json(404, { error: { message: `no route ${req.url}` } });
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    base: `http://127.0.0.1:${server.address().port}/v1`,
    requests,
    /** What the portable cases read: the request log, and the most calls a model had at once. */
    log: async () => requests,
    maxInFlight: async (model) => maxInFlight.get(model) ?? 0,
    close: () => {
      server.closeAllConnections?.();
      server.close();
      elsewhere.close();
    },
  };
}
