// Citation markers: whole-text functions and the streaming CitationParser.
import * as core from "../gen/citeflow.js";
import { citeflowError, describe } from "./errors.js";
import { checkEvent, eventType, RESPONSE } from "./events.js";
import { ready } from "./runtime.js";
import { OutputTransformer } from "./transformers.js";

export function parseCitations(text, options) {
  ready();
  return core.parseCitations(text, options);
}

export function deduplicateAdjacentCites(text, options) {
  ready();
  return core.deduplicateAdjacentCites(text, options);
}

export function checkPolicy(text, options) {
  ready();
  return core.checkPolicy(text, options);
}

export function citationGrammar(options) {
  ready();
  return core.citationGrammar(options);
}

export function splitSentences(text) {
  ready();
  return core.splitSentences(text);
}

/** Finds markers in the answer as it streams; emits a `citation` event as each completes. */
export class CitationParser extends OutputTransformer {
  #options;
  #core;
  #unreleased = "";
  #template = null;
  #done = false;

  constructor(options = {}) {
    super();
    ready();
    this.#core = new core.CitationParserCore(options);
    this.#options = options;
  }

  fresh() {
    return new CitationParser(this.#options);
  }

  push(input) {
    let chunk = input;
    if (typeof input === "string") {
      this.#template = null;
    } else {
      const event = checkEvent(input);
      const type = eventType(event);
      if (type !== RESPONSE) {
        if (this.#done) this.#core.ensureOpen();
        if (type !== "response_end") return [event];
        // The block ends: show the held text now; its markers are still decided later.
        const out = this.#emit(this.#core.flush());
        out.push(event);
        return out;
      }
      chunk = event.value;
      if (typeof chunk !== "string") {
        throw citeflowError("INVALID_EVENT", `a \`response\` event needs a string value; got ${describe(chunk)}`);
      }
      this.#template = event;
    }
    if (this.#done) this.#core.ensureOpen();
    const packed = this.#core.pushText(chunk);
    this.#unreleased = this.#unreleased === "" ? chunk : this.#unreleased + chunk;
    return this.#emit(packed);
  }

  finish() {
    const packed = this.#core.finish();
    this.#done = true;
    return this.#emit(packed);
  }

  transform(output) {
    return this.#core.transform(output);
  }

  // `packed` is (UTF-16 units released) * 2 + (1 when citations wait in the core).
  #emit(packed) {
    const hasCitations = packed % 2 === 1;
    const n = (packed - (hasCitations ? 1 : 0)) / 2;
    const out = [];
    if (n > 0) {
      const all = n === this.#unreleased.length;
      const value = all ? this.#unreleased : this.#unreleased.slice(0, n);
      this.#unreleased = all ? "" : this.#unreleased.slice(n);
      out.push(this.#template === null ? { id: null, type: RESPONSE, value, valueType: "text" } : { ...this.#template, value });
    }
    if (hasCitations) {
      for (const value of this.#core.takeCitations()) out.push({ id: null, type: "citation", value, valueType: "json" });
    }
    return out;
  }
}
