const { renderReferences } = await import("citeflow/csl");
const { readFileSync } = await import("node:fs");
const corpus = JSON.parse(readFileSync("tests/fixtures/csl-corpus.json", "utf8")).slice(0, 10);
const n = +process.argv[3];
const t = [];
for (const k of [n, 10, 10]) { const t0 = performance.now(); renderReferences(corpus.slice(0, k), null, { style: process.argv[2] }); t.push((performance.now() - t0).toFixed(1)); }
console.log(n, t.join(" "));
