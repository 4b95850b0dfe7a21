// Embedding similarity: cosine in wasm (SIMD), the filter keeps input order, the formatter
// sorts by similarity. Scores are available through evaluate().
import * as core from "../../gen/citeflow.js";
import { citeflowError, describe, isArray, isInstance, list, noMoreArguments } from "../errors.js";
import { memory, ready } from "../runtime.js";
import { chunkTexts, contextConfig } from "./chunks.js";
import { RelevanceFilter } from "./filter.js";
import { evaluations, FORMAT_FUNCTIONS, ReferenceFormatter } from "./formatter.js";
import { callArgs, componentOptions, EVALUATE_ARGS, FILTER_ARGS, invoker, requireText } from "./options.js";

// No embedding model has more dimensions than this; a longer "vector" is a mistake or an attack.
const MAX_DIMENSIONS = 1 << 16;

function vector(v, what) {
  if (isInstance(v, Float32Array)) return v;
  if (isView(v) && v.length <= MAX_DIMENSIONS) return Float32Array.from(v);
  if (!isArray(v)) {
    throw citeflowError(
      "INVALID_EMBEDDING",
      `${what} must be a Float32Array or an array of at most ${MAX_DIMENSIONS} numbers; got ${describe(v)}`,
    );
  }
  const items = list(v, "INVALID_EMBEDDING", what, MAX_DIMENSIONS);
  // Numbers only: converting anything else runs its toString (3000 nested arrays overflow
  // Firefox's stack) and gives NaN anyway.
  const bad = items.findIndex((x) => typeof x !== "number");
  if (bad !== -1) {
    throw citeflowError("INVALID_EMBEDDING", `${what}[${bad}] is not a number; got ${describe(items[bad])}`);
  }
  return Float32Array.from(items);
}

function isView(v) {
  try {
    return ArrayBuffer.isView(v);
  } catch {
    return false;
  }
}

/** Cosine similarity of `query` with each vector, as a Float32Array (zero vectors score 0). */
export function cosineSimilarities(query, vectors, ...more) {
  noMoreArguments([query, vectors, ...more], 2, "cosineSimilarities");
  ready();
  const q = vector(query, "the query embedding");
  vectors = list(vectors, "INVALID_EMBEDDING", "vectors");
  const dim = q.length;
  const matrix = new core.SimilarityMatrixCore(vectors.length, dim);
  try {
    const view = new Float32Array(memory().buffer, matrix.ptr(), vectors.length * dim);
    vectors.forEach((v, i) => {
      const row = vector(v, `embedding ${i}`);
      if (row.length !== dim) {
        throw citeflowError("INVALID_EMBEDDING", `embedding ${i} has ${row.length} dimensions, the query has ${dim}`);
      }
      view.set(row, i * dim);
    });
    return matrix.scores(q);
  } finally {
    matrix.free();
  }
}

async function scoreChunks(emInvoker, text, chunks, config, cut, signal) {
  const texts = chunkTexts(chunks, config); // checks the chunks before any call
  if (chunks.length === 0) return [];
  const [query] = await emInvoker.invoke([text], { signal });
  const vectors = await emInvoker.invoke(texts, { signal });
  const scores = cosineSimilarities(query, vectors);
  return chunks.map((chunk, i) => ({ chunk, score: scores[i], kept: scores[i] >= cut }));
}

const JS_ONLY = ["contextConfig"];

/** Keeps chunks whose embedding's cosine with the query's is ≥ threshold, in input order. */
export class SimilarityRelevanceFilter extends RelevanceFilter {
  constructor(emInvoker, options = {}, ...more) {
    super();
    const owner = new.target.name;
    noMoreArguments([emInvoker, options, ...more], 2, owner);
    const { settings, own } = componentOptions("SimilarityRelevanceFilter", owner, options, JS_ONLY);
    this.emInvoker = invoker(emInvoker, "invoke", "an embedding invoker", owner);
    this.threshold = settings.threshold;
    this.contextConfig = contextConfig(own.contextConfig);
  }

  /** `[{chunk, score, kept}]` in input order. */
  async evaluate(...args) {
    const { chunks, query, signal } = callArgs(args, FILTER_ARGS, `${this.constructor.name}.evaluate`);
    return scoreChunks(
      this.emInvoker,
      requireText(query, "query", "filter"),
      chunks,
      this.contextConfig,
      this.threshold,
      signal,
    );
  }
}

/** Keeps chunks similar to the answer, most similar first. */
export class SimilarityReferenceFormatter extends ReferenceFormatter {
  constructor(emInvoker, options = {}, ...more) {
    const owner = new.target.name;
    noMoreArguments([emInvoker, options, ...more], 2, owner);
    const { settings, own } = componentOptions("SimilarityReferenceFormatter", owner, options, [
      ...FORMAT_FUNCTIONS,
      ...JS_ONLY,
    ]);
    super(settings, own, owner);
    this.emInvoker = invoker(emInvoker, "invoke", "an embedding invoker", owner);
    this.threshold = settings.threshold;
    this.contextConfig = contextConfig(own.contextConfig);
  }

  async evaluate(...args) {
    const { response, chunks, signal } = callArgs(args, EVALUATE_ARGS, `${this.owner}.evaluate`);
    return scoreChunks(
      this.emInvoker,
      requireText(response, "response", "format"),
      chunks,
      this.contextConfig,
      this.threshold,
      signal,
    );
  }

  ordered(evaluated) {
    return evaluations(evaluated).filter((e) => e.kept).sort((a, b) => b.score - a.score).map((e) => e.chunk);
  }
}
