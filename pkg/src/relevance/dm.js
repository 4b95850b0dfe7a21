// Decision-model relevance: per batch one call with one `noul` question per chunk; a chunk is
// kept when its probability is ≥ threshold. At most maxConcurrency HTTP requests in flight, for
// all batches together: one per batch for a System One model (or one per call of a model of
// your own), one per question for a decision model built on a language model.
import { noMoreArguments } from "../errors.js";
import * as core from "../../gen/citeflow.js";
import { Gate } from "../gate.js";
import { buildDMInvoker, decideWithin } from "../invoker.js";
import { batchesOf } from "./batches.js";
import { chunkTexts, contextConfig } from "./chunks.js";
import { RelevanceFilter } from "./filter.js";
import { FORMAT_FUNCTIONS, ReferenceFormatter } from "./formatter.js";
import {
  callArgs,
  componentOptions,
  EVALUATE_ARGS,
  FILTER_ARGS,
  fromModel,
  invoker,
  modelIdAndRest,
  requireText,
} from "./options.js";

const JS_ONLY = ["contextConfig"];

function setUp(target, dmInvoker, { settings, own }, owner) {
  target.dmInvoker = invoker(dmInvoker, "invoke", "a decision-model invoker", owner);
  target.threshold = settings.threshold;
  target.batchSize = settings.batchSize;
  target.maxConcurrency = settings.maxConcurrency;
  target.contextConfig = contextConfig(own.contextConfig);
  target.relevanceQuestion = settings.relevanceQuestion;
}

async function evaluate(component, formatter, text, chunks, signal) {
  const texts = chunkTexts(chunks, component.contextConfig);
  // One gate for the whole call: every batch's requests wait their turn at it.
  const gate = new Gate(component.maxConcurrency);
  const scored = await Promise.all(
    batchesOf(texts, component.batchSize).map(async ([batch, start]) => {
      const { state, questions, names } = core.decisionBatch(
        formatter,
        text,
        batch,
        start,
        component.relevanceQuestion ?? undefined,
      );
      const out = await decideWithin(gate, component.dmInvoker, { state, questions }, { signal });
      return Array.from(core.decisionScores(out.answers, names));
    }),
  );
  return scored.flat().map((score, i) => ({ chunk: chunks[i], score, kept: score >= component.threshold }));
}

function fromConfig(Component, args) {
  return fromModel(Component, buildDMInvoker, ...modelIdAndRest(args, `${Component.name}.fromConfig`));
}

/** Keeps the chunks a decision model finds relevant to the query, in input order. */
export class DMRelevanceFilter extends RelevanceFilter {
  constructor(dmInvoker, options = {}, ...more) {
    super();
    const owner = new.target.name;
    noMoreArguments([dmInvoker, options, ...more], 2, owner);
    setUp(this, dmInvoker, componentOptions("DMRelevanceFilter", owner, options, JS_ONLY), owner);
  }

  /** `fromConfig({modelId: "openrouter/typesafe/jev-1.13", apiKey, threshold: 0.6})`. */
  static fromConfig(...args) {
    return fromConfig(this, args);
  }

  /** `[{chunk, score, kept}]` in input order; `score` is the `noul` probability. */
  async evaluate(...args) {
    const { chunks, query, signal } = callArgs(args, FILTER_ARGS, `${this.constructor.name}.evaluate`);
    return evaluate(this, false, requireText(query, "query", "filter"), chunks, signal);
  }
}

/** Keeps the chunks a decision model finds the answer relies on, in input order. */
export class DMReferenceFormatter extends ReferenceFormatter {
  constructor(dmInvoker, options = {}, ...more) {
    const owner = new.target.name;
    noMoreArguments([dmInvoker, options, ...more], 2, owner);
    const read = componentOptions("DMReferenceFormatter", owner, options, [...FORMAT_FUNCTIONS, ...JS_ONLY]);
    super(read.settings, read.own, owner);
    setUp(this, dmInvoker, read, owner);
  }

  static fromConfig(...args) {
    return fromConfig(this, args);
  }

  async evaluate(...args) {
    const { response, chunks, signal } = callArgs(args, EVALUATE_ARGS, `${this.owner}.evaluate`);
    return evaluate(this, true, requireText(response, "response", "format"), chunks, signal);
  }
}
