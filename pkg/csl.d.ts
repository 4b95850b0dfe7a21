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
  /** The item's id; without one, a reference list names it `source-N` (N its 1-based place). */
  id?: string | number;
  /** The work's title. */
  title?: string;
  /** The authors, in order. */
  author?: CslName[];
  /** The editors, in order. */
  editor?: CslName[];
  /** When the work was published. */
  issued?: CslDate;
  /** When a web page was read. */
  accessed?: CslDate;
  /** The journal, book or site the work is part of. */
  "container-title"?: string;
  /** The Digital Object Identifier, without "https://doi.org/". */
  DOI?: string;
  /** The work's web address (linked in HTML output when it is http(s)). */
  URL?: string;
  /**
   * Any other CSL-JSON variable (`publisher`, `page`, `volume`, …): a string or a number, or
   * names and dates as above for the CSL name and date variables.
   */
  [field: string]: unknown;
}
/** A CSL-JSON name: a person's parts, or one `literal` name (an organisation, a name as written). */
export type CslName = {
  /** The family name ("Poe"). */
  family?: string;
  /** The given names ("Edgar Allan"). */
  given?: string;
  /** The whole name as written, used as it is ("World Health Organization"). */
  literal?: string;
  /** A particle sorted with the family name ("van" in "van Gogh", per the style). */
  "non-dropping-particle"?: string;
  /** A particle dropped when the family name comes first ("de" in "de La Fontaine"). */
  "dropping-particle"?: string;
  /** A suffix ("Jr."). */
  suffix?: string;
};
/**
 * A CSL-JSON date: `date-parts` (`[[year, month, day]]`, one to three parts; two lists for a
 * range), a `raw` date text ("2020-05-17", "2020-05", "2020", or a `start/end` range), a
 * `literal` printed as it is, or a string read as `raw`.
 */
export type CslDate =
  | {
    /** One date, or the start and end of a range: each `[year]`, `[year, month]` or `[year, month, day]`. */
    "date-parts": (number | string)[][];
  }
  | {
    /** "YYYY", "YYYY-MM" or "YYYY-MM-DD", or two of them as `start/end`. */
    raw: string;
  }
  | {
    /** Printed as it is ("Spring 2020", "n.d."). */
    literal: string;
  }
  | string;

/** A source as the orchestrator takes it, or a bare CSL-JSON item. */
export type SourceInput =
  | CslItem
  | {
    /** The source's text (not read when rendering). */
    content?: string;
    /** The source's CSL-JSON item. */
    metadata: CslItem;
  };

/** One entry of a reference list, with the in-text citation that points to it. */
export interface Reference {
  /** 1-based position of the source in the list given to the model. */
  sourceId: number;
  /** The style's own in-text citation: "(Poe, 1845)" for APA, "[1]" for IEEE. */
  inlineMarker: string;
  /** The rendered entry: plain text, or HTML with all metadata escaped and only http(s) links. */
  entry: string;
}

/**
 * The citation styles that ship with the package: `apa` is `apa-7`, `mla` is `mla-9`, `chicago` is
 * `chicago-author-date`; `chicago-notes` is Chicago's notes and bibliography (17th edition), a
 * note style for {@link CslDocument} (repeated notes shortened, no "ibid."); `mhra-notes` is the
 * MHRA Style Guide's notes (4th edition), a note style whose repeated notes are "ibid."; `harvard`
 * is Cite Them Right's Harvard.
 */
export type BundledStyle =
  | "apa-7"
  | "apa"
  | "mla-9"
  | "mla"
  | "chicago-author-date"
  | "chicago"
  | "chicago-notes"
  | "mhra-notes"
  | "ieee"
  | "nature"
  | "vancouver"
  | "harvard";

/** How a reference list is rendered. */
export interface RenderOptions {
  /** A bundled style name (default "apa-7"), or a CSL style's XML. */
  style?: BundledStyle | (string & {});
  /** A CSL locale's XML (default: en-US, built in; the style's own `<locale>` overrides apply either way). */
  locale?: string;
  /** "text" (default): plain text; "html": HTML with all metadata escaped and only http(s) links. */
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
/** The names of the bundled styles, each usable as `style`. */
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
  /** Where in the item: a page, "12-15", a chapter number, … as `label` says. */
  locator?: string | number | null;
  /** The locator's label: "page" (CSL's default), "chapter", "section", … */
  label?: string | null;
  /** Text put before the cite ("see "). */
  prefix?: string | null;
  /** Text put after the cite (", emphasis added"). */
  suffix?: string | null;
  /** Leaves the author out of the cite (CSL's `suppress-author`): "(1845)" after "Poe wrote". */
  suppressAuthor?: boolean | null;
  /** Gives the author alone (CSL's `author-only`), for text such as "Poe (1845)". */
  authorOnly?: boolean | null;
}

/** The cites at one place in the document. Any other key is refused (INVALID_OPTION). */
export interface Cluster {
  /** Unique in the document: setting a cluster with a known id replaces that cluster. */
  id: string;
  /** The footnote the cluster sits in (note styles); 0 or omitted in the main text. */
  noteIndex?: number | null;
  /** The cites, in the order they are written. */
  items: ClusterCite[];
}

/** A cluster's rendered text (plain text, or HTML with all metadata escaped). */
export interface RenderedCluster {
  /** The cluster's id. */
  id: string;
  /** Its rendered text in the document's format. */
  text: string;
}

/** One entry of a CslDocument's bibliography. */
export interface DocumentEntry {
  /** The item's id (as text). */
  id: string;
  /** 1-based place of the item among the document's items. */
  sourceId: number;
  /** The rendered entry, as renderReferences renders it. */
  entry: string;
}

/** A CslDocument's style, locale and format (as renderReferences takes them) and its items. */
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
