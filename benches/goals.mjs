// The performance goals the package is held to, read off one `make bench` run's results and printed as one table: each goal, what this run measured, and
// whether that meets it. It reports; it asserts nothing (timing never decides a test).
//
// Think tags are held to the goal with each event handled as it comes (the transformer against
// the middleware's own transform, neither paying for web streams): the shapes that also keep
// every event, or go through web streams, are printed beside it.

import { goals as pageBytesGoals } from "./page_bytes.mjs";

const byName = (results) => Object.fromEntries(results.map((r) => [r.name, r]));
const times = (x) => `${x.toFixed(2)}×`;
const lowest = (xs) => Math.min(...xs);

/** The goals as rows of `[goal, measured, met]` (met: true, false, or null when only reported). */
export function goals(results) {
  const r = byName(results);
  const rows = [];
  const pipeline = r.pipeline?.rows ?? [];
  for (const chunkBytes of [1024, 128]) {
    const at = pipeline.filter((p) => p.chunkBytes === chunkBytes).map((p) => p.ratio);
    if (at.length === 0) continue;
    const measured = `${times(lowest(at))} (lowest of ${at.length} bodies)`;
    rows.push(
      chunkBytes === 1024
        ? ["pipeline, SSE bytes → events → think tags → citations, 1 KB chunks: ≥ 2×", measured, lowest(at) >= 2]
        : ["the same at 128 B chunks: reported", measured, null],
    );
  }
  for (const t of r["think-tag"]?.rows ?? []) {
    rows.push([
      `think tags, ${t.chunk}-character chunks, events handled as they come: ≥ 2×`,
      `${times(t.handledRatio)} (collected ${times(t.collectedRatio)}, floor ${times(t.ceilingRatio)}; web streams ${
        times(t.streamRatio)
      })`,
      t.handledRatio >= 2,
    ]);
  }
  const cite = Object.fromEntries((r.citations?.rows ?? []).map((c) => [c.name, c.ratio]));
  for (
    const [name, label] of [
      ["streamed parse (4-char chunks)", "streamed citations, 4-character chunks"],
      ["dedup (whole text)", "dedup, whole text"],
      ["policy check (whole text)", "policy check, whole text"],
    ]
  ) {
    if (cite[name] !== undefined) rows.push([`${label}: ≥ 1×`, times(cite[name]), cite[name] >= 1]);
  }
  const s = r.startup;
  if (s !== undefined) {
    const m = s.modules.stream;
    rows.push(
      [
        `streaming module: ≤ ${s.goals.streamGzipBytes} B gzip`,
        `${m.gzipBytes} B`,
        m.gzipBytes <= s.goals.streamGzipBytes,
      ],
      [
        `its compile + instantiate in Node: ≤ ${s.goals.streamInstantiateMs} ms`,
        `${m.instantiateMs.toFixed(2)} ms`,
        m.instantiateMs <= s.goals.streamInstantiateMs,
      ],
      [
        `import "citeflow": ≤ ${s.goals.importMs} ms`,
        `${s.importMs.toFixed(2)} ms (the harness's smallest import: ${s.peerImportMs.toFixed(2)} ms)`,
        s.importMs <= s.goals.importMs,
      ],
    );
  }
  for (const d of r["csl-document"]?.rows ?? []) {
    rows.push(
      [`CslDocument, ${d.style}: 300 clusters one at a time ≥ 5× citeproc-js`, times(d.buildRatio), d.buildRatio >= 5],
      [`CslDocument, ${d.style}: one edit in the middle ≥ 5× citeproc-js`, times(d.editRatio), d.editRatio >= 5],
    );
  }
  if (r["page-bytes"]) rows.push(...pageBytesGoals(r["page-bytes"]));
  const memory = r["csl-document"]?.memoryBytes;
  if (memory) {
    rows.push([
      "CslDocument memory flat over 10,000 edits (last quarter adds nothing)",
      memory.map((b) => `${(b / 1048576).toFixed(1)} MiB`).join(", "),
      memory.at(-1) <= memory.at(-2),
    ]);
  }
  return rows;
}

/** `quick`: each benchmark ran once (the test suite's check that they run), so not a measurement. */
export function print(results, quick = false) {
  console.log(`Goals, this run${quick ? " (one run of each: a check, not a measurement)" : ""}:`);
  console.log("| goal | measured | met |");
  console.log("|---|---|---|");
  for (const [goal, measured, met] of goals(results)) {
    console.log(`| ${goal} | ${measured} | ${met === null ? "reported" : met ? "yes" : "no"} |`);
  }
}
