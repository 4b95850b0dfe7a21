// Public types of the citeflow package. Every runtime entry (node, deno, workerd, browser)
// exports exactly this surface.

/** Where a wasm module comes from when the package cannot find it by itself. */
export type WasmSource = RequestInfo | URL | Response | BufferSource | WebAssembly.Module;

/**
 * Initialises the package's wasm modules: the core (`input`, citeflow_bg.wasm), the streaming
 * module (`streamInput`, citeflow_stream_bg.wasm, which "citeflow/stream" loads alone) and the
 * full streaming module (`fullInput`, citeflow_stream_full_bg.wasm: the JSON and validation
 * transformers, cited-answer stages and `transform(output)` run on it). Required once in
 * browsers, where it loads all three. In Node, Deno and Workers the modules come with the import
 * and this does nothing (in Node and Deno the import instantiates none: the streaming module is
 * compiled in the background and instantiated right after the import, the core and the full
 * streaming module at their first use), unless a bundler moved the .wasm files away from the
 * package: then pass their bytes or URLs here (see "Using a bundler" in the README).
 */
export default function init(
  input?: WasmSource,
  streamInput?: WasmSource,
  fullInput?: WasmSource,
): Promise<void>;
export { init };
/**
 * Initialises the full streaming module alone (citeflow_stream_full_bg.wasm; by default fetched
 * from beside the package). `init()` of "citeflow" does it too; "citeflow/stream" in a browser
 * needs it before a JSON or validation transformer, a cited-answer stage or
 * `transform(output)`. Elsewhere it does nothing unless a bundler moved the file.
 */
export function initFull(input?: WasmSource): Promise<void>;
/**
 * Whether the full streaming module can be used without `initFull`: instantiated, or to be read
 * and instantiated at its first use (Node and Deno, which read it from beside the package then,
 * and Workers: true at import). False in browsers before `initFull` (or `init()` of "citeflow").
 */
export function isFullReady(): boolean;
/**
 * Whether the package can be used without (another) `init`: both wasm modules are instantiated,
 * or found and instantiated on first use (Node, Deno and Workers with the package as installed:
 * true at import). False in browsers before `init`, and where a bundler moved the .wasm files.
 */
export function isReady(): boolean;

/** Every error citeflow throws: `name` is "CiteflowError", `code` is stable. */
export interface CiteflowError extends Error {
  /** Always "CiteflowError": tell citeflow's errors from others by it. */
  name: "CiteflowError";
  /** What went wrong, as a stable code to branch on (the message is for people and may change). */
  code: CiteflowErrorCode;
}
/** The stable codes of citeflow's errors (`error.code`); each is described in docs/errors.md. */
export type CiteflowErrorCode =
  | "NOT_INITIALIZED"
  | "INVALID_CHUNK"
  | "INVALID_EVENT"
  /**
   * An output that is not what was expected, the model's own included: a structured answer
   * (`responseSchema`, a forced tool's input) that is not JSON or a cited answer that is not the
   * expected JSON, streamed (at any split) or whole.
   */
  | "INVALID_OUTPUT"
  /**
   * An option refused: a key not taken, a value of the wrong type or range, a function where
   * data goes (options cross into wasm as data, and only the keys documented as taking a
   * function take one: `onEvent`, `fetch`, `toCslItem`, `judge`, `eventEmitter`,
   * `chunkFormat`, `formatChunkFunc`, `formatReferencesFunc`), or an extra positional argument.
   */
  | "INVALID_OPTION"
  | "INVALID_CONFIG"
  | "UNKNOWN_TRANSFORMER"
  | "EMPTY_EVENT_TYPE"
  | "STREAM_FINISHED"
  | "VALIDATION_FAILED"
  | "INVALID_TEXT"
  | "NO_SOURCES"
  | "INVALID_SOURCE"
  | "UNKNOWN_STYLE"
  | "STYLE_NOT_LOADED"
  | "INVALID_STYLE"
  | "INVALID_LOCALE"
  /** A CslDocument's items give one id twice. */
  | "DUPLICATE_ITEM"
  /** A CslDocument's cluster (or `uncited`) names an item the document lacks. */
  | "UNKNOWN_ITEM"
  /** `removeCluster` of an id no cluster has. */
  | "UNKNOWN_CLUSTER"
  /** `setCluster`'s index is past the end of the clusters (or negative). */
  | "INDEX_OUT_OF_RANGE"
  | "INVALID_JUDGE_SCORE"
  | "SSE_LINE_TOO_LONG"
  | "SSE_TRUNCATED"
  | "SSE_EVENT_TOO_LARGE"
  | "UNKNOWN_PROVIDER"
  | "PROVIDER_ERROR"
  | "STREAM_TRUNCATED"
  | "STREAM_INTERRUPTED"
  /** The provider's envelope is not what its format sends (a body or stream message that is not its JSON, a limit passed). */
  | "INVALID_PROVIDER_DATA"
  | "INVALID_MODEL_ID"
  | "TIMEOUT"
  | "NETWORK_ERROR"
  | "REDIRECT_REFUSED"
  | "RESPONSE_TOO_LARGE"
  | "INVALID_CONTEXT_CONFIG"
  | "INVALID_EMBEDDING"
  | "INVALID_MODEL_ANSWER"
  /** A string or array argument of the wrong type (or an array-like over 2^26 items). */
  | "INVALID_ARGUMENT"
  /** More sources than one reference-list render takes (1,000). */
  | "TOO_MANY_SOURCES"
  /** This object lived in a wasm instance replaced after a fatal error: create a new one. */
  | "INSTANCE_RESET"
  /**
   * A stream object (transformer, parser, decoder) was called by a callback that one of its own
   * calls was running (a getter, Proxy trap or `toJSON` of the value given to it): its state is
   * in use. That running call goes on unharmed: call the object again once it has returned.
   */
  | "REENTRANT_CALL"
  /** A result could not be converted to JS (a bug, please report it). */
  | "INTERNAL"
  /** A base class method a subclass must provide (`evaluate` of a custom reference formatter). */
  | "NOT_IMPLEMENTED";

// ---- events -------------------------------------------------------------------------------

/**
 * The event types with a meaning of their own. Each also has `_start` and `_end` variants that
 * open and close a block of that type.
 */
export type BaseEventType = "activity" | "code" | "reference" | "response" | "status" | "thinking" | "structured";
/**
 * The `type` of an event given to citeflow: a base type, its `_start` / `_end` variant, or any
 * other string (such an event passes through the transformers untouched).
 */
export type EventType = BaseEventType | `${BaseEventType}_start` | `${BaseEventType}_end` | (string & {});

/** What every event citeflow makes carries beside its `type` and `value`. */
export interface EventFields {
  /**
   * Shared by the start, content and end events of one block (`thinking_start`, `thinking`…,
   * `thinking_end`); null for an event outside a block.
   */
  id: string | null;
  /** A level given by the event's producer (reference events: "INFO"); absent otherwise. */
  level?: string;
  /** When the event was made, where its producer says (reference events: an ISO 8601 string). */
  timestamp?: number | string;
  /** Metadata of the event's producer (reference events: `{}`); absent otherwise. */
  metadata?: Record<string, unknown>;
  /** Fields of an event you pushed are kept on what is made from it (its held-back text, say). */
  [extra: string]: unknown;
}

/**
 * Answer or reasoning text, and the `_start` / `_end` events around a block of it (their value
 * is ""). `structured_delta` is a piece of a forced tool's input (a structured answer) as it
 * streams, as JSON text; a `structured` event with the whole input follows.
 */
export interface TextEvent extends EventFields {
  /** `response`: answer text; `thinking`: reasoning; `structured_delta`: a piece of JSON text. */
  type:
    | "response"
    | "response_start"
    | "response_end"
    | "thinking"
    | "thinking_start"
    | "thinking_end"
    | "structured_delta";
  /** The text; "" for a `_start` or `_end` event. */
  value: string;
  /** Always "text": the value is a string. */
  valueType: "text";
}
/**
 * A `structured` event: the JSON object of the answer (from the JSON transformer at the end of
 * a stream, or a forced tool's whole input).
 */
export interface StructuredEvent extends EventFields {
  /** Always "structured". */
  type: "structured";
  /** The answer's JSON object, parsed. */
  value: Record<string, unknown>;
  /** Always "json". */
  valueType: "json";
}
/** A `citation` event (from the citation parser and the providers' own citations): its value is the citation. */
export interface CitationEvent extends EventFields {
  /** Always "citation". */
  type: "citation";
  /** The citation found: a marker the parser read, or one of the provider's own citations. */
  value: Citation;
  /** Always "json". */
  valueType: "json";
}
/** A `usage` event (from the invokers' streams and provider decoders): normalised token counts. */
export interface UsageEvent extends EventFields {
  /** Always "usage". */
  type: "usage";
  /** The token counts reported so far for this answer. */
  value: TokenUsage;
  /** Always "json". */
  valueType: "json";
}
/**
 * A `sources` event (from a provider decoder, once per answer, after its text): the sources the
 * provider says the answer rests on, which its citations name by `sourceId`.
 */
export interface SourcesEvent extends EventFields {
  /** Always "sources". */
  type: "sources";
  /** Every source of the answer, in `sourceId` order. */
  value: ProviderSource[];
  /** Always "json". */
  valueType: "json";
}
/**
 * A `reference` event, handed to a reference formatter's `eventEmitter`: the reference list as
 * one string, or one event per kept chunk (all sharing one id).
 */
export interface ReferenceEvent extends EventFields {
  /** Always "reference". */
  type: "reference";
  /** The reference list (`valueType` "text"), or one kept chunk as JSON data (`valueType` "json"). */
  value: string | Chunk;
  /** "text" for the list as a string, "json" for a chunk. */
  valueType: "text" | "json";
}

/**
 * An event citeflow makes: narrow on `type` for its value
 * (`if (e.type === "citation") e.value.sourceId`). Transformers also pass on the events you push
 * them as they are; their `push` returns those typed as you gave them.
 */
export type Event = TextEvent | StructuredEvent | CitationEvent | UsageEvent | SourcesEvent | ReferenceEvent;

/**
 * An event object as `push` takes it. `type` defaults to "response"; a text event's `value` is
 * a string. Fields of your own may be added: they are kept.
 */
export interface EventInit {
  /** Shared by the events of one block; absent or null outside a block. */
  id?: string | null;
  /** Default "response". */
  type?: EventType;
  /** Text for a text event; any value for another type (passed on as it is). */
  value?: unknown;
  /** How `value` is to be read: "text" (a string) or "json". */
  valueType?: "text" | "json";
}
/** What `push` takes: an event object, or a bare string meaning a `response` event. */
export type EventInput = string | EventInit;

/**
 * A transformer's listener: it receives the events `emit` and `emitFinish` release, which are
 * citeflow's events and the objects you pushed, passed on as they are. (Declared so that a
 * listener typed `(event: Event) => void` is accepted, for a caller that pushes only strings
 * and citeflow's events.)
 */
export type EventListenerFn = {
  /** Receives one released event. */
  listen(event: Event | EventInit): void;
}["listen"];

/** One item of a whole model output: answer text, reasoning, or the answer's JSON object. */
export type OutputItem =
  | {
    /** Answer text. */
    type: "text";
    /** The text. */
    output: string;
  }
  | {
    /** Reasoning (what a `<think>` block held, or the provider's reasoning). */
    type: "thinking";
    /** The reasoning text. */
    output: string;
  }
  | {
    /** A structured answer (the JSON transformer's, or a forced tool's input). */
    type: "structured";
    /** The answer's JSON object, parsed. */
    output: Record<string, unknown>;
  };

/**
 * Token usage in one shape for every provider. `inputTokens` counts every input token (cached
 * ones included); a count the provider did not report is absent, never guessed. `raw` is the
 * provider's own object as sent (OpenRouter's `cost` is there); for an answer made of several
 * calls (an LM-backed decision model), one raw report per call.
 */
export interface TokenUsage {
  /** Tokens of the prompt, cached ones included. */
  inputTokens?: number;
  /** Tokens of the answer, reasoning included. */
  outputTokens?: number;
  /** Input and output tokens together, as the provider counts them. */
  totalTokens?: number;
  /** Input tokens read from the provider's prompt cache. */
  cachedInputTokens?: number;
  /** Input tokens written to the prompt cache (Anthropic). */
  cacheWriteTokens?: number;
  /** Output tokens spent on reasoning (OpenAI-style `completion_tokens_details`). */
  reasoningTokens?: number;
  /** Always present in what citeflow's invokers and decoders return; optional for your own models. */
  raw?: unknown;
}

/** A whole model output. Fields other than `outputs` are carried through every transformer. */
export interface LMOutput {
  /** The answer's items in order: text, reasoning, structured. */
  outputs: OutputItem[];
  /** The token counts of the call; absent when the model reported none. */
  usage?: TokenUsage;
  /** The provider's own citations (or a cited answer's), `span` into the text items joined. */
  citations?: Citation[];
  /** The sources the provider says the answer rests on, as its `sources` stream event has them. */
  sources?: ProviderSource[];
  /** Why the model stopped, as the provider says it (`stop`, `end_turn`, `STOP`, `completed`, …). */
  finishReason?: string;
  [extra: string]: unknown;
}

// ---- output transformers ------------------------------------------------------------------

/**
 * The shape every output transformer shares.
 *
 * Re-entry: a callback citeflow runs during a call (a getter, Proxy trap or `toJSON` of an event
 * or output given, an `onEvent` listener) may call any citeflow function or another object. A
 * call back into the very transformer whose call runs the callback either completes first (when
 * citeflow reads the value before touching the transformer's state) or throws REENTRANT_CALL;
 * either way the running call finishes with its own result.
 */
export abstract class OutputTransformer {
  /** Transforms a whole output. */
  transform(output: LMOutput): LMOutput;
  /**
   * Feeds one chunk (a string: `response` text) and returns the events it releases: citeflow's
   * events, and the events you pushed, passed on as they are (typed as you gave them).
   */
  push(input: string): Event[];
  push<In extends EventInit>(input: In): (Event | In)[];
  push(input: EventInput): (Event | EventInit)[];
  /** Ends the stream; returns what was held back. Pushing afterwards throws STREAM_FINISHED. */
  finish(): Event[];
  /**
   * A web TransformStream over a fresh copy of this transformer (same options, new state): it
   * takes strings and citeflow's events (what another transformer's stream gives).
   */
  transformStream(): TransformStream<string | Event, Event>;
  /**
   * The same, for event objects of your own (`In`) written to it besides strings: they come
   * out as they went in, or transformed.
   */
  transformStream<In extends EventInit>(): TransformStream<string | In, Event | In>;
  /** A fresh copy with the same options and new stream state. */
  fresh(): this;
  /**
   * The listener `emit` and `emitFinish` hand events to (the original's event emitter), or
   * null; also an option of every transformer's constructor.
   */
  onEvent: EventListenerFn | null;
  /** `push`, each released event handed to `onEvent` (INVALID_OPTION when none is set). */
  emit(input: EventInput): void;
  /** `finish`, what was held back handed to `onEvent`. */
  emitFinish(): void;
}

/**
 * A transformer's listener: `emit` and `emitFinish` hand it each event they release (the
 * original Python library's `event_emitter`). Configs are data and take none.
 */
export interface ListenerOptions {
  /** Receives each event `emit` and `emitFinish` release; default none (null). */
  onEvent?: EventListenerFn | null;
}

/** Passes everything on unchanged: whole outputs as they are, events as the same objects. */
export class IdentityOutputTransformer extends OutputTransformer {
  constructor(options?: ListenerOptions);
}

/** Keeps the listed base types with their `_start`/`_end` variants (exact, case-sensitive). */
export class EventFilterOutputTransformer extends OutputTransformer {
  constructor(eventTypes: string[], options?: ListenerOptions);
  /** The base types kept, sorted. */
  readonly allowedEventTypes: string[];
}

/** Text holding one JSON object becomes a structured item; in a stream, a `structured` event at the end. */
export class JSONOutputTransformer extends OutputTransformer {
  constructor(options?: ListenerOptions);
}

/** A tag pair: a name (`"reasoning"` means `<reasoning>`/`</reasoning>`), `[open, close]`, or `{open, close}`. */
export type TagPair = string | [open: string, close: string] | {
  /** The opening tag as written (`"<reasoning>"`). */
  open: string;
  /** The closing tag as written (`"</reasoning>"`). */
  close: string;
};

/** How `ThinkTagOutputTransformer` finds reasoning. */
export interface ThinkTagOptions {
  /**
   * Default `["think"]`. Each tag is 1 to 256 characters (a longer one is INVALID_OPTION);
   * matching takes linear time whatever the tags.
   */
  tags?: TagPair[];
  /** The stream starts inside reasoning (the prompt template prefilled the opening tag). */
  startInThinking?: boolean;
  /** Prefix of block ids (`{prefix}-{n}`); default unique per transformer. */
  idPrefix?: string;
}

/** Splits `<think>` reasoning from the answer, even when tags are cut across chunks. */
export class ThinkTagOutputTransformer extends OutputTransformer {
  constructor(options?: ThinkTagOptions & ListenerOptions);
  /** Whether the stream is inside a thinking block now. */
  readonly thinking: boolean;
  /** The id of the latest response block (null before the first). */
  readonly responseId: string | null;
  /** The id of the latest thinking block (null before the first). */
  readonly thinkingId: string | null;
}

/** The type of an output item: "text", "thinking" or "structured". */
export type ItemType = OutputItem["type"];
/** What `ValidationOutputTransformer` requires of an output. */
export interface ValidationOptions {
  /** The item types the output must hold (a stream's events count by their base type: `response` is "text"). */
  requiredTypes: ItemType[];
  /** "all" (default) or "any". */
  mode?: "all" | "any";
}

/** Throws VALIDATION_FAILED when required item types are missing (on transform, or on finish for streams). */
export class ValidationOutputTransformer extends OutputTransformer {
  constructor(options: ValidationOptions & ListenerOptions);
}

/**
 * Transformers applied in order: events released by one feed the next. A chain of built-in
 * transformers runs as one engine in the core (one trip into wasm per chunk); a chain with a
 * transformer written in JS runs each member on its own.
 */
export class OutputTransformerChain extends OutputTransformer {
  constructor(transformers: OutputTransformer[], options?: ListenerOptions);
  /** A chain of the transformers the configs describe (names, `{type, kwargs}` objects or configs), in order. */
  static fromConfigs(configs: OutputTransformerConfigInput[], options?: ListenerOptions): OutputTransformerChain;
  /** The chain's members, in order. */
  readonly transformers: OutputTransformer[];
}

/**
 * `cited_answer` reads a cited answer's JSON (`{segments: [{text, citations}]}`, what
 * `enforce` "schema" or "tool" asks for) as marked text and citation events; it runs inside a
 * decoder (`ProviderBodyDecoder({transformers})`), and the invokers put it there themselves.
 */
export type TransformerType =
  | "identity"
  | "json"
  | "think_tag"
  | "event_filter"
  | "validation"
  | "citations"
  | "cited_answer";
/** A type name (snake_case or camelCase), a `{type, kwargs}` object, or a config. */
export type OutputTransformerConfigInput =
  | TransformerType
  | "thinkTag"
  | "eventFilter"
  | {
    /** A transformer type name (snake_case or camelCase). */
    type: string;
    /** The transformer's options, as its constructor takes them (camelCase keys); default none. */
    kwargs?: Record<string, unknown>;
  }
  | OutputTransformerConfig;

/** A transformer described as data. */
export class OutputTransformerConfig {
  constructor(type: string, kwargs?: Record<string, unknown>);
  /** The transformer's type, in canonical (snake_case) form. */
  readonly type: TransformerType;
  /** The transformer's options (camelCase keys, as its constructor takes them). */
  readonly kwargs: Record<string, unknown>;
  /** `IdentityOutputTransformer` as data. */
  static identity(): OutputTransformerConfig;
  /** `JSONOutputTransformer` as data. */
  static json(): OutputTransformerConfig;
  /** `ThinkTagOutputTransformer` with these options, as data. */
  static thinkTag(options?: ThinkTagOptions): OutputTransformerConfig;
  /** `EventFilterOutputTransformer` keeping these base types, as data. */
  static eventFilter(eventTypes: string[]): OutputTransformerConfig;
  /** `ValidationOutputTransformer` with these options, as data. */
  static validation(options: ValidationOptions): OutputTransformerConfig;
  /** The streaming citation parser (builds a CitationParser). */
  static citations(options?: CitationOptions): OutputTransformerConfig;
  /** Checks a config and returns it in canonical form; unknown types throw UNKNOWN_TRANSFORMER. */
  static fromConfig(config: OutputTransformerConfigInput): OutputTransformerConfig;
  /** A new transformer of this type with these options. */
  build(): OutputTransformer;
  /** The config as plain data, `{type, kwargs}` (what `JSON.stringify` writes). */
  toJSON(): {
    /** The transformer's type (snake_case). */
    type: TransformerType;
    /** Its options. */
    kwargs: Record<string, unknown>;
  };
}

// ---- citations ----------------------------------------------------------------------------

/** `[1]` bracket (default; also `[1, 2]`, `[1-3]`, `[^1]`), `(1)` paren, `{1}` curly, `^1` caret. */
export type MarkerStyle = "bracket" | "paren" | "curly" | "caret";
/**
 * When a sentence must cite: "required", every sentence ends with one or more markers (then
 * its `.`, `!` or `?`); "quotes_only", a quoted span is followed by a marker; "auto", markers
 * are optional. Under every policy a marker must name a source.
 */
export type Policy = "required" | "quotes_only" | "auto";

/** How markers are read. */
export interface CitationOptions {
  /** The markers the model writes (default "bracket"). */
  markerStyle?: MarkerStyle;
  /** How many sources the model was given: ids beyond it are invalid (in paren style, not citations: years). */
  sourceCount?: number;
}

/**
 * A citation: a marker citeflow found in the text (`[1]`), or one of a provider's own
 * citations (`marker` ""), with where it sits in the answer.
 */
export interface Citation {
  /**
   * 1-based source position as written; see `valid`. 0 (with `valid` false) for an id that names
   * no source: one too large for 32 bits, or, in a cited answer's JSON (`cited_answer`), any id
   * that is not a whole number (`-1`, `1.5`, `1e300`, `true`, `null`, a string, an array): its
   * `marker` shows it as written (`[-1]`, `["x"]`), or as `[?]` where that text would read as
   * another marker (`[[1]]`, caret `^1.5`); a segment's ids past its 64th distinct one are one `[…]`.
   */
  sourceId: number;
  /** The marker group as written, e.g. `[1, 2]` (shared by each id of the group). */
  marker: string;
  /** UTF-16 offsets: `text.slice(...span) === marker`. */
  span: [start: number, end: number];
  /**
   * 1 ≤ sourceId ≤ sourceCount. A provider's own citation: whether it names a source (a
   * document or search result index, or an http(s) `url`); false when all it gave is a
   * `rawUrl`, or nothing.
   */
  valid: boolean;
  /** The passage the provider says supports the claim, when it says so. */
  citedText?: string;
  /** Where `citedText` sits in the source, when the provider says so (in the provider's units: see `location`). */
  sourceSpan?: [start: number, end: number];
  /** The cited document's (or web page's) title, when the provider gives it. */
  documentTitle?: string;
  /**
   * A cited web page (a provider's web search citation); `sourceId` then numbers the answer's
   * distinct URLs. Only ever an absolute `http:` or `https:` URL (the rule by which
   * citeflow's own HTML links a URL), so a UI may link it as it is; any other value the
   * provider sent is in `rawUrl`.
   */
  url?: string;
  /**
   * A URL (or search result source) the provider sent that is not an http(s) URL
   * (`javascript:…`, `data:…`, a relative path, an identifier): kept as sent, for display or
   * logging only; never link or fetch it. Such a citation has no `url` and takes no number
   * among the answer's pages: unless an index named its source, `sourceId` is 0 and `valid`
   * false.
   */
  rawUrl?: string;
  /**
   * A provider's own citation (`marker` is "" and `span` is the cited answer text): its kind as
   * the provider names it, which says what `sourceSpan` counts.
   */
  location?:
    | "char_location"
    | "page_location"
    | "content_block_location"
    | "search_result_location"
    | "web_search_result_location"
    | "url_citation"
    | (string & {});
  /**
   * A provider's own citation (with `location`): what `span` covers in the answer text, which
   * differs by provider. `"claim"`: the text the source supports (Anthropic's cited block,
   * Gemini's grounded segment, Cohere's cited text); `"link"`: a link the provider inserted
   * (OpenAI's and xAI's `url_citation`s span the inline `([site](url))`); `"marker"`: a marker
   * the model wrote (`[1]` in a Perplexity answer); `"point"`: nothing, an empty span where the
   * provider placed the reference (Mistral's `reference` chunks). Absent on a marker citeflow's
   * parser found: its span is the marker.
   */
  covers?: "claim" | "link" | "marker" | "point";
}

/**
 * One source a provider's answer rests on (a `sources` event's value holds them all, once per
 * answer, after the answer text; a whole answer has them as `sources`). Its citations name it
 * by `sourceId`.
 */
export interface ProviderSource {
  /** The number this answer's citations name it by (1-based, in order of first appearance). */
  sourceId: number;
  /** The provider's name for this kind of source (`web`, `retrievedContext`, `document`, `search_result`, …). */
  kind: string;
  /** An absolute http(s) URL, safe to link (see `Citation.url`). */
  url?: string;
  /** Any other URL value the provider sent: for display only, never link or fetch it. */
  rawUrl?: string;
  /** The source's title, when the provider gives one. */
  title?: string;
  /** The provider's own id of the source (a document or file id). */
  providerId?: string;
  /** A date the provider gives (a search result's publication date), as sent. */
  date?: string;
  /** A passage of the source the provider sent with it. */
  snippet?: string;
}

/** Markers in a whole text, skipping code, markdown links and URLs. */
export function parseCitations(text: string, options?: CitationOptions): Citation[];
/** Each run of 2+ whitespace-separated markers names each id once, in first-appearance order. */
export function deduplicateAdjacentCites(text: string, options?: { markerStyle?: MarkerStyle }): string;

/** The verdict on one sentence of a checked text. */
export interface SentenceCheck {
  /** Where the sentence is in the text: UTF-16 offsets, `text.slice(...span)`. */
  span: [start: number, end: number];
  /** The sentence. */
  text: string;
  /** Every citation in the sentence, valid or not. */
  citations: Citation[];
  /** Whether the sentence meets the policy and each of its markers names a source. */
  ok: boolean;
  /** Why not, in words, when `ok` is false; absent otherwise. */
  problem?: string;
}
/** The verdict on a whole text, sentence by sentence. */
export interface PolicyReport {
  /** The policy checked. */
  policy: Policy;
  /** Whether every sentence is ok. */
  ok: boolean;
  /** Each sentence, in order. */
  sentences: SentenceCheck[];
}
/** Per sentence: does the policy hold, and does every marker name a source? */
export function checkPolicy(text: string, options?: CitationOptions & { policy?: Policy }): PolicyReport;
/** Abbreviation-aware sentence splitting. */
export function splitSentences(text: string): {
  /** Where the sentence is in the text: UTF-16 offsets, `text.slice(...span)`. */
  span: [start: number, end: number];
  /** The sentence. */
  text: string;
}[];

/** What `citationGrammar` enforces. */
export interface GrammarOptions {
  /** How many sources the model was given: markers name 1 to this. */
  sourceCount: number;
  /** The policy the grammar enforces (default "required"). */
  policy?: Policy;
  /** The markers the grammar writes (default "bracket"). */
  markerStyle?: MarkerStyle;
  /** Bound on a sentence's (or quote's) content; default 240. */
  maxContentChars?: number;
  /** Default "gbnf"; "json_schema" returns the schema as JSON text. */
  format?: "gbnf" | "regex" | "json_schema";
  /**
   * At most this many sentences (1–1000; the "required" policy, or the schema's segments), so
   * a small model finishes instead of running to maxTokens.
   */
  maxSentences?: number;
  /** At most this many markers after a sentence (1–1000; citations of a segment). */
  maxCitesPerSentence?: number;
}
/** A grammar for constrained decoding that enforces the policy; zero sources throws NO_SOURCES. */
export function citationGrammar(options: GrammarOptions): string;

/** Finds markers in the answer (`response` events) as it streams; a `citation` event (value: Citation) follows each. */
export class CitationParser extends OutputTransformer {
  constructor(options?: CitationOptions & ListenerOptions);
  /** Whole outputs gain `citations` over their text items. */
  transform(output: LMOutput): LMOutput & {
    /** The markers of the text items, `span` into the text items joined. */
    citations: Citation[];
  };
}

// ---- references (the CSL module, loaded on first use) ---------------------------------------

import type { BundledStyle, CslItem, Reference, RenderOptions, SourceInput } from "citeflow/csl";
export type { BundledStyle, CslDate, CslItem, CslName, Reference, RenderOptions, SourceInput } from "citeflow/csl";

/** The reference list of the cited sources; loads "citeflow/csl" on first use. */
export function renderReferences(
  sources: SourceInput[],
  citations?: ({ sourceId: number } | number)[] | null,
  options?: RenderOptions,
): Promise<Reference[]>;
/** The names of the bundled styles (loads "citeflow/csl" on first use). */
export function bundledStyleNames(): Promise<BundledStyle[]>;
/**
 * Where `renderReferences` loads the CSL wasm module from, for a bundler that does not emit it
 * beside the package's code (esbuild: `import cslWasmUrl from "citeflow/citeflow_csl_bg.wasm"`
 * with a file loader): a URL, `Response`, bytes or compiled `WebAssembly.Module`, as `init`
 * takes. Call it before the first `renderReferences`/`bundledStyleNames` (later: INVALID_OPTION).
 */
export function setCslWasmUrl(source: RequestInfo | URL | Response | BufferSource | WebAssembly.Module): void;

// ---- the orchestrator -----------------------------------------------------------------------

/** One message of a conversation as Citeformer sends it. */
export interface ChatMessage {
  /** Who speaks: the system instructions, the user, or the model. */
  role: "system" | "user" | "assistant";
  /** The message text. */
  content: string;
}
/** What Citeformer passes to the model besides the messages. */
export interface CiteRequestOptions {
  /** GBNF grammar of the policy, for servers that constrain decoding (absent with enforce "prompt"). */
  grammar?: string;
  /** The call's citation policy. */
  policy: Policy;
  /** The markers the answer is to use. */
  markerStyle: MarkerStyle;
  /** How many sources the prompt numbers. */
  sourceCount: number;
  /** How the citations are enforced; a built invoker picks its provider's mechanism. */
  enforce: Enforce;
}
/**
 * How citations are enforced: "auto" (the provider's own: a GBNF grammar for
 * openai-compatible servers, structured outputs for openai and openrouter, a forced tool for
 * anthropic), one of those by name, or "prompt" (the rule in the prompt alone).
 */
export type Enforce = "auto" | "grammar" | "schema" | "tool" | "prompt";
/** Any model: `invoke` returns a string or an LMOutput; `stream`, if present, yields strings or events. */
export interface LMInvokerLike {
  /** The whole answer to the messages: its text, or an LMOutput (sync or async). */
  invoke(messages: ChatMessage[], options: CiteRequestOptions): Promise<string | LMOutput> | string | LMOutput;
  /**
   * The answer as it streams, used by `Citeformer.stream` when present: an async iterable, or a
   * web `ReadableStream` (read through its reader, so one without async iteration will do).
   */
  stream?(
    messages: ChatMessage[],
    options: CiteRequestOptions,
  ): AsyncIterable<LMStreamItem> | ReadableStreamLike<LMStreamItem>;
}
/**
 * One item of a model's stream as Citeformer reads it: answer text, an event (`response`
 * text, `thinking`, a `usage` event), or `{usage}` (token counts of a model of your own).
 */
export type LMStreamItem = EventInput | {
  /** The call's token counts. */
  usage: TokenUsage;
};
/**
 * A stream citeflow reads through `getReader()` alone: any web `ReadableStream`, whether or
 * not it (or the TypeScript `lib` in use) has async iteration.
 */
export interface ReadableStreamLike<T> {
  /** A reader that locks the stream; citeflow reads it to the end or cancels it. */
  getReader(): ReadableStreamDefaultReader<T>;
}
/** A source of a cited answer: the text the model is given, numbered, and what its reference is made from. */
export interface Source {
  /** The text the model reads (and verification judges against). */
  content?: string;
  /** A CSL-JSON item, or retrieval metadata (file_name, file_url, …) that `toCslItem` maps. */
  metadata: import("citeflow/csl").CslItem | Record<string, unknown>;
}

/**
 * How far `premise` (a source's content) supports `hypothesis` (a sentence of the answer, its
 * markers removed): a score from 0 (not at all) to 1 (fully), sync or async.
 */
export type Judge = (premise: string, hypothesis: string) => number | Promise<number>;
/** What `verify` found: whether each citation names a source that supports its sentence, and uncited sentences a source supports. */
export interface VerifyReport {
  /** Supported citations / citations checked (1 when there are none). */
  supportRate: number;
  /** How many citations were checked: every citation of the answer. */
  citationsChecked: number;
  /** The ids of citations that name no source, in order. */
  missingSources: number[];
  /** Each citation's verdict, in the order of the result's `citations`. */
  perCitation: {
    /** The citation's index in the result's `citations`. */
    citationIndex: number;
    /** The source it names. */
    sourceId: number;
    /** Whether that source exists (1 ≤ sourceId ≤ the number of sources). */
    exists: boolean;
    /** The judge's score for the cited source and the citation's sentence (0 when the source does not exist). */
    entailmentScore: number;
    /** The source exists and its score is at least the threshold. */
    supported: boolean;
  }[];
  /** Each sentence without a citation that a source supports (score at least the threshold), once per such source. */
  uncitedButEntailed: {
    /** Where the sentence is in the answer: UTF-16 offsets, `text.slice(...span)`. */
    span: [start: number, end: number];
    /** The source that supports it (1-based). */
    candidateSourceId: number;
    /** The judge's score for that source and the sentence. */
    entailmentScore: number;
  }[];
}

/** A cited answer: its text, citations and references, checkable against its sources with `verify`. */
export class GenerationResult {
  /** The version of this shape as `toJSON` writes it; it changes when the shape does. */
  readonly schemaVersion: 3;
  /** The answer, markers verbatim, reasoning removed. */
  readonly text: string;
  /** The answer's markers, in order, with spans into `text`; a provider's own citations too. */
  readonly citations: Citation[];
  /** The reference list of the cited sources, in the style's order. */
  readonly references: Reference[];
  /** The sources of the call, as given. */
  readonly sources: Source[];
  /** The call's token counts; null when the model reported none. */
  readonly usage: TokenUsage | null;
  /**
   * Existence, support and coverage; default judge: the offline lexical one. A score counts
   * as support from `threshold` on (0 to 1; absent or null: 0.5).
   */
  verify(options?: {
    /** Scores a source's content against a sentence (default: `lexicalJudge`). */
    judge?: Judge;
    /** The score from which a source counts as supporting a sentence (0 to 1; default 0.5). */
    threshold?: number | null;
  }): Promise<VerifyReport>;
  /** The result as plain data (what `JSON.stringify` writes). */
  toJSON(): {
    /** The version of this shape. */
    schemaVersion: 3;
    /** The answer. */
    text: string;
    /** Its citations. */
    citations: Citation[];
    /** Its references. */
    references: Reference[];
    /** Its sources. */
    sources: Source[];
    /** Its token counts, or null. */
    usage: TokenUsage | null;
  };
}

/**
 * A cited answer as it streams: `for await` gives the answer text piece by piece (reasoning
 * removed), and `finalize()` the whole GenerationResult.
 */
export class StreamingResult implements AsyncIterable<string> {
  /** The answer text so far. */
  readonly text: string;
  /** The sources of this call, as checked. */
  readonly sources: Source[];
  /** The citation style of the references. */
  readonly style: string;
  /** The answer text, piece by piece as the model writes it; iterate it once. */
  [Symbol.asyncIterator](): AsyncIterator<string>;
  /** Reads the rest if needed; always the same result. */
  finalize(): Promise<GenerationResult>;
}

/** A Citeformer's model and the defaults of its calls. */
export interface CiteformerOptions {
  /** The model: a built invoker (`buildLMInvoker`) or any object with `invoke` (and `stream`). */
  lmInvoker: LMInvokerLike;
  /** Default "apa-7". */
  style?: BundledStyle | (string & {});
  /** Default "required". */
  citationPolicy?: Policy;
  /** Default "bracket". */
  markerStyle?: MarkerStyle;
  /**
   * Each source's CSL-JSON item for the reference list. Default `cslItemOf(source.metadata)`:
   * CSL-JSON metadata as it is, retrieval metadata (file_name, file_url, …) mapped.
   */
  toCslItem?: (source: Source, index: number) => Record<string, unknown>;
  /**
   * Runs of adjacent markers in the answer ("[2] [2] [1] [2]") keep each id once, in the
   * result's text, citations and verification. Default true.
   */
  deduplicateCites?: boolean;
  /**
   * How calls enforce their citations (default "auto"). A mechanism the model's provider has
   * not is INVALID_OPTION here. A schema or tool answer is read back, streamed or whole, as
   * marked text in `markerStyle` with live `citation` events. With "auto", a provider that
   * refuses its mechanism (HTTP 400) is asked once more with the prompt rule alone.
   */
  enforce?: Enforce;
}
/** One call of Citeformer: the question, its sources, and what differs from the Citeformer's defaults. */
export interface GenerateArgs {
  /** The user's question. */
  prompt: string;
  /** The sources the answer may cite, numbered from 1 in this order. */
  sources: Source[];
  /** This call's citation policy (default: the Citeformer's). */
  policy?: Policy;
  /** This call's marker style (default: the Citeformer's); the prompt, grammar and parsing follow it. */
  markerStyle?: MarkerStyle;
  /** This call's enforcement (default: the Citeformer's). */
  enforce?: Enforce;
  /**
   * The model's own options for this call (temperature, maxTokens, signal, …), passed to its
   * `invoke`/`stream` beside Citeformer's; a `grammar` here replaces the policy's grammar.
   */
  modelOptions?: InvokeOptions & {
    /** A GBNF grammar of your own, sent in place of the policy's. */
    grammar?: string;
  };
}

/**
 * Cited answers end to end: numbers the sources in the prompt, asks the model with the
 * citations enforced, parses the answer's markers, and renders the references in a CSL style.
 */
export class Citeformer {
  constructor(options: CiteformerOptions);
  /** The citation style of the references (a bundled style's name, or CSL XML). */
  readonly style: string;
  /** The default policy of calls. */
  readonly policy: Policy;
  /** The default marker style of calls. */
  readonly markerStyle: MarkerStyle;
  /** The default enforcement of calls. */
  readonly enforce: Enforce;
  /** The whole cited answer: one model call, then citations parsed and references rendered. */
  generate(args: GenerateArgs): Promise<GenerationResult>;
  /** The cited answer as it streams (the model's `stream`, or its `invoke` when it has none). */
  stream(args: GenerateArgs): StreamingResult;
  /** The messages and options a call would send. */
  request(args: GenerateArgs): {
    /** The system message (numbering the sources, stating the rule) and the user's prompt. */
    messages: ChatMessage[];
    /** The citation options the model is called with. */
    options: CiteRequestOptions;
  };
  /**
   * The result for an answer text you streamed yourself (with `request()`'s messages): its
   * citations parsed and the references rendered in this Citeformer's style.
   */
  result(text: string, sources: Source[], usage?: TokenUsage | null): Promise<GenerationResult>;
}

/** A Citeformer request for the AI SDK: the conversation (a prompt, or messages as given) and the call's citation options. */
export type AiSdkRequestArgs<M> =
  & {
    /** The sources the instructions number from 1. */
    sources: Source[];
    /** The citation policy the instructions state (default "required"). */
    policy?: Policy;
    /** The markers the instructions ask for (default "bracket"). */
    markerStyle?: MarkerStyle;
    /** Only "prompt": the AI SDK enforces citations by the instructions alone. */
    enforce?: "prompt";
  }
  & ({
    /** The user's question, sent as one user message. */
    prompt: string;
    /** Not with `prompt`. */
    messages?: never;
  } | {
    /** The conversation, sent as given (no system message among them). */
    messages: M[];
    /** Not with `messages`. */
    prompt?: never;
  });
/**
 * What `streamText`/`generateText` of AI SDK 7 take for a cited answer, no invoker needed:
 * `instructions`, Citeformer's system text numbering the sources (AI SDK 7 refuses a system
 * message among `messages`), and `messages`: the prompt as one user message, or the messages
 * given. Citations are enforced by the prompt's rule ("prompt"; any other `enforce` is
 * INVALID_OPTION). Read the answer with `citeflowMiddleware` of "citeflow/ai-sdk" given the same
 * `sources` and `markerStyle`.
 */
export function aiSdkRequest(args: { prompt: string; messages?: never } & AiSdkRequestArgs<never>): {
  /** Citeformer's system text: the numbered sources and the citation rule. */
  instructions: string;
  /** The prompt as one user message. */
  messages: {
    /** Always "user". */
    role: "user";
    /** The prompt. */
    content: string;
  }[];
};
/** The same for a conversation: its messages are passed on as given. */
export function aiSdkRequest<M>(args: AiSdkRequestArgs<M>): {
  /** Citeformer's system text: the numbered sources and the citation rule. */
  instructions: string;
  /** The messages given. */
  messages: M[];
};

/** The offline judge: the share of the hypothesis's content words found in the premise. */
export function lexicalJudge(premise: string, hypothesis: string): number;
/** Safe HTML: each marker a link to `#ref-N` (or `idPrefix`), then the reference list. */
export function renderCitedHtml(
  result: Pick<GenerationResult, "text" | "citations" | "references">,
  options?: {
    /** The prefix of the reference entries' ids (default "ref-": links go to `#ref-N`). */
    idPrefix?: string;
  },
): string;

// ---- server-sent events ----------------------------------------------------------------------

/** One server-sent event, as `SSEDecoder` gives it. */
export interface SSEMessage {
  /** The `event:` name; absent means "message". */
  event?: string;
  /** `data:` lines joined with "\n". */
  data: string;
  /** The last `id:` seen. */
  id?: string;
  /** A `retry:` the server asked for, in ms. */
  retry?: number;
}

/** Incremental, strict SSE decoding (CRLF/LF/CR, split lines and characters, BOM, comments, bounded lines). */
export class SSEDecoder {
  /** `maxLineBytes` (default 1 MiB) bounds one line; `maxEventBytes` (default 8 MiB) one event's data (SSE_EVENT_TOO_LARGE). */
  constructor(options?: {
    /** The longest line taken, in bytes (default 1 MiB): longer is SSE_LINE_TOO_LONG. */
    maxLineBytes?: number;
    /** The most data one event holds, in bytes (default 8 MiB): more is SSE_EVENT_TOO_LARGE. */
    maxEventBytes?: number;
  });
  /** Feeds the next bytes (UTF-8) or text of the stream; returns the events it completes. */
  push(chunk: Uint8Array | ArrayBuffer | ArrayBufferView | string): SSEMessage[];
  /** Throws SSE_TRUNCATED if the stream ended inside an event. */
  finish(): SSEMessage[];
  /** A web TransformStream of a new decoder with the same limits: bytes or text in, events out. */
  transformStream(): TransformStream<Uint8Array | string, SSEMessage>;
}

/** The providers whose streams citeflow decodes, by the name of their wire format. */
export type StreamFormat =
  | "openai"
  | "openrouter"
  | "openai-compatible"
  | "anthropic"
  | "google"
  | "openai-responses"
  | "perplexity"
  | "cohere"
  | "mistral"
  | "xai";
/**
 * Provider SSE messages → events: response/thinking deltas, Anthropic blocks, the providers' own
 * citations (`citation` events: Anthropic's when the cited block ends, OpenAI's `url_citation`
 * annotations), `usage` events, and a forced tool's input as `structured_delta` text pieces
 * then one `structured` event.
 */
export class ProviderStreamDecoder {
  constructor(format: StreamFormat);
  /**
   * The message is framed again as SSE text for the engine, so it is held to `SSEDecoder`'s
   * default limits (a data line up to 1 MiB, the data up to 8 MiB: SSE_LINE_TOO_LONG,
   * SSE_EVENT_TOO_LARGE), CRLF and CR in `data` read as LF, and a line break in `event` or `id`
   * is refused (INVALID_EVENT).
   */
  push(message: SSEMessage): Event[];
  /** Throws STREAM_TRUNCATED when the provider never marked the end. */
  finish(): Event[];
  /** Why the model stopped ("stop", "length", "end_turn", …), once it said so; null before. */
  readonly finishReason: string | null;
  /** A web TransformStream of a new decoder of the same format: messages in, events out. */
  transformStream(): TransformStream<SSEMessage, Event>;
}
/** What a body decoder runs on the events it decodes. */
export interface ProviderBodyDecoderOptions {
  /**
   * Output transformers run inside the decoder, in order: configs or built-in transformers
   * (ThinkTag, CitationParser, EventFilter, JSON, Validation, Identity, or a chain of them).
   * A transformer written in JS is refused (INVALID_OPTION): pipe the events through it.
   */
  transformers?: Array<OutputTransformerConfigInput | OutputTransformer | OutputTransformerChain>;
}
/**
 * Response body bytes → events: SSE, provider decoding and the given transformers in one
 * step per network chunk (the core's streaming engine).
 */
export class ProviderBodyDecoder {
  constructor(format: StreamFormat, options?: ProviderBodyDecoderOptions);
  /** Feeds the next bytes (UTF-8) or text of the body; returns the events they complete. */
  push(chunk: Uint8Array | ArrayBuffer | ArrayBufferView | string): Event[];
  /** Throws SSE_TRUNCATED / STREAM_TRUNCATED when the body ended early. */
  finish(): Event[];
  /** Why the model stopped ("stop", "length", "end_turn", …), once it said so. */
  readonly finishReason: string | null;
  /** A web TransformStream of a new decoder with the same format and transformers: bytes in, events out. */
  transformStream(): TransformStream<Uint8Array | string, Event>;
}
/** A streamed response body (bytes) as events: `decodeProviderStream(res.body, "openai", {transformers})`. */
export function decodeProviderStream(
  body: ReadableStream<Uint8Array>,
  format: StreamFormat,
  options?: ProviderBodyDecoderOptions,
): ReadableStream<Event>;
/**
 * The citations and sources of a Gemini answer's `groundingMetadata` (as Gemini sends it, or as
 * the AI SDK's `providerMetadata.google.groundingMetadata` holds it) for the answer `text` (its
 * text parts joined, thought summaries excluded). Gemini's segments count UTF-8 bytes; the
 * citations' spans count UTF-16 code units of `text` (`text.slice(start, end)`). One citation
 * per support and grounding chunk, source N being `groundingChunks[N - 1]`. Runs on the full
 * streaming module. Metadata not of Gemini's shape is INVALID_PROVIDER_DATA.
 */
export function groundingCitations(
  text: string,
  groundingMetadata: unknown,
): {
  /** One citation per grounding support and chunk, `span` into `text`. */
  citations: Citation[];
  /** The grounding chunks as sources, source N being `groundingChunks[N - 1]`. */
  sources: ProviderSource[];
};

// ---- model invokers ---------------------------------------------------------------------------

/** How an invoker reaches its provider. */
export interface InvokerOptions {
  /** The provider's API key (an openai-compatible server may need none); kept out of errors. */
  apiKey?: string;
  /** As the providers' SDKs mean it: OpenAI-style bases end in /v1. Required for openai-compatible. */
  baseUrl?: string;
  /**
   * Extra request headers, as `fetch` takes them (a plain object, a `Headers` object or
   * `[name, value]` pairs); each replaces the provider's header of the same name. The values of
   * credential headers (`authorization`, `proxy-authorization`, `x-api-key`, `api-key`,
   * `cookie`) are kept out of errors as the key is.
   */
  headers?: Record<string, string> | Headers | [string, string][];
  /** Default: the runtime's fetch. */
  fetch?: typeof fetch;
  /**
   * Per attempt, until the answer (for streams: until the response starts). Default 60 000;
   * at most 2 147 483 647 (setTimeout's range), otherwise INVALID_OPTION.
   */
  timeoutMs?: number;
  /** Retries on 408/409/429/5xx and network errors, with backoff and Retry-After. Default 2. */
  maxRetries?: number;
  /**
   * The largest whole (non-streamed) answer read, in bytes as decoded (after gzip). Default
   * 33 554 432 (32 MiB); past it the read stops: RESPONSE_TOO_LARGE. Error answers are read to
   * 64 KiB; a stream is bounded per event (8 MiB, SSE_EVENT_TOO_LARGE).
   * Redirects: same-origin 307/308 are followed (at most 5); any other is REDIRECT_REFUSED, so
   * credentials never reach another origin (browsers hide redirect targets: all are refused).
   */
  maxResponseBytes?: number;
  /** Applied to whole answers and to streams. */
  outputTransformers?: OutputTransformerConfigInput[];
  /** Tried in order when the call fails, each with the call's own input and options. */
  fallbackLms?: LMFallback[];
}

/** The options of one model call. */
export interface InvokeOptions {
  /** Cancels the call (the request, a retry's wait, or a running stream). */
  signal?: AbortSignal;
  /**
   * Structured output: OpenAI response_format json_schema, Anthropic a forced tool. An answer
   * that is not JSON (a cut one, say) is INVALID_OUTPUT, streamed or whole.
   */
  responseSchema?: object;
  /** Sampling temperature, as the provider takes it (default: the provider's). */
  temperature?: number;
  /** The most tokens the answer may have (default: the provider's). */
  maxTokens?: number;
  /** Ask for the answer's token log-probabilities (OpenAI-style); the answer's `logprobs` holds them. */
  logprobs?: boolean;
  /** Alternatives per token (0–20, OpenAI-style); implies `logprobs`. The answer's `logprobs` holds them. */
  topLogprobs?: number;
}

/** A language model behind a provider's HTTP API, as `buildLMInvoker` makes it. */
export interface LMInvoker {
  /** The model id it was built with (`openai/gpt-4o-mini`). */
  readonly modelId: string;
  /**
   * Citeformer's options are accepted too: with `enforce`, the citations are enforced with the
   * provider's mechanism and a schema or tool answer comes back as marked text (with
   * `citations`, and live `citation` events in a stream); without it, the grammar goes to
   * OpenAI-compatible servers. A provider's own citations (Anthropic's, OpenAI's
   * `url_citation`) come back as `citations` of a whole answer and `citation` events.
   */
  invoke(
    input: string | ChatMessage[],
    options?: InvokeOptions & Partial<CiteRequestOptions>,
  ): Promise<
    LMOutput & {
      /** Why the model stopped, as the provider says it. */
      finishReason?: string;
      /** The provider's own citations, or a cited answer's. */
      citations?: Citation[];
    }
  >;
  /**
   * The answer as it streams: text, reasoning and block events, `citation` events, and a
   * `usage` event. Output transformers of the invoker run on it.
   */
  stream(input: string | ChatMessage[], options?: InvokeOptions & Partial<CiteRequestOptions>): ReadableStream<Event>;
}

/**
 * A model tried when an invoker's call fails (another built invoker, or your own): its answer
 * is returned as the invoker's own.
 */
export interface LMFallback {
  /** Called with the failed call's input and options; its answer is the call's answer. */
  invoke(
    input: string | ChatMessage[],
    options: InvokeOptions & Partial<CiteRequestOptions>,
  ): Promise<LMOutput> | LMOutput;
  /**
   * Tried, in order, when a stream fails before its first event (a fallback without it is
   * skipped): the first whose stream's first read does not throw goes on as the stream.
   */
  stream?(
    input: string | ChatMessage[],
    options?: InvokeOptions & Partial<CiteRequestOptions>,
  ): ReadableStreamLike<Event>;
}

/** Errors from a provider carry where they came from; the API key is never in them. */
export interface ProviderError extends CiteflowError {
  /** Always "CiteflowError". */
  name: "CiteflowError";
  /** PROVIDER_ERROR (the provider answered with an error), TIMEOUT, or NETWORK_ERROR (no answer). */
  code: "PROVIDER_ERROR" | "TIMEOUT" | "NETWORK_ERROR";
  /** The provider called (`openai`, `anthropic`, …). */
  provider: string;
  /** HTTP status (0 for timeouts and network errors). */
  status: number;
  /**
   * The provider's own error code (`invalid_api_key`, …) when it sent one; for a timeout or a
   * network failure, `code` again; otherwise null.
   */
  providerCode: string | null;
  /** The provider's error message (or the network failure's cause), any key removed. */
  providerMessage: string;
  /** Whether the failure is of a kind that is retried (408, 409, 429, 5xx, a timeout or network error). */
  retryable: boolean;
  /** How many attempts were made, the first included. */
  attempts: number;
}

/** `openai/<model>`, `anthropic/<model>`, `openrouter/<vendor>/<model>`, `openai-compatible/<model>`. */
export function buildLMInvoker(modelId: string, options?: InvokerOptions): LMInvoker;

/** An embedding model behind a provider's HTTP API, as `buildEMInvoker` makes it. */
export interface EMInvoker {
  /** The model id it was built with. */
  readonly modelId: string;
  /** One text → one vector; a list → vectors in the same order (batched, retried). */
  invoke(texts: string, options?: CallOptions): Promise<Float32Array>;
  /** The vectors of a list of texts, in the same order (batched, retried). */
  invoke(texts: string[], options?: CallOptions): Promise<Float32Array[]>;
}
/** The options of one call that only takes cancelling. */
export interface CallOptions {
  /** Cancels the call. */
  signal?: AbortSignal;
}
/** OpenAI-style `/embeddings` (`openai/`, `openrouter/`, `openai-compatible/` with baseUrl). */
export function buildEMInvoker(
  modelId: string,
  options?: Omit<InvokerOptions, "outputTransformers" | "fallbackLms"> & { batchSize?: number },
): EMInvoker;

/** A question to a decision model, as `DMQuestion` makes it. */
export type DMQuestionSpec =
  | {
    /** A yes/no question, answered with the probability of yes. */
    type: "noul";
    /** The question, as the model is to read it (text, or data the model takes). */
    instructions: unknown;
    /** What yes and no mean, in words. */
    criteria?: NoulCriteria;
  }
  | {
    /** One of several options, answered with the likeliest. */
    type: "choice";
    /** The question, as the model is to read it. */
    instructions: unknown;
    /** The options: each key is the answer's `choice` when the model picks its description. */
    criteria: Record<string, string>;
  }
  | {
    /** A level on a scale, answered with the likeliest level's index. */
    type: "score";
    /** The question, as the model is to read it. */
    instructions: unknown;
    /** The levels, lowest first (2 to 10 of them for a language model). */
    criteria: string[];
  };
/** A decision model's answer to one question, of the question's type. */
export type DMAnswer =
  | {
    /** The answer to a yes/no question. */
    type: "noul";
    /** The probability of yes, from 0 to 1. */
    noul: number;
  }
  | {
    /** The answer to a choice question. */
    type: "choice";
    /** The key of the option chosen. */
    choice: string;
    /** The chosen option's probability, when the model gives probabilities. */
    confidence?: number;
    /** Each option's probability by key, when the model gives probabilities. */
    probabilities?: Record<string, number>;
  }
  | {
    /** The answer to a score question. */
    type: "score";
    /** The index of the level chosen in the question's levels (0 the lowest). */
    score: number;
    /** The chosen level's probability, when the model gives probabilities. */
    confidence?: number;
    /** The question's levels, when the model repeats them. */
    legend?: string[];
    /** Each level's probability by its index ("0", "1", …), when the model gives probabilities. */
    probabilities?: Record<string, number>;
  };
/** What the answers of a yes/no question mean. */
export interface NoulCriteria {
  /** What the answer yes stands for. */
  true: string;
  /** What the answer no stands for. */
  false: string;
}
/** Makes the questions a decision model takes. */
export const DMQuestion: {
  /** A yes/no question; `criteria` says what yes and no mean. */
  noul(instructions: unknown, criteria?: NoulCriteria): DMQuestionSpec;
  /** A choice among options: keys and what each means. */
  choice(instructions: unknown, criteria: Record<string, string>): DMQuestionSpec;
  /** A score on a scale of levels, lowest first. */
  score(instructions: unknown, levels: string[]): DMQuestionSpec;
};
/** A decision model, as `buildDMInvoker` makes it: questions about a state, answered with probabilities. */
export interface DMInvoker {
  /** The model id it was built with. */
  readonly modelId: string;
  /** Asks every question about `state`; the answers are keyed as the questions are. */
  invoke(
    request: {
      /** What the questions are about (a chunk and a query, say): text or data. */
      state: unknown;
      /** The questions by name. */
      questions: Record<string, DMQuestionSpec>;
    },
    options?: CallOptions,
  ): Promise<{
    /** The model that answered, as its provider names it. */
    model: string;
    /** Each question's answer, by the question's name. */
    answers: Record<string, DMAnswer>;
    /** The call's token counts; null when the provider reported none. */
    usage: TokenUsage | null;
  }>;
}
/**
 * A decision model. `typesafe/<model>` and `openrouter/typesafe/<model>` speak the System One
 * wire format; any other OpenAI-style id (`openai/`, `openrouter/<vendor>/`,
 * `openai-compatible/` with baseUrl) is a language model asked one question per call and
 * answering with one token (Yes/No, an option's letter, a level's digit), its probabilities
 * read from that token's log-probabilities.
 */
export function buildDMInvoker(
  modelId: string,
  options?: Omit<InvokerOptions, "outputTransformers" | "fallbackLms"> & {
    /**
     * The most HTTP requests one `invoke` has in flight at once (a whole number ≥ 1, default
     * 10): a language model is asked one question per request, so 100 questions go 10 at a
     * time; a System One model answers a call's questions in one request. Answers keep the
     * questions' order; after a failed request no waiting one starts.
     */
    maxConcurrency?: number;
  },
): DMInvoker;

// ---- relevance: chunks, filters, reference formatters ------------------------------------------

/** A retrieved piece of a document. `content` must be a non-blank string (INVALID_CHUNK). */
export interface Chunk {
  /** Your id of the chunk (shown by the "id" field of a context config; an LM reference formatter's fallback name). */
  id?: string | number;
  /** The chunk's text. */
  content: string;
  /** What the index holds about the chunk's document (file_name, file_url, title, author, …). */
  metadata?: Record<string, unknown>;
  /** More context to show with the chunk (the "additionalContext" field of a context config). */
  additionalContext?: unknown[];
  /** The retriever's score (the "score" field of a context config); not read otherwise. */
  score?: number;
}

/** How a chunk is shown to a model or embedder (see `ContextConfig`). */
export interface ContextConfigOptions {
  /** Chunk fields to render: "metadata" (default), "content", "id", "additionalContext", "score". */
  fields?: string[];
  /** Metadata keys to include (default: all). */
  metadataKeys?: string[] | null;
  /** Placeholders: {context_json} (default), {metadata_json}, {metadata}, and the field names. Unknown ones throw INVALID_CONTEXT_CONFIG. */
  template?: string;
}
/** What a model or embedder sees of a chunk: the rendered template, or the content when that is blank. */
export class ContextConfig {
  constructor(options?: ContextConfigOptions);
  /** The chunk fields rendered, in order. */
  readonly fields: string[];
  /** The metadata keys included; null for all. */
  readonly metadataKeys: string[] | null;
  /** The template the fields are rendered into. */
  readonly template: string;
  /** The chunk as the model sees it. */
  render(chunk: Chunk): string;
}

/** Which metadata keys hold a chunk's title and URL; default `{ title: "file_name", url: "file_url" }`. */
export interface FormatChunkMetadataMap {
  /** The metadata key of the title (default "file_name"). */
  title?: string;
  /** The metadata key of the URL (default "file_url"). */
  url?: string;
}
/** `[title](url)`, or the title; a missing title falls back to the URL, the id, then the content's first line. */
export function formatChunkAsString(chunk: Chunk, metadataMap?: FormatChunkMetadataMap): string;
/**
 * A source's metadata as a CSL-JSON item. Metadata with a CSL `type` is returned as it is;
 * retrieval metadata is mapped: title (or file_name), URL (url, file_url, source_url, an http(s)
 * `source`), author(s) as literal names, a date (date, published, year, created), publisher,
 * container (journal, site_name), page; type `webpage` for a link without a file, else
 * `document`. Nothing is guessed: what is not understood is left out.
 */
export function cslItemOf(metadata: Record<string, unknown> & { type?: string }): CslItem;
/** "References:\n1. a\n2. b", duplicates once; "" for an empty list. */
export function formatReferencesAsString(items: string[]): string;

/** Cosine similarity of `query` with each vector, computed in wasm (SIMD); zero vectors score 0. Throws INVALID_EMBEDDING. */
export function cosineSimilarities(query: Float32Array | number[], vectors: (Float32Array | number[])[]): Float32Array;

/** One chunk's verdict: `score` is the similarity or probability (null for LM verdicts); `error` says why an LM batch failed. */
export interface ChunkEvaluation<C extends Chunk = Chunk> {
  /** The chunk, your own object. */
  chunk: C;
  /** The cosine similarity or the decision model's probability, from 0 to 1; null for a language model's verdict. */
  score: number | null;
  /** Whether the chunk is kept. */
  kept: boolean;
  /** Why the language-model call of the chunk's batch failed (LMRelevanceFilter: `kept` is then `onFailureKeepAll`); absent otherwise. */
  error?: Error;
}

/** What a relevance filter is asked: which of these chunks help answer the query. */
export interface FilterArgs<C extends Chunk = Chunk> {
  /** The retrieved chunks. */
  chunks: C[];
  /** The user's question. */
  query: string;
  /** Cancels the model calls. */
  signal?: AbortSignal;
}
/** Keeps the chunks that help answer a query: similarity, a language model, or a decision model. */
export interface RelevanceFilter {
  /** The chunks kept, the caller's own objects, in input order. */
  filter<C extends Chunk>(args: FilterArgs<C>): Promise<C[]>;
  /** Every chunk with its score and verdict, in input order. */
  evaluate<C extends Chunk>(args: FilterArgs<C>): Promise<ChunkEvaluation<C>[]>;
}

/** Receives reference events: a function, a WritableStream, or an object with emit(). */
export type EventEmitterLike =
  | ((event: ReferenceEvent) => void | Promise<void>)
  | WritableStream<ReferenceEvent>
  | {
    /** Called with each reference event; what it returns is awaited. */
    emit(event: ReferenceEvent): unknown;
  };

/** What a reference formatter is asked: which of these chunks the answer used. */
export interface FormatArgs<C extends Chunk = Chunk> {
  /** The answer. */
  response: string;
  /** The chunks the answer was written from. */
  chunks: C[];
  /** Receives `reference` events (when `streamable`, the default). */
  eventEmitter?: EventEmitterLike;
  /** Cancels the model calls. */
  signal?: AbortSignal;
}
/** What a reference formatter's `evaluate` is asked: each chunk's verdict for the answer. */
export type EvaluateArgs<C extends Chunk = Chunk> = Omit<FormatArgs<C>, "eventEmitter">;
/** How a reference formatter returns and formats the chunks it keeps. */
export interface ReferenceFormatterOptions {
  /** Return the list as a string (default) or the kept chunks. */
  stringify?: boolean;
  /** Joins the formatted chunks (default formatReferencesAsString); its exceptions reach the caller. */
  formatReferencesFunc?: (items: string[]) => string;
  /** Formats one chunk (default formatChunkAsString); its exceptions reach the caller. */
  formatChunkFunc?: (chunk: Chunk) => string;
  /** Which metadata keys the default `formatChunkFunc` reads the title and URL from. */
  formatChunkMetadataMap?: FormatChunkMetadataMap;
  /** Emit `reference` events when an eventEmitter is given (default true). */
  streamable?: boolean;
}
/** Picks the chunks an answer used, for its reference list. */
export interface ReferenceFormatter {
  /** The reference list of the kept chunks (a string, or the chunks when `stringify` is false), events emitted. */
  format<C extends Chunk>(args: FormatArgs<C>): Promise<string | C[]>;
  /** Another name for `format` (the original Python library's). */
  formatReference<C extends Chunk>(args: FormatArgs<C>): Promise<string | C[]>;
  /** Each chunk's verdict, in input order. */
  evaluate<C extends Chunk>(args: EvaluateArgs<C>): Promise<ChunkEvaluation<C>[]>;
}

/** The invoker options a `fromPreset` / `fromConfig` builds its model with. */
export type InvokerSettings = Pick<
  InvokerOptions,
  "apiKey" | "baseUrl" | "headers" | "fetch" | "timeoutMs" | "maxRetries"
>;
/** An embedding model as the similarity components use it: a built EMInvoker or your own. */
export interface EMLike {
  /** The texts' vectors, in the same order. */
  invoke(texts: string[], options?: CallOptions): Promise<Float32Array[]>;
}
/** A language model as the LM components use it: a built LMInvoker or your own. */
export interface LMLike {
  /** A whole answer to the component's messages, as LMInvoker's `invoke`. */
  invoke: LMInvoker["invoke"];
}
/** A decision model as the DM components use it: a built DMInvoker or your own. */
export interface DMLike {
  /** The answers to the questions, as DMInvoker's `invoke`. */
  invoke: DMInvoker["invoke"];
}

/** How similar a chunk must be, and how it is shown to the embedder. */
export interface SimilarityOptions {
  /** Keep chunks with cosine ≥ threshold; a number in [0, 1], default 0.5. */
  threshold?: number;
  /** How each chunk is shown to the embedder (default: `{"metadata": …}` as JSON, or its content when it has no metadata). */
  contextConfig?: ContextConfig | ContextConfigOptions;
}
/** Embeds the query, then the chunks in one call; keeps cosine ≥ threshold in input order. */
export class SimilarityRelevanceFilter implements RelevanceFilter {
  constructor(emInvoker: EMLike, options?: SimilarityOptions);
  /** The cosine from which a chunk is kept. */
  readonly threshold: number;
  /** The chunks kept, your own objects, in input order. */
  filter<C extends Chunk>(args: FilterArgs<C>): Promise<C[]>;
  /** Every chunk with its cosine similarity to the query and its verdict, in input order. */
  evaluate<C extends Chunk>(args: FilterArgs<C>): Promise<ChunkEvaluation<C>[]>;
}
/** @deprecated use SimilarityRelevanceFilter (warns once). */
export class SimilarityBasedRelevanceFilter extends SimilarityRelevanceFilter {}

/** What the LM relevance filter and reference formatter share: batching, the model's fallbacks, the prompts. */
export interface LMComponentOptions {
  /** Chunks per model call (default 5). */
  batchSize?: number;
  /** Model calls in flight at most, each one HTTP request (default 10). */
  maxConcurrency?: number;
  /** Tried in order when the main LM fails. */
  fallbackLms?: LMLike[];
  /** How each chunk is shown; takes precedence over the deprecated `metadata` and `chunkFormat`. */
  contextConfig?: ContextConfig | ContextConfigOptions;
  /**
   * The system message (default: the preset's). Both templates take the same placeholders: the
   * filter's `{query}`, `{chunks}` (also `{context}`) and `{count}`; the formatter's `{response}`,
   * `{context}` and `{reference_metadata}`. One that shows the chunks needs a `userTemplate` too.
   */
  systemTemplate?: string;
  /** The user message (default: the preset's), with the placeholders of `systemTemplate`. */
  userTemplate?: string;
  /** The answer's JSON schema (default: the preset's); null for servers without structured output. */
  responseSchema?: object | null;
}
/** The LM relevance filter's options. */
export interface LMRelevanceFilterOptions extends LMComponentOptions {
  /** A failed batch keeps all its chunks (default) or none. */
  onFailureKeepAll?: boolean;
  /** @deprecated use contextConfig: metadata keys listed under "Metadata:". */
  metadata?: string[];
  /** @deprecated use contextConfig: a template ({content}, {metadata}, metadata keys) or a function. */
  chunkFormat?: string | ((chunk: Chunk) => string);
}
/** Asks an LM, per batch, `{results: [{explanation, is_relevant}]}`; keeps relevant chunks in input order. */
export class LMRelevanceFilter implements RelevanceFilter {
  constructor(lmInvoker: LMLike, options?: LMRelevanceFilterOptions);
  /** The filter over `buildLMInvoker(modelId, …)`, the invoker settings among the options going to it. */
  static fromPreset(modelId: string, options?: LMRelevanceFilterOptions & InvokerSettings): LMRelevanceFilter;
  /** The same from one object: `modelId`, the options, and `config.responseSchema` (the answer's schema). */
  static fromConfig(config: LMConfig & LMRelevanceFilterOptions & InvokerSettings): LMRelevanceFilter;
  /** The chunks the model finds relevant, your own objects, in input order. */
  filter<C extends Chunk>(args: FilterArgs<C>): Promise<C[]>;
  /** Every chunk with the model's verdict (`score` null), in input order. */
  evaluate<C extends Chunk>(args: FilterArgs<C>): Promise<ChunkEvaluation<C>[]>;
}
/** The model a `fromConfig` builds, and the preset's config. */
export interface LMConfig {
  /** The model id, as `buildLMInvoker` takes it. */
  modelId: string;
  /** The preset's config: `responseSchema` replaces the answer's JSON schema. */
  config?: {
    /** The answer's JSON schema. */
    responseSchema?: object;
  };
}
/** @deprecated use LMRelevanceFilter (warns once). */
export class LMBasedRelevanceFilter extends LMRelevanceFilter {}

/** The options of the decision-model relevance filter and reference formatter. */
export interface DMComponentOptions {
  /** Keep chunks whose `noul` probability ≥ threshold; default 0.5. */
  threshold?: number;
  /** A `noul` question (DMQuestion.noul); its instructions and criteria are asked of each chunk. */
  relevanceQuestion?: DMQuestionSpec;
  /** How each chunk is shown to the model (default: `{"metadata": …}` as JSON, or its content when it has no metadata). */
  contextConfig?: ContextConfig | ContextConfigOptions;
  /** Chunks per call (default 5). */
  batchSize?: number;
  /**
   * HTTP requests in flight at most, for one `filter`/`format` call across all its batches
   * (default 10): one per batch for a System One model (and one per call of a model of your
   * own), one per question for a decision model built on a language model.
   */
  maxConcurrency?: number;
}
/** One decision-model call per batch, one `noul` question per chunk; keeps probability ≥ threshold in input order. */
export class DMRelevanceFilter implements RelevanceFilter {
  constructor(dmInvoker: DMLike, options?: DMComponentOptions);
  /** The filter over `buildDMInvoker(modelId, …)`, the invoker settings among the options going to it. */
  static fromConfig(config: DMConfig & DMComponentOptions & InvokerSettings): DMRelevanceFilter;
  /** The probability from which a chunk is kept. */
  readonly threshold: number;
  /** Chunks per model call. */
  readonly batchSize: number;
  /** HTTP requests in flight at most for one call. */
  readonly maxConcurrency: number;
  /** The chunks kept, your own objects, in input order. */
  filter<C extends Chunk>(args: FilterArgs<C>): Promise<C[]>;
  /** Every chunk with its probability of relevance and its verdict, in input order. */
  evaluate<C extends Chunk>(args: FilterArgs<C>): Promise<ChunkEvaluation<C>[]>;
}
/** The model a decision-model `fromConfig` builds. */
export interface DMConfig {
  /** The model id, as `buildDMInvoker` takes it. */
  modelId: string;
}

declare abstract class BaseReferenceFormatter implements ReferenceFormatter {
  /** The reference list of the kept chunks (a string, or the chunks when `stringify` is false); `reference` events go to `eventEmitter`. */
  format<C extends Chunk>(args: FormatArgs<C>): Promise<string | C[]>;
  /** Another name for `format` (the original Python library's). */
  formatReference<C extends Chunk>(args: FormatArgs<C>): Promise<string | C[]>;
  /** Each chunk's score and verdict for the answer, in input order. */
  evaluate<C extends Chunk>(args: EvaluateArgs<C>): Promise<ChunkEvaluation<C>[]>;
}
/** Every chunk, in order. */
export class NoOpReferenceFormatter extends BaseReferenceFormatter {
  constructor(options?: ReferenceFormatterOptions);
}
/** Chunks similar to the answer (cosine ≥ threshold), most similar first. */
export class SimilarityReferenceFormatter extends BaseReferenceFormatter {
  constructor(emInvoker: EMLike, options?: ReferenceFormatterOptions & SimilarityOptions);
}
/** @deprecated use SimilarityReferenceFormatter (warns once). */
export class SimilarityBasedReferenceFormatter extends SimilarityReferenceFormatter {}
/** The LM reference formatter's options. */
export interface LMReferenceFormatterOptions extends ReferenceFormatterOptions, LMComponentOptions {
  /** The metadata key the model names chunks by (default "file_name"; the id, then the position, when a chunk lacks it). */
  referenceMetadata?: string;
}
/** Asks an LM which chunks (by referenceMetadata) the answer used; keeps those, in input order. */
export class LMReferenceFormatter extends BaseReferenceFormatter {
  constructor(lmInvoker: LMLike, options?: LMReferenceFormatterOptions);
  /** The formatter over `buildLMInvoker(modelId, …)`, the invoker settings among the options going to it. */
  static fromPreset(modelId: string, options?: LMReferenceFormatterOptions & InvokerSettings): LMReferenceFormatter;
  /** The same from one object: `modelId`, the options, and `config.responseSchema` (the answer's schema). */
  static fromConfig(config: LMConfig & LMReferenceFormatterOptions & InvokerSettings): LMReferenceFormatter;
}
/** @deprecated use LMReferenceFormatter (warns once). */
export class LMBasedReferenceFormatter extends LMReferenceFormatter {}
/** One decision-model call per batch; keeps chunks whose probability of supporting the answer ≥ threshold. */
export class DMReferenceFormatter extends BaseReferenceFormatter {
  constructor(dmInvoker: DMLike, options?: ReferenceFormatterOptions & DMComponentOptions);
  /** The formatter over `buildDMInvoker(modelId, …)`, the invoker settings among the options going to it. */
  static fromConfig(
    config: DMConfig & ReferenceFormatterOptions & DMComponentOptions & InvokerSettings,
  ): DMReferenceFormatter;
}
