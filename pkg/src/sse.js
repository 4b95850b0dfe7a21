// Server-sent events from network bytes: the decoder providers' streams go through.
import * as core from "../gen/stream/citeflow_stream.js";
import { Engine } from "./engine.js";
import { citeflowError, describe, isInstance, knownFields, list, noMoreArguments, prop } from "./errors.js";
import { ready } from "./stream_runtime.js";
import { RELEASE_STREAM, transformStreamOf } from "./streams.js";
import { freeObject } from "./instance.js";
import { OutputTransformer, stagesOf } from "./transformers.js";
import { holdHalfPair } from "./surrogates.js";

const encoder = new TextEncoder();

/** A decoder's format argument: a name (the core refuses names it does not know). */
function formatName(format, owner) {
  if (typeof format !== "string") {
    throw citeflowError(
      "UNKNOWN_PROVIDER",
      `${owner} takes a format name ("openai", "anthropic", "google", "cohere", …); got ${describe(format)}`,
    );
  }
}

function bytesOf(chunk, owner) {
  if (isInstance(chunk, Uint8Array)) return chunk;
  if (isInstance(chunk, ArrayBuffer)) return new Uint8Array(chunk);
  if (isInstance(chunk, DataView) || isInstance(chunk, Object.getPrototypeOf(Uint8Array))) {
    return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  }
  throw citeflowError(
    "INVALID_CHUNK",
    `${owner}.push takes bytes (Uint8Array, ArrayBuffer) or a string; got ${describe(chunk)}`,
  );
}

/**
 * Chunks (bytes or strings) as UTF-8 for one decoder. A string chunk may end between the two
 * halves of a surrogate pair: its trailing high surrogate waits for the next chunk instead of
 * becoming a U+FFFD of its own. Whatever is still held at the end (or before bytes) is encoded
 * as it is, one U+FFFD, as TextEncoder does.
 */
class Utf8Chunks {
  #held = "";
  #owner;

  constructor(owner) {
    this.#owner = owner;
  }

  bytes(chunk) {
    if (typeof chunk !== "string") {
      const bytes = bytesOf(chunk, this.#owner);
      if (this.#held === "") return bytes;
      const held = this.flush();
      const joined = new Uint8Array(held.length + bytes.length);
      joined.set(held);
      joined.set(bytes, held.length);
      return joined;
    }
    const [text, held] = holdHalfPair(this.#held, chunk);
    this.#held = held;
    return encoder.encode(text);
  }

  /** The held half, encoded (empty when nothing is held). */
  flush() {
    const held = this.#held;
    this.#held = "";
    return encoder.encode(held);
  }
}

/** Incremental, strict SSE decoding: push bytes as they arrive, get `{event?, data, id?, retry?}` messages. */
export class SSEDecoder {
  #core;
  #options;
  #utf8 = new Utf8Chunks("SSEDecoder");

  /** `maxLineBytes` (default 1 MiB) bounds one line, `maxEventBytes` (default 8 MiB) one event's data. */
  constructor(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "SSEDecoder");
    ready();
    this.#core = new core.SseDecoderCore(options); // the core reads and checks the options
    this.#options = options;
  }

  push(chunk) {
    return this.#live().push(this.#utf8.bytes(chunk));
  }

  /**
   * Ends the stream; an event cut off before its blank line throws SSE_TRUNCATED. Either way the
   * decoder's wasm memory is released.
   */
  finish() {
    const core = this.#live();
    try {
      const out = core.push(this.#utf8.flush());
      core.finish();
      return out;
    } finally {
      this[RELEASE_STREAM]();
    }
  }

  [RELEASE_STREAM]() {
    this.#core = freeObject(this.#core);
  }

  #live() {
    if (this.#core === null) throw citeflowError("STREAM_FINISHED", "the SSE decoder has already finished");
    return this.#core;
  }

  /** A TransformStream from bytes (a fetch body) to messages, over a fresh decoder. */
  transformStream() {
    return transformStreamOf(new SSEDecoder(this.#options));
  }
}

function hasLineBreak(s) {
  return s.indexOf("\n") !== -1 || s.indexOf("\r") !== -1;
}

/**
 * An SSE message object `{event?, data, id?, retry?}` as the SSE text that frames to it again
 * (its fields' lines up to `data: `, then its data lines; the blank line that ends it follows),
 * for the engine's own framing (one way into the core for every provider stream). Each line of
 * `data` becomes a data line: CRLF and a lone CR read back as LF, as every SSE framer reads
 * them (in JSON they can only be whitespace). `event` and `id` are one line each, so a line
 * break in them is refused rather than let it start a field of its own.
 */
function wireOf(message) {
  const what = "the SSE message";
  const data = message === null || typeof message !== "object"
    ? undefined
    : prop(message, "data", "INVALID_EVENT", what);
  if (typeof data !== "string") {
    throw citeflowError(
      "INVALID_EVENT",
      `ProviderStreamDecoder.push takes an SSE message {event?, data}; got ${describe(message)}`,
    );
  }
  let wire = "";
  for (const field of ["event", "id"]) {
    const value = prop(message, field, "INVALID_EVENT", what);
    if (value === undefined || value === null) continue;
    if (typeof value !== "string") throw invalidMessage(`\`${field}\` must be a string`);
    if (hasLineBreak(value)) throw invalidMessage(`\`${field}\` must be one line (it holds a line break)`);
    wire += `${field}: ${value}\n`;
  }
  const retry = prop(message, "retry", "INVALID_EVENT", what);
  if (retry !== undefined && retry !== null) {
    if (!Number.isSafeInteger(retry) || retry < 0) throw invalidMessage("`retry` must be a whole number ≥ 0");
    wire += `retry: ${retry}\n`;
  }
  const lines = hasLineBreak(data) ? data.replace(/\r\n?|\n/g, "\ndata: ") : data;
  return [`${wire}data: `, lines];
}

function invalidMessage(why) {
  return citeflowError("INVALID_EVENT", `invalid SSE message {event?, data}: ${why}`);
}

/**
 * Provider SSE messages → citeflow events (OpenAI-style or Anthropic wire format), on the
 * streaming engine (the provider decoding of `ProviderBodyDecoder`, fed framed messages).
 */
export class ProviderStreamDecoder {
  #engine;
  #format;

  /** `format`: the provider's wire format; it takes no options. */
  constructor(format, ...more) {
    noMoreArguments([format, ...more], 1, "ProviderStreamDecoder");
    ready();
    formatName(format, "ProviderStreamDecoder");
    this.#engine = new Engine(format, []);
    this.#format = format;
  }

  /** Events from one SSE message. */
  push(message) {
    const [head, lines] = wireOf(message);
    return this.#engine.pushBodyText(head, lines, "\n\n");
  }

  /** Ends the stream: throws STREAM_TRUNCATED if the provider never said it was done. */
  finish() {
    return this.#engine.finish();
  }

  [RELEASE_STREAM]() {
    this.#engine.release();
  }

  /** Why the model stopped ("stop", "length", "end_turn", …), once it said so. */
  get finishReason() {
    return this.#engine.finishReason;
  }

  transformStream() {
    return transformStreamOf(new ProviderStreamDecoder(this.#format));
  }
}

/**
 * The engine configs of `transformers` (configs, built transformers, or a chain) for a
 * decoder that runs them in the same engine.
 */
function transformerStages(transformers) {
  if (transformers === undefined) return [];
  const stages = [];
  list(transformers, "INVALID_OPTION", "transformers").forEach((t, i) => {
    if (!isInstance(t, OutputTransformer)) return stages.push(t); // a config, checked by the core
    const own = stagesOf([t]);
    if (own === null) {
      throw citeflowError(
        "INVALID_OPTION",
        `transformers[${i}] is written in JS and cannot run inside the decoder; pipe the decoder's events through it instead`,
      );
    }
    stages.push(...own);
  });
  return stages;
}

/**
 * Response body bytes → citeflow events: SSE framing, provider decoding and, when given,
 * output transformers and the citation parser, all in one step per network chunk (one trip
 * into wasm per chunk for the whole pipeline).
 */
export class ProviderBodyDecoder {
  #engine;
  #format;
  #options;
  #utf8 = new Utf8Chunks("ProviderBodyDecoder");

  /** `transformers`: configs or built transformers (ThinkTag, CitationParser, a chain, …) applied in order. */
  constructor(format, options = {}, ...more) {
    noMoreArguments([format, options, ...more], 2, "ProviderBodyDecoder");
    ready();
    formatName(format, "ProviderBodyDecoder");
    const { transformers } = knownFields(options, ["transformers"], "INVALID_OPTION", "ProviderBodyDecoder options");
    this.#engine = new Engine(format, transformerStages(transformers));
    this.#format = format;
    this.#options = options;
  }

  push(chunk) {
    return this.#engine.pushBytes(this.#utf8.bytes(chunk));
  }

  finish() {
    let out;
    try {
      out = this.#engine.pushBytes(this.#utf8.flush());
    } catch (error) {
      this.#engine.release(); // the stream ends here either way
      throw error;
    }
    out.push(...this.#engine.finish());
    return out;
  }

  [RELEASE_STREAM]() {
    this.#engine.release();
  }

  /** Why the model stopped ("stop", "length", "end_turn", …), once it said so. */
  get finishReason() {
    return this.#engine.finishReason;
  }

  transformStream() {
    return transformStreamOf(new ProviderBodyDecoder(this.#format, this.#options));
  }
}

/** A provider's streamed response body (a fetch body) as a stream of citeflow events. */
export function decodeProviderStream(body, format, options = {}, ...more) {
  noMoreArguments([body, format, options, ...more], 3, "decodeProviderStream");
  if (
    body === null || typeof body !== "object" ||
    typeof prop(body, "pipeThrough", "INVALID_OPTION", "the body") !== "function"
  ) {
    throw citeflowError(
      "INVALID_OPTION",
      `decodeProviderStream takes a ReadableStream of bytes (a fetch Response body); got ${describe(body)}`,
    );
  }
  // The decoder itself (not a fresh copy of it: nothing else uses this one).
  return body.pipeThrough(transformStreamOf(new ProviderBodyDecoder(format, options)));
}
