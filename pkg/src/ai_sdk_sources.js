// The sources a prompt numbered, as AI SDK `source` parts: the part of source N is what a
// citation of `[N]` names, and what the chat UI lists.
import { citeflowError, describe, fields } from "./errors.js";

/** The fields read from a source: its metadata, or the source itself (as Citeformer reads them). */
function metadataOf(source, i) {
  const s = fields(source, "INVALID_SOURCE", `sources[${i}]`);
  const { metadata } = s;
  return metadata !== null && typeof metadata === "object" && !Array.isArray(metadata)
    ? fields(metadata, "INVALID_SOURCE", `sources[${i}].metadata`)
    : s;
}

/** A text field of a source's metadata: absent, or a string (anything else is refused). */
function text(meta, key, i) {
  const value = meta[key];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "string") {
    throw citeflowError("INVALID_SOURCE", `sources[${i}]'s \`${key}\` must be a string; got ${describe(value)}`);
  }
  return value;
}

/**
 * Source N (1-based) as a `source` part, id `citeflow-source-N`: a `url` makes it a URL source;
 * otherwise a document (titled by `title`, else its file name, else "Source N"; media type
 * `mediaType`, else text/plain). `providerMetadata.citeflow.sourceId` is N.
 */
export function documentSources(sources) {
  if (sources.length === 0) {
    throw citeflowError("NO_SOURCES", "`sources` must be a non-empty array (the sources the prompt numbered)");
  }
  return sources.map((source, i) => {
    const meta = metadataOf(source, i);
    const n = i + 1;
    const base = { type: "source", id: `citeflow-source-${n}`, providerMetadata: { citeflow: { sourceId: n } } };
    const url = text(meta, "url", i);
    const title = text(meta, "title", i);
    const filename = text(meta, "filename", i) ?? text(meta, "file_name", i);
    if (url !== undefined) {
      return { ...base, sourceType: "url", url, ...(title === undefined ? {} : { title }) };
    }
    return {
      ...base,
      sourceType: "document",
      mediaType: text(meta, "mediaType", i) ?? "text/plain",
      title: title ?? filename ?? `Source ${n}`,
      ...(filename === undefined ? {} : { filename }),
    };
  });
}
