// Chunks, ContextConfig, and the default reference formats.
import * as core from "../../gen/citeflow.js";
import { noMoreArguments } from "../errors.js";
import { ready } from "../runtime.js";

/** Which parts of a chunk become its context text: fields, metadata keys, template. */
export class ContextConfig {
  constructor(options = {}, ...more) {
    noMoreArguments([options, ...more], 1, "ContextConfig");
    ready();
    const { fields, metadataKeys, template } = core.contextConfig(options);
    this.fields = fields;
    this.metadataKeys = metadataKeys ?? null;
    this.template = template;
    Object.freeze(this);
  }

  /** The chunk's context text (its content where that comes out empty). */
  render(chunk) {
    return core.chunkTexts([chunk], this)[0];
  }
}

/** `[title](url)` or the title; a missing title falls back to the URL, id, then content. */
export function formatChunkAsString(chunk, metadataMap, ...more) {
  noMoreArguments([chunk, metadataMap, ...more], 2, "formatChunkAsString");
  ready();
  return core.formatChunkAsString(chunk, metadataMap);
}

/**
 * A source's metadata as a CSL-JSON item: metadata with a CSL `type` as it is; retrieval
 * metadata (title or file_name, url or file_url, author, date, …) mapped to an item.
 */
export function cslItemOf(metadata, ...more) {
  noMoreArguments([metadata, ...more], 1, "cslItemOf");
  ready();
  return core.cslItemOf(metadata);
}

/** "References:\n1. …\n2. …" with duplicates once; "" for none. */
export function formatReferencesAsString(items, ...more) {
  noMoreArguments([items, ...more], 1, "formatReferencesAsString");
  ready();
  return core.formatReferencesAsString(items);
}

export function checkChunks(chunks) {
  ready();
  core.checkChunks(chunks);
  return chunks;
}

export function contextConfig(value) {
  return value == null ? null : value instanceof ContextConfig ? value : new ContextConfig(value);
}

/** What a model or embedder sees of each chunk. */
export function chunkTexts(chunks, config) {
  return core.chunkTexts(chunks, config);
}
