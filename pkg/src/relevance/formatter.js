// What every reference formatter shares: options, turning kept chunks into the result
// (a string or the chunks), and the reference events.
import * as core from "../../gen/citeflow.js";
import { citeflowError, describe, fields, isArray, list, noMoreArguments } from "../errors.js";
import { checkChunks } from "./chunks.js";
import { checkEmitter, emitReferences } from "./events.js";
import { callArgs, componentOptions, EVALUATE_ARGS, optionalFunction, requireText } from "./options.js";

/** What `evaluate` returned, checked: `[{chunk, score, kept}]` as plain snapshots. */
export function evaluations(value) {
  return list(value, "INVALID_OPTION", "the evaluated chunks").map((e, i) =>
    fields(e, "INVALID_OPTION", `evaluated chunk ${i}`)
  );
}

/** A formatter's JS-only options (its other ones, `stringify`, `streamable`, `formatChunkMetadataMap`, are the core's). */
export const FORMAT_FUNCTIONS = ["formatReferencesFunc", "formatChunkFunc"];

export class ReferenceFormatter {
  /** `settings`: the plain options as the core read them; `own`: the JS-only ones. */
  constructor(settings, own, owner) {
    this.stringify = settings.stringify;
    this.streamable = settings.streamable;
    this.formatReferencesFunc = optionalFunction(own.formatReferencesFunc, "formatReferencesFunc", owner);
    this.formatChunkFunc = optionalFunction(own.formatChunkFunc, "formatChunkFunc", owner);
    this.formatChunkMetadataMap = settings.formatChunkMetadataMap;
    this.owner = owner;
  }

  /** Subclasses: `[{chunk, score, kept}]` for the chunks, in input order. */
  async evaluate() {
    throw citeflowError("NOT_IMPLEMENTED", `${this.owner} does not evaluate chunks`);
  }

  /** The kept chunks in result order (subclasses may sort). */
  ordered(evaluated) {
    return evaluations(evaluated).filter((e) => e.kept).map((e) => e.chunk);
  }

  /** The reference list (a string, or the kept chunks when `stringify` is false). */
  async format(...args) {
    let { response, chunks, eventEmitter, signal } = callArgs(
      args,
      [...EVALUATE_ARGS, "eventEmitter"],
      `${this.owner}.format`,
    );
    requireText(response, "response", `${this.owner}.format`);
    if (!isArray(chunks)) {
      throw citeflowError("INVALID_CHUNK", `${this.owner}.format needs \`chunks\`, an array; got ${describe(chunks)}`);
    }
    chunks = list(chunks, "INVALID_CHUNK", `${this.owner}.format's chunks`);
    const emitter = checkEmitter(eventEmitter);
    const kept = chunks.length ? this.ordered(await this.evaluate({ response, chunks, signal })) : [];
    const result = this.stringify ? this.render(kept) : kept;
    if (this.streamable) await emitReferences(emitter, result);
    return result;
  }

  /** The seeds' name for `format`. */
  formatReference(...args) {
    return this.format(...args);
  }

  render(chunks) {
    const items = chunks.map((
      c,
    ) => (this.formatChunkFunc
      ? this.formatChunkFunc(c)
      : core.formatChunkAsString(c, this.formatChunkMetadataMap ?? undefined))
    );
    return this.formatReferencesFunc ? this.formatReferencesFunc(items) : core.formatReferencesAsString(items);
  }
}

/** Keeps every chunk, in order. */
export class NoOpReferenceFormatter extends ReferenceFormatter {
  constructor(options = {}, ...more) {
    const owner = new.target.name;
    noMoreArguments([options, ...more], 1, owner);
    const { settings, own } = componentOptions("NoOpReferenceFormatter", owner, options, FORMAT_FUNCTIONS);
    super(settings, own, owner);
  }

  async evaluate(...args) {
    const { response, chunks } = callArgs(args, EVALUATE_ARGS, `${this.owner}.evaluate`);
    requireText(response, "response", `${this.owner}.evaluate`);
    return checkChunks(chunks).map((chunk) => ({ chunk, score: null, kept: true }));
  }
}
