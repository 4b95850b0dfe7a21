// Recorded provider answers served over HTTP (tests/fixtures/providers/<provider>/, where each
// came from in SOURCES.md), for the invokers of the Rust face to fetch: a request to
// `/recorded/<provider>/…` for model `<name>` is answered with `<name>.sse` when it asks for a
// stream (Gemini's `streamGenerateContent`, or `"stream": true`) and `<name>.json` otherwise.
import { existsSync, readFileSync } from "node:fs";

const DIR = new URL("../../fixtures/providers/", import.meta.url);

/** Answers `req` (its body read as `raw`) if it is for a recorded answer; false if not. */
export function answerRecorded(req, res, raw) {
  const match = /^\/recorded\/([a-z-]+)\//.exec(req.url);
  if (!match) return false;
  const provider = match[1];
  const body = raw ? JSON.parse(raw) : {};
  // The model names the recording: in the body, or (Gemini) in the URL.
  const model = body.model ?? /\/models\/([^:/?]+)/.exec(req.url)?.[1];
  const streamed = body.stream === true || req.url.includes(":streamGenerateContent");
  const file = new URL(`${provider}/${model}.${streamed ? "sse" : "json"}`, DIR);
  if (typeof model !== "string" || !/^[a-z0-9-]+$/.test(model) || !existsSync(file)) {
    res.writeHead(404, { "content-type": "application/json" });
    res.end(JSON.stringify({ error: { message: `no recording ${provider}/${model}` } }));
    return true;
  }
  res.writeHead(200, { "content-type": streamed ? "text/event-stream" : "application/json" });
  res.end(readFileSync(file));
  return true;
}
