// Language-model relevance: a filter that asks per batch which chunks help answer the query,
// and a formatter that asks which chunks the answer used. Prompts and schemas are the
// project's presets unless given; answers are read and checked in the core.
import * as core from "../../gen/citeflow.js";
import { knownFields, noMoreArguments } from "../errors.js";
import { buildLMInvoker } from "../invoker.js";
import { mapBatches } from "./batches.js";
import { checkChunks, contextConfig } from "./chunks.js";
import { RelevanceFilter } from "./filter.js";
import { FORMAT_FUNCTIONS, ReferenceFormatter } from "./formatter.js";
import {
  callArgs,
  componentOptions,
  deprecated,
  EVALUATE_ARGS,
  FILTER_ARGS,
  fromModel,
  invoker,
  invokers,
  modelIdAndRest,
  requireText,
} from "./options.js";

// The JS-only options; the core reads the rest (batchSize, maxConcurrency, templates, schema, …).
const JS_ONLY = ["fallbackLms", "contextConfig"];

/** The answer of the main LM, else of each fallback in turn; the first error if all fail. */
async function invokeWithFallbacks(lms, messages, options) {
  let first = null;
  for (const lm of lms) {
    try {
      return await lm.invoke(messages, options);
    } catch (e) {
      if (options.signal?.aborted) throw e;
      first ??= e;
    }
  }
  throw first;
}

/** What both LM components share: the invokers, batching and the prompt. */
function setUp(target, lmInvoker, settings, own, owner) {
  target.lmInvoker = invoker(lmInvoker, "invoke", "an LM invoker", owner);
  target.fallbackLms = invokers(own.fallbackLms, owner);
  target.contextConfig = contextConfig(own.contextConfig);
  target.batchSize = settings.batchSize;
  target.maxConcurrency = settings.maxConcurrency;
  target.systemTemplate = settings.systemTemplate;
  target.userTemplate = settings.userTemplate;
  // null: no structured output (servers without it); the JSON is then found in the text.
  target.responseSchema = settings.responseSchema ?? undefined;
}

function fromPreset(Component, args) {
  noMoreArguments(args, 2, `${Component.name}.fromPreset`);
  return fromModel(Component, buildLMInvoker, args[0], args[1] === undefined ? {} : args[1]);
}

/** `fromConfig({modelId, systemTemplate, userTemplate, config: {responseSchema}, ...})`. */
function fromConfig(Component, args) {
  const [modelId, { config, ...rest }] = modelIdAndRest(args, `${Component.name}.fromConfig`);
  if (config != null) {
    knownFields(config, ["responseSchema"], "INVALID_OPTION", "fromConfig config");
    rest.responseSchema = config.responseSchema;
  }
  return fromModel(Component, buildLMInvoker, modelId, rest);
}

/**
 * Asks a language model, per batch of chunks, which help answer the query. A batch whose call
 * fails or whose answer does not fit (wrong count, no verdicts) keeps all its chunks
 * (`onFailureKeepAll`, default) or none.
 */
export class LMRelevanceFilter extends RelevanceFilter {
  constructor(lmInvoker, options = {}, ...more) {
    super();
    const owner = new.target.name;
    noMoreArguments([lmInvoker, options, ...more], 2, owner);
    // A chunkFormat function is JS's; a template string is the core's to check.
    const { settings, own } = componentOptions("LMRelevanceFilter", owner, options, JS_ONLY, ["chunkFormat"]);
    setUp(this, lmInvoker, settings, own, owner);
    this.onFailureKeepAll = settings.onFailureKeepAll;
    this.metadata = settings.metadata;
    this.chunkFormat = own.chunkFormat ?? settings.chunkFormat;
    if (this.metadata !== null || this.chunkFormat !== null) {
      deprecated(`${owner} options metadata and chunkFormat`, "contextConfig");
    }
  }

  /** With the project's preset prompt and schema: `fromPreset("openai/gpt-5-nano", {apiKey})`. */
  static fromPreset(...args) {
    return fromPreset(this, args);
  }

  static fromConfig(...args) {
    return fromConfig(this, args);
  }

  texts(batch) {
    // A context config takes precedence over the deprecated metadata and chunkFormat (the core
    // applies the same rule to a template).
    if (typeof this.chunkFormat === "function" && this.contextConfig === null) {
      return batch.map((c) => this.chunkFormat(c));
    }
    return core.relevanceChunkTexts(
      batch,
      this.metadata ?? undefined,
      typeof this.chunkFormat === "string" ? this.chunkFormat : undefined,
      this.contextConfig,
    );
  }

  /** `[{chunk, score: null, kept, error?}]` in input order (`error`: why a batch failed). */
  async evaluate(...args) {
    const { chunks, query, signal } = callArgs(args, FILTER_ARGS, `${this.constructor.name}.evaluate`);
    requireText(query, "query", "filter");
    checkChunks(chunks);
    const batches = await mapBatches(chunks, this.batchSize, this.maxConcurrency, async (batch) => {
      const texts = this.texts(batch); // a chunkFormat callback's exception reaches the caller
      // Both templates take the same placeholders; `{context}` is another name for `{chunks}`.
      const chunkText = texts.join("\n\n");
      const vars = { query, chunks: chunkText, context: chunkText, count: String(batch.length) };
      const messages = [
        { role: "system", content: core.fillTemplate(this.systemTemplate, vars) },
        { role: "user", content: core.fillTemplate(this.userTemplate, vars) },
      ];
      try {
        const out = await invokeWithFallbacks([this.lmInvoker, ...this.fallbackLms], messages, {
          signal,
          responseSchema: this.responseSchema,
        });
        const verdicts = core.relevanceResults(out.outputs, batch.length);
        return batch.map((chunk, i) => ({ chunk, score: null, kept: verdicts[i] === 1 }));
      } catch (error) {
        if (signal?.aborted) throw error;
        return batch.map((chunk) => ({ chunk, score: null, kept: this.onFailureKeepAll, error }));
      }
    });
    return batches.flat();
  }
}

/**
 * Asks a language model, per batch, which chunks (by their `referenceMetadata` value,
 * `file_name` by default) the answer used; keeps those, in input order. A failed call or an
 * answer without the list is an error.
 */
export class LMReferenceFormatter extends ReferenceFormatter {
  constructor(lmInvoker, options = {}, ...more) {
    const owner = new.target.name;
    noMoreArguments([lmInvoker, options, ...more], 2, owner);
    const { settings, own } = componentOptions("LMReferenceFormatter", owner, options, [
      ...FORMAT_FUNCTIONS,
      ...JS_ONLY,
    ]);
    super(settings, own, owner);
    setUp(this, lmInvoker, settings, own, owner);
    this.referenceMetadata = settings.referenceMetadata;
  }

  static fromPreset(...args) {
    return fromPreset(this, args);
  }

  static fromConfig(...args) {
    return fromConfig(this, args);
  }

  async evaluate(...args) {
    const { response, chunks, signal } = callArgs(args, EVALUATE_ARGS, `${this.owner}.evaluate`);
    requireText(response, "response", "format");
    checkChunks(chunks);
    const key = this.referenceMetadata;
    const batches = await mapBatches(chunks, this.batchSize, this.maxConcurrency, async (batch, start) => {
      const { context, labels } = core.formatterContext(batch, key, start, this.contextConfig);
      const vars = { response, context, reference_metadata: key };
      const messages = [
        { role: "system", content: core.fillTemplate(this.systemTemplate, vars) },
        { role: "user", content: core.fillTemplate(this.userTemplate, vars) },
      ];
      const out = await invokeWithFallbacks([this.lmInvoker, ...this.fallbackLms], messages, {
        signal,
        responseSchema: this.responseSchema,
      });
      const kept = core.formatterKept(out.outputs, key, labels);
      return batch.map((chunk, i) => ({ chunk, score: null, kept: kept[i] === 1 }));
    });
    return batches.flat();
  }
}
