// The invoker cases (tests/portable/invoker.cases.mjs) in Node; tests/browser/run.mjs runs the
// same cases in Chromium, Firefox and WebKit.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import { assertNoKey, invokerCases } from "../portable/invoker.cases.mjs";
import { startFakeProvider } from "./support/fake-provider.mjs";

let server;
before(async () => (server = await startFakeProvider()));
after(() => server.close());

for (const [name, run] of Object.entries(invokerCases)) {
  test(name, () => run({ lib, assert, base: server.base, requests: server.log, maxInFlight: server.maxInFlight }));
}

// Node only: its fetch shows a redirect's target, so same-origin redirects can be followed;
// and big bodies are cheap to serve here.
const lm = (model, more = {}) =>
  lib.buildLMInvoker(`openai-compatible/${model}`, { apiKey: "sk-test", baseUrl: server.base, maxRetries: 0, ...more });

test("same-origin 307/308 redirects are followed, a bounded number of times; others are refused", async () => {
  assert.equal((await lm("redirect-same").invoke("Hi")).outputs[0].output, "<think>hidden</think>Hello [1].");
  const hops = server.requests.filter((r) => r.body.model === "redirect-same").map((
    r,
  ) => [r.url, r.headers.authorization, r.body.messages?.[0]?.content]);
  assert.deepEqual(hops, [["/v1/chat/completions", "Bearer sk-test", "Hi"], [
    "/v1/chat/completions?hop=1",
    "Bearer sk-test",
    "Hi",
  ]], "method, body and key kept on the same origin");
  await assert.rejects(
    lm("redirect-loop").invoke("Hi"),
    (e) => e.code === "REDIRECT_REFUSED" && /redirects/.test(e.message),
  );
  assert.equal(
    server.requests.filter((r) => r.body.model === "redirect-loop").length,
    6,
    "the first request and 5 redirects",
  );
  await assert.rejects(lm("redirect-302").invoke("Hi"), (e) => e.code === "REDIRECT_REFUSED" && e.status === 302);
  // A stream follows the same policy.
  const events = [];
  for await (const e of lm("redirect-same").stream("Hi")) events.push(e);
  assert.ok(events.some((e) => e.type === "response"));
});

test("a gzip body that inflates past the limit stops at the limit (RESPONSE_TOO_LARGE)", async () => {
  await assert.rejects(
    lm("gzip-bomb").invoke("Hi"),
    (e) => e.code === "RESPONSE_TOO_LARGE" && /33554432/.test(e.message),
  );
});

test("an error body that never ends is read only to a bound; the error still says what happened", async () => {
  await assert.rejects(
    lm("huge-error").invoke("Hi"),
    (e) =>
      e.code === "PROVIDER_ERROR" && e.status === 500 && e.providerMessage.length <= 300 &&
      e.providerMessage.startsWith("<p>error</p>"),
  );
  // The client hung up (the server would write forever): the server sees the close.
  const closed = () => server.requests.some((r) => r.note === "huge-error closed by the client");
  for (let i = 0; i < 200 && !closed(); i++) await new Promise((r) => setTimeout(r, 50));
  assert.ok(closed(), "the connection was left open");
});

test("the key check itself finds a piece of the key wherever it hides", () => {
  const key = "sk-0123456789abcdefghij";
  const error = () => Object.assign(new Error("fine"), { name: "CiteflowError", code: "X" });
  assert.ok(assertNoKey(error(), key, "clean"));
  const hiding = [
    (e) => (e.message = "…6789abcdef…"),
    (e) => (e.stack = `${e.stack}\n at sk-0123456`),
    (e) => (e.cause = new Error("c", { cause: { deep: ["x", "23456789ab"] } })),
    (e) => Object.defineProperty(e, "hidden", { value: "9abcdefghij", enumerable: false }),
    (e) => (e[Symbol("s")] = key),
    (e) => (e.providerMessage = `${key.slice(0, 12)}[cut]`),
  ];
  for (const [i, hide] of hiding.entries()) {
    const e = error();
    hide(e);
    assert.throws(() => assertNoKey(e, key, `way ${i}`), /holds a piece of the key/, `way ${i}`);
  }
});

test("a stream answered without a body, or an error body that is not text, is a clear error", async () => {
  const fetch = async () => new Response(null, { status: 200, headers: { "content-type": "text/event-stream" } });
  const events = lib.buildLMInvoker("openai/gpt-4o", { apiKey: "k", fetch, maxRetries: 0 }).stream("Hi");
  await assert.rejects(async () => {
    for await (const e of events) void e;
  }, (e) => e.code === "INVALID_PROVIDER_DATA");
});

test("the transport's limits are the core's rule: each bad value is INVALID_OPTION naming the option", () => {
  const build = (more) => lib.buildLMInvoker("openai/gpt-4o", { apiKey: "k", fetch: () => {}, ...more });
  for (
    const [more, name] of [
      [{ timeoutMs: 0 }, "timeoutMs"],
      [{ timeoutMs: 2 ** 31 }, "timeoutMs"],
      [{ timeoutMs: NaN }, "timeoutMs"],
      [{ timeoutMs: "50" }, "timeoutMs"],
      [{ maxRetries: -1 }, "maxRetries"],
      [{ maxRetries: 1.5 }, "maxRetries"],
      [{ maxResponseBytes: 0 }, "maxResponseBytes"],
      [{ maxResponseBytes: 2 ** 53 }, "maxResponseBytes"],
      [{ maxResponseBytes: 10n }, "maxResponseBytes"],
    ]
  ) {
    assert.throws(() => build(more), (e) => e.code === "INVALID_OPTION" && e.message.includes(name), name);
  }
  assert.ok(build({ timeoutMs: 0.5, maxRetries: 0, maxResponseBytes: 1 }));
  for (const batchSize of [0, 1.5, "2"]) {
    assert.throws(
      () => lib.buildEMInvoker("openai/e", { apiKey: "k", batchSize }),
      (e) => e.code === "INVALID_OPTION" && e.message.includes("batchSize"),
    );
  }
});

test("headers: yours replace the provider's of the same name, whatever the case", async () => {
  const sent = [];
  const fetch = (_url, init) => {
    sent.push(init.headers);
    return new Response(JSON.stringify({ choices: [{ message: { content: "ok" } }] }), {
      headers: { "content-type": "application/json" },
    });
  };
  await lib.buildLMInvoker("openai/gpt-4o", { apiKey: "k", fetch, headers: [["AUTHORIZATION", "Bearer mine"]] })
    .invoke("Hi");
  assert.equal(new Headers(sent[0]).get("authorization"), "Bearer mine");
});
