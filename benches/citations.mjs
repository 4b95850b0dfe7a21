// Marker parsing (streamed in token-sized chunks), dedup and policy validation over a ~1 MB
// answer: citeflow against the straightforward JS regex code a user would otherwise write,
// same input, same process. (The regex peer is less careful: it does not skip code, links
// or URLs; it is the speed baseline, not a correctness one.) Streamed, both sides return the
// same events per chunk: answer text and a citation event per marker (issue 11's peer).
import { checkPolicy, CitationParser, deduplicateAdjacentCites, parseCitations } from "citeflow";
import { rng } from "../tests/js/helpers.mjs";
import { chunk } from "./transcript.mjs";
import { compare } from "./timing.mjs";

const SOURCES = 8;
const WORDS =
  "the study found that rates rose in most regions while costs fell over the decade according to survey data".split(
    " ",
  );

export function answer(targetBytes = 1 << 20) {
  const random = rng(11);
  const parts = [];
  let size = 0;
  while (size < targetBytes) {
    const words = Array.from(
      { length: 8 + Math.floor(random() * 20) },
      () => WORDS[Math.floor(random() * WORDS.length)],
    ).join(" ");
    const cites = Array.from({ length: 1 + Math.floor(random() * 3) }, () => `[${1 + Math.floor(random() * SOURCES)}]`)
      .join(" ");
    const s = `${words[0].toUpperCase()}${words.slice(1)} ${cites}. `;
    parts.push(s);
    size += s.length;
  }
  return parts.join("");
}

// ---- the peer: what a user writes with regular expressions -----------------------------------
// A stream transformer like citeflow's: per chunk, the events it releases (answer text up to a
// possible marker prefix, held until decided, and a citation event per marker), same shapes.
function regexParser(sourceCount) {
  const re = /\[(\d+)\]/g;
  let tail = ""; // text not yet scanned to the end: at most a partial marker
  let base = 0; // offset of `tail` in the whole answer
  const text = (value) => ({ id: null, type: "response", value, valueType: "text" });
  return {
    push(c) {
      const out = [];
      tail += c;
      re.lastIndex = 0;
      let m;
      let done = 0;
      const cites = [];
      while ((m = re.exec(tail)) !== null) {
        const id = Number(m[1]);
        cites.push({
          id: null,
          type: "citation",
          value: {
            sourceId: id,
            marker: m[0],
            span: [base + m.index, base + re.lastIndex],
            valid: id >= 1 && id <= sourceCount,
          },
          valueType: "json",
        });
        done = re.lastIndex;
      }
      const open = tail.indexOf("[", done);
      const cut = open >= 0 && /^\[\d*$/.test(tail.slice(open)) ? open : tail.length;
      if (cut > 0) out.push(text(tail.slice(0, cut)));
      for (const e of cites) out.push(e);
      base += cut;
      tail = tail.slice(cut);
      return out;
    },
    finish() {
      const out = tail === "" ? [] : [text(tail)];
      tail = "";
      return out;
    },
  };
}

// Every marker of a whole answer, as the same objects parseCitations returns.
function regexParse(text, sourceCount) {
  return Array.from(text.matchAll(/\[(\d+)\]/g), (m) => {
    const id = Number(m[1]);
    return { sourceId: id, marker: m[0], span: [m.index, m.index + m[0].length], valid: id >= 1 && id <= sourceCount };
  });
}

function regexDedup(text) {
  return text.replace(
    /\[\d+\](?:\s*\[\d+\])+/g,
    (run) => [...new Set(run.match(/\d+/g))].map((id) => `[${id}]`).join(" "),
  );
}

function regexPolicy(text, sourceCount) {
  const sentences = text.split(/(?<=[.!?])\s+(?=[A-Z0-9])/);
  return sentences.map((s) => {
    const ids = [...s.matchAll(/\[(\d+)\]/g)].map((m) => Number(m[1]));
    return { text: s, ok: /\[\d+\]\s*[.!?]$/.test(s.trim()) && ids.every((id) => id >= 1 && id <= sourceCount) };
  });
}

// ---- harness ---------------------------------------------------------------------------------

export async function run({ runs = 11 } = {}) {
  const text = answer();
  const chunks = chunk(text, 4);
  let ours = 0;
  let theirs = 0;
  const rows = [
    ["streamed parse (4-char chunks)", () => {
      const p = new CitationParser({ sourceCount: SOURCES });
      let n = 0;
      for (const c of chunks) for (const e of p.push(c)) if (e.type === "citation") n++;
      for (const e of p.finish()) if (e.type === "citation") n++;
      ours = n;
    }, () => {
      const p = regexParser(SOURCES);
      let n = 0;
      for (const c of chunks) for (const e of p.push(c)) if (e.type === "citation") n++;
      for (const e of p.finish()) if (e.type === "citation") n++;
      theirs = n;
    }],
    ["parse (whole text)", () => parseCitations(text, { sourceCount: SOURCES }), () => regexParse(text, SOURCES)],
    ["dedup (whole text)", () => deduplicateAdjacentCites(text), () => regexDedup(text)],
    ["policy check (whole text)", () => checkPolicy(text, { sourceCount: SOURCES }), () => regexPolicy(text, SOURCES)],
  ];
  const results = [];
  for (const [name, a, b] of rows) {
    const t = await compare(a, b, runs);
    results.push({ name, citeflowMs: t.a, regexMs: t.b, ratio: t.ratio });
  }
  if (ours !== theirs) throw new Error(`citation counts differ: citeflow ${ours}, regex ${theirs}`);
  if (deduplicateAdjacentCites(text) !== regexDedup(text)) throw new Error("dedup results differ");
  const parsed = JSON.stringify(parseCitations(text, { sourceCount: SOURCES }));
  if (parsed !== JSON.stringify(regexParse(text, SOURCES))) throw new Error("parse results differ");
  return { name: "citations", bytes: text.length, citations: ours, rows: results };
}

export function print({ bytes, citations, rows }) {
  console.log(
    `Citations vs straightforward JS regex code, ${
      (bytes / 1e6).toFixed(2)
    } MB answer, ${citations} citations (ratio = regex time / citeflow time)`,
  );
  console.log("| task | citeflow ms | regex ms | ratio |");
  console.log("|---|---|---|---|");
  for (const r of rows) {
    console.log(`| ${r.name} | ${r.citeflowMs.toFixed(1)} | ${r.regexMs.toFixed(1)} | ${r.ratio.toFixed(2)} |`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
