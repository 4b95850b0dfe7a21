// Types of "citeflow/stream": the streaming surface alone (output transformers and chains, the
// citation parser, the SSE and provider stream decoders), on the small streaming wasm module.
// The classes are those of "citeflow".
import type { WasmSource } from "citeflow";

export type {
  BaseEventType,
  Citation,
  CitationEvent,
  CitationOptions,
  Event,
  EventFields,
  EventInit,
  EventInput,
  EventListenerFn,
  EventType,
  ItemType,
  ListenerOptions,
  LMOutput,
  OutputItem,
  OutputTransformerConfigInput,
  ProviderBodyDecoderOptions,
  ProviderSource,
  ReferenceEvent,
  SourcesEvent,
  SSEMessage,
  StreamFormat,
  StructuredEvent,
  TagPair,
  TextEvent,
  ThinkTagOptions,
  TokenUsage,
  TransformerType,
  UsageEvent,
  ValidationOptions,
  WasmSource,
} from "citeflow";
export {
  CitationParser,
  decodeProviderStream,
  EventFilterOutputTransformer,
  groundingCitations,
  IdentityOutputTransformer,
  JSONOutputTransformer,
  OutputTransformer,
  OutputTransformerChain,
  OutputTransformerConfig,
  ProviderBodyDecoder,
  ProviderStreamDecoder,
  SSEDecoder,
  ThinkTagOutputTransformer,
  ValidationOutputTransformer,
} from "citeflow";

/**
 * Initialises the streaming module (citeflow_stream_bg.wasm). Required once in browsers; in
 * Node, Deno and Workers it is ready at import, unless a bundler moved the .wasm away: then pass
 * its bytes or URL.
 */
export default function init(input?: WasmSource): Promise<void>;
export { init };
/**
 * Whether the streaming module can be used without `init`: instantiated, or found and
 * instantiated on first use (Node and Deno: true at import). False in browsers before `init`.
 */
export function isReady(): boolean;
/**
 * Initialises the full streaming module (citeflow_stream_full_bg.wasm), which the JSON and
 * validation transformers, cited-answer stages and `transform(output)` run on. In a browser,
 * `await initFull()` before using them; in Node, Deno and Workers it is found at their first
 * use, unless a bundler moved the file: then pass its bytes or URL.
 */
export { initFull, isFullReady } from "citeflow";
