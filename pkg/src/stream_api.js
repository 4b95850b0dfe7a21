// The streaming surface (entry "citeflow/stream", and part of "citeflow"): everything here runs
// on the streaming module alone.
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
export { CitationParser } from "./citation_parser.js";
export { decodeProviderStream, ProviderBodyDecoder, ProviderStreamDecoder, SSEDecoder } from "./sse.js";
export { groundingCitations } from "./grounding.js";
