// Language-model relevance: a filter that asks per batch which chunks help answer the query,
// and a formatter that asks which chunks the answer used. Prompts and schemas are the
// project's presets unless given; answers are read and checked in the core.
import * as core from "../../gen/citeflow.js";
import { citeflowError, describe, fields } from "../errors.js";
import { buildLMInvoker } from "../invoker.js";
import { ready } from "../runtime.js";
import { mapBatches } from "./batches.js";
import { checkChunks, contextConfig } from "./chunks.js";
import { RelevanceFilter } from "./filter.js";
import { FORMAT_OPTIONS, ReferenceFormatter } from "./formatter.js";
import {
  atLeastOne,
  checkOptions,
  DEFAULT_BATCH_SIZE,
  DEFAULT_MAX_CONCURRENCY,
  deprecated,
  flag,
  fromModel,
  invoker,
  invokers,
  modelIdAndRest,
  requireText,
} from "./options.js";

const PROMPT_OPTIONS = ["systemTemplate", "userTemplate", "responseSchema"];
const LM_OPTIONS = ["batchSize", "maxConcurrency", "fallbackLms", "contextConfig", ...PROMPT_OPTIONS];

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

function template(value, name, owner) {
  if (typeof value !== "string" || value.trim() === "") {
    throw citeflowError("INVALID_OPTION", `${owner}: ${name} must be a non-empty string; got ${describe(value)}`);
  }
  return value;
}

const fromPreset = (Component, modelId, options) => fromModel(Component, buildLMInvoker, modelId, options);

/** `fromConfig({modelId, systemTemplate, userTemplate, config: {responseSchema}, ...})`. */
function fromConfig(Component, args) {
  const [modelId, { config, ...rest }] = modelIdAndRest(args);
  if (config != null) {
    checkOptions(config, ["responseSchema"], "fromConfig config");
    rest.responseSchema = config.responseSchema;
  }
  return fromPreset(Component, modelId, rest);
}

const FILTER_OPTIONS = [...LM_OPTIONS, "onFailureKeepAll", "metadata", "chunkFormat"];

/**
 * Asks a language model, per batch of chunks, which help answer the query. A batch whose call
 * fails or whose answer does not fit (wrong count, no verdicts) keeps all its chunks
 * (`onFailureKeepAll`, default) or none.
 */
export class LMRelevanceFilter extends RelevanceFilter {
  constructor(lmInvoker, options = {}) {
    super();
    ready();
    const owner = new.target.name;
    checkOptions(options, FILTER_OPTIONS, owner);
    const preset = core.relevancePreset("relevance-filter");
    this.lmInvoker = invoker(lmInvoker, "invoke", "an LM invoker", owner);
    this.batchSize = atLeastOne(options.batchSize ?? DEFAULT_BATCH_SIZE, "batchSize", owner);
    this.maxConcurrency = atLeastOne(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, "maxConcurrency", owner);
    this.onFailureKeepAll = flag(options.onFailureKeepAll ?? true, "onFailureKeepAll", owner);
    this.fallbackLms = invokers(options.fallbackLms, owner);
    this.contextConfig = contextConfig(options.contextConfig);
    this.systemTemplate = template(options.systemTemplate ?? preset.system, "systemTemplate", owner);
    this.userTemplate = template(options.userTemplate ?? preset.user, "userTemplate", owner);
    // null: no structured output (servers without it); the JSON is then found in the text.
    this.responseSchema = options.responseSchema === null
      ? undefined
      : options.responseSchema ?? core.relevanceSchema();
    if (options.metadata != null || options.chunkFormat != null) {
      deprecated(`${owner} options metadata and chunkFormat`, "contextConfig");
    }
    if (
      options.metadata != null &&
      !(Array.isArray(options.metadata) && options.metadata.every((k) => typeof k === "string"))
    ) {
      throw citeflowError(
        "INVALID_OPTION",
        `${owner}: metadata must be an array of metadata keys; got ${describe(options.metadata)}`,
      );
    }
    if (options.chunkFormat != null && !["string", "function"].includes(typeof options.chunkFormat)) {
      throw citeflowError(
        "INVALID_OPTION",
        `${owner}: chunkFormat must be a template string or a function; got ${describe(options.chunkFormat)}`,
      );
    }
    this.metadata = options.metadata ?? null;
    this.chunkFormat = options.chunkFormat ?? null;
  }

  /** With the project's preset prompt and schema: `fromPreset("openai/gpt-5-nano", {apiKey})`. */
  static fromPreset(modelId, options = {}) {
    return fromPreset(this, modelId, options);
  }

  static fromConfig(args) {
    return fromConfig(this, args);
  }

  texts(batch) {
    if (typeof this.chunkFormat === "function") return batch.map((c) => this.chunkFormat(c));
    return core.relevanceChunkTexts(
      batch,
      this.metadata ?? undefined,
      typeof this.chunkFormat === "string" ? this.chunkFormat : undefined,
      this.contextConfig,
    );
  }

  /** `[{chunk, score: null, kept, error?}]` in input order (`error`: why a batch failed). */
  async evaluate(args) {
    const { chunks, query, signal } = fields(args, "INVALID_OPTION", "the arguments of evaluate");
    requireText(query, "query", "filter");
    checkChunks(chunks);
    const batches = await mapBatches(chunks, this.batchSize, this.maxConcurrency, async (batch) => {
      const texts = this.texts(batch); // a chunkFormat callback's exception reaches the caller
      const user = core.fillTemplate(this.userTemplate, {
        query,
        chunks: texts.join("\n\n"),
        count: String(batch.length),
      });
      const messages = [{ role: "system", content: this.systemTemplate }, { role: "user", content: user }];
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

const FORMATTER_OPTIONS = [...FORMAT_OPTIONS, ...LM_OPTIONS, "referenceMetadata"];

/**
 * Asks a language model, per batch, which chunks (by their `referenceMetadata` value,
 * `file_name` by default) the answer used; keeps those, in input order. A failed call or an
 * answer without the list is an error.
 */
export class LMReferenceFormatter extends ReferenceFormatter {
  constructor(lmInvoker, options = {}) {
    const owner = new.target.name;
    checkOptions(options, FORMATTER_OPTIONS, owner);
    super(options, owner);
    const preset = core.relevancePreset("reference-formatter");
    this.lmInvoker = invoker(lmInvoker, "invoke", "an LM invoker", owner);
    this.batchSize = atLeastOne(options.batchSize ?? DEFAULT_BATCH_SIZE, "batchSize", owner);
    this.maxConcurrency = atLeastOne(options.maxConcurrency ?? DEFAULT_MAX_CONCURRENCY, "maxConcurrency", owner);
    this.referenceMetadata = template(options.referenceMetadata ?? "file_name", "referenceMetadata", owner);
    this.fallbackLms = invokers(options.fallbackLms, owner);
    this.contextConfig = contextConfig(options.contextConfig);
    this.systemTemplate = template(options.systemTemplate ?? preset.system, "systemTemplate", owner);
    this.userTemplate = template(options.userTemplate ?? preset.user, "userTemplate", owner);
    this.responseSchema = options.responseSchema === null
      ? undefined
      : options.responseSchema ?? core.formatterSchema(this.referenceMetadata);
  }

  static fromPreset(modelId, options = {}) {
    return fromPreset(this, modelId, options);
  }

  static fromConfig(args) {
    return fromConfig(this, args);
  }

  async evaluate(args) {
    const { response, chunks, signal } = fields(args, "INVALID_OPTION", "the arguments of evaluate");
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
