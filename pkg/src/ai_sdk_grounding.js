// Gemini's grounding as positional citations on the AI SDK's text parts. @ai-sdk/google sends
// the grounding chunks as source parts but its supports (which text each chunk backs) only as
// provider metadata, their offsets in UTF-8 bytes of the answer text: read here by citeflow's
// core (the full streaming module), each citation naming the source part the provider sent for
// its chunk.
import { groundingCitations } from "citeflow/stream";

/** The grounding metadata among the model's provider metadata, when it cites anything. */
function groundingOf(providerMetadata) {
  if (providerMetadata === null || typeof providerMetadata !== "object") return undefined;
  // Under the provider's name: "google" by default, another when the app named it.
  for (const meta of Object.values(providerMetadata)) {
    const grounding = meta?.groundingMetadata;
    if (Array.isArray(grounding?.groundingSupports) && grounding.groundingSupports.length > 0) return grounding;
  }
  return undefined;
}

const lastSegment = (path) => path.split("/").pop();

/**
 * What the provider's source part for a grounding chunk holds (the fields @ai-sdk/google sets
 * from each kind of chunk): a URL, or a document's title and file name.
 */
function sourceKey(chunk) {
  if (chunk?.web?.uri) return { url: chunk.web.uri, title: chunk.web.title };
  if (chunk?.image?.sourceUri) return { url: chunk.image.sourceUri, title: chunk.image.title };
  const retrieved = chunk?.retrievedContext;
  if (retrieved != null) {
    const { uri, fileSearchStore } = retrieved;
    if (typeof uri === "string" && /^https?:\/\//.test(uri)) return { url: uri, title: retrieved.title };
    const title = retrieved.title ?? "Unknown Document";
    if (uri) return { title, filename: lastSegment(uri) };
    if (fileSearchStore) return { title, filename: lastSegment(fileSearchStore) };
    return { title };
  }
  if (chunk?.maps?.uri) return { url: chunk.maps.uri, title: chunk.maps.title };
  return {};
}

/** The provider's source part for `key`, when it sent one. */
function providerSource(key, sources) {
  if (key.url !== undefined) return sources.find((s) => s.sourceType === "url" && s.url === key.url);
  if (key.filename === undefined) return undefined;
  return sources.find((s) => s.sourceType === "document" && s.title === key.title && s.filename === key.filename);
}

/**
 * A source part for a chunk the provider sent none for, as the middleware's own sources are
 * made (their `citeflow-source-` ids make the middleware send it before the text part's end).
 */
function ownSource(key, n) {
  const base = {
    type: "source",
    id: `citeflow-source-grounding-${n}`,
    providerMetadata: { citeflow: { groundingChunk: n - 1 } },
  };
  if (key.url !== undefined) {
    return { ...base, sourceType: "url", url: key.url, ...(key.title ? { title: key.title } : {}) };
  }
  return {
    ...base,
    sourceType: "document",
    mediaType: "text/plain",
    title: key.title ?? `Source ${n}`,
    ...(key.filename === undefined ? {} : { filename: key.filename }),
  };
}

/**
 * For each of the provider's text parts (`texts`, in order: joined, the answer text Gemini's
 * offsets count), the AI SDK citations `{source, startIndex, endIndex}` of the grounding that
 * fall in it, counted in its text. A citation that runs past its part's end ends there.
 * `sources`: the source parts the provider sent.
 */
export function groundingParts(texts, providerMetadata, sources) {
  const out = texts.map(() => []);
  const grounding = groundingOf(providerMetadata);
  if (grounding === undefined) return out;
  const { citations } = groundingCitations(texts.join(""), grounding);
  const chunks = Array.isArray(grounding.groundingChunks) ? grounding.groundingChunks : [];
  const byChunk = new Map();
  const sourceOf = (n) => {
    if (!byChunk.has(n)) {
      const key = sourceKey(chunks[n - 1]);
      byChunk.set(n, providerSource(key, sources) ?? ownSource(key, n));
    }
    return byChunk.get(n);
  };
  const starts = [];
  let at = 0;
  for (const text of texts) {
    starts.push(at);
    at += text.length;
  }
  for (const { sourceId, span, valid } of citations) {
    if (!valid) continue;
    const [start, end] = span;
    let i = texts.length - 1;
    while (i > 0 && starts[i] > start) i--;
    const partEnd = starts[i] + texts[i].length;
    out[i].push({
      source: sourceOf(sourceId),
      startIndex: start - starts[i],
      endIndex: Math.min(end, partEnd) - starts[i],
    });
  }
  return out;
}
