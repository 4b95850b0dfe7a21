// Runs every benchmark and prints the tables; `--quick` runs each once (for the test suite,
// which checks the benchmarks still run and still agree with their peers). The results go to
// results/latest.json, and a full run (not --quick) writes docs/performance.md from them.
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg, platform } from "node:os";
import { writePerformancePage } from "../scripts/performance-doc.mjs";
import * as citations from "./citations.mjs";
import * as csl from "./csl.mjs";
import * as cslDocument from "./csl_document.mjs";
import * as goals from "./goals.mjs";
import * as pageBytes from "./page_bytes.mjs";
import * as pipeline from "./pipeline.mjs";
import * as setup from "./setup.mjs";
import * as similarity from "./similarity.mjs";
import * as startup from "./startup.mjs";
import * as thinkTag from "./think_tag.mjs";

const quick = process.argv.includes("--quick");
const machine = {
  cpus: cpus().length,
  cpuModel: cpus()[0]?.model.trim() ?? "unknown",
  platform: platform(),
  loadavg: loadavg(),
};
const results = [];
for (const bench of [startup, thinkTag, citations, pipeline, setup, similarity, csl, cslDocument, pageBytes]) {
  const r = await bench.run(quick ? { runs: 1 } : undefined);
  bench.print(r);
  results.push(r);
}
goals.print(results, quick);
mkdirSync(new URL("./results/", import.meta.url), { recursive: true });
writeFileSync(
  new URL("./results/latest.json", import.meta.url),
  JSON.stringify({ date: new Date().toISOString(), quick, node: process.version, machine, results }, null, 2),
);
if (!quick) console.log(`performance: wrote ${writePerformancePage()}`);
