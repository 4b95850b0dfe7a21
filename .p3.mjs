const { renderReferences } = await import("citeflow/csl");
const { readFileSync } = await import("node:fs");
const corpus = JSON.parse(readFileSync("tests/fixtures/csl-corpus.json", "utf8")).slice(0, 10);
const t = [];
for (const s of process.argv.slice(2)) { const t0 = performance.now(); renderReferences(corpus, null, { style: s }); t.push(s+" "+(performance.now() - t0).toFixed(1)); }
console.log(t.join(" | "));
