// Relevance filters (query-based) and reference formatters (answer-based).
export { ContextConfig, cslItemOf, formatChunkAsString, formatReferencesAsString } from "./chunks.js";
export { NoOpReferenceFormatter } from "./formatter.js";
export { cosineSimilarities, SimilarityReferenceFormatter, SimilarityRelevanceFilter } from "./similarity.js";
export { LMReferenceFormatter, LMRelevanceFilter } from "./lm.js";
export { DMReferenceFormatter, DMRelevanceFilter } from "./dm.js";
export {
  LMBasedReferenceFormatter,
  LMBasedRelevanceFilter,
  SimilarityBasedReferenceFormatter,
  SimilarityBasedRelevanceFilter,
} from "./deprecated.js";
