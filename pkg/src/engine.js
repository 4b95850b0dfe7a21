// The streaming engine of the core (provider SSE bytes → transformers → citations in one
// machine, one trip into wasm per chunk), and the decoding of what each step returns: words
// and one string, turned into event objects in a single pass (src/engine/ops.rs).
import * as core from "../gen/stream/citeflow_stream.js";
import { citeflowError } from "./errors.js";
import { memory, ready } from "./stream_runtime.js";
import { isHighSurrogate } from "./surrogates.js";

const ID = 1;
const START = 2;
const TEXT = 3;
const END = 4;
const EVENT = 5;
const HEADER = 3;
const TYPES = [
  ["response_start", "response", "response_end"],
  ["thinking_start", "thinking", "thinking_end"],
];
// From this length on, TextEncoder.encodeInto beats wasm-bindgen's per-character copy.
const ENCODE_INTO_MIN = 128;
// Up to this many bytes, a step's text is read by a loop (while ASCII) rather than by
// TextDecoder, whose fixed cost dominates token-sized steps.
const SHORT_TEXT = 16;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

export class Engine {
  #core;
  #ids = [null];
  #u32 = null;
  #u8 = null;
  // A chunk's trailing first half of a surrogate pair, and its id: it waits for the second
  // half, so that the core always sees whole characters.
  #lead = "";
  #leadId = null;
  // Set at finish(), when the core's memory is released (not left to garbage collection).
  #finishReason;
  #finished = false;

  /** `format`: a provider stream format for byte input, or null; `stages`: transformer configs. */
  constructor(format, stages) {
    ready();
    this.#core = new core.EngineCore(format, stages);
  }

  /** Response body bytes (a Uint8Array). */
  pushBytes(bytes) {
    this.#open();
    if (this.#lead !== "") return this.#flushLead(() => this.pushBytes(bytes));
    const ptr = this.#core.inputBuffer(bytes.length);
    new Uint8Array(memory().buffer, ptr, bytes.length).set(bytes);
    return this.#decode(this.#core.pushBytes(bytes.length));
  }

  /** A chunk of answer text, as a `response` event with this id. */
  pushText(chunk, id = null) {
    this.#open();
    let text = this.#lead === "" ? chunk : this.#lead + chunk;
    this.#lead = "";
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.#lead = text.slice(-1);
      this.#leadId = id;
      text = text.slice(0, -1);
    }
    if (text.length === 0 && this.#lead !== "") return [];
    if (text.length < ENCODE_INTO_MIN) return this.#decode(this.#core.pushText(text, id ?? undefined));
    const max = text.length * 3;
    const ptr = this.#core.inputBuffer(max);
    const { written } = encoder.encodeInto(text, new Uint8Array(memory().buffer, ptr, max));
    return this.#decode(this.#core.pushUtf8(written, id ?? undefined));
  }

  /** Any event object. */
  pushEvent(event) {
    this.#open();
    if (this.#lead !== "") return this.#flushLead(() => this.pushEvent(event));
    return this.#decode(this.#core.pushEvent(event));
  }

  /** Ends the stream and releases the engine's wasm memory at once. */
  finish() {
    this.#open();
    if (this.#lead !== "") return this.#flushLead(() => this.finish());
    const out = this.#decode(this.#core.finish());
    this.#finishReason = this.#core.finishReason() ?? null;
    this.#finished = true;
    this.#core.free();
    this.#core = null;
    return out;
  }

  get finishReason() {
    return this.#finished ? this.#finishReason : this.#core.finishReason() ?? null;
  }

  /** Sends the held half on its own (as U+FFFD, what TextEncoder makes of it), then `next()`. */
  #flushLead(next) {
    const lead = this.#lead;
    this.#lead = "";
    const out = this.#decode(this.#core.pushText(lead, this.#leadId ?? undefined));
    for (const e of next()) out.push(e);
    return out;
  }

  #open() {
    if (this.#finished) throw citeflowError("STREAM_FINISHED", "the stream has already finished; create a new transformer or decoder for a new stream");
  }

  #decode(ptr) {
    const buffer = memory().buffer;
    if (this.#u32 === null || this.#u32.buffer !== buffer) {
      this.#u32 = new Uint32Array(buffer);
      this.#u8 = new Uint8Array(buffer);
    }
    const w = this.#u32;
    const at = ptr >>> 2;
    const end = at + w[at];
    const text = w[at + 2] === 0 ? "" : textAt(this.#u8, w[at + 1], w[at + 2]);
    const ids = this.#ids;
    const out = [];
    for (let i = at + HEADER; i < end; ) {
      switch (w[i]) {
        case TEXT:
          out.push({ id: ids[w[i + 2]], type: TYPES[w[i + 1]][1], value: text.slice(w[i + 3], w[i + 4]), valueType: "text" });
          i += 5;
          break;
        case EVENT:
          out.push(JSON.parse(text.slice(w[i + 1], w[i + 2])));
          i += 3;
          break;
        case START:
        case END:
          out.push({ id: ids[w[i + 2]], type: TYPES[w[i + 1]][w[i] === START ? 0 : 2], value: "", valueType: "text" });
          i += 3;
          break;
        case ID:
          ids[w[i + 1]] = text.slice(w[i + 2], w[i + 3]);
          i += 4;
          break;
        default:
          throw citeflowError("INTERNAL", `the engine returned an unknown op ${w[i]}`);
      }
    }
    return out;
  }
}

/** The UTF-8 text of `n` bytes at `at`. */
function textAt(u8, at, n) {
  if (n > SHORT_TEXT) return decoder.decode(u8.subarray(at, at + n));
  let s = "";
  for (let i = at; i < at + n; i++) {
    const b = u8[i];
    if (b >= 0x80) return decoder.decode(u8.subarray(at, at + n));
    s += String.fromCharCode(b);
  }
  return s;
}
