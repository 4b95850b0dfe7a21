// The rule that keeps an invoker's secrets out of its errors, pinned through the path that
// ships (a built invoker, its injected fetch): the API key and the credential headers' values,
// whole or as any run of text made of 10-character pieces of them, become "[redacted]" in
// every error an invoker throws, whatever the provider echoes and wherever it echoes it.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";

const PIECE = 10;
const MARK = "[redacted]";
const encoder = new TextEncoder();

/** A fetch that answers every request with `answer()` and records what was sent. */
function scripted(answer) {
  const sent = [];
  const fetch = (url, init) => {
    sent.push({ url: String(url), headers: init.headers });
    return answer(url, init);
  };
  return { fetch, sent };
}

const reply = (status, body, type = "application/json", headers = {}) =>
  new Response(body, { status, headers: { "content-type": type, ...headers } });
const errorJson = (message) => JSON.stringify({ error: { message, type: "invalid_request_error" } });
const sseBody = (lines, breakWith) =>
  new ReadableStream({
    start(c) {
      for (const line of lines) c.enqueue(encoder.encode(line));
      if (breakWith) c.error(breakWith);
      else c.close();
    },
  });
const sse = (lines, breakWith) =>
  new Response(sseBody(lines, breakWith), { status: 200, headers: { "content-type": "text/event-stream" } });
const firstDelta = `data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" } }] })}\n\n`;

async function failure(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  throw new Error("expected the call to fail");
}
async function drain(stream) {
  for await (const e of stream) void e;
}

const lm = (fetch, more = {}) => lib.buildLMInvoker("openai/gpt-4o", { fetch, maxRetries: 0, ...more });

/**
 * Every string an error holds (own properties, enumerable or not, the cause chain), except
 * the stable identifiers `code` and `name`; `stack` only when asked (it quotes file paths, in
 * which a one-letter key is bound to appear).
 */
function stringsOf(error, { stack = true } = {}) {
  const out = [];
  const seen = new Set();
  const walk = (value, path) => {
    if (typeof value === "string") return out.push([path, value]);
    if (value === null || typeof value !== "object" || seen.has(value)) return;
    seen.add(value);
    for (const k of new Set([...Reflect.ownKeys(value), "message", "stack", "cause"])) {
      if (k === "code" || k === "name" || (k === "stack" && !stack)) continue;
      let v;
      try {
        v = value[k];
      } catch {
        continue;
      }
      walk(v, `${path}.${String(k)}`);
    }
  };
  walk(error, "error");
  return out;
}

/** The first piece of `key` (10 UTF-16 units, or the whole key when shorter) found in `error`. */
function leak(error, key) {
  const size = Math.min(PIECE, key.length);
  const pieces = new Set();
  for (let i = 0; i + size <= key.length; i++) pieces.add(key.slice(i, i + size));
  for (const [path, text] of stringsOf(error, { stack: key.length >= PIECE })) {
    for (const part of text.split(MARK)) {
      for (const piece of pieces) if (part.includes(piece)) return `${path} holds ${JSON.stringify(piece)}`;
    }
  }
  return null;
}

function assertCoded(error, code, where) {
  assert.ok(error instanceof Error && typeof error.code === "string", `${where}: not a CiteflowError: ${error}`);
  if (code) assert.equal(error.code, code, `${where}: ${error.message}`);
}

const KEYS = {
  regex: "sk-.*+?^$" + "{}()|[]\\/0123456789",
  unicode: "clé-ключ-密钥-ÿ0123456789ü",
  astral: "🔑🗝️😀🎉🚀🌍🔥💧", // 8 emoji (one with a variation selector): 17 UTF-16 units
  long: "sk-0123456789abcdefghijklmnopqrstuvwxyz",
};

test("a key with regex-special characters, unicode or astral characters is redacted whole", async () => {
  for (const [name, key] of Object.entries(KEYS)) {
    for (
      const [how, body, type] of [
        ["json", errorJson(`bad key ${key}`), "application/json"],
        ["text", `plain ${key} end`, "text/plain"],
      ]
    ) {
      const { fetch } = scripted(() => reply(401, body, type));
      const e = await failure(lm(fetch, { apiKey: key }).invoke("Hi"));
      assertCoded(e, "PROVIDER_ERROR", `${name} ${how}`);
      assert.equal(leak(e, key), null, `${name} ${how}`);
      assert.equal(
        e.providerMessage,
        how === "json" ? `bad key ${MARK}` : `plain ${MARK} end`,
        `${name} ${how}: the provider's words kept around the key`,
      );
      assert.ok(e.message.isWellFormed(), `${name} ${how}: no half of a surrogate pair left behind`);
    }
  }
});

test("pieces are counted in UTF-16 units: half of an astral key (10 units, 5 emoji) is redacted", async () => {
  const key = "🔑😀🎉🚀🌍🔥💧🌈"; // 8 emoji, 16 units: pieces of 10 units, so 5 emoji are a piece
  const echoes = ["😀🎉🚀🌍🔥", "x🎉🚀🌍🔥💧y"];
  for (const echo of echoes) {
    const { fetch } = scripted(() => reply(400, errorJson(`got ${echo}`)));
    const e = await failure(lm(fetch, { apiKey: key }).invoke("Hi"));
    assert.equal(leak(e, key), null, echo);
    assert.ok(e.providerMessage.includes(MARK) && e.providerMessage.isWellFormed(), e.providerMessage);
  }
  // Four emoji (8 units) are no piece: the rule's boundary, not a leak of the key.
  const { fetch } = scripted(() => reply(400, errorJson("got 😀🎉🚀🌍")));
  const e = await failure(lm(fetch, { apiKey: key }).invoke("Hi"));
  assert.equal(e.providerMessage, "got 😀🎉🚀🌍");
});

test("a key shorter than 10 characters is matched whole, every occurrence, however short", async () => {
  // The stricter rule kept: even a one-character key is removed wherever it appears (which
  // mangles the message, and is the price of never showing it).
  for (
    const [key, said, left] of [
      ["k", "key kit", `${MARK}ey ${MARK}it`],
      ["ab", "abc cab abab", `${MARK}c c${MARK} ${MARK}`],
      ["x9z", "x9 x9zx9z 9z", `x9 ${MARK} 9z`],
      ["🔑", "a🔑b", `a${MARK}b`],
    ]
  ) {
    const { fetch } = scripted(() => reply(400, errorJson(said)));
    const e = await failure(lm(fetch, { apiKey: key }).invoke("Hi"));
    assert.equal(e.providerMessage, left, key);
    assert.equal(leak(e, key), null, key);
  }
});

test("every run of text made of pieces of a key is one redaction; pieces shorter than 10 stay", async () => {
  const key = KEYS.long;
  const cases = [
    // Two pieces that are not next to each other in the key, written together: one run.
    [`${key.slice(0, 10)}${key.slice(15, 25)}!`, `${MARK}!`],
    // A piece cut by a length limit at each end.
    [`A ${key.slice(0, 12)} B ${key.slice(-11)} C`, `A ${MARK} B ${MARK} C`],
    // Overlapping pieces, the key twice.
    [`${key}${key}`, MARK],
    // Nine characters are no piece.
    [`short ${key.slice(3, 12)} stays`, `short ${key.slice(3, 12)} stays`],
  ];
  for (const [said, left] of cases) {
    const { fetch } = scripted(() => reply(500, said, "text/plain"));
    const e = await failure(lm(fetch, { apiKey: key }).invoke("Hi"));
    assert.equal(e.providerMessage, left, said);
  }
});

test("credential headers are secrets, as a plain object, a Headers object or an array of pairs", async () => {
  const token = "tok-ABCDEFGHIJKLMNOPQRST";
  const shapes = {
    "plain object": { Authorization: `Bearer ${token}` },
    "upper-case name": { "X-API-KEY": token },
    "Headers object": new Headers({ authorization: `Bearer ${token}` }),
    "array of pairs": [["api-key", token], ["x-trace", "visible-header-value"]],
    cookie: { COOKIE: `session=${token}` },
  };
  for (const [shape, headers] of Object.entries(shapes)) {
    const { fetch, sent } = scripted(() => reply(401, errorJson(`bad credentials ${token} (${token.slice(2, 14)})`)));
    const e = await failure(lm(fetch, { headers }).invoke("Hi"));
    assertCoded(e, "PROVIDER_ERROR", shape);
    assert.equal(leak(e, token), null, shape);
    // ("Bearer tok-…" is a secret too: the space before the token is part of one of its pieces.)
    assert.match(e.providerMessage, /^bad credentials ?\[redacted\] \(\[redacted\]\)$/, shape);
    // The header went out, whatever its shape.
    const names = Object.keys(sent[0].headers).map((n) => n.toLowerCase());
    assert.ok(
      names.some((n) => ["authorization", "x-api-key", "api-key", "cookie"].includes(n)),
      `${shape}: sent ${names}`,
    );
  }
  // A header that is no credential is no secret.
  const { fetch } = scripted(() => reply(400, errorJson("saw visible-header-value")));
  const e = await failure(lm(fetch, { headers: [["x-trace", "visible-header-value"]] }).invoke("Hi"));
  assert.equal(e.providerMessage, "saw visible-header-value");
});

test("a key echoed on every error path is redacted", async () => {
  const key = KEYS.long;
  const anthropicError = `event: error\ndata: ${
    JSON.stringify({ type: "error", error: { type: "authentication_error", message: `bad ${key}` } })
  }\n\n`;
  const paths = {
    "error body": [() => reply(403, errorJson(key)), "invoke", "PROVIDER_ERROR"],
    "200 with an error": [() => reply(200, errorJson(`invalid ${key}`)), "invoke", "PROVIDER_ERROR"],
    "invalid answer": [() => reply(200, `{"choices": [${key}`), "invoke", "INVALID_PROVIDER_DATA"],
    "in-stream error": [() => sse([firstDelta, `data: ${errorJson(`k ${key}`)}\n\n`]), "stream", "PROVIDER_ERROR"],
    "in-stream error (anthropic)": [() => sse([anthropicError]), "stream", "PROVIDER_ERROR", "anthropic/claude"],
    "decoder error": [() => sse([firstDelta, `data: {"choices": ${key}\n\n`]), "stream", "INVALID_PROVIDER_DATA"],
    "stream breaks off": [() => sse([firstDelta], new Error(`reset by ${key}`)), "stream", "STREAM_INTERRUPTED"],
    "network error": [() => Promise.reject(new TypeError(`connect to ${key} failed`)), "invoke", "NETWORK_ERROR"],
    "redirect refused": [
      () => reply(307, "", "text/plain", { location: `https://${key.toLowerCase()}.elsewhere.test/v1?k=${key}` }),
      "invoke",
      "REDIRECT_REFUSED",
    ],
    "redirect refused (stream)": [
      () => reply(308, "", "text/plain", { location: `https://${key}.elsewhere.test/` }),
      "stream",
      "REDIRECT_REFUSED",
    ],
    "timeout": [
      (_, init) =>
        new Promise((_, reject) =>
          init.signal.addEventListener("abort", () => reject(new Error(`aborted ${key}`)), { once: true })
        ),
      "invoke",
      "TIMEOUT",
    ],
    "too large": [() => reply(200, `{"x": "${key}${"y".repeat(64)}"}`), "invoke", "RESPONSE_TOO_LARGE"],
  };
  for (const [where, [answer, how, code, model = "openai/gpt-4o"]] of Object.entries(paths)) {
    const { fetch } = scripted(answer);
    const limit = where === "too large" ? { maxResponseBytes: 40 } : {};
    const invoker = lib.buildLMInvoker(model, { apiKey: key, fetch, maxRetries: 0, timeoutMs: 50, ...limit });
    const e = await failure(how === "invoke" ? invoker.invoke("Hi") : drain(invoker.stream("Hi")));
    assertCoded(e, code, where);
    assert.equal(leak(e, key), null, where);
  }
  // Embeddings and decision models share the rule.
  const { fetch } = scripted(() => reply(401, errorJson(`no ${key}`)));
  for (
    const call of [
      () => lib.buildEMInvoker("openai/e", { apiKey: key, fetch, maxRetries: 0 }).invoke("a"),
      () =>
        lib.buildDMInvoker("typesafe/m", { apiKey: key, fetch, maxRetries: 0 }).invoke({
          state: "s",
          questions: {
            q: lib.DMQuestion.noul("?"),
          },
        }),
      () =>
        lib.buildDMInvoker("openai/m", { apiKey: key, fetch, maxRetries: 0 }).invoke({
          state: "s",
          questions: {
            q: lib.DMQuestion.noul("?"),
          },
        }),
    ]
  ) {
    const e = await failure(call());
    assertCoded(e, "PROVIDER_ERROR", e.message);
    assert.equal(leak(e, key), null, e.message);
    assert.ok(e.providerMessage.endsWith(MARK), e.providerMessage);
  }
});

test("an abort passes the caller's own reason through unchanged", async () => {
  const key = KEYS.long;
  const reason = new Error(`the caller's own words, ${key}`);
  const controller = new AbortController();
  const { fetch } = scripted((_, init) =>
    new Promise((_, reject) => init.signal.addEventListener("abort", () => reject(init.signal.reason)))
  );
  const call = lm(fetch, { apiKey: key }).invoke("Hi", { signal: controller.signal });
  controller.abort(reason);
  assert.equal(await failure(call), reason);
});

// ---- property: no generated key ever survives in an error ----

/** A small seeded generator (mulberry32), so a failure names its seed and replays. */
function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABETS = [
  "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_",
  ".*+?^$" + "{}()|[]\\/\"'<>&%#",
  "éüçñßøåкиюж密钥鍵ÿ",
  ["🔑", "😀", "🎉", "𝒳", "🚀"],
];

function generatedKey(rnd) {
  const pick = (xs) => xs[Math.floor(rnd() * xs.length)];
  const length = rnd() < 0.15 ? 1 + Math.floor(rnd() * 9) : 10 + Math.floor(rnd() * 40);
  const alphabets = ALPHABETS.filter(() => rnd() < 0.7);
  const chars = (alphabets.length ? alphabets : ALPHABETS.slice(0, 1)).flatMap((a) => [...a]);
  let key = "";
  while (key.length < length) key += pick(chars);
  return key;
}

/** Text embedding `key` in a random way: whole, cut, in pieces, between random words. */
function embedding(rnd, key) {
  const filler = () =>
    ["", " ", "key=", "Bearer ", "…", "\n", "é", "x".repeat(Math.floor(rnd() * 300))][Math.floor(rnd() * 8)];
  const size = Math.min(PIECE, key.length);
  const slice = () => {
    const length = size + Math.floor(rnd() * (key.length - size + 1));
    const start = Math.floor(rnd() * (key.length - length + 1));
    return key.slice(start, start + length);
  };
  const parts = [];
  const n = 1 + Math.floor(rnd() * 4);
  for (let i = 0; i < n; i++) parts.push(filler(), rnd() < 0.4 ? key : slice());
  parts.push(filler());
  return parts.join("");
}

function generatedCall(rnd, key) {
  const text = embedding(rnd, key);
  const status = [400, 401, 403, 404, 422, 429, 500, 503][Math.floor(rnd() * 8)];
  const ways = [
    ["invoke", () => reply(status, errorJson(text))],
    ["invoke", () => reply(status, text, "text/plain")],
    ["invoke", () => reply(200, errorJson(text))],
    ["invoke", () => reply(200, `{"choices": ${text}`)],
    ["invoke", () => Promise.reject(new TypeError(text))],
    ["stream", () => sse([firstDelta, `data: ${errorJson(text)}\n\n`])],
    ["stream", () => sse([firstDelta, `data: ${text.replaceAll("\n", " ")}\n\n`])],
    ["stream", () => sse([firstDelta], new Error(text))],
    ["stream", () => reply(status, errorJson(text))],
  ];
  const [how, answer] = ways[Math.floor(rnd() * ways.length)];
  // A key that is itself a header value the invoker sends counts too.
  const asHeader = rnd() < 0.3;
  const options = asHeader ? { headers: [["x-api-key", key]] } : { apiKey: key };
  return { how, answer, options, text };
}

test("property: no generated key is ever found in an invoker's error", async () => {
  const seed = Number(process.env.REDACTION_SEED ?? 20261130);
  const rnd = random(seed);
  const runs = Number(process.env.REDACTION_RUNS ?? 400);
  for (let run = 0; run < runs; run++) {
    const key = generatedKey(rnd);
    const { how, answer, options, text } = generatedCall(rnd, key);
    const { fetch } = scripted(answer);
    const invoker = lm(fetch, options);
    const e = await failure(how === "invoke" ? invoker.invoke("Hi") : drain(invoker.stream("Hi")));
    const where = `seed ${seed} run ${run}: key ${JSON.stringify(key)} in ${JSON.stringify(text.slice(0, 200))}`;
    assertCoded(e, null, where);
    assert.equal(leak(e, key), null, `${where} (${how}: ${e.code} ${JSON.stringify(String(e.stack).slice(0, 300))})`);
  }
});
