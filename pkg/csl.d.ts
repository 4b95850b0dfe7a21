// Types of "citeflow/csl": reference lists rendered by citeflow's own CSL 1.0.2 engine.

/**
 * Initialises the CSL module. Required once in browsers; a no-op in Node, Deno and Workers.
 *
 * The bundled styles are not part of the module: each is a small file of the package, loaded on
 * demand. In Node and Deno the synchronous `renderReferences` reads it on first use; elsewhere
 * (browsers, Workers, bundles) `await loadStyle(name)` once before rendering with that name, or use
 * the async `renderReferences` of "citeflow", which does it for you. A style given as XML needs
 * nothing loaded.
 */
export default function init(input?: RequestInfo | URL | Response | BufferSource | WebAssembly.Module): Promise<void>;
export { init };

/** A CSL-JSON item (https://citeproc-js.readthedocs.io/en/latest/csl-json/markup.html). */
export interface CslItem {
  /** CSL item type, e.g. "article-journal", "book", "chapter", "report", "webpage". */
  type: string;
  id?: string | number;
  title?: string;
  author?: CslName[];
  editor?: CslName[];
  issued?: CslDate;
  accessed?: CslDate;
  "container-title"?: string;
  DOI?: string;
  URL?: string;
  [field: string]: unknown;
}
export type CslName = {
  family?: string;
  given?: string;
  literal?: string;
  "non-dropping-particle"?: string;
  "dropping-particle"?: string;
  suffix?: string;
};
export type CslDate = { "date-parts": (number | string)[][] } | { raw: string } | { literal: string } | string;

/** A source as the orchestrator takes it, or a bare CSL-JSON item. */
export type SourceInput = CslItem | { content?: string; metadata: CslItem };

export interface Reference {
  /** 1-based position of the source in the list given to the model. */
  sourceId: number;
  /** The style's own in-text citation: "(Poe, 1845)" for APA, "[1]" for IEEE. */
  inlineMarker: string;
  /** The rendered entry: plain text, or HTML with all metadata escaped and only http(s) links. */
  entry: string;
}

export type BundledStyle =
  | "apa-7"
  | "apa"
  | "mla-9"
  | "mla"
  | "chicago-author-date"
  | "chicago"
  | "ieee"
  | "nature"
  | "vancouver"
  | "harvard";

export interface RenderOptions {
  /** A bundled style name (default "apa-7"), or a CSL style's XML. */
  style?: BundledStyle | (string & {});
  /** A CSL locale's XML (default: en-US, built in; the style's own `<locale>` overrides apply either way). */
  locale?: string;
  format?: "text" | "html";
}

/**
 * The reference list of the cited sources, in the style's order. `citations`: Citation objects or
 * source ids in order of citation (numeric styles number by first citation; invalid ids are
 * skipped); `null`/omitted renders every source.
 *
 * Sorting asks the host's `Intl.Collator`. Code it runs (a patched collator, a getter of the
 * options) may call `renderReferences` again: that call renders with its own arguments, and this
 * one then finishes with its own.
 */
export function renderReferences(
  sources: SourceInput[],
  citations?: ({ sourceId: number } | number)[] | null,
  options?: RenderOptions,
): Reference[];
export function bundledStyleNames(): BundledStyle[];
/**
 * Loads a bundled style (default "apa-7") for the synchronous `renderReferences`: a dynamic import
 * of its file, which every bundler emits as its own small chunk. Resolves once it is loaded (at
 * once if it was); rejects with UNKNOWN_STYLE for a name that is not bundled, STYLE_NOT_LOADED if
 * the file could not be loaded. Rendering with a bundled name that is not loaded (and cannot be
 * read from disk) throws STYLE_NOT_LOADED.
 */
export function loadStyle(name?: BundledStyle): Promise<void>;

/** One cite of a cluster: an item by its id, with its locator and affixes. */
export interface ClusterCite {
  /** The item's CSL-JSON `id`. */
  id: string | number;
  locator?: string | number | null;
  /** The locator's label: "page" (CSL's default), "chapter", "section", … */
  label?: string | null;
  prefix?: string | null;
  suffix?: string | null;
  suppressAuthor?: boolean | null;
  authorOnly?: boolean | null;
}

/** The cites at one place in the document. Any other key is refused (INVALID_OPTION). */
export interface Cluster {
  /** Unique in the document: setting a cluster with a known id replaces that cluster. */
  id: string;
  /** The footnote the cluster sits in (note styles); 0 or omitted in the main text. */
  noteIndex?: number | null;
  items: ClusterCite[];
}

/** A cluster's rendered text (plain text, or HTML with all metadata escaped). */
export interface RenderedCluster {
  id: string;
  text: string;
}

export interface DocumentEntry {
  /** The item's id (as text). */
  id: string;
  /** 1-based place of the item among the document's items. */
  sourceId: number;
  /** The rendered entry, as renderReferences renders it. */
  entry: string;
}

export interface CslDocumentOptions extends RenderOptions {
  /** CSL-JSON items, each with a unique `id` (DUPLICATE_ITEM otherwise; INVALID_SOURCE without one). */
  items?: CslItem[];
}

/**
 * A document of citation clusters in one style, edited one cluster at a time. Every edit returns
 * the clusters whose rendered text changed (the edited one included, a removed one not), in
 * document order: positions (ibid, subsequent, near-note), first-reference note numbers,
 * citation numbers and disambiguation follow the whole document. A refused edit throws a
 * CiteflowError and leaves the document as it was.
 *
 * Its wasm memory is freed when it is garbage-collected.
 */
export class CslDocument {
  /** Parses the style and locale once. Throws as renderReferences does for a bad style or locale. */
  constructor(options: CslDocumentOptions);
  /**
   * Inserts `cluster` at `index` among the clusters (default: the end), or replaces the cluster
   * with the same id and puts it at `index` (default: where it was). UNKNOWN_ITEM for a cite of
   * an item the document lacks, INDEX_OUT_OF_RANGE for an index past the end.
   */
  setCluster(cluster: Cluster, index?: number | null): RenderedCluster[];
  /** Removes a cluster (UNKNOWN_CLUSTER if there is none with this id): the others that changed. */
  removeCluster(id: string): RenderedCluster[];
  /** Every cluster's text, in document order. */
  clusters(): RenderedCluster[];
  /**
   * The cited items' entries, and those of `uncited` (item ids; UNKNOWN_ITEM for an id the
   * document lacks), in the style's order; empty for a style without a bibliography.
   */
  bibliography(options?: { uncited?: (string | number)[] | null } | null): DocumentEntry[];
  /** Adds items, or replaces the items with the same ids: the clusters whose text changed. */
  setItems(items: CslItem[]): RenderedCluster[];
}
