import { test } from "node:test";
import assert from "node:assert/strict";
import { ProviderBodyDecoder, SSEDecoder } from "citeflow";
import { assertCode, rng } from "./helpers.mjs";

const enc = new TextEncoder();
const STREAM =
  '\uFEFFevent: message_start\r\ndata: {"type":"message_start"}\r\n\r\n: ping\r\n\r\nid: 42\ndata: héllo\ndata:  😀 world\n\nretry: 3000\rdata: [DONE]\r\r';
const EXPECTED = [
  { event: "message_start", data: '{"type":"message_start"}' },
  { data: "héllo\n 😀 world", id: "42" },
  { data: "[DONE]", id: "42", retry: 3000 },
];

function decodeAll(pieces, options) {
  const d = new SSEDecoder(options);
  const out = [];
  for (const p of pieces) out.push(...d.push(p));
  d.finish();
  return out;
}

test("decodes every field, line ending, BOM and comment", () => {
  assert.deepEqual(decodeAll([enc.encode(STREAM)]), EXPECTED);
  assert.deepEqual(decodeAll([STREAM]), EXPECTED, "strings are encoded as UTF-8");
});

test("property: any byte split gives the same messages (UTF-8 and CRLF cut too)", () => {
  const bytes = enc.encode(STREAM);
  const random = rng(7);
  for (let round = 0; round < 300; round++) {
    const cuts = Array.from({ length: Math.floor(random() * 10) }, () => Math.floor(random() * (bytes.length + 1)))
      .sort((a, b) => a - b);
    const pieces = [0, ...cuts, bytes.length].slice(1).map((end, i, all) => bytes.slice(i === 0 ? 0 : all[i - 1], end));
    assert.deepEqual(decodeAll([bytes.slice(0, 0), ...pieces]), EXPECTED);
  }
});

test("pipes a fetch-like body through transformStream()", async () => {
  const bytes = enc.encode(STREAM);
  const body = new ReadableStream({
    start(c) {
      for (let i = 0; i < bytes.length; i += 3) c.enqueue(bytes.slice(i, i + 3));
      c.close();
    },
  });
  const out = [];
  for await (const m of body.pipeThrough(new SSEDecoder().transformStream())) out.push(m);
  assert.deepEqual(out, EXPECTED);
});

test("a cut stream is an error, never a silent short answer; lines are bounded", async () => {
  assertCode(() => decodeAll(["data: half an ev"]), "SSE_TRUNCATED");
  assertCode(() => decodeAll(["data: 1234567890\n\n"], { maxLineBytes: 8 }), "SSE_LINE_TOO_LONG");
  assertCode(() => new SSEDecoder().push(42), "INVALID_CHUNK");
  assertCode(() => new SSEDecoder({ maxLineBytes: 0 }), "INVALID_OPTION");
  assertCode(() => new SSEDecoder({ maxLineBytes: "8" }), "INVALID_OPTION");
  assertCode(() => new SSEDecoder({ maxLine: 8 }), "INVALID_OPTION");
  const body = ReadableStream.from([enc.encode("data: cut")]);
  await assert.rejects(async () => {
    for await (const _ of body.pipeThrough(new SSEDecoder().transformStream()));
  }, (e) => e.code === "SSE_TRUNCATED");
  const d = new SSEDecoder();
  d.finish();
  assertCode(() => d.push("data: x\n\n"), "STREAM_FINISHED");
});

test("a CR, then empty chunks, then LF is one line ending (strings and bytes, every split)", () => {
  assert.deepEqual(decodeAll(["event: delta\r", "", "\ndata: a\r", new Uint8Array(0), "\n\r", "", "\n"]), [{
    event: "delta",
    data: "a",
  }]);
  assertCode(() => decodeAll(["data: a\r", "", "\n"]), "SSE_TRUNCATED");
  const bytes = enc.encode(STREAM);
  const empty = new Uint8Array(0);
  for (let i = 0; i <= bytes.length; i++) {
    assert.deepEqual(decodeAll([bytes.slice(0, i), empty, empty, bytes.slice(i)]), EXPECTED, `split at ${i}`);
    assert.deepEqual(decodeAll([STREAM.slice(0, i), "", STREAM.slice(i)]), EXPECTED, `string split at ${i}`);
  }
});

test("a string chunk ending in a high surrogate waits for its pair (every push that takes strings)", async () => {
  const d = new SSEDecoder();
  assert.deepEqual([...d.push("data: \uD83D"), ...d.push("\uDE00\n\n")], [{ data: "😀" }]);
  const body = new ProviderBodyDecoder("openai");
  const text = `data: ${
    JSON.stringify({ choices: [{ index: 0, delta: { content: "a😀b" }, finish_reason: "stop" }] })
  }\n\ndata: [DONE]\n\n`;
  const cut = text.indexOf("😀") + 1;
  const events = [...body.push(text.slice(0, cut)), ...body.push(""), ...body.push(text.slice(cut)), ...body.finish()];
  assert.deepEqual(events.map((e) => [e.type, e.value]), [["response_start", ""], ["response", "a😀b"], [
    "response_end",
    "",
  ]]);
  // Every UTF-16 split, including inside pairs, through the stream face too.
  const astral = "data: 😀🙂 x 𝄞\n\n";
  for (let i = 0; i <= astral.length; i++) {
    for (let j = i; j <= astral.length; j++) {
      assert.deepEqual(
        decodeAll([astral.slice(0, i), astral.slice(i, j), "", astral.slice(j)]),
        [{ data: "😀🙂 x 𝄞" }],
        `split at ${i}, ${j}`,
      );
    }
  }
  const out = [];
  for await (
    const m of ReadableStream.from(["data: \uD83D", "\uDE00\n\n"]).pipeThrough(new SSEDecoder().transformStream())
  ) out.push(m);
  assert.deepEqual(out, [{ data: "😀" }]);
  // A lone high surrogate at the very end, or before bytes, is one U+FFFD, as TextEncoder makes it.
  assert.deepEqual(decodeAll(["data: \uD83D", enc.encode("\n\n")]), [{ data: "\uFFFD" }]);
  assertCode(() => decodeAll(["data: x\uD83D"]), "SSE_TRUNCATED");
});

test("one event's size is bounded (maxEventBytes, default 8 MiB)", () => {
  assertCode(
    () => decodeAll(["data: 12345\ndata: 123456\ndata: 789\n\n"], { maxEventBytes: 16 }),
    "SSE_EVENT_TOO_LARGE",
  );
  assert.equal(
    decodeAll(["data: 0123456789abcd\n\n".repeat(100)], { maxEventBytes: 16 }).length,
    100,
    "per event, not per stream",
  );
  for (const maxEventBytes of [0, 1.5, "8", -1]) assertCode(() => new SSEDecoder({ maxEventBytes }), "INVALID_OPTION");
  // Data lines that never end an event: stopped at the default, not grown until memory runs out.
  const d = new SSEDecoder();
  const line = enc.encode(`data: ${"x".repeat(65536)}\n`);
  let error = null;
  for (let i = 0; i < 200 && !error; i++) {
    try {
      d.push(line);
    } catch (e) {
      error = e;
    }
  }
  assert.equal(error?.code, "SSE_EVENT_TOO_LARGE");
  assert.match(error.message, /8388608/);
});
