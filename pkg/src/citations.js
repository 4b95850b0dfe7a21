// Citation markers: whole-text functions and the streaming CitationParser.
import * as core from "../gen/citeflow.js";
import { citeflowError, describe } from "./errors.js";
import { checkEvent, eventType, eventValue, RESPONSE } from "./events.js";
import { memory, ready } from "./runtime.js";
import { OutputTransformer, registerCitationParser, STAGE } from "./transformers.js";

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

// Plain text waiting to be fed to the core is sent at the latest once it reaches this size.
const DEFER_LIMIT = 4096;
// Below this length a character loop finds trigger characters faster than a regular expression.
const SHORT_CHUNK = 32;
// From this length on, TextEncoder.encodeInto beats wasm-bindgen's per-character copy.
const ENCODE_INTO_MIN = 128;

/**
 * Finds markers in the answer as it streams; emits a `citation` event as each completes.
 *
 * Crossing into wasm per token is the cost to beat, so a chunk that cannot change any decision
 * (no trigger character, nothing undecided) is shown at once and only queued for the core,
 * which sees it with the next chunk that matters: the same text in other pieces, which by
 * construction gives the same citations.
 */
export class CitationParser extends OutputTransformer {
  #options;
  #core;
  #triggerTable;
  #triggerPattern;
  #unreleased = ""; // fed to the core, not yet shown: the undecided tail
  #deferred = ""; // shown, not yet fed to the core
  #fed16 = 0; // UTF-16 units fed to the core so far
  #pending = false;
  #template = null;
  #done = false;
  #u32 = null;

  constructor(options = {}) {
    super();
    ready();
    this.#core = new core.CitationParserCore(options);
    const triggers = core.citationTriggers(options);
    this.#triggerTable = new Uint8Array(128);
    for (const t of triggers) this.#triggerTable[t.charCodeAt(0)] = 1;
    this.#triggerPattern = new RegExp(`[${triggers.replace(/[\\\]^-]/g, "\\$&")}]`);
    this.#options = options;
  }

  fresh() {
    return new CitationParser(this.#options);
  }

  [STAGE]() {
    return [{ type: "citations", kwargs: this.#options }];
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
        const out = this.#emit(this.#core.flush(), "", 0);
        out.push(event);
        return out;
      }
      chunk = eventValue(event);
      if (typeof chunk !== "string") {
        throw citeflowError("INVALID_EVENT", `a \`response\` event needs a string value; got ${describe(chunk)}`);
      }
      this.#template = event;
    }
    if (this.#done) this.#core.ensureOpen();
    if (chunk.length === 0) return [];
    if (!this.#pending && this.#deferred.length < DEFER_LIMIT && !this.#hasTrigger(chunk)) {
      this.#deferred += chunk;
      return [this.#textEvent(chunk)];
    }
    return this.#send(chunk);
  }

  finish() {
    const out = this.#deferred === "" ? [] : this.#send("");
    const window = this.#unreleased;
    const packed = this.#core.finish();
    this.#done = true;
    out.push(...this.#emit(packed, window, this.#fed16 - window.length));
    return out;
  }

  transform(output) {
    return this.#core.transform(output);
  }

  #hasTrigger(chunk) {
    if (chunk.length >= SHORT_CHUNK) return this.#triggerPattern.test(chunk);
    const table = this.#triggerTable;
    for (let i = 0; i < chunk.length; i++) {
      const c = chunk.charCodeAt(i);
      if (c < 128 && table[c] === 1) return true;
    }
    return false;
  }

  #send(chunk) {
    const shown = this.#deferred.length;
    const text = shown === 0 ? chunk : this.#deferred + chunk;
    this.#deferred = "";
    const window = this.#unreleased === "" ? text : this.#unreleased + text;
    const base = this.#fed16 - this.#unreleased.length;
    const packed = this.#core.pushText(text);
    this.#fed16 += text.length;
    this.#unreleased = window;
    // The deferred part was shown already: it leaves the window without a second event.
    return this.#emit(packed, window, base, shown);
  }

  // `packed` = released16 * 4 + pending * 2 + citationsWaiting; `window` is the text the
  // core's offsets can fall in, starting at absolute offset `base`.
  #emit(packed, window, base, alreadyShown = 0) {
    const flags = packed % 4;
    const released = (packed - flags) / 4;
    this.#pending = (flags & 2) !== 0;
    const out = [];
    if (released > 0) {
      const all = released === this.#unreleased.length;
      const text = all ? this.#unreleased : this.#unreleased.slice(0, released);
      this.#unreleased = all ? "" : this.#unreleased.slice(released);
      const fresh = alreadyShown === 0 ? text : text.slice(alreadyShown);
      if (fresh !== "") out.push(this.#textEvent(fresh));
    }
    if (flags & 1) this.#citations(window, base, out);
    return out;
  }

  #textEvent(value) {
    return this.#template === null ? { id: null, type: RESPONSE, value, valueType: "text" } : { ...this.#template, value };
  }

  #citations(window, base, out) {
    const ptr = this.#core.citationWords();
    const buffer = memory().buffer;
    if (this.#u32 === null || this.#u32.buffer !== buffer) this.#u32 = new Uint32Array(buffer);
    const w = this.#u32;
    const at = ptr >>> 2;
    for (let i = 0; i < w[at]; i++) {
      const k = at + 1 + i * 4;
      const start = w[k + 1];
      const end = w[k + 2];
      const marker = start >= base && end - base <= window.length ? window.slice(start - base, end - base) : this.#core.marker(i);
      const value = { sourceId: w[k], marker, span: [start, end], valid: w[k + 3] === 1 };
      out.push({ id: null, type: "citation", value, valueType: "json" });
    }
  }
}

registerCitationParser((options) => new CitationParser(options));
