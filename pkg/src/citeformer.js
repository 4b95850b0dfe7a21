// The Citeformer orchestrator: ask a model for a cited answer over numbered sources, then
// parse the markers, render the references and verify the claims. Any object with
// `invoke(messages, options)` (and optionally `stream(...)`) is a model.
import * as core from "../gen/citeflow.js";
import { citationGrammar, deduplicateAdjacentCites, parseCitations } from "./citations.js";
import {
  citeflowError,
  describe,
  fields,
  isArray,
  isInstance,
  knownFields,
  list,
  noMoreArguments,
  prop,
} from "./errors.js";
import { renderReferences } from "./references.js";
import { cslItemOf } from "./relevance/chunks.js";
import { componentOptions } from "./relevance/options.js";
import { ready } from "./runtime.js";
import { iterableOf } from "./streams.js";
import { ThinkTagOutputTransformer } from "./transformers.js";

export const SCHEMA_VERSION = 3;

/** The sources as plain snapshots (each source and its metadata copied once, safely). */
export function checkSources(sources) {
  const items = isArray(sources) ? list(sources, "INVALID_SOURCE", "sources") : [];
  if (items.length === 0) {
    throw citeflowError(
      "NO_SOURCES",
      `\`sources\` must be a non-empty array of {content, metadata} sources; got ${describe(sources)}`,
    );
  }
  return items.map((s, i) => {
    const source = fields(s, "INVALID_SOURCE", `sources[${i}]`);
    const { metadata } = source;
    if (metadata !== null && typeof metadata === "object" && !isArray(metadata)) {
      source.metadata = fields(metadata, "INVALID_SOURCE", `sources[${i}].metadata`);
    }
    return source;
  });
}

const metadataOf = (s) => (s.metadata && typeof s.metadata === "object" ? s.metadata : s);

/** A provider's own citation (no marker in the text: Anthropic's, OpenAI's url_citation). */
const isNative = (c) => c !== null && typeof c === "object" && c.marker === "" && Array.isArray(c.span);

/** The answer text of a model output (a string or an LMOutput), reasoning removed. */
function answerOf(output) {
  if (typeof output === "string") output = { outputs: [{ type: "text", output }] };
  if (output === null || typeof output !== "object" || !Array.isArray(output.outputs)) {
    throw citeflowError(
      "INVALID_OUTPUT",
      `lmInvoker.invoke must return a string or an LMOutput {outputs}; got ${describe(output)}`,
    );
  }
  const split = new ThinkTagOutputTransformer().transform(output);
  const native = Array.isArray(output.citations) ? output.citations.filter(isNative) : [];
  return {
    text: split.outputs.filter((o) => o.type === "text").map((o) => o.output).join(""),
    usage: output.usage ?? null,
    native,
  };
}

export function lexicalJudge(premise, hypothesis, ...more) {
  noMoreArguments([premise, hypothesis, ...more], 2, "lexicalJudge");
  ready();
  return core.lexicalEntailment(premise, hypothesis);
}

export class GenerationResult {
  #markerStyle;

  constructor(args, ...more) {
    noMoreArguments([args, ...more], 1, "GenerationResult");
    const given = knownFields(
      args,
      ["text", "citations", "references", "sources", "usage", "markerStyle"],
      "INVALID_OPTION",
      "GenerationResult's fields",
    );
    for (const [key, value] of Object.entries(given)) {
      if (typeof value === "function") {
        throw citeflowError("INVALID_OPTION", `GenerationResult's \`${key}\` is data; got a function`);
      }
    }
    const { text, citations, references, sources, usage, markerStyle } = given;
    this.schemaVersion = SCHEMA_VERSION;
    this.text = text;
    this.citations = citations;
    this.references = references;
    this.sources = sources;
    this.usage = usage;
    this.#markerStyle = markerStyle;
  }

  /**
   * Existence (ids name sources), support (each cited source against the sentence citing it)
   * and coverage (each uncited sentence against each source), scored by `judge(premise,
   * hypothesis)` (sync or async, a number in [0, 1]; default the offline lexical judge).
   */
  async verify(args, ...more) {
    noMoreArguments([args, ...more], 1, "verify");
    // The core reads the threshold (a number from 0 to 1, 0.5 when absent) and refuses unknown
    // keys; the judge is a JS callback.
    const { settings: { threshold }, own: { judge = lexicalJudge } } = componentOptions(
      "verify",
      "verify",
      args,
      ["judge"],
    );
    if (typeof judge !== "function") {
      throw citeflowError(
        "INVALID_OPTION",
        `judge must be a function (premise, hypothesis) => score; got ${describe(judge)}`,
      );
    }
    // The core plans what to ask and aggregates the answers; only the judge's calls (async,
    // the caller's own code) happen here.
    const options = { markerStyle: this.#markerStyle, sourceCount: this.sources.length };
    ready(); // a GenerationResult can be built by hand, before anything else used the core
    const plan = core.verifyPlan(this.text, options);
    const score = async (premise, hypothesis) => {
      const s = await judge(premise, hypothesis);
      if (typeof s !== "number" || !(s >= 0 && s <= 1)) {
        throw citeflowError("INVALID_JUDGE_SCORE", `the judge must return a number in [0, 1]; got ${describe(s)}`);
      }
      return s;
    };
    const texts = core.sourceTexts(this.sources);
    const claimScores = [];
    for (const claim of plan.claims) {
      claimScores.push(claim.valid ? await score(texts[claim.sourceId - 1], claim.hypothesis) : 0);
    }
    const uncitedScores = [];
    for (const sentence of plan.uncited) {
      for (const text of texts) uncitedScores.push(await score(text, sentence.text));
    }
    return core.verifyReport(
      this.text,
      options,
      Float64Array.from(claimScores),
      Float64Array.from(uncitedScores),
      threshold,
    );
  }

  toJSON() {
    const { schemaVersion, text, citations, references, sources, usage } = this;
    return { schemaVersion, text, citations, references, sources, usage };
  }
}

/** Safe HTML: the answer with each marker a link to its reference entry, then the list. */
export function renderCitedHtml(result, options, ...more) {
  noMoreArguments([result, options, ...more], 2, "renderCitedHtml");
  ready();
  const what = "renderCitedHtml's result (a GenerationResult or {text, citations, references})";
  const { text, citations, references } = isInstance(result, GenerationResult)
    ? result
    : fields(result, "INVALID_OPTION", what);
  // The core checks both (types, and unknown keys of the options).
  return core.renderCitedHtml({ text, citations: citations ?? [], references: references ?? [] }, options);
}

/** `enforce` (a name the core has checked) against a built invoker's provider. */
function checkEnforce(enforce, lm) {
  const modelId = prop(lm, "modelId", "INVALID_OPTION", "lmInvoker");
  core.citationEnforcement(enforce, typeof modelId === "string" ? modelId : undefined);
  return enforce;
}

/**
 * The documented fallback of enforce "auto": a provider that refuses the mechanism picked for
 * it (an HTTP 400 to a schema or tool request: a model without structured outputs or tools)
 * is asked again with the prompt's rule alone. The options of that second call, or null.
 */
function promptFallback(options, lm, error) {
  const modelId = prop(lm, "modelId", "INVALID_OPTION", "lmInvoker");
  const code = error instanceof Error && typeof error.code === "string" ? error.code : undefined;
  const status = code !== undefined && typeof error.status === "number" ? error.status : undefined;
  const retry = core.citationFallback(options.enforce, typeof modelId === "string" ? modelId : undefined, code, status);
  if (retry === undefined) return null;
  const { grammar: _, ...rest } = options;
  return { ...rest, enforce: retry };
}

export class Citeformer {
  #lm;
  #style;
  #policy;
  #markerStyle;
  #toCslItem;
  #deduplicate;
  #enforce;

  constructor(args, ...more) {
    noMoreArguments([args, ...more], 1, "Citeformer");
    // The core checks the plain options (and refuses unknown keys, and a function anywhere in
    // them); the JS-only ones are here.
    const {
      lmInvoker,
      toCslItem = (source) => cslItemOf(metadataOf(source)),
      ...plain
    } = fields(args, "INVALID_OPTION", "Citeformer options");
    if (typeof toCslItem !== "function") {
      throw citeflowError(
        "INVALID_OPTION",
        `toCslItem must be a function (source, index) => CSL-JSON item; got ${describe(toCslItem)}`,
      );
    }
    ready();
    const { style, citationPolicy, markerStyle, deduplicateCites, enforce } = core.citeformerOptions(plain);
    if (
      lmInvoker === null || typeof lmInvoker !== "object" ||
      typeof prop(lmInvoker, "invoke", "INVALID_OPTION", "lmInvoker") !== "function"
    ) {
      throw citeflowError(
        "INVALID_OPTION",
        `Citeformer needs an lmInvoker: an object with invoke(messages, options); got ${describe(lmInvoker)}`,
      );
    }
    // A mechanism the model's provider has not, fails here (the model id of a
    // built invoker says its provider; any other invoker is told the option and decides).
    this.#enforce = checkEnforce(enforce, lmInvoker);
    this.#lm = lmInvoker;
    this.#style = style;
    this.#policy = citationPolicy;
    this.#markerStyle = markerStyle;
    this.#toCslItem = toCslItem;
    this.#deduplicate = deduplicateCites;
  }

  /** The citation style references are rendered in (a bundled name or CSL XML). */
  get style() {
    return this.#style;
  }

  /** The default citation policy of calls. */
  get policy() {
    return this.#policy;
  }

  /** The default marker style of calls. */
  get markerStyle() {
    return this.#markerStyle;
  }

  /** How calls enforce their citations: auto, grammar, schema, tool or prompt. */
  get enforce() {
    return this.#enforce;
  }

  /** What the model is sent: messages with the numbered sources, and the grammar of the policy. */
  request(args, ...more) {
    noMoreArguments([args, ...more], 1, "Citeformer.request");
    const { messages, options } = this.#plan(args);
    return { messages, options };
  }

  #plan(args) {
    const what = "Citeformer's {prompt, sources, policy, markerStyle, enforce, modelOptions}";
    const { prompt, sources: given, modelOptions, ...plain } = fields(args, "INVALID_OPTION", what);
    if (typeof prompt !== "string") {
      throw citeflowError("INVALID_TEXT", `prompt must be a string; got ${describe(prompt)}`);
    }
    // The core checks the plain options and refuses unknown keys (prompt, sources and
    // modelOptions, the model's own and possibly holding an AbortSignal, are read here).
    const asked = core.citeformerCallOptions(plain);
    const policy = asked.policy ?? this.#policy;
    const markerStyle = asked.markerStyle ?? this.#markerStyle;
    const enforce = asked.enforce === null ? this.#enforce : checkEnforce(asked.enforce, this.#lm);
    const sources = checkSources(given);
    // The grammar for invokers that take one (the prompt alone: none).
    const grammar = enforce === "prompt"
      ? undefined
      : citationGrammar({ policy, markerStyle, sourceCount: sources.length });
    // The model's own options (temperature, maxTokens, signal, …) go to its invoke/stream as
    // given, checked there; a grammar given there replaces the policy's.
    const own = modelOptions === undefined ? {} : { ...fields(modelOptions, "INVALID_OPTION", "modelOptions") };
    return {
      messages: [{ role: "system", content: core.citeformerInstructions(sources, { policy, markerStyle }) }, {
        role: "user",
        content: prompt,
      }],
      options: {
        ...(grammar === undefined ? {} : { grammar }),
        policy,
        markerStyle,
        sourceCount: sources.length,
        enforce,
        ...own,
      },
      sources,
      markerStyle,
    };
  }

  async generate(args, ...more) {
    noMoreArguments([args, ...more], 1, "Citeformer.generate");
    const { messages, options, sources, markerStyle } = this.#plan(args);
    let output;
    try {
      output = await this.#lm.invoke(messages, options);
    } catch (error) {
      const retry = promptFallback(options, this.#lm, error);
      if (retry === null) throw error;
      output = await this.#lm.invoke(messages, retry);
    }
    const { text, usage, native } = answerOf(output);
    return this.#result(text, sources, usage, markerStyle, native);
  }

  stream(args, ...more) {
    noMoreArguments([args, ...more], 1, "Citeformer.stream");
    const { messages, options, sources, markerStyle } = this.#plan(args);
    return new StreamingResult(
      this,
      this.#lm,
      messages,
      options,
      sources,
      (text, usage, native) => this.#result(text, sources, usage, markerStyle, native),
    );
  }

  /** Builds the result for an answer text (used by generate and stream). */
  result(text, sources, usage = null, ...more) {
    noMoreArguments([text, sources, usage, ...more], 3, "Citeformer.result");
    return this.#result(text, sources, usage, this.#markerStyle, []);
  }

  async #result(text, sources, usage, markerStyle, native) {
    if (typeof text !== "string") {
      throw citeflowError("INVALID_TEXT", `result() needs the answer text; got ${describe(text)}`);
    }
    sources = checkSources(sources);
    // A grammar lets a small model fill a sentence's cite group by cycling ids ("[2] [2] [1]
    // [2]"): each run keeps each id once, so the text and verify count each claim once.
    if (this.#deduplicate) text = deduplicateAdjacentCites(text, { markerStyle });
    // The markers in the text, and the provider's own citations (no marker: their span is
    // the cited text), in the order of the text.
    const citations = [...parseCitations(text, { markerStyle, sourceCount: sources.length }), ...native].sort((a, b) =>
      a.span[0] - b.span[0]
    );
    // Each source's metadata as a CSL item: CSL-JSON as it is, retrieval metadata mapped
    // (file_name, file_url, …), or the caller's own mapping. A web page a provider cited
    // (`url`, or `rawUrl` when it is no http(s) URL) is not one of the sources.
    const items = () => sources.map((s, i) => ({ content: s.content, metadata: this.#toCslItem(s, i) }));
    const listed = citations.filter((c) => c.url === undefined && c.rawUrl === undefined);
    const references = listed.some((c) => c.valid)
      ? await renderReferences(items(), listed, { style: this.#style })
      : [];
    return new GenerationResult({ text, citations, references, sources, usage, markerStyle });
  }
}

/** Async-iterable over the answer's text chunks; `finalize()` gives the GenerationResult. */
export class StreamingResult {
  #result;
  #citeformerStyle;
  #sources;
  #pump;
  #text = "";
  #usage = null;
  #native = [];
  #final = null;

  constructor(citeformer, lm, messages, options, sources, result) {
    if (!isInstance(citeformer, Citeformer) || typeof result !== "function") {
      throw citeflowError(
        "INVALID_OPTION",
        "a StreamingResult comes from Citeformer.stream(); it is not constructed directly",
      );
    }
    this.#result = result;
    this.#citeformerStyle = citeformer.style;
    this.#sources = sources;
    this.#pump = this.#chunks(lm, messages, options);
  }

  /** The answer text received so far. */
  get text() {
    return this.#text;
  }

  /** The sources the answer cites (as checked for this call). */
  get sources() {
    return this.#sources;
  }

  /** The citation style of the references. */
  get style() {
    return this.#citeformerStyle;
  }

  [Symbol.asyncIterator]() {
    return this.#pump;
  }

  async *#chunks(lm, messages, options) {
    if (typeof lm.stream !== "function") {
      const { text, usage, native } = answerOf(await lm.invoke(messages, options));
      this.#text = text;
      this.#usage = usage;
      this.#native = native;
      if (text) yield text;
      return;
    }
    const think = new ThinkTagOutputTransformer();
    const take = (events) => {
      let out = "";
      for (const e of events) {
        if (e.type === "response" && typeof e.value === "string") out += e.value;
        else if (e.type === "citation" && isNative(e.value)) this.#native.push(e.value);
      }
      this.#text += out;
      return out;
    };
    const open = (opts) => iterableOf(lm.stream(messages, opts))[Symbol.asyncIterator]();
    let source = open(options);
    let next;
    try {
      next = await source.next();
    } catch (error) {
      // Nothing was answered yet: enforce "auto"'s fallback to the prompt rule may apply.
      const retry = promptFallback(options, lm, error);
      if (retry === null) throw error;
      source = open(retry);
      next = await source.next();
    }
    try {
      for (; !next.done; next = await source.next()) {
        const item = next.value;
        // Token usage: a `usage` event from citeflow's invokers, or `{usage}` from one of your own.
        if (item !== null && typeof item === "object" && item.type === "usage") {
          this.#usage = item.value ?? null;
          continue;
        }
        if (item !== null && typeof item === "object" && item.usage && !item.type) {
          this.#usage = item.usage;
          continue;
        }
        const chunk = take(think.push(item));
        if (chunk) yield chunk;
      }
    } finally {
      if (!next?.done) await source.return?.();
    }
    const rest = take(think.finish());
    if (rest) yield rest;
  }

  /** Reads the rest of the stream if needed; every call gives the same result. */
  finalize() {
    if (this.#final === null) {
      this.#final = (async () => {
        for await (const _ of this.#pump);
        return this.#result(this.#text, this.#usage, this.#native);
      })();
    }
    return this.#final;
  }
}
