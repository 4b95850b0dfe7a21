// Renders the corpus (tests/fixtures/csl-corpus.json) with citeflow (its own CSL engine) and with
// citeproc-js, the reference CSL processor, from the same style and locale XML
// (../shared/csl), and reports agreement per style. Entries are compared as plain text with
// whitespace collapsed.
//
// `node tests/csl/agreement.mjs` prints the table and the first differences per style;
// `--check` also fails when a style drops below its floor in FLOORS (a regression).
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { citeprocEngine } from "./citeproc_engine.mjs";
import { renderReferences } from "citeflow/csl";

const root = fileURLToPath(new URL("../..", import.meta.url));
const shared = process.env.CITEFLOW_SHARED ?? `${root}../shared`;
const corpus = JSON.parse(readFileSync(`${root}tests/fixtures/csl-corpus.json`, "utf8"));
const localeXml = readFileSync(`${shared}/csl/locales/locales-en-US.xml`, "utf8");

export const STYLES = [
  "apa",
  "modern-language-association",
  "chicago-author-date",
  "ieee",
  "nature",
  "vancouver",
  "elsevier-vancouver",
  "harvard-cite-them-right",
  "american-medical-association",
];

const normalize = (s) => s.replace(/\s+/g, " ").trim();

function citeproc(styleXml) {
  const engine = citeprocEngine({ styleXml, localeXml, items: corpus });
  engine.updateItems(corpus.map((item) => item.id));
  const [params, entries] = engine.makeBibliography();
  return new Map(params.entry_ids.map((ids, i) => [ids[0], normalize(entries[i])]));
}

function ours(styleXml) {
  const refs = renderReferences(corpus, null, { style: styleXml, locale: localeXml, format: "text" });
  return new Map(refs.map((r) => [corpus[r.sourceId - 1].id, normalize(r.entry)]));
}

export function compare(style) {
  const styleXml = readFileSync(`${shared}/csl/styles/${style}.csl`, "utf8");
  const theirs = citeproc(styleXml);
  const mine = ours(styleXml);
  const diffs = [];
  for (const item of corpus) {
    const a = mine.get(item.id) ?? "(missing)";
    const b = theirs.get(item.id) ?? "(missing)";
    if (a !== b) diffs.push({ id: item.id, citeflow: a, citeproc: b });
  }
  return { style, total: corpus.length, agree: corpus.length - diffs.length, diffs };
}

/** Agreement (entries) each style must keep: today's measured level, so a regression fails. */
const FLOORS = {
  apa: 47,
  "modern-language-association": 47,
  "chicago-author-date": 47,
  ieee: 47,
  nature: 47,
  vancouver: 47,
  "elsevier-vancouver": 47,
  "harvard-cite-them-right": 47,
  "american-medical-association": 47,
};

if (import.meta.url === `file://${process.argv[1]}`) {
  const show = Number(process.argv.find((a) => a.startsWith("--show="))?.slice(7) ?? 3);
  let sum = 0;
  let total = 0;
  const rows = STYLES.map(compare);
  for (const r of rows) {
    sum += r.agree;
    total += r.total;
    for (const d of r.diffs.slice(0, show)) {
      console.log(`[${r.style}] ${d.id}\n  citeflow: ${d.citeflow}\n  citeproc: ${d.citeproc}`);
    }
  }
  console.log("| style | agree | of | % |\n|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.style} | ${r.agree} | ${r.total} | ${((100 * r.agree) / r.total).toFixed(0)} |`);
  }
  console.log(`| all | ${sum} | ${total} | ${((100 * sum) / total).toFixed(1)} |`);
  if (process.argv.includes("--check")) {
    const low = rows.filter((r) => r.agree < FLOORS[r.style]);
    for (const r of low) {
      console.error(`agreement with citeproc-js fell for ${r.style}: ${r.agree} < ${FLOORS[r.style]}`);
    }
    if (low.length) process.exit(1);
  }
}
