// A document of 300 citation clusters built one cluster at a time, then one cluster in its
// middle replaced, with citeflow/csl's CslDocument and with citeproc-js's processCitationCluster,
// same process, same style and locale XML, same clusters (each its own footnote, 1-2 cites of
// the corpus in tests/fixtures/csl-corpus.json, some with a locator). Prints the times; the
// median of `--runs=N` (default 3) builds. Then the wasm memory over 10,000 edits of a document
// kept at about 100 clusters (inserts, replacements and removals).
//
// `node benches/csl_document.mjs [--runs=N] [--clusters=N]`
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import CSL from "citeproc";
import init, { CslDocument } from "citeflow/csl";
import { median } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const shared = process.env.CITEFLOW_SHARED ?? `${root}../shared`;
const corpus = JSON.parse(readFileSync(`${root}tests/fixtures/csl-corpus.json`, "utf8"));
const byId = Object.fromEntries(corpus.map((item) => [item.id, item]));
const localeXml = readFileSync(`${shared}/csl/locales/locales-en-US.xml`, "utf8");
const arg = (name, d) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? d);
const RUNS = arg("runs", 3);
const N = arg("clusters", 300);

/** The same clusters every run: a fixed pseudo-random sequence. */
function clusters(n) {
  let s = 7;
  const next = () => (s = (s * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: n }, (_, k) => {
    const cites = [];
    for (let c = 0; c < 1 + Math.floor(next() * 2); c++) {
      const id = corpus[Math.floor(next() * corpus.length)].id;
      if (cites.some((x) => x.id === id)) continue;
      cites.push(next() < 0.3 ? { id, locator: String(1 + Math.floor(next() * 50)) } : { id });
    }
    return { id: `c${k}`, noteIndex: k + 1, items: cites };
  });
}

function ours(styleXml, list) {
  const t0 = performance.now();
  const doc = new CslDocument({ style: styleXml, locale: localeXml, format: "text", items: corpus });
  for (const c of list) doc.setCluster(c);
  const t1 = performance.now();
  const mid = list[list.length >> 1];
  doc.setCluster({ ...mid, items: [{ id: corpus[3].id }] });
  const t2 = performance.now();
  return { build: t1 - t0, edit: t2 - t1 };
}

function theirs(styleXml, list) {
  const t0 = performance.now();
  const engine = new CSL.Engine(
    { retrieveLocale: () => localeXml, retrieveItem: (id) => structuredClone(byId[id]) },
    styleXml,
    "en-US",
    true,
  );
  engine.setOutputFormat("text");
  const pre = [];
  const cite = (c) => ({
    citationID: c.id,
    citationItems: structuredClone(c.items), // citeproc-js adds fields to what it is given
    properties: { noteIndex: c.noteIndex },
  });
  for (const c of list) {
    engine.processCitationCluster(cite(c), pre, []);
    pre.push([c.id, c.noteIndex]);
  }
  const t1 = performance.now();
  const m = list.length >> 1;
  engine.processCitationCluster(
    cite({ ...list[m], items: [{ id: corpus[3].id }] }),
    pre.slice(0, m),
    pre.slice(m + 1),
  );
  const t2 = performance.now();
  return { build: t1 - t0, edit: t2 - t1 };
}

const list = clusters(N);
console.log(
  `| style | ${N} clusters, one at a time: citeflow | citeproc-js | ratio | one edit in the middle: citeflow | citeproc-js | ratio |`,
);
console.log("|---|---|---|---|---|---|---|");
for (const style of ["chicago-notes-bibliography-17th-edition", "apa"]) {
  const styleXml = readFileSync(`${shared}/csl/styles/${style}.csl`, "utf8");
  const a = Array.from({ length: RUNS }, () => ours(styleXml, list));
  const b = Array.from({ length: RUNS }, () => theirs(styleXml, list));
  const build = [median(a.map((r) => r.build)), median(b.map((r) => r.build))];
  const edit = [median(a.map((r) => r.edit)), median(b.map((r) => r.edit))];
  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(
    `| ${style} | ${ms(build[0])} | ${ms(build[1])} | ${(build[1] / build[0]).toFixed(2)}× | ${ms(edit[0])} | ${
      ms(edit[1])
    } | ${(edit[1] / edit[0]).toFixed(2)}× |`,
  );
}

const internals = init[Symbol.for("citeflow.internals")].csl;
{
  const styleXml = readFileSync(`${shared}/csl/styles/chicago-notes-bibliography-17th-edition.csl`, "utf8");
  const doc = new CslDocument({ style: styleXml, locale: localeXml, items: corpus });
  const pool = clusters(1000);
  const live = [];
  const sizes = [];
  for (let e = 0; e < 10000; e++) {
    const c = pool[e % pool.length];
    if (live.length > 100) doc.removeCluster(live.splice(e % live.length, 1)[0]);
    else if (live.includes(c.id)) doc.setCluster({ ...c, noteIndex: 1 + (e % 200) });
    else {
      const at = e % (live.length + 1);
      doc.setCluster({ ...c, noteIndex: 1 + (e % 200) }, at);
      live.splice(at, 0, c.id);
    }
    if ((e + 1) % 2500 === 0) sizes.push(`${e + 1}: ${(internals.memoryBytes() / 1048576).toFixed(1)} MiB`);
  }
  console.log(`wasm memory over 10,000 edits: ${sizes.join(", ")}`);
}
