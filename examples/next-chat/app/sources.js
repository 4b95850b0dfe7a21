// The bundled sources (the citeflow demo's corpus: each a passage and the CSL-JSON item its
// reference is rendered from), and how a source part or citation names one of them.
import sources from "../sources.json";

export { sources };

/** N of `sources[N - 1]`, as citeflow's middleware sets it on each source. */
export const sourceNumber = (source) => source.providerMetadata?.citeflow?.sourceId;

export const sourceTitle = (source) => source.title ?? sources[sourceNumber(source) - 1]?.metadata.title;
