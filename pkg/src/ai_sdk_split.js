// The AI SDK stream parts of one model call, with each text part the provider sends read by
// citeflow: its think blocks become reasoning parts, its answer blocks text parts carrying the
// citations found in them (re-based to the part), preceded by the `source` part of each source
// they cite first. Everything else passes through as it came, in order.
import { CitationParser, ThinkTagOutputTransformer } from "citeflow/stream";
import { groundingParts } from "./ai_sdk_grounding.js";

/** One text part of the provider's, read by a think-tag transformer and a citation parser. */
class TextPipeline {
  #think;
  #parser;
  /** The provider's text of this part so far (tags included). */
  raw = "";
  /** The blocks found: {kind: "text"|"reasoning", id, text, answerStart, citations, ended}. */
  blocks = [];
  /** Length of the answer text so far: the citation parser's spans count from its start. */
  answerLength = 0;
  /**
   * The last provider metadata the provider put on a delta of this part (Gemini sends its
   * thought signature there); the part's last text block ends with it.
   */
  deltaMetadata = undefined;

  constructor({ think, cite }, startMetadata) {
    this.#think = new ThinkTagOutputTransformer(think);
    this.#parser = cite === null ? null : new CitationParser(cite);
    this.startMetadata = startMetadata;
  }

  push(delta) {
    this.raw += delta;
    return this.#read(this.#think.push(delta), false);
  }

  finish() {
    return this.#read(this.#think.finish(), true);
  }

  #read(events, last) {
    if (this.#parser === null) return events;
    const out = events.flatMap((e) => this.#parser.push(e));
    if (last) out.push(...this.#parser.finish());
    return out;
  }

  /** The text block a citation's span (counted in the answer) falls in. */
  blockAt(offset) {
    for (let i = this.blocks.length - 1; i >= 0; i--) {
      const b = this.blocks[i];
      if (b.kind === "text" && b.answerStart <= offset) return b;
    }
    return undefined;
  }

  /**
   * Where each block starts in the provider's text (its tags removed, each block is a
   * contiguous run of that text, in order); called once the part has ended.
   */
  placeBlocks() {
    let cursor = 0;
    for (const b of this.blocks) {
      const at = this.raw.indexOf(b.text, cursor);
      b.rawStart = at < 0 ? undefined : at;
      if (at >= 0) cursor = at + b.text.length;
    }
  }
}

const ours = (source) => typeof source?.id === "string" && source.id.startsWith("citeflow-source-");

const byStart = (a, b) => (a.startIndex ?? Infinity) - (b.startIndex ?? Infinity);

export class TextPartSplitter {
  #config;
  /** The provider's open text parts by id. */
  #open = new Map();
  /** The ids of the source parts sent. */
  #sent = new Set();
  /** The provider's own source parts, in order (grounding citations name them). */
  #providerSources = [];
  /**
   * Gemini's text parts end only at the model's finish, where its grounding comes: the
   * provider's `text-end` parts held until then, in order (null: not held).
   */
  #held;

  constructor(config, { holdTextEnds = false } = {}) {
    this.#config = config;
    this.#held = holdTextEnds ? [] : null;
  }

  /** The parts to send for one part of the provider's stream. */
  take(part) {
    const type = part !== null && typeof part === "object" ? part.type : undefined;
    if (type === "text-start") {
      const out = this.#open.has(part.id) ? this.#close(part.id, undefined) : [];
      this.#open.set(part.id, new TextPipeline(this.#config, part.providerMetadata));
      return out;
    }
    if (type === "text-delta") {
      let pipeline = this.#open.get(part.id);
      if (pipeline === undefined) {
        pipeline = new TextPipeline(this.#config, undefined);
        this.#open.set(part.id, pipeline);
      }
      if (part.providerMetadata !== undefined) pipeline.deltaMetadata = part.providerMetadata;
      return this.#parts(pipeline, pipeline.push(part.delta), null);
    }
    if (type === "text-end") {
      if (!this.#open.has(part.id)) return [part];
      if (this.#held === null) return this.#close(part.id, part);
      this.#held.push(part);
      return [];
    }
    // The model is done: any text part it left open ends before its finish.
    if (type === "finish") return [...this.end(part.providerMetadata), part];
    // The provider's own source parts: a citation of the same source sends no second one.
    if (type === "source") {
      this.#sent.add(part.id);
      this.#providerSources.push(part);
    }
    return [part];
  }

  /**
   * The parts still held when the provider's stream ends; `providerMetadata`: the model's (its
   * `finish` part's, or a generate result's), where Gemini's grounding is.
   */
  end(providerMetadata) {
    return [...this.#release(providerMetadata), ...[...this.#open.keys()].flatMap((id) => this.#close(id, undefined))];
  }

  /**
   * The held text parts ended, each with the grounding's citations that fall in its text (the
   * provider's text parts joined are the answer text Gemini's offsets count).
   */
  #release(providerMetadata) {
    if (this.#held === null || this.#held.length === 0) return [];
    const held = this.#held.filter((p) => this.#open.has(p.id));
    this.#held = [];
    const texts = held.map((p) => this.#open.get(p.id).raw);
    const cited = groundingParts(texts, providerMetadata, this.#providerSources);
    return held.flatMap((p, i) => {
      if (cited[i].length === 0) return this.#close(p.id, p);
      return this.#close(p.id, { ...p, citations: [...(Array.isArray(p.citations) ? p.citations : []), ...cited[i]] });
    });
  }

  /**
   * A generate result's content, each text item read as the stream's text parts are;
   * `providerMetadata`: the result's.
   */
  content(content, providerMetadata) {
    const parts = [];
    let n = 0;
    for (const item of content) {
      if (item?.type !== "text") {
        parts.push(...this.take(item));
        continue;
      }
      const id = `text-${n++}`;
      const { text, citations, providerMetadata: meta } = item;
      const withMeta = meta === undefined ? {} : { providerMetadata: meta };
      parts.push(
        ...this.take({ type: "text-start", id, ...withMeta }),
        ...this.take({ type: "text-delta", id, delta: text }),
        ...this.take({ type: "text-end", id, ...withMeta, ...(citations === undefined ? {} : { citations }) }),
      );
    }
    parts.push(...this.end(providerMetadata));
    return contentOf(parts);
  }

  #close(id, endPart) {
    const pipeline = this.#open.get(id);
    this.#open.delete(id);
    return this.#parts(pipeline, pipeline.finish(), endPart ?? {});
  }

  /**
   * Stream parts for citeflow's events. `end`: the provider's text-end (its citations and
   * metadata), when these events are the last of its text part; null before.
   */
  #parts(pipeline, events, end) {
    const out = [];
    const { parts: sources } = this.#config;
    const native = end === null ? null : Array.isArray(end.citations) ? [...end.citations] : [];
    // The provider's citations left over go on the last text part this batch ends.
    const lastEnd = end === null ? -1 : events.findLastIndex((e) => e.type === "response_end");
    for (const [i, e] of events.entries()) {
      const block = pipeline.blocks.at(-1);
      switch (e.type) {
        case "thinking_start":
          pipeline.blocks.push({ kind: "reasoning", id: e.id, text: "" });
          out.push({ type: "reasoning-start", id: e.id });
          break;
        case "thinking":
          if (e.value === "") break;
          block.text += e.value;
          out.push({ type: "reasoning-delta", id: e.id, delta: e.value });
          break;
        case "thinking_end":
          out.push({ type: "reasoning-end", id: e.id });
          break;
        case "response_start": {
          pipeline.blocks.push({ kind: "text", id: e.id, text: "", answerStart: pipeline.answerLength, citations: [] });
          const meta = pipeline.startMetadata;
          out.push({ type: "text-start", id: e.id, ...(meta === undefined ? {} : { providerMetadata: meta }) });
          break;
        }
        case "response":
          if (e.value === "") break;
          block.text += e.value;
          pipeline.answerLength += e.value.length;
          out.push({ type: "text-delta", id: e.id, delta: e.value });
          break;
        case "response_end":
          out.push(...this.#endText(pipeline, pipeline.blocks.find((b) => b.id === e.id), native, i === lastEnd, end));
          break;
        case "citation":
          out.push(...this.#cite(pipeline, e.value, sources));
          break;
        default:
          break;
      }
    }
    // A provider citation no text part took (the provider's text part held no answer text):
    // its source still reaches the UI, once, without a position.
    if (native !== null) {
      for (const c of native) out.push(...this.#source(c.source));
    }
    return out;
  }

  /** A marker's citation on the text part it is in; the source of a valid one. */
  #cite(pipeline, citation, sources) {
    const { sourceId, span, valid } = citation;
    // An id naming no source (0, or past the sources given) cites nothing: its marker stays as
    // text and no citation is attached.
    if (!valid || !(sourceId >= 1 && sourceId <= sources.length)) return [];
    const block = pipeline.blockAt(span[0]);
    const source = sources[sourceId - 1];
    if (block === undefined || block.ended) {
      // Not expected: the parser sends a marker's citation before its block ends.
      return this.#source(source);
    }
    block.citations.push({
      source,
      startIndex: span[0] - block.answerStart,
      endIndex: span[1] - block.answerStart,
    });
    return [];
  }

  /** The source part, the first time a source is cited. */
  #source(source) {
    if (source === null || typeof source !== "object" || this.#sent.has(source.id)) return [];
    this.#sent.add(source.id);
    return [source];
  }

  #endText(pipeline, block, native, last, end) {
    block.ended = true;
    if (native !== null) {
      pipeline.placeBlocks();
      // The provider's own citations count within its text part: re-based to this block when
      // they fall in it; the last block takes those that fall in no block (positions dropped).
      for (let i = native.length - 1; i >= 0; i--) {
        const c = native[i];
        const inside = block.rawStart !== undefined && c.startIndex !== undefined && c.endIndex !== undefined &&
          c.startIndex >= block.rawStart && c.endIndex <= block.rawStart + block.text.length;
        if (inside) {
          block.citations.push({
            ...c,
            startIndex: c.startIndex - block.rawStart,
            endIndex: c.endIndex - block.rawStart,
          });
          native.splice(i, 1);
        }
      }
      if (last) {
        for (const c of native) {
          const { startIndex: _s, endIndex: _e, ...rest } = c;
          block.citations.push(c.startIndex === undefined ? c : rest);
        }
        native.length = 0;
      }
    }
    // The sources of markers (the provider sends its own sources' parts itself).
    const out = block.citations.flatMap((c) => ours(c.source) ? this.#source(c.source) : []);
    block.citations.sort(byStart);
    const meta = last ? end.providerMetadata ?? pipeline.deltaMetadata : undefined;
    out.push({
      type: "text-end",
      id: block.id,
      ...(block.citations.length === 0 ? {} : { citations: block.citations }),
      ...(meta === undefined ? {} : { providerMetadata: meta }),
    });
    return out;
  }
}

/** Stream parts (from one text item) back as generate content. */
function contentOf(parts) {
  const out = [];
  const open = new Map();
  for (const p of parts) {
    if (p.type === "text-start" || p.type === "reasoning-start") {
      const item = { type: p.type === "text-start" ? "text" : "reasoning", text: "" };
      open.set(p.id, item);
      out.push(item);
    } else if (p.type === "text-delta" || p.type === "reasoning-delta") {
      open.get(p.id).text += p.delta;
    } else if (p.type === "text-end") {
      const item = open.get(p.id);
      if (p.citations !== undefined) item.citations = p.citations;
      if (p.providerMetadata !== undefined) item.providerMetadata = p.providerMetadata;
    } else if (p.type !== "reasoning-end") {
      out.push(p);
    }
  }
  return out;
}
