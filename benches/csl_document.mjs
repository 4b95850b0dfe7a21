// A document of 300 citation clusters built one cluster at a time, then one cluster in its
// middle replaced, with citeflow/csl's CslDocument and with citeproc-js's processCitationCluster,
// same process, same style and locale XML, same clusters (each its own footnote, 1-2 cites of
// the corpus in tests/fixtures/csl-corpus.json, some with a locator): the median of `runs`
// builds. Then the wasm memory over 10,000 edits of a document kept at about 100 clusters
// (inserts, replacements and removals). Part of `make bench` (benches/run.mjs).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { citeprocEngine } from "../tests/csl/citeproc_engine.mjs";
import init, { CslDocument } from "citeflow/csl";
import { median } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const shared = process.env.CITEFLOW_SHARED ?? `${root}../shared`;
const corpus = JSON.parse(readFileSync(`${root}tests/fixtures/csl-corpus.json`, "utf8"));
const localeXml = readFileSync(`${shared}/csl/locales/locales-en-US.xml`, "utf8");
const N = 300;
const STYLES = ["chicago-notes-bibliography-17th-edition", "apa"];

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
  const engine = citeprocEngine({ styleXml, localeXml, items: corpus, clone: true });
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

/** The wasm memory after each 2,500 of 10,000 edits, in bytes. */
function memoryOverEdits() {
  const internals = init[Symbol.for("citeflow.internals")].csl;
  const styleXml = readFileSync(`${shared}/csl/styles/${STYLES[0]}.csl`, "utf8");
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
    if ((e + 1) % 2500 === 0) sizes.push(internals.memoryBytes());
  }
  return sizes;
}

export async function run({ runs = 3 } = {}) {
  await init();
  const list = clusters(N);
  const rows = STYLES.map((style) => {
    const styleXml = readFileSync(`${shared}/csl/styles/${style}.csl`, "utf8");
    const a = Array.from({ length: runs }, () => ours(styleXml, list));
    const b = Array.from({ length: runs }, () => theirs(styleXml, list));
    const build = [median(a.map((r) => r.build)), median(b.map((r) => r.build))];
    const edit = [median(a.map((r) => r.edit)), median(b.map((r) => r.edit))];
    return { style, build, edit, buildRatio: build[1] / build[0], editRatio: edit[1] / edit[0] };
  });
  return { name: "csl-document", clusters: N, rows, memoryBytes: memoryOverEdits() };
}

export function print({ clusters: n, rows, memoryBytes }) {
  const ms = (x) => `${x.toFixed(1)} ms`;
  console.log(
    `| CslDocument, style | ${n} clusters, one at a time: citeflow | citeproc-js | ratio | one edit in the middle: citeflow | citeproc-js | ratio |`,
  );
  console.log("|---|---|---|---|---|---|---|");
  for (const { style, build, edit, buildRatio, editRatio } of rows) {
    console.log(
      `| ${style} | ${ms(build[0])} | ${ms(build[1])} | ${buildRatio.toFixed(2)}× | ${ms(edit[0])} | ${ms(edit[1])} | ${
        editRatio.toFixed(2)
      }× |`,
    );
  }
  const mib = memoryBytes.map((b, i) => `${(i + 1) * 2500}: ${(b / 1048576).toFixed(1)} MiB`);
  console.log(`CslDocument wasm memory over 10,000 edits: ${mib.join(", ")}`);
}
