// The streaming citation parser: a stage of the core's engine, like the transformers.
import { ready } from "./stream_runtime.js";
import { RESPONSE } from "./events.js";
import {
  DEFER,
  HOLDS,
  IS_TRIGGER,
  NOT_QUIET,
  PLAIN,
  PUSH_AFTER_DEFERRED,
  registerCitationParser,
  STAGE,
  StageTransformer,
  TAKES_SHOWN,
} from "./transformers.js";

// Text shown by the fast path waits for the core at most this long (UTF-16 units).
const DEFER_LIMIT = 4096;
// Text the core moves past by its length goes with a step before it counts this many bytes
// (the count crosses as a wasm32 usize).
const SHOWN_LIMIT = 2 ** 30;
// A marker's start held here: an opener and at most this many digits.
const HELD_DIGITS = 9;
const CLOSER = 0x5d; // ]

/**
 * Whether `chunk` from `at` (an opener) to its end is what the core holds back in normal text
 * with nothing undecided: the opener alone, or with ASCII digits, or with digits and the closer
 * (a marker waiting for the next character, which may make it a link or a reference
 * definition). src/cite/marker.rs (`read_enclosed`) reads these as undecided.
 */
function isMarkerStart(chunk, at) {
  const n = chunk.length;
  let i = at + 1;
  while (i < n && i - at <= HELD_DIGITS) {
    const c = chunk.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    i++;
  }
  const digits = i - at - 1;
  return i === n || (digits > 0 && i === n - 1 && chunk.charCodeAt(i) === CLOSER);
}

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
  // Whether a marker's start at the end of a chunk waits in the core's input (written after
  // the deferred text, not shown) instead of in the core (#holdStart), and whether this
  // stage's opener is `[` (the only one held so).
  #held = false;
  #brackets;

  constructor(options = {}) {
    ready();
    super("citations", options);
    this.#options = options;
    this.#brackets = this[IS_TRIGGER]("[");
  }

  push(input) {
    if (typeof input !== "string") {
      const out = this.#flush();
      this.#objects = true;
      this.#quiet = false;
      for (const e of super.push(input)) out.push(e);
      return out;
    }
    let quiet;
    if (this.#quiet && this.#deferred < DEFER_LIMIT && (quiet = this.quietKind(input)) !== NOT_QUIET) {
      this.#show(input, quiet);
      return [{ id: null, type: RESPONSE, value: input, valueType: "text" }];
    }
    if (this.#takesShown && this.#brackets && this.#deferred < DEFER_LIMIT) {
      const out = this.#holdStart(input);
      if (out !== null) return out;
    }
    return this.#send(input);
  }

  /**
   * A chunk whose only trigger is a marker's start at its end (`word [`, ` [12`, ` [3]`), while
   * the core's latest step said it can move past shown text (then its scanner is in normal
   * text, nothing undecided: it would hold that start back, and release the text before it):
   * the text before it is shown as a quiet chunk is, and the start is written into the core's
   * input without a step, to go to the core with the next chunk. Saves the step such a chunk
   * cost (the next chunk makes one in any case: the core would hold the start). Null where the
   * chunk is not such a chunk.
   */
  #holdStart(input) {
    const at = input.lastIndexOf("[");
    if (at === -1 || !isMarkerStart(input, at)) return null;
    if (at === 0) {
      this[DEFER](input);
      this.#holding();
      return [];
    }
    const head = input.slice(0, at);
    const kind = this.quietKind(head);
    if (kind === NOT_QUIET) return null;
    this.#show(head, kind);
    // After the deferred text, which the core's step leaves out of its events; the held start
    // is not left out (it was not shown).
    this[DEFER](input.slice(at));
    this.#holding();
    return [{ id: null, type: RESPONSE, value: head, valueType: "text" }];
  }

  /**
   * Shows quiet text without the core: counted, where the core can move past it by its length
   * (`kind` PLAIN, nothing deferred before it), else written into its input (deferred).
   */
  #show(text, kind) {
    if (kind === PLAIN && this.#takesShown && this.#deferred === 0 && this.#shown < SHOWN_LIMIT) {
      this.ensureLive();
      this.#shown += text.length;
    } else {
      this[DEFER](text);
      this.#deferred += text.length;
    }
  }

  /** A marker's start waits in the core's input: until it goes, every chunk goes with it. */
  #holding() {
    this.#quiet = false;
    this.#takesShown = false;
    this.#held = true;
  }

  finish() {
    const out = this.#flush();
    this.#quiet = false;
    for (const e of super.finish()) out.push(e);
    return out;
  }

  #flush() {
    return this.#deferred === 0 && this.#shown === 0 && !this.#held ? [] : this.#send("");
  }

  /**
   * Feeds the core `text` after the text the fast path showed (in one step): the core releases
   * that shown text first and whole (it holds no trigger and held nothing back before it), and
   * it is not shown again. Afterwards the core's step says whether it holds anything back.
   */
  #send(text) {
    this.#held = false;
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
