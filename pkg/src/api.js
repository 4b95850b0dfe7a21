// Everything the package exports, whatever the runtime.
export {
  EventFilterOutputTransformer,
  IdentityOutputTransformer,
  JSONOutputTransformer,
  OutputTransformer,
  OutputTransformerChain,
  OutputTransformerConfig,
  ThinkTagOutputTransformer,
  ValidationOutputTransformer,
} from "./transformers.js";
export { isReady } from "./runtime.js";
export { CitationParser } from "./citation_parser.js";
export { checkPolicy, citationGrammar, deduplicateAdjacentCites, parseCitations, splitSentences } from "./citations.js";
export { bundledStyleNames, renderReferences } from "./references.js";
export { Citeformer, GenerationResult, StreamingResult, lexicalJudge, renderCitedHtml } from "./citeformer.js";
export { ProviderBodyDecoder, ProviderStreamDecoder, SSEDecoder, decodeProviderStream } from "./sse.js";
export { DMQuestion, buildDMInvoker, buildEMInvoker, buildLMInvoker } from "./invoker.js";
export {
  ContextConfig,
  DMReferenceFormatter,
  DMRelevanceFilter,
  LMBasedReferenceFormatter,
  LMBasedRelevanceFilter,
  LMReferenceFormatter,
  LMRelevanceFilter,
  NoOpReferenceFormatter,
  SimilarityBasedReferenceFormatter,
  SimilarityBasedRelevanceFilter,
  SimilarityReferenceFormatter,
  SimilarityRelevanceFilter,
  cosineSimilarities,
  cslItemOf,
  formatChunkAsString,
  formatReferencesAsString,
} from "./relevance/index.js";
