// docs/performance.md is written from one `make bench` run by scripts/performance-doc.mjs:
// every figure of the run is on the page, a quick run (not a measurement) is refused, and the
// committed page is the script's work (its header), with current figures only (no dated notes).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import { performancePage } from "../../scripts/performance-doc.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
// The results of a real run of benches/run.mjs (a --quick one, marked full here: the page's
// shape does not depend on how many runs made the figures).
const run = { ...JSON.parse(readFileSync(`${root}tests/docs/fixtures/bench-quick.json`, "utf8")), quick: false };
const byName = Object.fromEntries(run.results.map((r) => [r.name, r]));

test("the page holds every benchmark's figures, formatted, and nothing undefined", () => {
  const page = performancePage(run);
  assert.doesNotMatch(page, /undefined|NaN|\[object/);
  for (const p of byName.pipeline.rows) assert.ok(page.includes(`| ${p.ratio.toFixed(2)} |`), `pipeline ${p.shape}`);
  for (const t of byName["think-tag"].rows) {
    for (const ratio of [t.handledRatio, t.collectedRatio, t.streamRatio]) assert.ok(page.includes(ratio.toFixed(2)));
  }
  for (const c of byName.citations.rows) assert.ok(page.includes(`| ${c.name} | ${c.citeflowMs.toFixed(1)} |`), c.name);
  assert.ok(page.includes(`ratio ${byName.setup.ratio.toFixed(2)}`));
  assert.ok(page.includes(`ratio ${byName.similarity.vsPlain.toFixed(2)}`));
  assert.ok(page.includes(`ratio ${byName.csl.ratio.toFixed(2)}`));
  for (const f of byName.csl.first) assert.ok(page.includes(`| ${f.style} |`), f.style);
  assert.ok(page.includes(`${byName.startup.modules.stream.gzipBytes.toLocaleString("en-US")}`));
  assert.ok(page.includes(`run, ${run.date.slice(0, 10)} (`), "the run's date");
  assert.match(page, /^## Goals$/m);
  assert.match(page, /^## Method$/m);
});

test("a quick run is refused: it is a check, not a measurement", () => {
  assert.throws(() => performancePage({ ...run, quick: true }), /not a measurement/);
});

test("the committed page is the script's, with no dated notes", () => {
  const page = readFileSync(`${root}docs/performance.md`, "utf8");
  assert.match(page, /^# Performance\n\n<!-- Written by scripts\/performance-doc\.mjs/);
  // One date: the run's.
  assert.equal(page.match(/\b20\d\d-\d\d-\d\d\b/g)?.length, 1);
});
