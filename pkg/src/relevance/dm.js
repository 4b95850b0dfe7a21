// Decision-model relevance: per batch one call with one `noul` question per chunk; a chunk is
// kept when its probability is ≥ threshold. At most maxConcurrency calls in flight.
import { fields } from "../errors.js";
import * as core from "../../gen/citeflow.js";
import { buildDMInvoker } from "../invoker.js";
import { ready } from "../runtime.js";
import { mapBatches } from "./batches.js";
import { chunkTexts, contextConfig } from "./chunks.js";
import { RelevanceFilter } from "./filter.js";
import { FORMAT_OPTIONS, ReferenceFormatter } from "./formatter.js";
import {
  atLeastOne,
  checkOptions,
  DEFAULT_BATCH_SIZE,
  DEFAULT_MAX_CONCURRENCY,
  DEFAULT_THRESHOLD,
  fromModel,
  invoker,
  modelIdAndRest,
  requireText,
  threshold,
} from "./options.js";

const DM_OPTIONS = ["threshold", "relevanceQuestion", "contextConfig", "batchSize", "maxConcurrency"];

function setUp(target, dmInvoker, options, owner) {
  target.dmInvoker = invoker(dmInvoker, "invoke", "a decision-model invoker", owner);
  target.threshold = threshold(options.threshold ?? DEFAULT_THRESHOLD, owner);
  target.batchSize = atLeastOne(options.batchSize ?? DEFAULT_BATCH_SIZE, "batchSize", owner);
  target.maxConcurrency = atLeastOne(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, "maxConcurrency", owner);
  target.contextConfig = contextConfig(options.contextConfig);
  target.relevanceQuestion = options.relevanceQuestion ?? null;
  core.decisionBatch(false, "", [], 0, target.relevanceQuestion ?? undefined); // checks the question now
}

async function evaluate(component, formatter, text, chunks, signal) {
  const texts = chunkTexts(chunks, component.contextConfig);
  const scored = await mapBatches(texts, component.batchSize, component.maxConcurrency, async (batch, start) => {
    const { state, questions, names } = core.decisionBatch(
      formatter,
      text,
      batch,
      start,
      component.relevanceQuestion ?? undefined,
    );
    const out = await component.dmInvoker.invoke({ state, questions }, { signal });
    return Array.from(core.decisionScores(out.answers, names));
  });
  return scored.flat().map((score, i) => ({ chunk: chunks[i], score, kept: score >= component.threshold }));
}

function fromConfig(Component, args) {
  return fromModel(Component, buildDMInvoker, ...modelIdAndRest(args));
}

/** Keeps the chunks a decision model finds relevant to the query, in input order. */
export class DMRelevanceFilter extends RelevanceFilter {
  constructor(dmInvoker, options = {}) {
    super();
    ready();
    checkOptions(options, DM_OPTIONS, "DMRelevanceFilter");
    setUp(this, dmInvoker, options, "DMRelevanceFilter");
  }

  /** `fromConfig({modelId: "openrouter/typesafe/jev-1.13", apiKey, threshold: 0.6})`. */
  static fromConfig(args) {
    return fromConfig(this, args);
  }

  /** `[{chunk, score, kept}]` in input order; `score` is the `noul` probability. */
  async evaluate(args) {
    const { chunks, query, signal } = fields(args, "INVALID_OPTION", "the arguments of evaluate");
    return evaluate(this, false, requireText(query, "query", "filter"), chunks, signal);
  }
}

/** Keeps the chunks a decision model finds the answer relies on, in input order. */
export class DMReferenceFormatter extends ReferenceFormatter {
  constructor(dmInvoker, options = {}) {
    checkOptions(options, [...FORMAT_OPTIONS, ...DM_OPTIONS], "DMReferenceFormatter");
    super(options, "DMReferenceFormatter");
    setUp(this, dmInvoker, options, "DMReferenceFormatter");
  }

  static fromConfig(args) {
    return fromConfig(this, args);
  }

  async evaluate(args) {
    const { response, chunks, signal } = fields(args, "INVALID_OPTION", "the arguments of evaluate");
    return evaluate(this, true, requireText(response, "response", "format"), chunks, signal);
  }
}
