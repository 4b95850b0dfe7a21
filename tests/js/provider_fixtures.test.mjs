// Every recorded provider answer (tests/fixtures/providers/<provider>/, where each came from in
// SOURCES.md) through the package as a chat page uses it: the stream decoded for any split of its
// bytes gives the same events; an invoker of `<provider>/<model>` fed the recording (the fetch
// injected) streams those events and reads the whole answers; every citation's span lies inside
// the answer text on character boundaries; the API key goes only in a header.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { buildLMInvoker, decodeProviderStream } from "citeflow";
import { merged, rng } from "./helpers.mjs";

const DIR = new URL("../fixtures/providers/", import.meta.url);
const KEY = "sk-fixture-secret-0123456789";
const PROVIDERS = readdirSync(DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);

/** The recordings of one provider: [name, bytes]. */
const recordings = (provider, ext) =>
  readdirSync(new URL(`${provider}/`, DIR))
    .filter((name) => name.endsWith(ext))
    .map((name) => [name, readFileSync(new URL(`${provider}/${name}`, DIR))]);

/** A fetch body delivering `bytes` in random pieces (empty ones too). */
function bodyOf(bytes, random) {
  return new ReadableStream({
    start(c) {
      let i = 0;
      while (i < bytes.length) {
        const n = 1 + Math.floor(random() * 64);
        c.enqueue(bytes.slice(i, i + n));
        if (random() < 0.1) c.enqueue(new Uint8Array(0));
        i += n;
      }
      c.close();
    },
  });
}

async function collect(iterable) {
  const out = [];
  for await (const e of iterable) out.push(e);
  return out;
}

/** The answer text of events: the `response` deltas joined. */
const textOf = (events) => events.filter((e) => e.type === "response").map((e) => e.value).join("");

/** Each citation's span is inside `text`, splits no surrogate pair; a provider citation says what it covers. */
function checkSpans(text, citations, where) {
  for (const c of citations) {
    const [start, end] = c.span;
    assert.ok(
      Number.isInteger(start) && start <= end && end <= text.length,
      `${where}: span ${c.span} of ${text.length}`,
    );
    for (const at of [start, end]) {
      const unit = text.charCodeAt(at);
      assert.ok(!(unit >= 0xdc00 && unit < 0xe000), `${where}: span ${c.span} splits a surrogate pair`);
    }
    assert.ok(["claim", "link", "marker", "point"].includes(c.covers), `${where}: covers ${c.covers}`);
    if (c.covers === "point") assert.equal(start, end, `${where}: a point is empty`);
  }
}

/** A fetch answering every request with `bytes`, logging the requests. */
function answering(bytes, type, log) {
  return async (url, init) => {
    log.push({ url: String(url), init });
    return new Response(bytes, { status: 200, headers: { "content-type": type } });
  };
}

/** The key appears in no request URL or body, only in a header. */
function checkKeyPlacement(log) {
  for (const { url, init } of log) {
    assert.ok(!url.includes(KEY), `the key is in the URL ${url}`);
    assert.ok(!String(init.body).includes(KEY), "the key is in the body");
    const headers = new Headers(init.headers);
    assert.ok([...headers.values()].some((v) => v.includes(KEY)), "the key is in no header");
  }
}

for (const provider of PROVIDERS) {
  for (const [name, bytes] of recordings(provider, ".sse")) {
    test(`${provider}/${name}: the same events for any split, and through an invoker's stream`, async () => {
      // Text may come in other pieces for other splits: what a UI shows (adjacent deltas merged) is the same.
      const whole = merged(await collect(decodeProviderStream(bodyOf(bytes, () => 0.99), provider)));
      const random = rng(name.length * 7919 + bytes.length);
      for (let round = 0; round < 25; round++) {
        assert.deepEqual(merged(await collect(decodeProviderStream(bodyOf(bytes, random), provider))), whole);
      }
      const text = textOf(whole);
      checkSpans(text, whole.filter((e) => e.type === "citation").map((e) => e.value), name);
      assert.ok(whole.filter((e) => e.type === "sources").length <= 1, "one sources event at most");
      const log = [];
      const lm = buildLMInvoker(`${provider}/recorded-model`, {
        apiKey: KEY,
        fetch: answering(bytes, "text/event-stream", log),
        maxRetries: 0,
      });
      const streamed = merged(await collect(lm.stream("Question?")));
      assert.deepEqual(streamed, whole);
      checkKeyPlacement(log);
      assert.equal(JSON.parse(log[0].init.body).stream ?? true, true);
    });
  }
  for (const [name, bytes] of recordings(provider, ".json")) {
    test(`${provider}/${name}: a whole answer through an invoker`, async () => {
      const log = [];
      const lm = buildLMInvoker(`${provider}/recorded-model`, {
        apiKey: KEY,
        fetch: answering(bytes, "application/json", log),
        maxRetries: 0,
      });
      const output = await lm.invoke("Question?");
      const text = output.outputs.filter((o) => o.type === "text").map((o) => o.output).join("");
      assert.ok(output.outputs.length > 0, "an answer");
      checkSpans(text, output.citations ?? [], name);
      for (const c of output.citations ?? []) {
        if (c.valid && output.sources) {
          assert.ok(output.sources.some((s) => s.sourceId === c.sourceId), `${name}: source ${c.sourceId} is listed`);
        }
      }
      checkKeyPlacement(log);
    });
  }
}
