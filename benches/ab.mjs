// Two builds of the package timed against each other in one process, on the streaming rows of
// the benchmarks (think tags and citations in 4-character chunks, the pipeline at 1 KB and 128 B):
//
//   node benches/ab.mjs <package dir A> <package dir B> [runs] [only rows whose name has this]
//
// Each directory is a built pkg/ (copy one aside before changing the code). Prints each side's
// median and the median of the pairs' ratios A time / B time (above 1: B is faster), so that a
// change is judged on the same machine at the same moment as what it replaces (benches/timing.mjs).
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { answer } from "./citations.mjs";
import { body } from "./pipeline.mjs";
import { compare } from "./timing.mjs";
import { chunk, transcript } from "./transcript.mjs";

const [dirA, dirB, runsArg, only = ""] = process.argv.slice(2);
if (!dirA || !dirB) {
  console.error("usage: node benches/ab.mjs <package dir A> <package dir B> [runs] [row filter]");
  process.exit(2);
}
const runs = Number(runsArg ?? 15);
const load = (dir) => import(pathToFileURL(resolve(dir, "dist", "node.js")).href);
const [A, B] = [await load(dirA), await load(dirB)];

const thinkChunks = chunk(transcript(), 4);
const citeChunks = chunk(answer(), 4);
const bodies = { "1 KB": body("minimal", 1024), "128 B": body("minimal", 128) };

/** Each workload returns a count, so that both builds are checked to agree. */
const workloads = {
  "think tags, 4-char chunks": (m) => {
    const t = new m.ThinkTagOutputTransformer();
    let n = 0;
    for (const c of thinkChunks) n += t.push(c).length;
    return n + t.finish().length;
  },
  "streamed citations, 4-char chunks": (m) => {
    const p = new m.CitationParser({ sourceCount: 8 });
    let n = 0;
    for (const c of citeChunks) n += p.push(c).length;
    return n + p.finish().length;
  },
};
for (const [size, { chunks, provider }] of Object.entries(bodies)) {
  workloads[`pipeline, ${size} chunks`] = (m) => {
    const decoder = new m.ProviderBodyDecoder(provider, {
      transformers: [new m.ThinkTagOutputTransformer(), new m.CitationParser({ sourceCount: 5 })],
    });
    let n = 0;
    for (const c of chunks) n += decoder.push(c).length;
    return n + decoder.finish().length;
  };
}

// The SSE decoder alone, and provider decoding fed messages an SSE parser framed already.
const sseChunks = bodies["1 KB"].chunks;
workloads["SSEDecoder, 1 KB chunks"] = (m) => {
  const d = new m.SSEDecoder();
  let n = 0;
  for (const c of sseChunks) n += d.push(c).length;
  return n + d.finish().length;
};
let messages = null;
workloads["ProviderStreamDecoder, messages"] = (m) => {
  if (messages === null) {
    const sse = new A.SSEDecoder();
    messages = sseChunks.flatMap((c) => sse.push(c));
  }
  const d = new m.ProviderStreamDecoder(bodies["1 KB"].provider);
  let n = 0;
  for (const message of messages) n += d.push(message).length;
  return n + d.finish().length;
};

for (const [name, work] of Object.entries(workloads)) {
  if (!name.includes(only)) continue;
  const [a, b] = [work(A), work(B)];
  if (a !== b) throw new Error(`${name}: the builds disagree (${a} against ${b} events)`);
  const t = await compare(() => work(A), () => work(B), runs);
  console.log(`${name.padEnd(36)} A ${t.a.toFixed(2)} ms  B ${t.b.toFixed(2)} ms  A/B ${(1 / t.ratio).toFixed(3)}`);
}
