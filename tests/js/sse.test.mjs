import { test } from "node:test";
import assert from "node:assert/strict";
import { SSEDecoder } from "citeflow";
import { assertCode, rng } from "./helpers.mjs";

const enc = new TextEncoder();
const STREAM = "\uFEFFevent: message_start\r\ndata: {\"type\":\"message_start\"}\r\n\r\n: ping\r\n\r\nid: 42\ndata: héllo\ndata:  😀 world\n\nretry: 3000\rdata: [DONE]\r\r";
const EXPECTED = [
  { event: "message_start", data: "{\"type\":\"message_start\"}" },
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
    const cuts = Array.from({ length: Math.floor(random() * 10) }, () => Math.floor(random() * (bytes.length + 1))).sort((a, b) => a - b);
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
