// Server-sent events from network bytes: the decoder providers' streams go through.
import * as core from "../gen/citeflow.js";
import { citeflowError, describe } from "./errors.js";
import { ready } from "./runtime.js";

const encoder = new TextEncoder();

function bytesOf(chunk) {
  if (chunk instanceof Uint8Array) return chunk;
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (typeof chunk === "string") return encoder.encode(chunk);
  throw citeflowError("INVALID_CHUNK", `SSEDecoder.push takes bytes (Uint8Array, ArrayBuffer) or a string; got ${describe(chunk)}`);
}

/** Incremental, strict SSE decoding: push bytes as they arrive, get `{event?, data, id?, retry?}` messages. */
export class SSEDecoder {
  #core;
  #options;

  constructor(options = {}) {
    ready();
    if (options === null || typeof options !== "object") throw citeflowError("INVALID_OPTION", `SSEDecoder options must be an object; got ${describe(options)}`);
    const { maxLineBytes, ...rest } = options;
    const unknown = Object.keys(rest);
    if (unknown.length) throw citeflowError("INVALID_OPTION", `SSEDecoder has no option \`${unknown[0]}\` (it has maxLineBytes)`);
    if (maxLineBytes !== undefined && typeof maxLineBytes !== "number") throw citeflowError("INVALID_OPTION", `maxLineBytes must be a number; got ${describe(maxLineBytes)}`);
    this.#core = new core.SseDecoderCore(maxLineBytes);
    this.#options = options;
  }

  push(chunk) {
    return this.#core.push(bytesOf(chunk));
  }

  /** Ends the stream; an event cut off before its blank line throws SSE_TRUNCATED. */
  finish() {
    this.#core.finish();
    return [];
  }

  /** A TransformStream from bytes (a fetch body) to messages, over a fresh decoder. */
  transformStream() {
    const d = new SSEDecoder(this.#options);
    return new TransformStream({
      transform(chunk, controller) {
        for (const m of d.push(chunk)) controller.enqueue(m);
      },
      flush() {
        d.finish();
      },
    });
  }
}
