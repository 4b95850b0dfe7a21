// The streaming citation parser: a stage of the core's engine, like the transformers.
import { ready } from "./stream_runtime.js";
import { RESPONSE } from "./events.js";
import {
  DEFER,
  HOLDS,
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

  constructor(options = {}) {
    ready();
    super("citations", options);
    this.#options = options;
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
      if (quiet === PLAIN && this.#takesShown && this.#deferred === 0 && this.#shown < SHOWN_LIMIT) {
        this.ensureLive();
        this.#shown += input.length;
      } else {
        this[DEFER](input);
        this.#deferred += input.length;
      }
      return [{ id: null, type: RESPONSE, value: input, valueType: "text" }];
    }
    return this.#send(input);
  }

  finish() {
    const out = this.#flush();
    this.#quiet = false;
    for (const e of super.finish()) out.push(e);
    return out;
  }

  #flush() {
    return this.#deferred === 0 && this.#shown === 0 ? [] : this.#send("");
  }

  /**
   * Feeds the core `text` after the text the fast path showed (in one step): the core releases
   * that shown text first and whole (it holds no trigger and held nothing back before it), and
   * it is not shown again. Afterwards the core's step says whether it holds anything back.
   */
  #send(text) {
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
