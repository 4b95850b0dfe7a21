// Embedding similarity: cosine in wasm (SIMD), the filter keeps input order, the formatter
// sorts by similarity. Scores are available through evaluate().
import * as core from "../../gen/citeflow.js";
import { citeflowError, describe } from "../errors.js";
import { memory, ready } from "../runtime.js";
import { chunkTexts, contextConfig } from "./chunks.js";
import { RelevanceFilter } from "./filter.js";
import { FORMAT_OPTIONS, ReferenceFormatter } from "./formatter.js";
import { checkOptions, DEFAULT_THRESHOLD, invoker, requireText, threshold } from "./options.js";

function vector(v, what) {
  if (v instanceof Float32Array) return v;
  if (Array.isArray(v) || ArrayBuffer.isView(v)) return Float32Array.from(v);
  throw citeflowError("INVALID_EMBEDDING", `${what} must be a Float32Array or an array of numbers; got ${describe(v)}`);
}

/** Cosine similarity of `query` with each vector, as a Float32Array (zero vectors score 0). */
export function cosineSimilarities(query, vectors) {
  ready();
  const q = vector(query, "the query embedding");
  if (!Array.isArray(vectors)) throw citeflowError("INVALID_EMBEDDING", `vectors must be an array; got ${describe(vectors)}`);
  const dim = q.length;
  const matrix = new core.SimilarityMatrixCore(vectors.length, dim);
  try {
    const view = new Float32Array(memory().buffer, matrix.ptr(), vectors.length * dim);
    vectors.forEach((v, i) => {
      const row = vector(v, `embedding ${i}`);
      if (row.length !== dim) throw citeflowError("INVALID_EMBEDDING", `embedding ${i} has ${row.length} dimensions, the query has ${dim}`);
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

const FILTER_OPTIONS = ["threshold", "contextConfig"];

/** Keeps chunks whose embedding's cosine with the query's is ≥ threshold, in input order. */
export class SimilarityRelevanceFilter extends RelevanceFilter {
  constructor(emInvoker, options = {}) {
    super();
    ready();
    const owner = new.target.name;
    checkOptions(options, FILTER_OPTIONS, owner);
    this.emInvoker = invoker(emInvoker, "invoke", "an embedding invoker", owner);
    this.threshold = threshold(options.threshold ?? DEFAULT_THRESHOLD, owner);
    this.contextConfig = contextConfig(options.contextConfig);
  }

  /** `[{chunk, score, kept}]` in input order. */
  async evaluate({ chunks, query, signal } = {}) {
    return scoreChunks(this.emInvoker, requireText(query, "query", "filter"), chunks, this.contextConfig, this.threshold, signal);
  }
}

/** Keeps chunks similar to the answer, most similar first. */
export class SimilarityReferenceFormatter extends ReferenceFormatter {
  constructor(emInvoker, options = {}) {
    const owner = new.target.name;
    checkOptions(options, [...FORMAT_OPTIONS, ...FILTER_OPTIONS], owner);
    super(options, owner);
    this.emInvoker = invoker(emInvoker, "invoke", "an embedding invoker", owner);
    this.threshold = threshold(options.threshold ?? DEFAULT_THRESHOLD, owner);
    this.contextConfig = contextConfig(options.contextConfig);
  }

  async evaluate({ response, chunks, signal } = {}) {
    return scoreChunks(this.emInvoker, requireText(response, "response", "format"), chunks, this.contextConfig, this.threshold, signal);
  }

  ordered(evaluated) {
    return evaluated.filter((e) => e.kept).sort((a, b) => b.score - a.score).map((e) => e.chunk);
  }
}
