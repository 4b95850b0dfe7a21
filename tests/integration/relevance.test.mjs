// Real sentence embeddings (all-MiniLM-L6-v2) deciding relevance through citeflow's embedding
// invoker and SimilarityRelevanceFilter.
import assert from "node:assert/strict";
import { test } from "node:test";
import { cosineSimilarities, SimilarityReferenceFormatter, SimilarityRelevanceFilter } from "citeflow";
import { em, post } from "./support.mjs";

const CHUNKS = [
  { id: "bees", content: "Honeybee foragers tell their nestmates where food is with a waggle dance." },
  { id: "tower", content: "The Eiffel Tower was completed in March 1889 for the World's Fair in Paris." },
  { id: "floats", content: "Binary floating-point numbers cannot represent most decimal fractions exactly." },
];

test("the embedding invoker returns one unit vector of 384 dimensions per input, in order", async () => {
  const vectors = await em.invoke(CHUNKS.map((c) => c.content));
  assert.equal(vectors.length, 3);
  for (const v of vectors) {
    assert.ok(v instanceof Float32Array);
    assert.equal(v.length, 384);
    assert.ok(Math.abs(Math.hypot(...v) - 1) < 1e-4);
  }
  const [again] = await em.invoke([CHUNKS[1].content]);
  assert.ok(cosineSimilarities(again, [vectors[1]])[0] > 0.9999, "the same text embeds the same");
});

test("SimilarityRelevanceFilter ranks the relevant chunk above unrelated ones and keeps only it", async () => {
  const filter = new SimilarityRelevanceFilter(em, { threshold: 0.3 });
  const evaluated = await filter.evaluate({ chunks: CHUNKS, query: "When was the Eiffel Tower built?" });
  const score = Object.fromEntries(evaluated.map((e) => [e.chunk.id, e.score]));
  assert.ok(score.tower > score.bees && score.tower > score.floats, JSON.stringify(score));
  assert.ok(score.tower - Math.max(score.bees, score.floats) > 0.2, JSON.stringify(score));
  const kept = await filter.filter({ chunks: CHUNKS, query: "When was the Eiffel Tower built?" });
  assert.deepEqual(kept.map((c) => c.id), ["tower"]);
  const bees = await filter.filter({ chunks: CHUNKS, query: "How do bees show each other where flowers are?" });
  assert.deepEqual(bees.map((c) => c.id), ["bees"]);
});

test("SimilarityReferenceFormatter lists the chunk an answer used", async () => {
  const formatter = new SimilarityReferenceFormatter(em, { threshold: 0.4, stringify: false });
  const kept = await formatter.format({
    response: "Bees perform a waggle dance to show where the food is.",
    chunks: CHUNKS,
  });
  assert.deepEqual(kept.map((c) => c.id), ["bees"]);
});

test("an empty text has an embedding too", async () => {
  const [empty, blank] = await em.invoke(["", "   "]);
  assert.equal(empty.length, 384);
  assert.deepEqual([...blank], [...empty]);
});

test("base64 embeddings are the same floats", async () => {
  const floats = (await post("/embeddings", { input: "waggle dance" })).body.data[0].embedding;
  const encoded =
    (await post("/embeddings", { input: "waggle dance", encoding_format: "base64" })).body.data[0].embedding;
  const decoded = new Float32Array(Uint8Array.from(Buffer.from(encoded, "base64")).buffer);
  assert.deepEqual([...decoded], floats.map((x) => Math.fround(x)));
});
