// Types of "citeflow/ai-sdk": citeflow as an AI SDK 7 language-model middleware. The
// middleware's own types come from "ai" (an optional peer dependency of citeflow).
import type { LanguageModelMiddleware } from "ai";
import type { MarkerStyle, TagPair } from "citeflow";

/**
 * What a source of the prompt is read for: a `url` makes it a `source-url` part; without one it
 * is a `source-document` part titled `title` (else `filename`/`file_name`, else "Source N"),
 * of media type `mediaType` (else "text/plain"). Other fields are not read.
 */
export interface AiSdkSourceFields {
  /** The source's web address: the source becomes a `source-url` part with this `url`. */
  url?: string | null;
  /** The part's title; for a document without one, the file name, else "Source N". */
  title?: string | null;
  /** A document's file name (the part's `filename`; its title when `title` is absent). */
  filename?: string | null;
  /** The same as `filename`, as retrieval metadata names it; `filename` wins when both are given. */
  file_name?: string | null;
  /** A document's media type (default "text/plain"). */
  mediaType?: string | null;
  /** Other fields are not read. */
  [field: string]: unknown;
}

/** A source as Citeformer takes it (`{content, metadata}`: its metadata is read) or its fields alone. */
export type AiSdkSource =
  | {
    /** The source's text, as the prompt gave it to the model (not read by the middleware). */
    content?: string;
    /** The fields the source's part is made from. */
    metadata: AiSdkSourceFields;
  }
  | AiSdkSourceFields;

/** What `citeflowMiddleware` reads: the prompt's numbered sources and how the model marks citations and reasoning. */
export interface CiteflowMiddlewareOptions {
  /**
   * The sources the prompt numbered: `[N]` cites `sources[N - 1]`. Without them only reasoning
   * is split (no marker is read).
   */
  sources?: AiSdkSource[];
  /** The markers the model writes (default "bracket"); needs `sources`. */
  markerStyle?: MarkerStyle;
  /** The reasoning tags (default `["think"]`), as `ThinkTagOutputTransformer` takes them. */
  tags?: TagPair[];
  /** The stream starts inside reasoning (the prompt template prefilled the opening tag). */
  startInThinking?: boolean;
}

/** The middleware `citeflowMiddleware` returns: AI SDK 7's (specification "v4"). */
export type CiteflowMiddleware =
  & Required<Pick<LanguageModelMiddleware, "wrapStream" | "wrapGenerate">>
  & {
    /** The AI SDK middleware specification it implements. */
    readonly specificationVersion: "v4";
  };

/**
 * For `wrapLanguageModel({ model, middleware: citeflowMiddleware({ sources }) })`: `<think>`
 * blocks become reasoning parts; `[N]` markers become positional `citations` of the text part
 * they are in (`text.slice(startIndex, endIndex)` is the marker), each cited source a `source`
 * part (id `citeflow-source-N`) sent once, before the end of the first text part citing it.
 * Bad options throw a CiteflowError (INVALID_OPTION, INVALID_SOURCE, NO_SOURCES) here.
 */
export function citeflowMiddleware(options?: CiteflowMiddlewareOptions): CiteflowMiddleware;
