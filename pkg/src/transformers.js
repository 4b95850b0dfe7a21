// The output transformers, as JS classes over the wasm core. The core decides; this layer
// only moves values across the boundary in the cheapest way for each transformer.
import * as core from "../gen/stream/citeflow_stream.js";
import {
  citeflowError,
  describe,
  fields,
  isInstance,
  knownFields,
  list,
  noMoreArguments,
  reentrantCall,
  streamFinished,
} from "./errors.js";
import { Engine, fullModule } from "./engine.js";
import { checkEvent, eventType, toEvent } from "./events.js";
import { ready } from "./stream_runtime.js";
import { RELEASE_STREAM, transformStreamOf } from "./streams.js";
import { freeObject } from "./instance.js";
import { isHighSurrogate } from "./surrogates.js";

/**
 * The key of a method that describes a transformer as a stage of the core's streaming engine
 * (its `{type, kwargs}` config), or returns null for one that runs only in JS (a subclass
 * written by a user). Chains and provider decoders whose transformers all describe
 * themselves run as one engine: one trip into wasm per chunk for the whole pipeline.
 */
export const STAGE = Symbol("citeflow.stage");

/**
 * Keys of the fast path's own methods on stage transformers (not part of the API: writing
 * text the core has not stepped over would change what later pushes return).
 */
export const DEFER = Symbol("citeflow.defer");
export const PUSH_AFTER_DEFERRED = Symbol("citeflow.pushAfterDeferred");
export const TAKES_SHOWN = Symbol("citeflow.takesShown");
// Internal: a stage transformer's engine config, as the core read it; and the method that lets
// its engine's memory go while another engine runs its stage (stagesOf).
export const CONFIG = Symbol("citeflow.config");
const RELEASE = Symbol("citeflow.release");

/**
 * The engine configs of these transformers, or null when one of them has none. When all have
 * one, the engine that runs them stands in for them: each lets its own engine's memory go
 * until it is used itself (see Engine.releaseUnused).
 */
export function stagesOf(transformers) {
  const stages = [];
  for (const t of transformers) {
    const own = typeof t[STAGE] === "function" ? t[STAGE]() : null;
    if (own === null) return null;
    stages.push(...own);
  }
  for (const t of transformers) if (t instanceof StageTransformer) t[RELEASE]();
  return stages;
}

/** Shared by every transformer: a web TransformStream over a fresh copy of it. */
export class OutputTransformer {
  /** Engine stage configs; none for transformers written in JS. */
  [STAGE]() {
    return null;
  }

  /** A fresh copy with the same options and new stream state (each transformer has its own). */
  fresh() {
    throw citeflowError(
      "NOT_IMPLEMENTED",
      `${this.constructor.name} does not implement fresh(), which transformStream() needs`,
    );
  }

  transformStream() {
    return transformStreamOf(this.fresh());
  }

  /**
   * Called with each event `emit` and `emitFinish` release (the original library's event
   * emitter, JS-style): a function, or null.
   */
  get onEvent() {
    return LISTENERS.get(this) ?? null;
  }

  set onEvent(listener) {
    if (listener !== null && typeof listener !== "function") {
      throw citeflowError("INVALID_OPTION", `onEvent must be a function or null; got ${describe(listener)}`);
    }
    LISTENERS.set(this, listener);
  }

  /** Pushes a chunk or event and hands each event released to `onEvent`. */
  emit(input) {
    const listener = this.#listener();
    for (const event of this.push(input)) listener(event);
  }

  /** Finishes the stream and hands what was held back to `onEvent`. */
  emitFinish() {
    const listener = this.#listener();
    for (const event of this.finish()) listener(event);
  }

  #listener() {
    const listener = this.onEvent;
    if (listener === null) {
      throw citeflowError(
        "INVALID_OPTION",
        `${this.constructor.name}.emit needs an onEvent listener; set transformer.onEvent = (event) => …`,
      );
    }
    return listener;
  }
}

const isLowSurrogate = (unit) => unit >= 0xdc00 && unit <= 0xdfff;

// The units the lenient scan of a chunk of `n` units may compare at the places a trigger could
// begin: past it the chunk goes to the core, whose tag matching is linear in the text whatever
// the tags, where comparing each trigger at each such place is not (a long tag that repeats its
// first character, over text that keeps almost matching it). Ordinary text stays well under it.
const scanBudget = (n) => 4 * n + 1024;

// From this length on, a chunk without surrogates is scanned by indexOf rather than unit by unit.
const NATIVE_SCAN_MIN = 8;
const SURROGATE = /[\ud800-\udfff]/;
const NON_ASCII = /[\u0080-\uffff]/;
const NOT_SPACE = /[^ ]/;
// What StageTransformer.quietKind tells apart.
export const NOT_QUIET = 0;
export const QUIET = 1;
export const PLAIN = 2;
export const SPACES = 3;
// Internal: see StageTransformer[HOLDS].
export const HOLDS = Symbol("citeflow.holds");
// Internal: see StageTransformer[ASCII_TRIGGERS].
export const ASCII_TRIGGERS = Symbol("citeflow.asciiTriggers");
// Internal: see StageTransformer[ENSURE_IDLE].
export const ENSURE_IDLE = Symbol("citeflow.ensureIdle");

// The fast path's tables of each set of triggers seen (most transformers share the default
// ones): made once, not per transformer (a 128-byte Uint8Array has its memory outside the JS
// heap, which made each transformer's set-up and collection slower). Never written after made.
const SCAN_TABLES = new Map();
const SCAN_TABLES_LIMIT = 64;

function scanTable(triggers) {
  const key = JSON.stringify(triggers);
  let table = SCAN_TABLES.get(key);
  if (table !== undefined) return table;
  table = { triggers, ascii: new Uint8Array(128), wide: [], firsts: [], singleAscii: true };
  for (const t of triggers) {
    const c = t.charCodeAt(0);
    if (c < 128) table.ascii[c] = 1;
    else table.wide.push(c);
    if (!table.firsts.includes(t[0])) table.firsts.push(t[0]);
    if (t.length !== 1 || c >= 128) table.singleAscii = false;
  }
  if (SCAN_TABLES.size < SCAN_TABLES_LIMIT) SCAN_TABLES.set(key, table);
  return table;
}

// Each transformer's onEvent listener (a WeakMap, so subclasses written in JS need no field).
const LISTENERS = new WeakMap();

/**
 * A transformer's options split into its `onEvent` listener (JS's: `emit` and `emitFinish`
 * call it) and the rest, which the core reads (refusing a function anywhere in them, as it
 * refuses an unknown key). Options without an own `onEvent` go to the core as given (and a
 * value that is not an options object is refused there; a function here, where the seeds
 * took an emitter as the argument itself, with the way to give one).
 */
export function splitListener(options, owner) {
  if (typeof options === "function") {
    throw citeflowError(
      "INVALID_OPTION",
      `${owner} takes an options object, not a function; a listener goes in {onEvent: (event) => …}`,
    );
  }
  let own = false;
  try {
    own = options !== null && typeof options === "object" && Object.hasOwn(options, "onEvent");
  } catch (e) {
    throw citeflowError("INVALID_OPTION", `reading ${owner} options threw an exception (see \`cause\`)`, e);
  }
  if (!own) return [null, options];
  const { onEvent, ...rest } = fields(options, "INVALID_OPTION", `${owner} options`);
  return [onEvent ?? null, rest];
}

/**
 * The `{onEvent}` options of a transformer whose other options are its arguments (JSON,
 * identity, event filter): anything else is refused.
 */
function listenerOnly(options, owner) {
  return knownFields(options, ["onEvent"], "INVALID_OPTION", `${owner} options`).onEvent ?? null;
}

/**
 * A transformer that is one stage of its own engine: push and finish are the engine's, a whole
 * output goes through the core's `transformOutput`. `config` is the checked engine config.
 *
 * Fast path: crossing into wasm costs more than a token-sized chunk's work. The core names
 * the strings that can change a think-tag or citation stage (its tags, its trigger
 * characters); a chunk in which none of them starts and no end of which begins one cannot
 * change such a stage while it holds nothing back, so that chunk is answered here. Whether
 * the stage holds nothing back is never guessed: the engine's step says so ([HOLDS]).
 * tests/portable/fast_path.cases.mjs checks it against the engine alone for any split, in Node,
 * Deno, workerd and the browsers.
 */
export class StageTransformer extends OutputTransformer {
  #config;
  #engine;
  // The strings that can change the stage, and the first UTF-16 units they start with: ASCII
  // ones marked in a table, the others listed; and the distinct first units as strings (for
  // indexOf on long chunks). Shared by every transformer with the same triggers (scanTables).
  #triggers;
  #ascii;
  #wide;
  #firsts;
  // Whether every trigger is one ASCII character (see [ASCII_TRIGGERS]).
  #singleAscii;

  /** `kind`: the stage's type name; `options`: its options, read once by the core. */
  constructor(kind, options) {
    super();
    this.#engine = Engine.forStage(kind, options);
    this.#config = this.#engine.stageConfig();
    const table = scanTable(this.#engine.stageTriggers());
    this.#triggers = table.triggers;
    this.#ascii = table.ascii;
    this.#wide = table.wide;
    this.#firsts = table.firsts;
    this.#singleAscii = table.singleAscii;
  }

  /** The stage's engine config, `{type, kwargs}`, as the core read it. */
  get [CONFIG]() {
    return this.#config;
  }

  [RELEASE]() {
    this.#engine.releaseUnused();
  }

  /**
   * Whether, after the latest push, the engine holds anything back: a stage holds the start of
   * a possible tag (the core says so with each step), or a chunk's trailing first half of a
   * surrogate pair waits in JS for the next chunk.
   */
  [HOLDS]() {
    return this.#engine.holdsBack() || this.#engine.holdsHalf();
  }

  push(input) {
    return pushInto(this.#engine, input);
  }

  finish() {
    return this.#engine.finish();
  }

  [RELEASE_STREAM]() {
    this.#engine.release();
  }

  /** For a fast path: writes text already shown for the core to see with the next push. */
  [DEFER](text) {
    this.#engine.defer(text);
  }

  /**
   * Pushes the deferred text and then `text`, leaving out the first `skip` units shown already;
   * before them, the core moves past `shown` bytes of text shown without deferring it (see
   * [TAKES_SHOWN]).
   */
  [PUSH_AFTER_DEFERRED](text, skip, shown = 0) {
    return this.#engine.pushText(text, null, skip, shown);
  }

  /**
   * Whether, after the latest step, the core can move past shown text by its length alone (no
   * copy of it into wasm): ASCII text, none of the triggers, not only spaces. The core says so
   * with each step (`Stage::takes_shown`); false before the first.
   */
  [TAKES_SHOWN]() {
    return this.#engine.takesShown();
  }

  transform(output) {
    return fullModule().transformOutput(this.#config, output);
  }

  /**
   * Whether `chunk` (a string) holds no trigger character at all, nor half a surrogate pair at
   * its end: NOT_QUIET if it does; else PLAIN when it is ASCII and not only spaces (what the core
   * can move past by its length, see [TAKES_SHOWN]), SPACES when it is only spaces, QUIET when
   * it is not ASCII.
   */
  quietKind(chunk) {
    const n = chunk.length;
    // Token-sized chunks in one loop.
    if (n < NATIVE_SCAN_MIN && n !== 0) {
      const ascii = this.#ascii;
      // Without a branch on each character's kind (spaces come anywhere in text): an ASCII
      // trigger sets bit 1 of `hit` and a non-ASCII unit bit 2 (the table's entries are 0 or
      // 1); any unit but a space sets `other`.
      let hit = 0;
      let other = 0;
      for (let i = 0; i < n; i++) {
        const c = chunk.charCodeAt(i);
        hit |= c >= 128 ? 2 : ascii[c];
        other |= c ^ 0x20;
      }
      if (hit === 0) return other === 0 ? SPACES : PLAIN;
      if ((hit & 1) !== 0) return NOT_QUIET;
    }
    if (!this.#scan(chunk, false)) return NOT_QUIET;
    if (NON_ASCII.test(chunk)) return QUIET;
    return NOT_SPACE.test(chunk) ? PLAIN : SPACES;
  }

  /**
   * The stage's triggers as a table of the ASCII units (1: a trigger), when every trigger is
   * one ASCII character (a citation stage's); else null.
   */
  [ASCII_TRIGGERS]() {
    return this.#singleAscii ? this.#ascii : null;
  }

  /**
   * Whether the stage, holding nothing back, passes `chunk` whole as text of its open block:
   * no trigger string starts in it and no end of it begins one (a `<` of maths, not a tag).
   */
  passesWhole(chunk) {
    // Token-sized ASCII chunks without a trigger character, the common case, in one loop.
    const n = chunk.length;
    if (n < NATIVE_SCAN_MIN) {
      const ascii = this.#ascii;
      let i = 0;
      for (; i < n; i++) {
        const c = chunk.charCodeAt(i);
        if (c >= 128 || ascii[c] !== 0) break;
      }
      if (i === n && n !== 0) return true;
    }
    return this.#scan(chunk, true);
  }

  #scan(chunk, lenient) {
    const n = chunk.length;
    if (n >= NATIVE_SCAN_MIN && !SURROGATE.test(chunk)) return this.#scanNative(chunk, lenient);
    if (n === 0 || isHighSurrogate(chunk.charCodeAt(n - 1))) return false;
    const ascii = this.#ascii;
    let work = scanBudget(n);
    for (let i = 0; i < n; i++) {
      const c = chunk.charCodeAt(i);
      let pair = false;
      if (c < 128) {
        if (ascii[c] === 0) continue;
      } else {
        if (c >= 0xd800 && c <= 0xdfff) {
          // A lone half reaches the core as U+FFFD: only the core answers for it.
          pair = c <= 0xdbff && isLowSurrogate(chunk.charCodeAt(i + 1));
          if (!pair) return false;
        }
        if (!this.#wide.includes(c)) {
          if (pair) i++;
          continue;
        }
      }
      if (!lenient || (work -= this.#noneAt(chunk, i)) < 0) return false;
      if (pair) i++;
    }
    return true;
  }

  /** `#scan` for long chunks without surrogates: each place a trigger's first unit occurs, by indexOf. */
  #scanNative(chunk, lenient) {
    let work = scanBudget(chunk.length);
    for (const first of this.#firsts) {
      for (let i = chunk.indexOf(first); i !== -1; i = chunk.indexOf(first, i + 1)) {
        if (!lenient || (work -= this.#noneAt(chunk, i)) < 0) return false;
      }
    }
    return true;
  }

  /**
   * The comparisons made to find that no trigger string starts at `i` of `chunk` and the rest
   * of `chunk` from `i` is not the start of one (what the core's tag matching calls no match);
   * Infinity when one does. `chunk` holds whole characters only, so comparing UTF-16 units is
   * comparing the core's UTF-8.
   */
  #noneAt(chunk, i) {
    let compared = 0;
    for (const t of this.#triggers) {
      const m = Math.min(t.length, chunk.length - i);
      let k = 0;
      while (k < m && chunk.charCodeAt(i + k) === t.charCodeAt(k)) k++;
      if (k === m) return Infinity;
      compared += k + 1;
    }
    return compared;
  }

  /** Before answering without the core: throws what the core would (finished, instance replaced). */
  ensureLive() {
    this.#engine.ensureLive();
  }

  /**
   * Throws REENTRANT_CALL while the engine runs the caller's code (a getter of an event being
   * pushed): for a subclass to call before it changes its own state in a push.
   */
  [ENSURE_IDLE]() {
    this.#engine.refuseReentry();
  }
}

export class ThinkTagOutputTransformer extends StageTransformer {
  #options;
  #own;
  // The open block `{id, type}` while nothing is held back (the fast path), else null.
  #quiet = null;
  #open = null;
  #responseId = null;
  #thinkingId = null;

  /** `options.onEvent`: the listener of `emit` / `emitFinish`; the core reads the rest. */
  constructor(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "ThinkTagOutputTransformer");
    ready();
    const [onEvent, own] = splitListener(options, "ThinkTagOutputTransformer");
    super("think_tag", own);
    if (onEvent !== null) this.onEvent = onEvent;
    this.#options = own;
    // The core names this transformer's blocks `{idPrefix}-{n}`.
    this.#own = this[CONFIG].kwargs.idPrefix + "-";
  }

  fresh() {
    return new ThinkTagOutputTransformer(this.#options);
  }

  /** Whether the stream is inside a thinking block now. */
  get thinking() {
    return this.#open === "thinking";
  }

  /** The id of the latest response block (null before the first). */
  get responseId() {
    return this.#responseId;
  }

  /** The id of the latest thinking block (null before the first). */
  get thinkingId() {
    return this.#thinkingId;
  }

  [STAGE]() {
    return [{ type: "think_tag", kwargs: this.#options }];
  }

  push(input) {
    const quiet = this.#quiet;
    if (quiet !== null && typeof input === "string" && this.passesWhole(input)) {
      this.ensureLive();
      return [{ id: quiet.id, type: quiet.type, value: input, valueType: "text" }];
    }
    return this.#pushCore(input);
  }

  // Kept out of `push`, so that the fast path stays small enough to be inlined where it is called.
  #pushCore(input) {
    this.#quiet = null;
    const out = this.#track(super.push(input));
    const last = out[out.length - 1];
    // A string's text went to the core's think-tag stage; when the last it released is text,
    // that block is open, and when it holds nothing back the next chunk without a tag in it
    // would be released whole as more of it. (An event object's text may pass through as is.)
    if (
      typeof input === "string" && last !== undefined && (last.type === "thinking" || last.type === "response") &&
      !this[HOLDS]()
    ) {
      this.#quiet = { id: last.id, type: last.type };
    }
    return out;
  }

  finish() {
    this.#quiet = null;
    return this.#track(super.finish());
  }

  // The getters follow this transformer's own block events (others pass through it).
  #track(events) {
    for (const e of events) {
      const type = e.type;
      if (type.length < 12 || typeof e.id !== "string" || !e.id.startsWith(this.#own)) continue;
      if (type === "thinking_start") {
        this.#open = "thinking";
        this.#thinkingId = e.id;
      } else if (type === "response_start") {
        this.#open = "response";
        this.#responseId = e.id;
      } else if (type === "thinking_end" || type === "response_end") {
        this.#open = null;
      }
    }
    return events;
  }
}

/**
 * Keeps the listed event types (and their _start/_end variants); passes the very objects pushed.
 * Runs on an engine of its one stage: a probe event of each new type goes through it, and its
 * answer for that type is kept (the filter decides by type alone).
 */
export class EventFilterOutputTransformer extends OutputTransformer {
  static #CACHE_LIMIT = 256;
  #eventTypes;
  #engine;
  #cache = new Map();
  // The kept base types, as the core has them (sorted, without repeats).
  #allowed;

  /** `options.onEvent`: the listener of `emit` / `emitFinish`. */
  constructor(eventTypes, options = {}, ...more) {
    noMoreArguments([eventTypes, options, ...more], 2, "EventFilterOutputTransformer");
    super();
    ready();
    this.onEvent = listenerOnly(options, "EventFilterOutputTransformer");
    this.#engine = Engine.forStage("event_filter", { eventTypes });
    this.#allowed = this.#engine.stageTriggers();
    this.#eventTypes = list(eventTypes, "INVALID_OPTION", "eventTypes");
  }

  get allowedEventTypes() {
    return [...this.#allowed];
  }

  fresh() {
    return new EventFilterOutputTransformer(this.#eventTypes);
  }

  [STAGE]() {
    return [{ type: "event_filter", kwargs: { eventTypes: this.#eventTypes } }];
  }

  push(input) {
    const event = toEvent(input);
    const type = eventType(event);
    let keep = this.#cache.get(type);
    if (keep === undefined) {
      // A probe of this type (the event itself could be half a surrogate pair the engine
      // holds back): the filter keeps it or not by its type alone.
      keep = this.#engine.pushEvent({ type, value: "x" }).length !== 0;
      if (this.#cache.size < EventFilterOutputTransformer.#CACHE_LIMIT) this.#cache.set(type, keep);
    } else {
      this.#engine.ensureLive();
    }
    return keep ? [event] : [];
  }

  /** Ends the stream and releases the engine's wasm memory (the allowed types are kept). */
  finish() {
    return this.#engine.finish();
  }

  // As CoreTransformer's: only a transformStream()'s own copy is given up on.
  [RELEASE_STREAM]() {
    this.#engine.release();
  }

  transform(output) {
    return output;
  }
}

/**
 * Transformers whose events cross into the core and back (extra fields are kept), in the full
 * streaming module (they read JSON trees).
 *
 * The core reads an event or output itself, so the caller's getters, Proxy traps and toJSON
 * run while the core's object is borrowed by the call: one that calls this transformer again
 * gets REENTRANT_CALL here, before the core is entered (another transformer works).
 */
class CoreTransformer extends OutputTransformer {
  #config;
  #core;
  #done = false;
  #busy = false;

  constructor(config) {
    super();
    this.#core = new (fullModule().TransformerCore)(config);
    this.#config = config;
  }

  push(input) {
    this.#idle();
    if (this.#done) throw streamFinished();
    const event = toEvent(input);
    this.#busy = true;
    try {
      return this.#core.push(event);
    } finally {
      this.#busy = false;
    }
  }

  /** Ends the stream and releases the core's wasm memory, also when finishing fails. */
  finish() {
    this.#idle();
    if (this.#done) throw streamFinished();
    this.#done = true;
    try {
      return this.#core.finish();
    } finally {
      this.#core = freeObject(this.#core);
    }
  }

  // Only a transformStream()'s own copy is given up on (see streams.js): nothing uses it after.
  [RELEASE_STREAM]() {
    this.#idle();
    this.#done = true;
    this.#core = freeObject(this.#core);
  }

  #idle() {
    if (this.#busy) throw reentrantCall(`this ${this.constructor.name}`);
  }

  /** A whole output, by this core, or once it is released (finished) by one made for the call. */
  transform(output) {
    this.#idle();
    if (this.#core !== null) {
      this.#busy = true;
      try {
        return this.#core.transform(output);
      } finally {
        this.#busy = false;
      }
    }
    const core = new (fullModule().TransformerCore)(this.#config);
    try {
      return core.transform(output);
    } finally {
      freeObject(core);
    }
  }
}

export class IdentityOutputTransformer extends OutputTransformer {
  // An engine of the one identity stage, for the stream's lifecycle (events pass here).
  #engine;

  /** `options.onEvent`: the listener of `emit` / `emitFinish`. */
  constructor(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "IdentityOutputTransformer");
    super();
    this.onEvent = listenerOnly(options, "IdentityOutputTransformer");
    this.#engine = new Engine(null, [{ type: "identity" }]);
  }

  fresh() {
    return new IdentityOutputTransformer();
  }

  [STAGE]() {
    return [{ type: "identity" }];
  }

  push(input) {
    const event = toEvent(input);
    this.#engine.ensureLive();
    return [event];
  }

  finish() {
    return this.#engine.finish();
  }

  [RELEASE_STREAM]() {
    this.#engine.release();
  }

  transform(output) {
    return output;
  }
}

export class JSONOutputTransformer extends CoreTransformer {
  /** `options.onEvent`: the listener of `emit` / `emitFinish`. */
  constructor(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "JSONOutputTransformer");
    const onEvent = listenerOnly(options, "JSONOutputTransformer");
    super("json");
    if (onEvent !== null) this.onEvent = onEvent;
  }

  fresh() {
    return new JSONOutputTransformer();
  }

  [STAGE]() {
    return [{ type: "json" }];
  }
}

export class ValidationOutputTransformer extends CoreTransformer {
  #options;

  /** `options.onEvent`: the listener of `emit` / `emitFinish`; the core reads the rest. */
  constructor(options, ...more) {
    noMoreArguments([options, ...more], 1, "ValidationOutputTransformer");
    const [onEvent, own] = splitListener(options, "ValidationOutputTransformer");
    super({ type: "validation", kwargs: own });
    if (onEvent !== null) this.onEvent = onEvent;
    this.#options = own;
  }

  fresh() {
    return new ValidationOutputTransformer(this.#options);
  }

  [STAGE]() {
    return [{ type: "validation", kwargs: this.#options }];
  }
}

/** Pushes a chunk or event into an engine: the engine decides how an event object crosses. */
function pushInto(engine, input) {
  if (typeof input === "string") return engine.pushText(input);
  return engine.pushEvent(checkEvent(input));
}

export class OutputTransformerChain extends OutputTransformer {
  #transformers;
  #engine;
  #done = false;

  /** `options.onEvent`: the listener of `emit` / `emitFinish`. */
  constructor(transformers, options = {}, ...more) {
    noMoreArguments([transformers, options, ...more], 2, "OutputTransformerChain");
    super();
    const { onEvent = null } = knownFields(options, ["onEvent"], "INVALID_OPTION", "OutputTransformerChain options");
    if (onEvent !== null) this.onEvent = onEvent;
    const items = list(transformers, "INVALID_OPTION", "OutputTransformerChain's transformers");
    items.forEach((t, i) => {
      if (!isInstance(t, OutputTransformer)) {
        throw citeflowError("INVALID_OPTION", `transformers[${i}] is not an output transformer; got ${describe(t)}`);
      }
    });
    this.#transformers = items;
    const stages = stagesOf(items);
    // Transformers written in JS cannot run in the engine: then each runs on its own.
    this.#engine = stages === null ? null : new Engine(null, stages);
  }

  static fromConfigs(configs, options = {}, ...more) {
    noMoreArguments([configs, options, ...more], 2, "OutputTransformerChain.fromConfigs");
    return new OutputTransformerChain(
      list(configs, "INVALID_CONFIG", "fromConfigs' configs").map((c) => OutputTransformerConfig.fromConfig(c).build()),
      options,
    );
  }

  get transformers() {
    return [...this.#transformers];
  }

  fresh() {
    return new OutputTransformerChain(this.#transformers.map((t) => t.fresh()));
  }

  [STAGE]() {
    return stagesOf(this.#transformers);
  }

  #flow(from, events) {
    for (let i = from; i < this.#transformers.length; i++) {
      const next = [];
      for (const event of events) for (const out of this.#transformers[i].push(event)) next.push(out);
      events = next;
    }
    return events;
  }

  push(input) {
    if (this.#done) {
      throw citeflowError(
        "STREAM_FINISHED",
        "OutputTransformerChain has already finished; create a new transformer for a new stream",
      );
    }
    if (this.#engine === null) return this.#flow(0, [toEvent(input)]);
    return pushInto(this.#engine, input);
  }

  finish() {
    if (this.#done) {
      throw citeflowError(
        "STREAM_FINISHED",
        "OutputTransformerChain has already finished; create a new transformer for a new stream",
      );
    }
    this.#done = true;
    if (this.#engine !== null) return this.#engine.finish();
    const out = [];
    this.#transformers.forEach((t, i) => out.push(...this.#flow(i + 1, t.finish())));
    return out;
  }

  [RELEASE_STREAM]() {
    this.#done = true;
    if (this.#engine !== null) this.#engine.release();
    else for (const t of this.#transformers) t[RELEASE_STREAM]?.();
  }

  transform(output) {
    return this.#transformers.reduce((o, t) => t.transform(o), output);
  }
}

// The citation parser lives in citation_parser.js (which extends OutputTransformer from here) and
// registers how to build it, so that configs can name it without an import cycle.
let buildCitationParser = null;
export function registerCitationParser(build) {
  buildCitationParser = build;
}

/** A transformer described as data: `{type, kwargs}`. */
export class OutputTransformerConfig {
  constructor(type, kwargs = {}, ...more) {
    noMoreArguments([type, kwargs, ...more], 2, "OutputTransformerConfig");
    ready();
    const canonical = core.normalizeConfig({ type, kwargs });
    this.type = canonical.type;
    this.kwargs = canonical.kwargs;
    Object.freeze(this);
  }

  static identity(...more) {
    noMoreArguments(more, 0, "OutputTransformerConfig.identity");
    return new OutputTransformerConfig("identity");
  }

  static json(...more) {
    noMoreArguments(more, 0, "OutputTransformerConfig.json");
    return new OutputTransformerConfig("json");
  }

  static thinkTag(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "OutputTransformerConfig.thinkTag");
    return new OutputTransformerConfig("think_tag", options);
  }

  static eventFilter(eventTypes, ...more) {
    noMoreArguments([eventTypes, ...more], 1, "OutputTransformerConfig.eventFilter");
    return new OutputTransformerConfig("event_filter", { eventTypes });
  }

  static validation(options, ...more) {
    noMoreArguments([options, ...more], 1, "OutputTransformerConfig.validation");
    return new OutputTransformerConfig("validation", options);
  }

  static citations(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "OutputTransformerConfig.citations");
    return new OutputTransformerConfig("citations", options);
  }

  /** From a type name, a `{type, kwargs}` object, or a config. */
  static fromConfig(config, ...more) {
    noMoreArguments([config, ...more], 1, "OutputTransformerConfig.fromConfig");
    if (isInstance(config, OutputTransformerConfig)) return config;
    ready();
    const canonical = core.normalizeConfig(config);
    return new OutputTransformerConfig(canonical.type, canonical.kwargs);
  }

  build() {
    const k = this.kwargs;
    switch (this.type) {
      case "identity":
        return new IdentityOutputTransformer();
      case "json":
        return new JSONOutputTransformer();
      case "think_tag":
        return new ThinkTagOutputTransformer(k);
      case "event_filter":
        return new EventFilterOutputTransformer(k.eventTypes ?? k.event_types);
      case "validation":
        return new ValidationOutputTransformer(k);
      case "citations":
        if (buildCitationParser !== null) return buildCitationParser(k);
    }
    throw citeflowError("UNKNOWN_TRANSFORMER", `unknown output transformer type ${JSON.stringify(this.type)}`);
  }

  toJSON() {
    return { type: this.type, kwargs: this.kwargs };
  }
}
