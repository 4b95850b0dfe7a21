// A property test of CslDocument (citeflow/csl) against citeproc-js, the reference CSL processor:
// random edit sequences (insert, replace, move, remove) over the corpus of
// tests/fixtures/csl-corpus.json (plus three items made for name and year-suffix
// disambiguation), in in-text and note styles, from the same style and locale XML
// (../shared/csl). After each edit it compares every cluster's text with citeproc-js's, and the
// clusters the edit reported changed with those citeproc-js's `processCitationCluster` reported
// changed.
//
// Two checks:
// - always (no oracle): the changed list of each edit is exactly the clusters whose text differs
//   from before the edit, in document order, the edited one included and a removed one not;
// - against citeproc-js: agreement per style, which may not fall below FLOORS (today's measured
//   level), and is printed with examples of each disagreement (`--show=N`, default 3).
//
// In note styles each cluster is its own footnote (noteIndex = place + 1), so an insertion,
// move or removal renumbers the footnotes after it: citeproc-js gets the new numbers in the
// call's lists; the document gets each renumbered cluster set again (the first `setCluster`'s
// changed list is then merged with those of the renumbering, and a cluster counts as changed
// where its text differs from before the edit). citeproc-js has no removal: a removal is the
// next cluster (or the new last) processed again without the removed one in its lists.
// citeproc-js also reports clusters whose text did not change (counted as "no-op updates"):
// the comparison takes the ones whose text did.
//
// `node tests/csl/document_agreement.mjs [--check] [--show=N] [--seed=N] [--edits=N]`
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { citeprocEngine } from "./citeproc_engine.mjs";
import { CslDocument } from "citeflow/csl";

const root = fileURLToPath(new URL("../..", import.meta.url));
const shared = process.env.CITEFLOW_SHARED ?? `${root}../shared`;
const corpus = JSON.parse(readFileSync(`${root}tests/fixtures/csl-corpus.json`, "utf8"));
const extra = [
  {
    id: "smith-john-2020",
    type: "article-journal",
    title: "Groundwater recharge in semi-arid basins",
    author: [{ family: "Smith", given: "John" }],
    "container-title": "Hydrology Letters",
    volume: "8",
    page: "101-119",
    issued: { "date-parts": [[2020]] },
  },
  {
    id: "smith-alice-2020",
    type: "article-journal",
    title: "Cover crops and nitrogen retention",
    author: [{ family: "Smith", given: "Alice" }],
    "container-title": "Journal of Agronomy",
    volume: "9",
    issue: "2",
    page: "12-30",
    issued: { "date-parts": [[2020]] },
  },
  {
    id: "chen-c",
    type: "article-journal",
    title: "Sparse attention at scale",
    author: [{ family: "Chen", given: "Wei" }],
    "container-title": "Machine Learning Review",
    volume: "4",
    page: "1-22",
    issued: { "date-parts": [[2021]] },
  },
];
const items = [...corpus, ...extra];
const localeXml = readFileSync(`${shared}/csl/locales/locales-en-US.xml`, "utf8");

/** Styles and whether each is a note style. */
export const STYLES = [
  ["apa", false],
  ["chicago-author-date", false],
  ["modern-language-association", false],
  ["ieee", false],
  ["chicago-notes-bibliography-17th-edition", true],
  ["new-harts-rules-notes", true],
  ["cambridge-university-press-note", true],
];

/**
 * Agreement each style must keep (today's measured level, default seed and length): cluster
 * texts equal (of all compared after each edit), and edits whose changed list equals
 * citeproc-js's.
 */
const FLOORS = {
  apa: { texts: 491, changed: 80 },
  "chicago-author-date": { texts: 491, changed: 80 },
  "modern-language-association": { texts: 474, changed: 80 },
  ieee: { texts: 491, changed: 80 },
  "chicago-notes-bibliography-17th-edition": { texts: 499, changed: 80 },
  "new-harts-rules-notes": { texts: 499, changed: 80 },
  "cambridge-university-press-note": { texts: 499, changed: 80 },
};

/** The items cited most (repeats make positions and disambiguation happen). */
const POOL = [
  "vaswani",
  "lecun",
  "smith-single",
  "knuth-book",
  "chen-a",
  "chen-b",
  "chen-c",
  "smith-john-2020",
  "smith-alice-2020",
  "who-web",
  "anon-web",
  "kahneman",
  "orwell",
  "edited-book",
];

function random(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const normalize = (s) => s.replace(/\s+/g, " ").trim();

function makeCites(rnd, note) {
  const n = 1 + Math.floor(rnd() * rnd() * 3);
  const cites = [];
  for (let k = 0; k < n; k++) {
    const id = rnd() < 0.85 ? POOL[Math.floor(rnd() * POOL.length)] : items[Math.floor(rnd() * items.length)].id;
    // One cite per work in a cluster (citeproc-js's disambiguation throws on a repeat).
    if (cites.some((c) => c.id === id)) continue;
    const cite = { id };
    const r = rnd();
    if (r < 0.3) cite.locator = String(1 + Math.floor(rnd() * 3) * 10);
    else if (r < 0.35) Object.assign(cite, { locator: "2", label: "chapter" });
    if (rnd() < 0.1) cite.prefix = "see ";
    if (rnd() < 0.05) cite.suffix = " (emphasis added)";
    if (!note && rnd() < 0.08) cite.suppressAuthor = true;
    cites.push(cite);
  }
  return cites;
}

/** citeproc-js's form of a cite. */
const theirCite = (c) => {
  const out = { id: c.id };
  if (c.locator !== undefined) out.locator = c.locator;
  if (c.label !== undefined) out.label = c.label;
  if (c.prefix !== undefined) out.prefix = c.prefix;
  if (c.suffix !== undefined) out.suffix = c.suffix;
  if (c.suppressAuthor) out["suppress-author"] = true;
  return out;
};

function runStyle(style, note, { seed, edits, sequences }) {
  const styleXml = readFileSync(`${shared}/csl/styles/${style}.csl`, "utf8");
  const stats = {
    style,
    edits: 0,
    texts: 0,
    textsAgree: 0,
    changedAgree: 0,
    noopUpdates: 0,
    citeprocThrew: [],
    selfErrors: [],
    textDiffs: [],
    changedDiffs: [],
  };
  for (let run = 0; run < sequences; run++) {
    const rnd = random(seed * 1000 + run);
    const fresh = () => {
      return citeprocEngine({ styleXml, localeXml, items, clone: true });
    };
    let engine = fresh();
    const doc = new CslDocument({ style: styleXml, locale: localeXml, format: "text", items });
    /** The clusters in document order: { id, items }. */
    const order = [];
    /** citeproc-js's text of each cluster. */
    const theirs = new Map();
    let next = 0;
    const noteOf = (k) => (note ? k + 1 : 0);
    for (let e = 0; e < edits; e++) {
      const r = rnd();
      const op = order.length === 0 || r < 0.45 ? "insert" : r < 0.65 ? "replace" : r < 0.82 ? "move" : "remove";
      const before = new Map(doc.clusters().map((c) => [c.id, c.text]));
      const oldNotes = new Map(order.map((c, k) => [c.id, noteOf(k)]));
      let edited = null;
      let index = 0;
      if (op === "insert") {
        edited = { id: `c${next++}`, items: makeCites(rnd, note) };
        index = Math.floor(rnd() * (order.length + 1));
        order.splice(index, 0, edited);
      } else {
        const at = Math.floor(rnd() * order.length);
        const [old] = order.splice(at, 1);
        if (op === "replace") {
          edited = { id: old.id, items: makeCites(rnd, note) };
          index = at;
          order.splice(index, 0, edited);
        } else if (op === "move") {
          edited = old;
          index = Math.floor(rnd() * (order.length + 1));
          order.splice(index, 0, edited);
        } else {
          index = at;
          edited = old;
        }
      }
      // Ours: one edit, then the renumbered footnotes set again.
      let ours;
      if (op === "remove") ours = doc.removeCluster(edited.id);
      else ours = doc.setCluster({ id: edited.id, noteIndex: noteOf(index), items: edited.items }, index);
      let renumbered = false;
      order.forEach((c, k) => {
        if (c !== edited && oldNotes.has(c.id) && oldNotes.get(c.id) !== noteOf(k)) {
          renumbered = true;
          ours = ours.concat(doc.setCluster({ id: c.id, noteIndex: noteOf(k), items: c.items }));
        }
      });
      const now = doc.clusters();
      const nowText = new Map(now.map((c) => [c.id, c.text]));
      const mine = now
        .filter((c) => ours.some((o) => o.id === c.id))
        .filter((c) => !renumbered || c.id === edited.id || before.get(c.id) !== c.text)
        .map((c) => c.id);
      // The changed list itself: the clusters whose text changed, the edited one included.
      if (!renumbered) {
        const expected = now
          .filter((c) => (op !== "remove" && c.id === edited.id) || before.get(c.id) !== c.text)
          .map((c) => c.id);
        const got = ours.map((c) => c.id);
        const texts = ours.every((c) => nowText.get(c.id) === c.text);
        if (JSON.stringify(got) !== JSON.stringify(expected) || !texts) {
          stats.selfErrors.push({ style, run, edit: e, op, got, expected });
        }
      }
      // citeproc-js: the edited cluster processed with the others around it.
      const listed = (k) => [order[k].id, noteOf(k)];
      let updates = [];
      let processed = null;
      if (op !== "remove") processed = index;
      else if (order.length > 0) processed = Math.min(index, order.length - 1);
      if (processed !== null) {
        const c = order[processed];
        const citation = {
          citationID: c.id,
          citationItems: c.items.map(theirCite),
          properties: { noteIndex: noteOf(processed) },
        };
        const pre = order.slice(0, processed).map((_, k) => listed(k));
        const post = order.slice(processed + 1).map((_, k) => listed(processed + 1 + k));
        try {
          updates = engine.processCitationCluster(citation, pre, post)[1];
        } catch (error) {
          // citeproc-js threw: the document is rendered by a fresh engine, cluster by
          // cluster, and this edit's changed lists are not compared.
          stats.citeprocThrew.push({ run, edit: e, op, error: String(error).slice(0, 80) });
          engine = fresh();
          theirs.clear();
          order.forEach((c, k) => {
            const cit = {
              citationID: c.id,
              citationItems: c.items.map(theirCite),
              properties: { noteIndex: noteOf(k) },
            };
            const done = engine.processCitationCluster(cit, order.slice(0, k).map((_, j) => listed(j)), [])[1];
            for (const [, text, id] of done) theirs.set(id, normalize(text));
          });
          updates = null;
        }
      }
      if (op === "remove") theirs.delete(edited.id);
      if (updates === null) {
        stats.edits++;
        for (const c of now) {
          stats.texts++;
          if (normalize(c.text) === theirs.get(c.id)) stats.textsAgree++;
          else {stats.textDiffs.push({
              run,
              edit: e,
              id: c.id,
              citeflow: normalize(c.text),
              citeproc: theirs.get(c.id),
            });}
        }
        continue;
      }
      const theirsBefore = new Map(theirs);
      for (const [, text, id] of updates) theirs.set(id, normalize(text));
      const theirChanged = new Set();
      for (const [, text, id] of updates) {
        if ((op !== "remove" && id === edited.id) || theirsBefore.get(id) !== normalize(text)) theirChanged.add(id);
        else stats.noopUpdates++;
      }
      const theirList = order.map((c) => c.id).filter((id) => theirChanged.has(id));
      stats.edits++;
      for (const c of now) {
        stats.texts++;
        if (normalize(c.text) === theirs.get(c.id)) stats.textsAgree++;
        else stats.textDiffs.push({ run, edit: e, id: c.id, citeflow: normalize(c.text), citeproc: theirs.get(c.id) });
      }
      if (JSON.stringify(mine) === JSON.stringify(theirList)) stats.changedAgree++;
      else stats.changedDiffs.push({ run, edit: e, op, citeflow: mine, citeproc: theirList });
    }
  }
  return stats;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const arg = (name, d) => Number(process.argv.find((a) => a.startsWith(`--${name}=`))?.split("=")[1] ?? d);
  const show = arg("show", 3);
  const options = { seed: arg("seed", 1), edits: arg("edits", 40), sequences: arg("sequences", 2) };
  const started = performance.now();
  const rows = STYLES.map(([style, note]) => runStyle(style, note, options));
  let failed = false;
  for (const r of rows) {
    // Each distinct text difference once (a cluster keeps its text over several edits).
    const seen = new Set();
    const distinct = r.textDiffs.filter((d) => !seen.has(d.citeflow + d.citeproc) && seen.add(d.citeflow + d.citeproc));
    for (const d of distinct.slice(0, show)) {
      console.log(
        `[${r.style}] run ${d.run} edit ${d.edit} ${d.id}\n  citeflow: ${d.citeflow}\n  citeproc: ${d.citeproc}`,
      );
    }
    for (const d of r.changedDiffs.slice(0, show)) {
      console.log(
        `[${r.style}] run ${d.run} edit ${d.edit} (${d.op}) changed: citeflow ${d.citeflow} citeproc ${d.citeproc}`,
      );
    }
    for (const d of r.citeprocThrew.slice(0, show)) console.log(`[${r.style}] citeproc-js threw: ${JSON.stringify(d)}`);
    for (const d of r.selfErrors.slice(0, show)) {
      console.log(`[${r.style}] changed list wrong: ${JSON.stringify(d)}`);
    }
  }
  console.log(
    "| style | edits | cluster texts equal | of | changed lists equal | of | citeproc-js threw | its no-op updates |",
  );
  console.log("|---|---|---|---|---|---|---|---|");
  for (const r of rows) {
    const compared = r.edits - r.citeprocThrew.length;
    console.log(
      `| ${r.style} | ${r.edits} | ${r.textsAgree} | ${r.texts} | ${r.changedAgree} | ${compared} | ${r.citeprocThrew.length} | ${r.noopUpdates} |`,
    );
  }
  console.log(`${((performance.now() - started) / 1000).toFixed(1)} s`);
  if (process.argv.includes("--check")) {
    for (const r of rows) {
      if (r.selfErrors.length) {
        console.error(`${r.style}: ${r.selfErrors.length} edits whose changed list is not what changed`);
        failed = true;
      }
      const floor = FLOORS[r.style];
      if (floor === undefined) {
        console.error(`${r.style}: no floor`);
        failed = true;
      } else if (r.textsAgree < floor.texts || r.changedAgree < floor.changed) {
        console.error(
          `${r.style}: agreement with citeproc-js fell: texts ${r.textsAgree} (floor ${floor.texts}), changed lists ${r.changedAgree} (floor ${floor.changed})`,
        );
        failed = true;
      }
    }
    if (failed) process.exit(1);
  }
}
