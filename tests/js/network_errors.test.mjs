// Node only: a fetch that cannot connect gives NETWORK_ERROR naming the URL it tried, without
// credentials, and the cause Node's fetch gives (its `cause.code`, ECONNREFUSED). The browsers
// check the URL part (tests/portable/invoker.cases.mjs); their fetch errors carry no cause.
import { createServer } from "node:net";
import { before, test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import { assertNoKey } from "../portable/invoker.cases.mjs";

// A port that was just free: the connection is refused at once. (Not port 9: fetch refuses
// the ports on its blocklist before connecting, "bad port", with no ECONNREFUSED to report.)
let CLOSED;
before(async () => {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  CLOSED = `http://127.0.0.1:${server.address().port}`;
  await new Promise((resolve) => server.close(resolve));
});
const escaped = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const KEY = "sk-proj-Zt4Wq8Lm2Xv6Nb0Rc5Hy9Jd3Kf7Pg1Sa";

const failure = async (promise) => {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail("expected a rejection");
};

test("a refused connection names the URL and the cause", async () => {
  const lm = lib.buildLMInvoker("openai-compatible/m", { apiKey: KEY, baseUrl: `${CLOSED}/v1`, maxRetries: 0 });
  for (const call of [() => lm.invoke("Hi"), async () => (await lm.stream("Hi")).getReader().read()]) {
    const e = await failure(call());
    assert.equal(e.code, "NETWORK_ERROR");
    assert.equal(e.retryable, true);
    const url = `${CLOSED}/v1/chat/completions`;
    assert.match(e.message, new RegExp(`^openai-compatible could not reach ${escaped(url)}: fetch failed \\(`));
    assert.match(e.message, /ECONNREFUSED/);
    assert.equal(e.providerMessage, e.message.slice("openai-compatible ".length));
    assertNoKey(e, KEY, "refused");
  }
});

test("the URL is named without its user info or credential parameters", async () => {
  const lm = lib.buildLMInvoker("openai-compatible/m", {
    apiKey: KEY,
    baseUrl: `http://user:pw-0123456789@127.0.0.1:9/v1?key=sk-query-4Fh8Jk2Lm6Np0Qr&alt=sse`,
    maxRetries: 0,
  });
  const e = await failure(lm.invoke("Hi"));
  assert.equal(e.code, "NETWORK_ERROR");
  assert.ok(!e.message.includes("user"), e.message);
  assert.ok(!e.message.includes("pw-0123456789"), e.message);
  assert.ok(!e.message.includes("sk-query"), e.message);
  // Named without them, and also where the runtime's own message quotes the URL (Node's fetch
  // refuses a URL with credentials, and says which).
  assert.match(e.message, /could not reach http:\/\/127\.0\.0\.1:9\/v1\?key=\[redacted\]&alt=sse\/chat\/completions: /);
  assertNoKey(e, KEY, "credentials in the URL");
  assertNoKey(e, "sk-query-4Fh8Jk2Lm6Np0Qr", "the query's key");
});

test("a fetch error without a cause is named by its own message", async () => {
  const fetch = () => Promise.reject(new TypeError("Failed to fetch"));
  const lm = lib.buildLMInvoker("openai/gpt-4o-mini", { apiKey: KEY, fetch, maxRetries: 0 });
  const e = await failure(lm.invoke("Hi"));
  assert.equal(e.code, "NETWORK_ERROR");
  assert.match(e.message, /^openai could not reach https:\/\/[^ ]+: Failed to fetch$/);
  // A cause that quotes the key (a proxy's message) is redacted with the rest.
  const echo = () =>
    Promise.reject(new TypeError("fetch failed", { cause: { code: "EPROTO", message: `bad ${KEY}` } }));
  const e2 = await failure(
    lib.buildLMInvoker("openai/gpt-4o-mini", { apiKey: KEY, fetch: echo, maxRetries: 0 }).invoke("Hi"),
  );
  assert.match(e2.message, /fetch failed \(EPROTO: bad \[redacted\]\)$/);
  assertNoKey(e2, KEY, "a cause quoting the key");
});

test("a body that breaks off while it is read is a network failure, retried like one", async () => {
  let calls = 0;
  const answer = JSON.stringify({ choices: [{ message: { content: "ok" } }] });
  const fetch = async () => {
    calls++;
    const body = calls > 1 ? answer : new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('{"choices": ['));
        controller.error(new TypeError("terminated"));
      },
    });
    return new Response(body, { headers: { "content-type": "application/json" } });
  };
  const lm = (maxRetries) => lib.buildLMInvoker("openai/gpt-4o-mini", { apiKey: KEY, fetch, maxRetries });
  const e = await failure(lm(0).invoke("Hi"));
  assert.equal(e.code, "NETWORK_ERROR");
  assert.match(e.message, /: terminated$/);
  assert.deepEqual([e.retryable, e.attempts, calls], [true, 1, 1]);
  calls = 0;
  assert.equal((await lm(1).invoke("Hi")).outputs[0].output, "ok");
  assert.equal(calls, 2, "the second attempt read the whole answer");
});
