// Everything the package exports, whatever the runtime.
import { isReady as isCoreReady } from "./runtime.js";
import { isStreamReady } from "./stream_runtime.js";

export * from "./stream_api.js";

/** Whether "citeflow" can be used: both of its wasm modules are there. */
export function isReady() {
  return isCoreReady() && isStreamReady();
}

export { checkPolicy, citationGrammar, deduplicateAdjacentCites, parseCitations, splitSentences } from "./citations.js";
export { bundledStyleNames, renderReferences } from "./references.js";
export { Citeformer, GenerationResult, lexicalJudge, renderCitedHtml, StreamingResult } from "./citeformer.js";
export { aiSdkRequest } from "./ai_sdk_request.js";
export { buildDMInvoker, buildEMInvoker, buildLMInvoker, DMQuestion } from "./invoker.js";
export {
  ContextConfig,
  cosineSimilarities,
  cslItemOf,
  DMReferenceFormatter,
  DMRelevanceFilter,
  formatChunkAsString,
  formatReferencesAsString,
  LMBasedReferenceFormatter,
  LMBasedRelevanceFilter,
  LMReferenceFormatter,
  LMRelevanceFilter,
  NoOpReferenceFormatter,
  SimilarityBasedReferenceFormatter,
  SimilarityBasedRelevanceFilter,
  SimilarityReferenceFormatter,
  SimilarityRelevanceFilter,
} from "./relevance/index.js";
