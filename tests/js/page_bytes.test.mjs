// benches/page_bytes.mjs, the bytes a page fetches: its three pages, built by Vite 8 and loaded
// in headless Chromium, show their results; what it counts is what went over the wire (each
// response gzip-compressed, its encoded size the gzip of the built file); the modules each page
// fetches are the ones it uses; and its goal rows read each figure against its goal. Needs the
// web toolchains (scripts/bundlers-setup.sh, run by scripts/setup.sh). The byte goals themselves
// are the benchmark's to report, not this test's to assert.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { CSL_GOAL, goals, PAGES, run, WORK } from "../../benches/page_bytes.mjs";

let result;
const page = (name) => result.pages.find((p) => p.name === name);
before(async () => {
  result = await run();
});

/** Each citation's span in the shown answer holds its marker. */
function assertCited(p) {
  const { answer, citations } = p.shown;
  assert.ok(answer.length > 0 && !answer.includes("<think>"), `${p.name}: the answer without its reasoning`);
  const cites = citations.split(" ").map((c) => c.match(/^(\d+)@(\d+)-(\d+)$/));
  assert.deepEqual(cites.map((m) => Number(m[1])), [1, 2], `${p.name}: ${citations}`);
  for (const [, id, start, end] of cites) assert.equal(answer.slice(Number(start), Number(end)), `[${id}]`);
}

test("each page shows its result: the cited answer, and the references page its APA list", () => {
  assert.deepEqual(result.pages.map((p) => p.name), ["stream", "invoker", "references"]);
  for (const p of result.pages) {
    assert.equal(p.shown.error, "", `${p.name}: page error`);
    assertCited(p);
  }
  const apa = page("references").shown.references.split("\n");
  assert.deepEqual(apa.map((e) => e.slice(0, e.indexOf(")") + 1)), ["Loyrette, H. (1985)", "Martin, A. (2004)"]);
});

test("what is counted is what went over the wire: each built file's gzip, summed by kind", () => {
  for (const p of result.pages) {
    let sum = 0;
    for (const r of p.responses) {
      assert.equal(r.status, 200, `${p.name} ${r.path}`);
      if (r.kind === "api") continue;
      const file = readFileSync(join(WORK, p.name, "dist", r.path === "/" ? "index.html" : r.path));
      assert.equal(r.encoding, "gzip", `${p.name} ${r.path}`);
      assert.equal(r.bodyBytes, file.length, `${p.name} ${r.path}: decoded body`);
      assert.equal(r.encodedBytes, gzipSync(file, { level: result.gzipLevel }).length, `${p.name} ${r.path}: encoded`);
      sum += r.encodedBytes;
    }
    assert.equal(p.total, sum, p.name);
    assert.equal(p.total, p.byKind.wasm + p.byKind.js + p.byKind.other, p.name);
    assert.ok(p.byKind.wasm > 0 && p.byKind.js > 0 && p.byKind.other > 0, `${p.name}: every kind seen`);
  }
  // The invoker pages' model answer is counted apart, never in the page's total.
  assert.ok(page("invoker").byKind.api > 0);
  assert.equal(page("stream").byKind.api, 0);
});

test("each page fetches the wasm it uses, once each: the stream page only the streaming module", () => {
  for (const p of result.pages) {
    const modules = p.responses.filter((r) => r.kind === "wasm").map((r) => r.module);
    assert.ok(!modules.includes("unknown"), `${p.name}: a wasm file not of the package`);
    assert.equal(new Set(modules).size, modules.length, `${p.name}: a module fetched twice: ${modules}`);
  }
  assert.deepEqual(Object.keys(page("stream").wasm), ["stream"]);
  assert.equal(page("invoker").wasm.csl, undefined, "the invoker page renders no references");
  assert.ok(page("references").wasm.csl > 0, "the references page fetches the CSL module");
});

/** A made-up result: each page `over` its goal or not, the stream page fetching `streamModules`. */
function madeUp({ over = false, streamModules = ["stream"], error = "", csl = true } = {}) {
  const pages = PAGES.map((p) => {
    const total = over ? p.goal + 1 : p.goal;
    const modules = p.name === "stream"
      ? streamModules
      : ["core", "stream", "full", ...(p.name === "references" && csl ? ["csl"] : [])];
    const wasm = Object.fromEntries(modules.map((m) => [m, m === "csl" ? CSL_GOAL.goal + (over ? 1 : 0) : 1000]));
    const shown = { answer: "A [1].", citations: "1@2-5", error, references: "Ref." };
    return { ...p, total, byKind: { wasm: total - 300, js: 200, other: 100, api: 0 }, wasm, shown };
  });
  return { name: "page-bytes", gzipLevel: 9, pages };
}
const met = (rows) => rows.map((r) => r[2]);

test("the goal rows: met at the goal, not one byte over; nor when the page failed or fetched too much", () => {
  assert.deepEqual(met(goals(madeUp())), [true, true, true, true, true, true]);
  assert.deepEqual(met(goals(madeUp({ over: true }))), [false, false, false, false, true, true]);
  assert.deepEqual(met(goals(madeUp({ error: "NOT_INITIALIZED" }))), [false, false, false, true, true, true]);
  assert.deepEqual(met(goals(madeUp({ streamModules: ["stream", "core"] }))), [true, true, true, true, false, true]);
  assert.deepEqual(met(goals(madeUp({ streamModules: ["stream", "csl"] }))), [true, true, true, true, true, false]);
  assert.deepEqual(met(goals(madeUp({ csl: false }))), [true, true, true, false, true, true]);
  for (const [goal, measured] of goals(madeUp())) {
    assert.ok(typeof goal === "string" && typeof measured === "string");
    assert.doesNotMatch(goal + measured, /undefined|NaN/);
  }
});
