// The streaming citation parser: a stage of the core's engine, like the transformers.
import { noMoreArguments } from "./errors.js";
import { ready } from "./stream_runtime.js";
import { responseText } from "./events.js";
import { markerAt, NOT_SIMPLE, OPENER, simpleCitation, UNDECIDED } from "./simple_markers.js";
import {
  ASCII_TRIGGERS,
  CONFIG,
  DEFER,
  ENSURE_IDLE,
  HOLDS,
  NOT_QUIET,
  PLAIN,
  PUSH_AFTER_DEFERRED,
  registerCitationParser,
  SPACES,
  splitListener,
  STAGE,
  StageTransformer,
  TAKES_SHOWN,
} from "./transformers.js";

// Text shown by the fast path waits for the core at most this long (UTF-16 units).
const DEFER_LIMIT = 4096;
// Text the core moves past by its length goes with a step before it counts this many bytes
// (the count crosses as a wasm32 usize).
const SHOWN_LIMIT = 2 ** 30;

/**
 * Finds markers in the answer as it streams; emits a `citation` event as each completes.
 * Answer text passes through, except a possible marker prefix, held until it is decided.
 */
export class CitationParser extends StageTransformer {
  #options;
  // Fast path (see StageTransformer): whether a quiet chunk may be answered here (the core
  // holds nothing back after its latest step, and no event object was pushed: then the fast
  // path stays off), and how much text was shown that the core has not stepped over yet
  // (written into its input, it goes with the next push). Where the core's latest step said
  // it can (#takesShown), shown text is only counted (#shown bytes, before any deferred text):
  // the core moves past it by its length, without a copy.
  #quiet = true;
  #objects = false;
  #deferred = 0;
  #takesShown = false;
  #shown = 0;
  // While the core takes shown text, in a stage whose opener is `[` (#triggers, else null):
  // simple markers (`[3]`) the fast path decides itself (simple_markers.js), and a
  // marker's start at the end of a chunk, held here (not shown) until the next chunk decides
  // it (#start), with its offset in the answer; UTF-16 units of answer text pushed so far
  // (#seen: the offset of the next chunk; the core's spans count the same units); the stage's
  // source count as the core read it (null: none).
  #triggers;
  #start = "";
  #startAt = 0;
  #seen = 0;
  #sourceCount;

  /** `options.onEvent`: the listener of `emit` / `emitFinish`; the core reads the rest. */
  constructor(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "CitationParser");
    ready();
    const [onEvent, own] = splitListener(options, "CitationParser");
    super("citations", own);
    if (onEvent !== null) this.onEvent = onEvent;
    this.#options = own;
    const triggers = this[ASCII_TRIGGERS]();
    this.#triggers = triggers !== null && triggers[OPENER] === 1 ? triggers : null;
    this.#sourceCount = this[CONFIG].kwargs.sourceCount ?? null;
  }

  push(input) {
    // Before any field changes: an event's getter that pushes into this parser is refused.
    this[ENSURE_IDLE]();
    if (typeof input !== "string") {
      const out = this.#flush();
      this.#objects = true;
      this.#quiet = false;
      for (const e of super.push(input)) out.push(e);
      return out;
    }
    const offset = this.#seen;
    this.#seen = offset + input.length;
    if (this.#quiet && this.#deferred < DEFER_LIMIT) {
      let quiet;
      if (this.#start === "" && (quiet = this.quietKind(input)) !== NOT_QUIET) {
        this.#show(input, quiet);
        return [responseText(input)];
      }
      if (this.#takesShown && this.#triggers !== null && input.length !== 0) {
        const out = this.#read(input, offset);
        if (out !== null) return out;
      }
    }
    return this.#send(input);
  }

  /**
   * A chunk (after the held start, if any) read here, while the core's latest step said it
   * takes shown text: quiet text, simple markers the character after them decides, and perhaps
   * a marker's start at its end, held for the next chunk. Shown text and decided markers are
   * counted (the core's scanner is in the same state after a decided marker as after plain
   * text of its length: `MarkerScanner::pass_plain`); the text after the last marker may be
   * deferred. Null, changing nothing, for a chunk the core must read (any other trigger, a
   * marker that is not simple, one after text that cannot be counted, half a surrogate pair at
   * the end): then the held start goes to the core before it.
   */
  #read(input, offset) {
    const start = this.#start;
    const text = start === "" ? input : start + input;
    const base = start === "" ? offset : this.#startAt;
    const triggers = this.#triggers;
    const n = text.length;
    // Decided markers' [start, end) pairs; where the text after the last one starts; where a
    // held start begins (n: none).
    let marks = null;
    let after = 0;
    let held = n;
    for (let i = 0; i < n;) {
      let wide = false;
      let j = i;
      for (; j < n; j++) {
        const c = text.charCodeAt(j);
        if (c >= 128) wide = true;
        else if (triggers[c] !== 0) break;
      }
      if (j === n) break;
      if (text.charCodeAt(j) !== OPENER) return null;
      const end = markerAt(text, j);
      if (end === UNDECIDED) {
        held = j;
        break;
      }
      // A marker is counted as shown: so is all before it, which must be ASCII.
      if (end === NOT_SIMPLE || wide) return null;
      (marks ??= []).push(j, end);
      i = after = end;
    }
    if (marks !== null && (this.#deferred !== 0 || this.#shown + after >= SHOWN_LIMIT)) return null;
    // The text after the last marker holds no trigger; it may end in half a surrogate pair.
    const tail = text.slice(after, held);
    const kind = tail === "" ? PLAIN : this.quietKind(tail);
    if (kind === NOT_QUIET) return null;
    this.ensureLive();
    this.#shown += after;
    if (tail !== "") this.#show(tail, kind);
    if (held !== n) {
      this.#start = text.slice(held);
      this.#startAt = base + held;
    } else {
      this.#start = "";
    }
    const out = held === 0 ? [] : [responseText(held === n ? text : text.slice(0, held))];
    if (marks !== null) {
      for (let k = 0; k < marks.length; k += 2) {
        out.push(simpleCitation(text, marks[k], marks[k + 1], base + marks[k], this.#sourceCount));
      }
    }
    return out;
  }

  /**
   * Shows quiet text without the core: counted, where the core can move past it by its length
   * (`kind` PLAIN, or SPACES after counted text: the counted run is then not only spaces;
   * nothing deferred before it), else written into its input (deferred).
   */
  #show(text, kind) {
    if (
      (kind === PLAIN || (kind === SPACES && this.#shown !== 0)) && this.#takesShown && this.#deferred === 0 &&
      this.#shown < SHOWN_LIMIT
    ) {
      this.ensureLive();
      this.#shown += text.length;
    } else {
      this[DEFER](text);
      this.#deferred += text.length;
    }
  }

  finish() {
    this[ENSURE_IDLE]();
    const out = this.#flush();
    this.#quiet = false;
    for (const e of super.finish()) out.push(e);
    return out;
  }

  #flush() {
    return this.#deferred === 0 && this.#shown === 0 && this.#start === "" ? [] : this.#send("");
  }

  /**
   * Feeds the core `text` after the text the fast path showed (in one step): the core releases
   * that shown text first and whole (it holds no trigger but the simple markers the fast path
   * decided and made citations of, which the core moves past by their length, and held nothing
   * back before it), and it is not shown again; then a held start, then `text`. Afterwards the
   * core's step says whether it holds anything back.
   */
  #send(text) {
    if (this.#start !== "") {
      // After the deferred text, which the core's step leaves out of its events; the held
      // start is not left out (it was not shown).
      this[DEFER](this.#start);
      this.#start = "";
    }
    const out = this[PUSH_AFTER_DEFERRED](text, this.#deferred, this.#shown);
    this.#deferred = 0;
    this.#shown = 0;
    this.#quiet = !this.#objects && !this[HOLDS]();
    this.#takesShown = this.#quiet && this[TAKES_SHOWN]();
    return out;
  }

  fresh() {
    return new CitationParser(this.#options);
  }

  [STAGE]() {
    return [{ type: "citations", kwargs: this.#options }];
  }
}

registerCitationParser((options) => new CitationParser(options));
