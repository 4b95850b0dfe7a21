// ThinkTagOutputTransformer.push against the AI SDK's extractReasoningMiddleware, on the same
// ~1 MB transcript cut into 4-character, 64-character and 1 KB chunks, in one process.
//
// Three comparisons:
// - handled: our push loop against the middleware's own transform function called directly
//   (captured from the TransformStream it builds), so neither side pays for web streams; each
//   event is handled as it comes and dropped, as a chat UI or a proxy handles a stream (both
//   sides tally the reasoning characters, the check compares the tallies);
// - collected: the same loops keeping every event of the transcript in one array, and the
//   latest run's array kept until the next run: a test of the garbage collector as much as of
//   the transformer (262,000 retained event objects at 4-character chunks);
// - streams: our transformStream() against wrapStream(), both through real ReadableStreams.
// And the floor of the collected loop: a push that returns each chunk as one event and does
// nothing else (no scan, no tags, no core), against the same AI SDK transform: the highest ratio
// any push returning an array of event objects could reach there.
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

    // Handled: each event as it comes, then dropped; the tallies are checked below.
    let oursTally = 0;
    const oursHandled = () => {
      const t = new ThinkTagOutputTransformer();
      let n = 0;
      const handle = (e) => {
        if (e.type === "thinking") n += e.value.length;
        else if (e.type === "thinking_start") n++;
      };
      for (const p of pieces) for (const e of t.push(p)) handle(e);
      for (const e of t.finish()) handle(e);
      oursTally = n;
    };
    let theirsTally = 0;
    const theirsHandled = async () => {
      const transformer = await aiSdkReasoningTransform();
      let n = 0;
      const controller = { enqueue: (c) => c.type === "reasoning-delta" && (n += c.delta.length) };
      for (const d of deltas) transformer.transform(d, controller);
      transformer.transform({ type: "text-end", id: "t" }, controller);
      theirsTally = n;
    };
    // Collected: each side keeps its latest output; the check below reads it outside the timed runs.
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
    const handled = await compare(oursHandled, theirsHandled, n);
    // The AI SDK puts its separator ("\n") between reasoning sections; ours counts a block's start.
    if (oursTally - 1 !== theirsTally) {
      throw new Error(`reasoning differs: ours ${oursTally - 1}, AI SDK ${theirsTally}`);
    }
    const loop = await compare(ours, theirs, n);
    const [a, b] = [loop.a, loop.b];
    const oursReasoning = oursOut.reduce((n, e) => n + (e.type === "thinking" ? e.value.length : 0), 0);
    const oursBlocks = oursOut.filter((e) => e.type === "thinking_start").length;
    const theirsReasoning = theirsOut.reduce((n, c) => n + (c.type === "reasoning-delta" ? c.delta.length : 0), 0);
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
    const perChunk = (ms) => (ms * 1e6) / pieces.length;
    rows.push({
      chunk: size,
      handledNsPerChunk: [perChunk(handled.a), perChunk(handled.b)],
      handledRatio: handled.ratio,
      collectedNsPerChunk: [perChunk(a), perChunk(b)],
      collectedRatio: loop.ratio,
      floorNsPerChunk: perChunk(ceiling.a),
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
    } MB transcript (ns per chunk citeflow / AI SDK; ratio = AI SDK time / citeflow time; streams in MB/s)`,
  );
  console.log(
    "| chunk | events handled as they come | ratio | all events collected | ratio | collected floor (ratio) | citeflow stream / AI SDK wrapStream | ratio |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  const ns = ([x, y]) => `${x.toFixed(0)} / ${y.toFixed(0)}`;
  for (const r of rows) {
    console.log(
      `| ${r.chunk} | ${ns(r.handledNsPerChunk)} | ${r.handledRatio.toFixed(2)} | ${ns(r.collectedNsPerChunk)} | ${
        r.collectedRatio.toFixed(2)
      } | ${r.floorNsPerChunk.toFixed(0)} (${r.ceilingRatio.toFixed(2)}) | ${r.citeflowStreamMBps.toFixed(1)} / ${
        r.aiSdkStreamMBps.toFixed(1)
      } | ${r.streamRatio.toFixed(2)} |`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
