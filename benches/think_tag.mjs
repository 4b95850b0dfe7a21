// ThinkTagOutputTransformer.push against the AI SDK's extractReasoningMiddleware, on the same
// ~1 MB transcript cut into 4-character, 64-character and 1 KB chunks, in one process.
//
// Two comparisons:
// - loop: our push loop against the middleware's own transform function called directly
//   (captured from the TransformStream it builds), so neither side pays for web streams;
// - streams: our transformStream() against wrapStream(), both through real ReadableStreams.
// And the floor of the loop: a push that returns each chunk as one event and does nothing else
// (no scan, no tags, no core), against the same AI SDK transform: the highest ratio any push
// returning an array of event objects could reach on this input.
import { extractReasoningMiddleware } from "ai";
import { ThinkTagOutputTransformer } from "citeflow";
import { aiSdkReasoningTransform } from "./peers.mjs";
import { chunk, transcript } from "./transcript.mjs";
import { compare } from "./timing.mjs";

const text = transcript();
const MB = text.length / 1e6;

export async function run({ runs = 9 } = {}) {
  const rows = [];
  for (const size of [4, 64, 1024]) {
    const pieces = chunk(text, size);
    const deltas = pieces.map((delta) => ({ type: "text-delta", id: "t", delta }));

    // Each side keeps its latest output; the check below reads it outside the timed runs.
    let oursOut = [];
    const ours = () => {
      const t = new ThinkTagOutputTransformer();
      const out = [];
      for (const p of pieces) for (const e of t.push(p)) out.push(e);
      for (const e of t.finish()) out.push(e);
      oursOut = out;
    };
    let theirsOut = [];
    const theirs = async () => {
      const transformer = await aiSdkReasoningTransform();
      const out = [];
      const controller = { enqueue: (c) => out.push(c) };
      for (const d of deltas) transformer.transform(d, controller);
      transformer.transform({ type: "text-end", id: "t" }, controller);
      theirsOut = out;
    };
    const oursStream = async () => {
      const src = ReadableStream.from(pieces).pipeThrough(new ThinkTagOutputTransformer().transformStream());
      for await (const _ of src);
    };
    const theirsStream = async () => {
      const { stream } = await extractReasoningMiddleware({ tagName: "think" }).wrapStream({
        doStream: async () => ({
          stream: ReadableStream.from([{ type: "text-start", id: "t" }, ...deltas, { type: "text-end", id: "t" }]),
        }),
      });
      for await (const _ of stream);
    };

    const n = runs;
    const loop = await compare(ours, theirs, n);
    const [a, b] = [loop.a, loop.b];
    const oursReasoning = oursOut.reduce((n, e) => n + (e.type === "thinking" ? e.value.length : 0), 0);
    const oursBlocks = oursOut.filter((e) => e.type === "thinking_start").length;
    const theirsReasoning = theirsOut.reduce((n, c) => n + (c.type === "reasoning-delta" ? c.delta.length : 0), 0);
    // The AI SDK puts its separator ("\n") between reasoning sections.
    if (oursReasoning + oursBlocks - 1 !== theirsReasoning) {
      throw new Error(`reasoning differs: ours ${oursReasoning}, AI SDK ${theirsReasoning}`);
    }
    // The floor: the same loop and result shapes as `ours`, with no work at all per chunk.
    const floor = () => {
      const t = { push: (value) => [{ id: "t-1", type: "response", value, valueType: "text" }] };
      const out = [];
      for (const p of pieces) for (const e of t.push(p)) out.push(e);
    };
    const ceiling = await compare(floor, theirs, n);
    const streams = await compare(oursStream, theirsStream, n);
    const [c, d] = [streams.a, streams.b];
    rows.push({
      chunk: size,
      citeflowNsPerChunk: (a * 1e6) / pieces.length,
      aiSdkNsPerChunk: (b * 1e6) / pieces.length,
      citeflowMBps: MB / (a / 1000),
      aiSdkMBps: MB / (b / 1000),
      loopRatio: loop.ratio,
      floorNsPerChunk: (ceiling.a * 1e6) / pieces.length,
      ceilingRatio: ceiling.ratio,
      citeflowStreamMBps: MB / (c / 1000),
      aiSdkStreamMBps: MB / (d / 1000),
      streamRatio: streams.ratio,
    });
  }
  return { name: "think-tag", bytes: text.length, rows };
}

export function print({ bytes, rows }) {
  console.log(
    `ThinkTag vs AI SDK extractReasoningMiddleware, ${
      (bytes / 1e6).toFixed(2)
    } MB transcript (MB/s of input; ratio = AI SDK time / citeflow time)`,
  );
  console.log(
    "| chunk | citeflow push | AI SDK transform | ratio | ns/chunk citeflow / AI SDK | floor ns/chunk (ratio) | citeflow stream | AI SDK wrapStream | ratio |",
  );
  console.log("|---|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const f = (x) => x.toFixed(1);
    console.log(
      `| ${r.chunk} | ${f(r.citeflowMBps)} | ${f(r.aiSdkMBps)} | ${r.loopRatio.toFixed(2)} | ${
        r.citeflowNsPerChunk.toFixed(0)
      } / ${r.aiSdkNsPerChunk.toFixed(0)} | ${r.floorNsPerChunk.toFixed(0)} (${r.ceilingRatio.toFixed(2)}) | ${
        f(r.citeflowStreamMBps)
      } | ${f(r.aiSdkStreamMBps)} | ${r.streamRatio.toFixed(2)} |`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
