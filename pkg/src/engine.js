// The streaming engine of the core (provider SSE bytes → transformers → citations in one
// machine, one trip into wasm per chunk), and the decoding of what each step returns: words
// and one string, turned into event objects in a single pass (src/engine/ops.rs).
import * as lean from "../gen/stream/citeflow_stream.js";
import { citeflowError, reentrantCall, streamFinished } from "./errors.js";
import { citationEvent } from "./events.js";
import { freeObject } from "./instance.js";
import { full } from "./stream_full_runtime.js";
import { epoch, memory, ready } from "./stream_runtime.js";
import { isHighSurrogate } from "./surrogates.js";
// A step's ops and header flags, the kinds of an event's fields (src/abi.rs).
import {
  KIND_ARRAY,
  KIND_BITS,
  KIND_NULL,
  KINDS,
  SHAPE_EXTRA as EXTRA,
  STEP_CITATION as CITATION,
  STEP_END as END,
  STEP_EVENT as EVENT,
  STEP_HANDLE as HANDLE,
  STEP_HANDLE_TEXT as HANDLE_TEXT,
  STEP_HEADER as HEADER,
  STEP_HOLDS as HOLDS,
  STEP_ID as ID,
  STEP_KEEP as KEEP,
  STEP_RAW as RAW,
  STEP_START as START,
  STEP_TAKES_SHOWN as TAKES_SHOWN,
  STEP_TEXT as TEXT,
} from "./abi.js";

const TYPES = [
  ["response_start", "response", "response_end"],
  ["thinking_start", "thinking", "thinking_end"],
];
// From this length on, TextEncoder.encodeInto beats a copy loop.
const ENCODE_INTO_MIN = 128;
// Up to this many bytes, a step's ASCII text is read by String.fromCharCode rather than by
// TextDecoder, whose fixed cost dominates token-sized steps.
const SHORT_TEXT = 16;
const encoder = new TextEncoder();
// `ignoreBOM`: a step's text may begin with U+FEFF, which is model text like any other (a
// default decoder would drop it and shift every later slice).
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
// Not a bit of `shape`: in the key of #isPlainResponse's answer, the value is empty.
const EMPTY = 1 << 20;

const LEAN = { glue: lean, ready, memory, epoch };
const FULL = { glue: full.internals.glue, ready: full.ready, memory: full.memory, epoch: full.epoch };
// The stage names (both spellings) and `format:<name>`s of the provider stream formats the
// streaming module leaves to the full one: its own answer, asked once.
let fullOnly = null;

/** The module an engine of this provider stream format and these stage configs runs in. */
function runtimeOf(format, stages) {
  if (typeof format !== "string" && (!Array.isArray(stages) || stages.length === 0)) return LEAN;
  ready();
  fullOnly ??= new Set(lean.fullModuleStages().split(",").filter((name) => name !== ""));
  if (typeof format === "string" && fullOnly.has(`format:${format}`)) return FULL;
  if (!Array.isArray(stages)) return LEAN;
  for (const stage of stages) {
    let type;
    try {
      type = typeof stage === "string" ? stage : stage?.type;
    } catch {
      return LEAN; // a throwing getter: the streaming module reports it with its code
    }
    if (fullOnly.has(type)) return FULL;
  }
  return LEAN;
}

/** The full streaming module's glue, ready: for what only it does (whole outputs, event by event). */
export function fullModule() {
  full.ready();
  return full.internals.glue;
}

export class Engine {
  #core;
  // The memory of the module the engine runs in, and its instance's epoch (how many times it was
  // replaced) now and when the core was made there.
  #memoryOf;
  #epochOf;
  #epoch;
  #ids = [null];
  #u32 = null;
  #u8 = null;
  #input = 0;
  #inputSize = 0;
  // Bytes of text already written into the input buffer by `defer`, which the next push sends
  // before its own.
  #deferred = 0;
  // A chunk's trailing first half of a surrogate pair, and its id: it waits for the second
  // half, so that the core always sees whole characters.
  #lead = "";
  #leadId = null;
  // Set at finish(), when the core's memory is released (not left to garbage collection).
  #finishReason;
  #finished = false;
  // Whether some stage held back what it was given after the latest step, and whether the core
  // can move past shown text by its length (the flags in the header's 4th word).
  #holds = false;
  #takesShown = false;
  // Whether every stage works on event objects kept here (`pushHandle`), or they go whole.
  #takesHandles;
  // The event objects kept for the core, by handle (undefined: a free slot), the free slots,
  // and the handles the core may still give back: those it kept after its latest step (KEEP
  // ops) and any sent since. After each step every other slot is freed.
  #objects = [];
  #free = [];
  #sent = [];
  // The byte lengths of the fields #writeFields wrote.
  #lengths = [0, 0, 0, 0];
  // For an engine made by `forStage`: its stage's `{type, kwargs}` config (from which
  // `releaseUnused`'s freed core is made again at the next use), and whether it has done
  // anything yet.
  #stage = null;
  #used = false;
  // The latest answer of the core's isPlainResponse (see #isPlainResponse).
  #plainMemo = { key: -1, type: undefined, valueType: undefined, plain: false };
  // Whether the engine is running the caller's code now: reading a pushed event object's fields
  // (here, or in the core for an engine that takes events whole) or copying one (#decode). A
  // getter, Proxy trap or toJSON that calls the engine then gets REENTRANT_CALL (#open): its
  // state is in use, and the core's object is borrowed by the step under way.
  #busy = false;

  /**
   * `format`: a provider stream format for byte input, or null; `stages`: transformer configs.
   * The engine runs in the streaming module, or in the full one when a stage is only there.
   */
  constructor(format, stages, made = null) {
    const runtime = made === null ? runtimeOf(format, stages) : LEAN;
    runtime.ready();
    this.#memoryOf = runtime.memory;
    this.#epochOf = runtime.epoch;
    this.#core = made ?? new runtime.glue.EngineCore(format, stages);
    this.#epoch = runtime.epoch();
    this.#takesHandles = this.#core.takesHandles();
  }

  /**
   * The engine of one transformer of the streaming module (`"think_tag"`, `"citations"`) from
   * its options, read once by the core, which also gives the stage's config and triggers
   * (`stageConfig`, `stageTriggers`).
   */
  static forStage(kind, options) {
    ready();
    const engine = new Engine(null, null, lean.EngineCore.forStage(kind, options));
    engine.#stage = engine.#core.stageConfig();
    return engine;
  }

  /**
   * Frees the core's memory of an engine made by `forStage` that has done nothing yet: its
   * transformer is only the description of a stage of another engine (a decoder's, a chain's).
   * Should it be used after all, its core is made again from the same config at its first push.
   */
  releaseUnused() {
    // Anything pushed, deferred or held marks it used (#open); a freed core is null.
    if (this.#stage === null || this.#used) return;
    this.#core = freeObject(this.#core);
  }

  /**
   * Makes again the core `releaseUnused` freed (nothing was pushed, so nothing is lost; no
   * input buffer was asked for), in the instance running now.
   */
  #remake() {
    ready();
    this.#core = lean.EngineCore.forStage(this.#stage.type, this.#stage.kwargs);
    this.#epoch = epoch();
  }

  /** The `{type, kwargs}` config of an engine made by `forStage`. */
  stageConfig() {
    return this.#stage;
  }

  /** What can change the stage of an engine made by `forStage` while it holds nothing back. */
  stageTriggers() {
    return this.#core.stageTriggers();
  }

  /** Response body bytes (a Uint8Array). */
  pushBytes(bytes) {
    this.#open();
    this.#noDeferred();
    if (this.#lead !== "") return this.#flushLead(() => this.pushBytes(bytes));
    const at = this.#inputOf(bytes.length);
    this.#memory().set(bytes, at);
    return this.#step(this.#core.pushBytes(bytes.length));
  }

  /**
   * Response body text in three parts, as `pushBytes` of their UTF-8 one after another
   * (written straight into the input buffer: no joined string, no byte array).
   */
  pushBodyText(head, body, tail) {
    this.#open();
    this.#noDeferred();
    if (this.#lead !== "") return this.#flushLead(() => this.pushBodyText(head, body, tail));
    let n = this.#write(head, 0);
    n += this.#write(body, n);
    n += this.#write(tail, n);
    return this.#step(this.#core.pushBytes(n));
  }

  /**
   * A chunk of answer text, as a `response` event with this id (after the text `defer` wrote,
   * whose first `skip` UTF-16 units of `response` text the caller has shown already: they are
   * left out of the events returned). Before all of it, the caller showed `shown` bytes of
   * text the core moves past by their length (see `takesShown`).
   */
  pushText(chunk, id = null, skip = 0, shown = 0) {
    this.#open();
    let text = this.#lead === "" ? chunk : this.#lead + chunk;
    this.#lead = "";
    if (isHighSurrogate(text.charCodeAt(text.length - 1))) {
      this.#lead = text.slice(-1);
      this.#leadId = id;
      text = text.slice(0, -1);
    }
    if (text.length === 0 && this.#lead !== "" && this.#deferred === 0 && shown === 0) return [];
    const written = this.#deferred + this.#write(text, this.#deferred);
    this.#deferred = 0;
    return this.#step(this.#core.pushUtf8(written, id ?? undefined, skip, shown));
  }

  /**
   * Writes answer text (whole characters, id null) into the input buffer without a step: the
   * next `pushText` sends it first. For a caller that showed the text already (a fast path).
   */
  defer(text) {
    this.ensureLive();
    const from = this.#deferred;
    const n = text.length;
    // Short ASCII text into room the buffer has: copied here (the common token-sized case).
    if (n < ENCODE_INTO_MIN && from + n * 3 <= this.#inputSize) {
      const u8 = this.#memory();
      const at = this.#input + from;
      let i = 0;
      while (i < n) {
        const c = text.charCodeAt(i);
        if (c > 0x7f) break;
        u8[at + i++] = c;
      }
      if (i === n) {
        this.#deferred = from + n;
        return;
      }
    }
    this.#deferred = from + this.#write(text, from);
  }

  /**
   * Writes `text` as UTF-8 into the core's input buffer from byte `from` on (what is before it
   * stays); returns the byte count. Short ASCII text is copied by a loop, the rest by the
   * native encoder (neither allocates in wasm).
   */
  #write(text, from) {
    const max = from + text.length * 3;
    const at = this.#inputOf(max) + from;
    const u8 = this.#memory();
    let i = 0;
    if (text.length < ENCODE_INTO_MIN) {
      for (; i < text.length; i++) {
        const c = text.charCodeAt(i);
        if (c > 0x7f) break;
        u8[at + i] = c;
      }
      if (i === text.length) return i;
    }
    const rest = i === 0 ? text : text.slice(i);
    return i + encoder.encodeInto(rest, u8.subarray(at + i, at + i + rest.length * 3)).written;
  }

  /** The address of the core's input buffer, grown to at least `size` bytes. */
  #inputOf(size) {
    // The buffer only moves when it grows (wasm memory growing keeps addresses), and keeps
    // its bytes when it does.
    if (size > this.#inputSize) {
      this.#input = this.#core.inputBuffer(size);
      this.#inputSize = size;
    }
    return this.#input;
  }

  /** Bytes of wasm memory; a new view once the memory grew (which detaches the old one). */
  #memory() {
    if (this.#u8 === null || this.#u8.length === 0) {
      const buffer = this.#memoryOf().buffer;
      this.#u8 = new Uint8Array(buffer);
      this.#u32 = new Uint32Array(buffer);
    }
    return this.#u8;
  }

  /**
   * Any event object. Its fields are read once and the core decides what it is: plain answer
   * text goes as text; any other event, when every stage takes them, as a handle to the object
   * kept here (the very object comes back out, or a copy with a new `value` when a stage
   * released text in its shape); otherwise whole.
   */
  pushEvent(event) {
    this.#open();
    this.#noDeferred();
    this.#busy = true;
    let fields;
    try {
      fields = readEvent(event);
    } finally {
      this.#busy = false;
    }
    if (typeof fields.value === "string" && this.#isPlainResponse(fields)) {
      // As a chunk of text: a chunk's half of a surrogate pair waits for the next one.
      return this.pushText(fields.value, fields.id ?? null);
    }
    if (this.#lead !== "") return this.#flushLead(() => this.pushEvent(event));
    if (!this.#takesHandles) return this.#step(this.#pushWhole(event));
    let handle = this.#free.pop();
    if (handle === undefined) handle = this.#objects.length;
    this.#objects[handle] = event;
    this.#sent.push(handle);
    this.#writeFields(fields);
    const n = this.#lengths;
    return this.#step(this.#core.pushHandle(handle, fields.shape, n[0], n[1], n[2], n[3]));
  }

  /** An event object into the core, which reads its fields itself (the caller's code runs then). */
  #pushWhole(event) {
    this.#busy = true;
    try {
      return this.#core.pushEvent(event);
    } finally {
      this.#busy = false;
    }
  }

  /**
   * The core's answer to whether an event is plain `response` text, kept for the next event of
   * the same type, value type and shape (which the answer depends on besides the value, and
   * the value only by whether it is empty): a stream repeats one event shape.
   */
  #isPlainResponse({ type, value, valueType, shape }) {
    const key = value === "" ? shape | EMPTY : shape;
    const memo = this.#plainMemo;
    if (memo.key !== key || memo.type !== type || memo.valueType !== valueType) {
      this.#writeFields({ type, id: undefined, value, valueType });
      const n = this.#lengths;
      memo.plain = this.#core.isPlainResponse(key, n[0], n[1], n[2], n[3]);
      memo.key = key;
      memo.type = type;
      memo.valueType = valueType;
    }
    return memo.plain;
  }

  /**
   * Writes an event's string fields (`type`, `id`, `value`, `valueType`) one after another
   * into the input buffer as UTF-8, their byte lengths into #lengths (0 for a field that is not
   * a string: `shape` says which are).
   */
  #writeFields({ type, id, value, valueType }) {
    const n = this.#lengths;
    n[0] = type === undefined ? 0 : this.#write(type, 0);
    n[1] = id === undefined ? 0 : this.#write(id, n[0]);
    n[2] = value === undefined ? 0 : this.#write(value, n[0] + n[1]);
    n[3] = valueType === undefined ? 0 : this.#write(valueType, n[0] + n[1] + n[2]);
  }

  /** How many event objects are kept for the core now (for tests: it stays small). */
  keptCount() {
    return this.#objects.length - this.#free.length;
  }

  /**
   * Ends the stream and releases the engine's wasm memory at once, also when finishing fails
   * (a provider stream cut short): a stream ends once.
   */
  finish() {
    this.#open();
    this.#noDeferred();
    if (this.#lead !== "") return this.#flushLead(() => this.finish());
    try {
      const out = this.#step(this.#core.finish());
      this.#finishReason = this.#core.finishReason() ?? null;
      return out;
    } finally {
      this.release();
    }
  }

  /**
   * Lets the engine's wasm memory go now, without finishing: a stream given up on (cancelled,
   * or failed). Later pushes and `finish()` throw STREAM_FINISHED. Does nothing once finished.
   */
  release() {
    if (this.#busy) throw reentrantCall("this stream object");
    if (this.#finished) return;
    this.#finished = true;
    this.#objects = [];
    this.#free = [];
    this.#sent = [];
    this.#core = freeObject(this.#core);
  }

  /**
   * Throws what any push would throw before the core does a thing: the stream has finished, or
   * the core's instance was replaced since (a fast path that skips the core checks this).
   */
  ensureLive() {
    this.#open();
    // Replaced since: reading the core's pointer throws the coded error (INSTANCE_RESET). Not
    // read otherwise: a getter call on every fast-path chunk.
    if (this.#epochOf() !== this.#epoch) this.#core.__wbg_ptr;
  }

  /**
   * Whether, after the latest step, some stage holds back what it was given (the start of a
   * possible tag or marker): each stage of the core says so itself (`Stage::holds_back`).
   */
  holdsBack() {
    return this.#holds;
  }

  /**
   * Whether, after the latest step, the core can move past answer text shown next by its
   * length alone (`StreamEngine::pass_shown`): ASCII, none of the stage's triggers, not only
   * spaces; passed as `pushText`'s `shown`.
   */
  takesShown() {
    return this.#takesShown;
  }

  /** Whether a chunk's trailing first half of a surrogate pair waits here for the next chunk. */
  holdsHalf() {
    return this.#lead !== "";
  }

  get finishReason() {
    if (this.#busy) throw reentrantCall("this stream object");
    if (this.#finished) return this.#finishReason;
    return this.#core === null ? null : this.#core.finishReason() ?? null;
  }

  /** Sends the held half on its own (as U+FFFD, what TextEncoder makes of it), then `next()`. */
  #flushLead(next) {
    const lead = this.#lead;
    this.#lead = "";
    const out = this.#step(this.#core.pushText(lead, this.#leadId ?? undefined));
    for (const e of next()) out.push(e);
    return out;
  }

  // Deferred text goes with the next pushText, which its caller sends before anything else.
  #noDeferred() {
    if (this.#deferred !== 0) throw citeflowError("INTERNAL", "deferred text must be pushed before other input");
  }

  #open() {
    if (this.#busy) throw reentrantCall("this stream object");
    if (this.#finished) throw streamFinished();
    if (this.#core === null) this.#remake();
    this.#used = true;
  }

  /** A step's events; a step returns 0 when it failed, and keeps its error for `takeError`. */
  #step(ptr) {
    if (ptr === 0) {
      const error = this.#core.takeError();
      // The handles stages still keep after the failed step: the others are freed.
      if (this.#sent.length !== 0) this.#decode(this.#core.idleStep());
      throw error;
    }
    return this.#decode(ptr);
  }

  #decode(ptr) {
    const u8 = this.#memory();
    const w = this.#u32;
    const at = ptr >>> 2;
    const end = at + w[at];
    const flags = w[at + 3];
    this.#holds = (flags & HOLDS) !== 0;
    this.#takesShown = (flags & TAKES_SHOWN) !== 0;
    const text = w[at + 2] === 0 ? "" : textAt(u8, w[at + 1], w[at + 2]);
    const ids = this.#ids;
    const out = [];
    let kept = null;
    // Event copies to make once the step's answer is read (`out` index, object, value): making
    // one runs the caller's getters, which may call into this module and grow its memory.
    let copies = null;
    for (let i = at + HEADER; i < end;) {
      switch (w[i]) {
        case TEXT: {
          const start = w[i + 3];
          const end = w[i + 4];
          if (start < end) {
            out[out.length] = {
              id: ids[w[i + 2]],
              type: TYPES[w[i + 1]][1],
              value: text.slice(start, end),
              valueType: "text",
            };
          }
          i += 5;
          break;
        }
        case EVENT:
          out.push(JSON.parse(text.slice(w[i + 1], w[i + 2])));
          i += 3;
          break;
        case CITATION:
          out[out.length] = citationEvent(
            w[i + 1],
            text.slice(w[i + 5], w[i + 6]),
            w[i + 2],
            w[i + 3],
            w[i + 4] === 1,
          );
          i += 7;
          break;
        case START:
        case END:
          out[out.length] = {
            id: ids[w[i + 2]],
            type: TYPES[w[i + 1]][w[i] === START ? 0 : 2],
            value: "",
            valueType: "text",
          };
          i += 3;
          break;
        case ID:
          ids[w[i + 1]] = text.slice(w[i + 2], w[i + 3]);
          i += 4;
          break;
        case HANDLE:
          out.push(this.#kept(w[i + 1]));
          i += 2;
          break;
        case HANDLE_TEXT:
          (copies ??= []).push(out.length, this.#kept(w[i + 1]), text.slice(w[i + 2], w[i + 3]));
          out.push(null);
          i += 4;
          break;
        case RAW: {
          const value = text.slice(w[i + 4], w[i + 5]);
          const json = w[i + 6] === 1;
          out.push({
            id: ids[w[i + 1]],
            type: text.slice(w[i + 2], w[i + 3]),
            value: json ? JSON.parse(value) : value,
            valueType: json ? "json" : "text",
          });
          i += 7;
          break;
        }
        case KEEP:
          kept ??= [];
          if (!kept.includes(w[i + 1])) kept.push(w[i + 1]);
          i += 2;
          break;
        default:
          throw citeflowError("INTERNAL", `the engine returned an unknown op ${w[i]}`);
      }
    }
    if (this.#sent.length !== 0) this.#release(kept);
    if (copies !== null) this.#copyAll(out, copies);
    return out;
  }

  /**
   * Puts in `out` the copies `#decode` listed: each event object with its new `value` (its own
   * enumerable fields, as spread copies them). A getter that throws gives the coded error.
   */
  #copyAll(out, copies) {
    this.#busy = true;
    try {
      for (let k = 0; k < copies.length; k += 3) out[copies[k]] = { ...copies[k + 1], value: copies[k + 2] };
    } catch (e) {
      throw citeflowError("INVALID_EVENT", "copying an event object's fields threw an exception (see `cause`)", e);
    } finally {
      this.#busy = false;
    }
  }

  /** Throws REENTRANT_CALL while the engine runs the caller's code (see #busy). */
  refuseReentry() {
    if (this.#busy) throw reentrantCall("this stream object");
  }

  /** The event object kept as `handle`. */
  #kept(handle) {
    const object = this.#objects[handle];
    if (object === undefined) throw citeflowError("INTERNAL", `the engine gave back a freed handle ${handle}`);
    return object;
  }

  /** Frees every handle sent but the ones the core still keeps (null: none). */
  #release(kept) {
    const sent = this.#sent;
    for (let i = 0; i < sent.length; i++) {
      const handle = sent[i];
      if (kept === null || !kept.includes(handle)) {
        this.#objects[handle] = undefined;
        this.#free.push(handle);
      }
    }
    if (kept === null) sent.length = 0;
    else this.#sent = kept;
  }
}

/**
 * What the core needs of an event object, each own field read once: `type`, `id`, `value` and
 * `valueType` when strings (else undefined), and `shape`, what kind of value each is and
 * whether the object has other keys (the core decides what that makes it). A getter or `Proxy`
 * trap that throws gives a CiteflowError.
 */
function readEvent(event) {
  let type, id, value, valueType;
  let extra = 0;
  let shape;
  try {
    for (const key of Object.keys(event)) {
      if (key === "type") type = event.type;
      else if (key === "id") id = event.id;
      else if (key === "value") value = event.value;
      else if (key === "valueType") valueType = event.valueType;
      else extra = EXTRA;
    }
    // Each field's kind in KIND_BITS bits, `type` lowest, then EXTRA for keys of its own.
    shape = kindOf(type) | (kindOf(id) << KIND_BITS) | (kindOf(value) << (2 * KIND_BITS)) |
      (kindOf(valueType) << (3 * KIND_BITS)) | extra;
  } catch (e) {
    throw citeflowError("INVALID_EVENT", "invalid event: reading its fields threw an exception (see `cause`)", e);
  }
  return { type: str(type), id: str(id), value: str(value), valueType: str(valueType), shape };
}

function kindOf(value) {
  if (typeof value === "string") return KINDS.string;
  if (value === undefined) return KINDS.undefined;
  return value === null ? KIND_NULL : Array.isArray(value) ? KIND_ARRAY : KINDS[typeof value];
}

function str(value) {
  return typeof value === "string" ? value : undefined;
}

/** The UTF-8 text of `n` bytes at `at`. */
function textAt(u8, at, n) {
  if (n > SHORT_TEXT) return decoder.decode(u8.subarray(at, at + n));
  let any = 0;
  for (let i = at; i < at + n; i++) any |= u8[i];
  if (any >= 0x80) return decoder.decode(u8.subarray(at, at + n));
  return n <= 8 ? ascii(u8, at, n) : ascii(u8, at, 8) + ascii(u8, at + 8, n - 8);
}

/**
 * `n` (at most 8) ASCII bytes at `at` as a string, by one `String.fromCharCode` of that many
 * arguments: 3-5 times faster than adding a character at a time, and than TextDecoder's fixed
 * cost, for token-sized text.
 */
function ascii(u8, at, n) {
  const f = String.fromCharCode;
  switch (n) {
    case 0:
      return "";
    case 1:
      return f(u8[at]);
    case 2:
      return f(u8[at], u8[at + 1]);
    case 3:
      return f(u8[at], u8[at + 1], u8[at + 2]);
    case 4:
      return f(u8[at], u8[at + 1], u8[at + 2], u8[at + 3]);
    case 5:
      return f(u8[at], u8[at + 1], u8[at + 2], u8[at + 3], u8[at + 4]);
    case 6:
      return f(u8[at], u8[at + 1], u8[at + 2], u8[at + 3], u8[at + 4], u8[at + 5]);
    case 7:
      return f(u8[at], u8[at + 1], u8[at + 2], u8[at + 3], u8[at + 4], u8[at + 5], u8[at + 6]);
    default:
      return f(u8[at], u8[at + 1], u8[at + 2], u8[at + 3], u8[at + 4], u8[at + 5], u8[at + 6], u8[at + 7]);
  }
}
