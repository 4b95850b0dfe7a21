// Relevance by embedding similarity: 10,000 chunks of 1,536-dimension embeddings kept by
// cosine ≥ 0.5, citeflow's wasm (SIMD) against a plain JS loop and LangChain's
// EmbeddingsFilter maths (`cosineSimilarity` from @langchain/core), same vectors, same
// process. Plus end to end: a decision-model filter of 100 chunks against a local server
// that answers each call in 50 ms (batches of 5, 10 in flight: ~ceil(100 / 5 / 10) × 50 ms).
import { cosineSimilarity } from "@langchain/core/utils/math";
import { buildDMInvoker, cosineSimilarities, DMRelevanceFilter } from "citeflow";
import { rng } from "../tests/js/helpers.mjs";
import { startFakeProvider } from "../tests/js/support/fake-provider.mjs";
import { time } from "./timing.mjs";

const THRESHOLD = 0.5;

/** Vectors spread around the query so that the cosines spread around the threshold. */
function data(count, dim) {
  const random = rng(11);
  const query = Float32Array.from({ length: dim }, () => random() * 2 - 1);
  const vectors = Array.from({ length: count }, () => {
    const a = random() * 2;
    return Float32Array.from(query, (q) => q * a + (random() * 2 - 1));
  });
  return { query, vectors };
}

function plainJs(query, vectors) {
  let qq = 0;
  for (let i = 0; i < query.length; i++) qq += query[i] * query[i];
  const qn = Math.sqrt(qq);
  const kept = [];
  for (let r = 0; r < vectors.length; r++) {
    const v = vectors[r];
    let dot = 0;
    let vv = 0;
    for (let i = 0; i < v.length; i++) {
      dot += query[i] * v[i];
      vv += v[i] * v[i];
    }
    const denom = qn * Math.sqrt(vv);
    if ((denom > 0 ? dot / denom : 0) >= THRESHOLD) kept.push(r);
  }
  return kept;
}

function langchain(query, vectors) {
  const scores = cosineSimilarity([query], vectors)[0];
  const kept = [];
  scores.forEach((s, i) => s >= THRESHOLD && kept.push(i));
  return kept;
}

function ours(query, vectors) {
  const scores = cosineSimilarities(query, vectors);
  const kept = [];
  for (let i = 0; i < scores.length; i++) if (scores[i] >= THRESHOLD) kept.push(i);
  return kept;
}

async function decisionFilter() {
  const server = await startFakeProvider();
  try {
    const chunks = Array.from(
      { length: 100 },
      (_, i) => ({ content: `chunk ${i} ${i % 2 ? "relevant" : "irrelevant"}` }),
    );
    const filter = new DMRelevanceFilter(
      buildDMInvoker("typesafe/slow-50", { apiKey: "sk-test", baseUrl: server.base }),
    );
    await filter.filter({ chunks, query: "q" }); // warm: connections, JIT
    const t0 = performance.now();
    const kept = await filter.filter({ chunks, query: "q" });
    if (kept.length !== 50) throw new Error(`decision filter kept ${kept.length} of 100, expected 50`);
    return { ms: performance.now() - t0, expectedMs: Math.ceil(100 / 5 / 10) * 50 };
  } finally {
    server.close();
  }
}

export async function run({ runs = 5 } = {}) {
  const { query, vectors } = data(10_000, 1536);
  const asArrays = vectors.map((v) => Array.from(v)); // LangChain's declared input: number[][]
  const a = ours(query, vectors);
  const b = plainJs(query, vectors);
  const c = langchain(Array.from(query), asArrays);
  // f32 and f64 sums may disagree for a score within rounding of the threshold; nothing else.
  const differ = (x, y) => x.length !== y.length && Math.abs(x.length - y.length) > 2;
  if (differ(a, b) || differ(a, c)) {
    throw new Error(`kept counts differ: citeflow ${a.length}, plain JS ${b.length}, LangChain ${c.length}`);
  }
  const oursMs = await time(() => ours(query, vectors), runs);
  const plainMs = await time(() => plainJs(query, vectors), runs);
  const langchainMs = await time(() => langchain(Array.from(query), asArrays), runs);
  const dm = await decisionFilter();
  return {
    name: "similarity",
    chunks: vectors.length,
    dim: query.length,
    kept: a.length,
    oursMs,
    plainMs,
    langchainMs,
    vsPlain: plainMs / oursMs,
    vsLangchain: langchainMs / oursMs,
    dm,
  };
}

export function print(r) {
  console.log(
    `cosine filter, ${r.chunks} × ${r.dim} (kept ${r.kept}): citeflow ${r.oursMs.toFixed(1)} ms, plain JS loop ${
      r.plainMs.toFixed(1)
    } ms (ratio ${r.vsPlain.toFixed(2)}), LangChain cosineSimilarity ${r.langchainMs.toFixed(1)} ms (ratio ${
      r.vsLangchain.toFixed(2)
    })`,
  );
  console.log(
    `decision-model filter, 100 chunks, 50 ms per call: ${
      r.dm.ms.toFixed(0)
    } ms (expected about ${r.dm.expectedMs} ms)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
