// Rendering 1,000 references in APA with citeflow/csl (its own CSL engine in wasm) and with citeproc-js,
// from the same style and locale XML, same process; plus the CSL module's size, the time from
// loading it to its first rendered list, and the first bibliography of 10 items in a fresh
// process for APA, MLA, Chicago and IEEE, each engine from its import to the list.
//
// Both sides do the same work: `renderReferences` gives each source its entry and its in-text
// marker (the source cited alone), so citeproc-js makes the bibliography and one citation
// cluster per source too.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { citeprocEngine } from "../tests/csl/citeproc_engine.mjs";
import { renderReferences } from "citeflow/csl";
import { median, time } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const shared = process.env.CITEFLOW_SHARED ?? `${root}../shared`;
const corpus = JSON.parse(readFileSync(`${root}tests/fixtures/csl-corpus.json`, "utf8"));
const styleXml = readFileSync(`${shared}/csl/styles/apa.csl`, "utf8");
const localeXml = readFileSync(`${shared}/csl/locales/locales-en-US.xml`, "utf8");

function items(n) {
  return Array.from({ length: n }, (_, i) => {
    const base = corpus[i % corpus.length];
    return { ...base, id: `${base.id}-${i}`, title: `${base.title} (part ${Math.floor(i / corpus.length) + 1})` };
  });
}

const FIRST = `
const t0 = performance.now();
const { renderReferences } = await import("citeflow/csl");
const loaded = performance.now();
renderReferences([{ type: "book", title: "T", author: [{ family: "Poe", given: "E." }], issued: { "date-parts": [[1845]] } }]);
console.log(JSON.stringify({ load: loaded - t0, first: performance.now() - loaded }));
`;

// Where Linux tells, the main thread's CPU time too (/proc/thread-self/schedstat, in ns): it
// counts what the process itself did, not the time it waited for a core on a busy machine.
const CPU = `
import { readFileSync as readStat } from "node:fs";
const cpu = () => {
  try {
    return Number(readStat("/proc/thread-self/schedstat", "utf8").split(" ")[0]) / 1e6;
  } catch {
    return null;
  }
};
const c0 = cpu();
`;
const REPORT = `console.log(JSON.stringify({ ms: performance.now() - t0, cpuMs: c0 === null ? null : cpu() - c0 }));`;

// A fresh process renders the first 10 corpus items in one style, from the import on.
const FIRST_TEN = {
  citeflow: (style) =>
    `${CPU}
const t0 = performance.now();
const { renderReferences } = await import("citeflow/csl");
const { readFileSync } = await import("node:fs");
const corpus = JSON.parse(readFileSync("tests/fixtures/csl-corpus.json", "utf8")).slice(0, 10);
const refs = renderReferences(corpus, null, { style: ${JSON.stringify(style.ours)} });
if (refs.length !== 10) throw new Error("expected 10 entries");
${REPORT}
`,
  citeproc: (style) =>
    `${CPU}
const t0 = performance.now();
const { default: CSL } = await import("citeproc");
const { readFileSync } = await import("node:fs");
const shared = process.env.CITEFLOW_SHARED ?? "../shared";
const corpus = JSON.parse(readFileSync("tests/fixtures/csl-corpus.json", "utf8")).slice(0, 10);
const styleXml = readFileSync(\`\${shared}/csl/styles/${style.file}.csl\`, "utf8");
const localeXml = readFileSync(\`\${shared}/csl/locales/locales-en-US.xml\`, "utf8");
const byId = Object.fromEntries(corpus.map((it) => [it.id, structuredClone(it)]));
const engine = new CSL.Engine({ retrieveLocale: () => localeXml, retrieveItem: (id) => byId[id] }, styleXml, "en-US", true);
engine.setOutputFormat("text");
engine.updateItems(corpus.map((it) => it.id));
const entries = engine.makeBibliography()[1];
const markers = corpus.map((it) => engine.makeCitationCluster([{ id: it.id }]));
if (entries.length !== 10 || markers.length !== 10) throw new Error("expected 10 entries");
${REPORT}
`,
};
const FIRST_STYLES = [
  { ours: "apa", file: "apa" },
  { ours: "mla", file: "modern-language-association" },
  { ours: "chicago", file: "chicago-author-date" },
  { ours: "ieee", file: "ieee" },
];

function probe(engine, style) {
  const out = execFileSync(process.execPath, ["--input-type=module", "-e", FIRST_TEN[engine](style)], {
    cwd: root,
    encoding: "utf8",
  });
  return JSON.parse(out);
}

// The two engines' fresh processes take turns, so a change of the machine's load during the
// measurement falls on both; the ratio is the median of the pairs' ratios.
function firstTen(style, probes = 3) {
  const ratios = [];
  const cpuRatios = [];
  const times = { citeflow: [], citeproc: [] };
  for (let i = 0; i < probes; i++) {
    const [ours, theirs] = ["citeflow", "citeproc"].map((engine) => probe(engine, style));
    times.citeflow.push(ours.ms);
    times.citeproc.push(theirs.ms);
    ratios.push(theirs.ms / ours.ms);
    if (ours.cpuMs !== null && theirs.cpuMs !== null) cpuRatios.push(theirs.cpuMs / ours.cpuMs);
  }
  return {
    citeflowMs: median(times.citeflow),
    citeprocMs: median(times.citeproc),
    ratio: median(ratios),
    ratioRange: [Math.min(...ratios), Math.max(...ratios)],
    cpuRatio: cpuRatios.length ? median(cpuRatios) : null,
  };
}

export async function run({ runs = 5 } = {}) {
  const list = items(1000);
  const ours = () => renderReferences(list, null, { style: styleXml, locale: localeXml });
  const theirs = () => {
    const engine = citeprocEngine({ styleXml, localeXml, items: list });
    engine.updateItems(list.map((it) => it.id));
    const entries = engine.makeBibliography()[1];
    const markers = list.map((it) => engine.makeCitationCluster([{ id: it.id }]));
    return markers.length === entries.length ? entries : [];
  };
  if (ours().length !== theirs().length) throw new Error("the two engines rendered different counts");
  const a = await time(ours, runs);
  const b = await time(theirs, runs);
  const probes = Array.from(
    { length: 3 },
    () =>
      JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", FIRST], { cwd: root, encoding: "utf8" })),
  );
  const first = FIRST_STYLES.map((style) => {
    // Five pairs of fresh processes (three in the test command's quick pass).
    return { style: style.ours, ...firstTen(style, runs > 1 ? 5 : 3) };
  });
  const wasm = readFileSync(`${root}pkg/gen/csl/citeflow_csl_bg.wasm`);
  return {
    name: "csl",
    citeflowMs: a,
    citeprocMs: b,
    ratio: b / a,
    loadMs: median(probes.map((p) => p.load)),
    firstRenderMs: median(probes.map((p) => p.first)),
    bytes: wasm.length,
    gzipBytes: gzipSync(wasm, { level: 9 }).length,
    first,
  };
}

export function print(r) {
  console.log(
    `CSL: 1,000 APA references: citeflow ${r.citeflowMs.toFixed(0)} ms, citeproc-js ${
      r.citeprocMs.toFixed(0)
    } ms (ratio ${r.ratio.toFixed(2)} = citeproc time / citeflow time)`,
  );
  console.log(
    `CSL module: ${r.bytes} B, ${r.gzipBytes} B gzip; load ${r.loadMs.toFixed(0)} ms, first render after loading ${
      r.firstRenderMs.toFixed(0)
    } ms (fresh process, median of 3)`,
  );
  for (const f of r.first) {
    console.log(
      `CSL first bibliography of 10 items, fresh process, ${f.style}: citeflow ${
        f.citeflowMs.toFixed(0)
      } ms, citeproc-js ${f.citeprocMs.toFixed(0)} ms (ratio ${f.ratio.toFixed(1)}, median of the pairs; pairs ${
        f.ratioRange[0].toFixed(1)
      }-${f.ratioRange[1].toFixed(1)}${f.cpuRatio === null ? "" : `; main-thread CPU ratio ${f.cpuRatio.toFixed(1)}`})`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
