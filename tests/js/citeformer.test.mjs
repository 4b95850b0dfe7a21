import { test } from "node:test";
import assert from "node:assert/strict";
import { Citeformer, GenerationResult, lexicalJudge, renderCitedHtml } from "citeflow";
import { assertCode } from "./helpers.mjs";
import { sources } from "./support/sources.mjs";

const ANSWER =
  "<think>Source 1 covers boiling.</think>Water boils at 100 degrees Celsius [1]. Ice floats on water [2]. The moon is made of cheese [7].";

/** A model stand-in that records what it was asked. */
function fakeLm(answer = ANSWER, { chunked = false } = {}) {
  const calls = [];
  const lm = {
    calls,
    async invoke(messages, options) {
      calls.push({ messages, options });
      return { outputs: [{ type: "text", output: answer }], usage: { inputTokens: 120, outputTokens: 30 } };
    },
  };
  if (chunked) {
    lm.stream = async function* (messages, options) {
      calls.push({ messages, options, streamed: true });
      for (let i = 0; i < answer.length; i += 5) yield answer.slice(i, i + 5);
      yield { usage: { inputTokens: 120, outputTokens: 30 } };
    };
  }
  return lm;
}

test("generate: numbered sources in, parsed citations and APA references out", async () => {
  const lm = fakeLm();
  const result = await new Citeformer({ lmInvoker: lm }).generate({ prompt: "What happens to water?", sources });
  assert.ok(result instanceof GenerationResult);
  assert.equal(result.schemaVersion, 3);
  assert.equal(
    result.text,
    "Water boils at 100 degrees Celsius [1]. Ice floats on water [2]. The moon is made of cheese [7].",
  );
  assert.deepEqual(result.citations.map((c) => [c.sourceId, c.valid, result.text.slice(...c.span)]), [
    [1, true, "[1]"],
    [2, true, "[2]"],
    [7, false, "[7]"],
  ]);
  assert.deepEqual(result.references.map((r) => [r.sourceId, r.inlineMarker]), [[1, "(Example Org, 2021)"], [
    2,
    "(Frost, 2019)",
  ]]);
  assert.deepEqual(result.usage, { inputTokens: 120, outputTokens: 30 });
  const [{ messages, options }] = lm.calls;
  assert.equal(messages[1].content, "What happens to water?");
  assert.match(messages[0].content, /Source 2: Why ice floats\nIce is less dense/);
  assert.equal(options.sourceCount, 2);
  assert.match(options.grammar, /cite-id ::= "\[" \("1" \| "2"\) "\]"/);
  assert.deepEqual(JSON.parse(JSON.stringify(result)).schemaVersion, 3);
});

test("stream: text chunks with .text so far, and one cached result", async () => {
  const stream = new Citeformer({ lmInvoker: fakeLm(ANSWER, { chunked: true }), style: "ieee" }).stream({
    prompt: "q",
    sources,
  });
  let seen = "";
  for await (const chunk of stream) {
    seen += chunk;
    assert.equal(stream.text, seen);
    assert.doesNotMatch(chunk, /think/);
  }
  const a = await stream.finalize();
  const b = await stream.finalize();
  assert.equal(a, b);
  assert.equal(a.text, seen);
  assert.deepEqual(a.references.map((r) => r.inlineMarker), ["[1]", "[2]"]);
  assert.deepEqual(a.usage, { inputTokens: 120, outputTokens: 30 });
});

test("finalize without iterating, and a model without stream()", async () => {
  const s = new Citeformer({ lmInvoker: fakeLm() }).stream({ prompt: "q", sources });
  const result = await s.finalize();
  assert.equal(result.citations.length, 3);
  assert.equal(s.text, result.text);
});

test("verify: existence, support and coverage with the offline judge", async () => {
  const result = await new Citeformer({
    lmInvoker: fakeLm("Water boils at 100 degrees Celsius [1]. Ice floats [1]. Ice is less dense than water. Bad [3]."),
  }).generate({ prompt: "q", sources });
  const report = await result.verify();
  assert.deepEqual(report.perCitation.map((c) => [c.sourceId, c.exists, c.supported]), [[1, true, true], [
    1,
    true,
    false,
  ], [3, false, false]]);
  assert.equal(report.citationsChecked, 3);
  assert.equal(report.supportRate, 1 / 3);
  assert.deepEqual(report.missingSources, [3]);
  assert.deepEqual(report.uncitedButEntailed.map((u) => [result.text.slice(...u.span), u.candidateSourceId]), [[
    "Ice is less dense than water.",
    2,
  ]]);
  assert.equal(lexicalJudge("Cats purr.", "Water boils."), 0);
});

test("verify: a custom async judge, its errors pass through unchanged, bad scores are named", async () => {
  const result = await new Citeformer({ lmInvoker: fakeLm("Water boils [1].") }).generate({ prompt: "q", sources });
  const asked = [];
  const report = await result.verify({
    judge: async (premise, hypothesis) => (asked.push([premise, hypothesis]), 0.9),
    threshold: 0.8,
  });
  assert.deepEqual(asked, [[sources[0].content, "Water boils."]]);
  assert.equal(report.supportRate, 1);
  const mine = new Error("judge down");
  await assert.rejects(
    result.verify({
      judge: () => {
        throw mine;
      },
    }),
    (e) => e === mine,
  );
  await assert.rejects(result.verify({ judge: () => 7 }), (e) => e.code === "INVALID_JUDGE_SCORE");
  // The core reads the threshold, as the relevance components' (one rule for both).
  await assert.rejects(
    result.verify({ threshold: 2 }),
    (e) => e.code === "INVALID_OPTION" && /`threshold`.*from 0 to 1/.test(e.message),
  );
  await assert.rejects(result.verify({ threshold: "0.5" }), (e) => e.code === "INVALID_OPTION");
  await assert.rejects(
    result.verify({ treshold: 0.5 }),
    (e) => e.code === "INVALID_OPTION" && /treshold/.test(e.message),
  );
  await assert.rejects(result.verify({ judge: "lexical" }), (e) => e.code === "INVALID_OPTION");
  // Absent (or null) is the default, 0.5.
  assert.deepEqual(await result.verify({ threshold: null }), await result.verify({ threshold: 0.5 }));
  const none = await new Citeformer({ lmInvoker: fakeLm("No citations here.") }).generate({ prompt: "q", sources });
  assert.equal((await none.verify()).supportRate, 1);
});

test("renderCitedHtml: markers link to entries; hostile text and metadata stay inert", async () => {
  const evilSources = [{
    content: "x",
    metadata: {
      type: "webpage",
      title: '"><script>alert(1)</script>',
      URL: "javascript:alert(1)",
      author: [{ literal: "<img src=x onerror=alert(2)>" }],
    },
  }];
  const result = await new Citeformer({
    lmInvoker: fakeLm(
      '<b onclick="x">Bold</b> claim [1]. Fake [2].\n\nNext paragraph\'s <script>alert(3)</script> [1].',
    ),
  }).generate({ prompt: "q", sources: evilSources });
  const html = renderCitedHtml(result);
  assert.doesNotMatch(html, /<script|<img|<b |href="javascript/i);
  assert.equal((html.match(/<a class="citeflow-cite" href="#ref-1"/g) ?? []).length, 2);
  assert.match(html, /<span class="citeflow-cite citeflow-invalid" data-source-ids="2"/);
  assert.match(html, /<li id="ref-1" value="1">/);
  assert.equal((html.match(/<p>/g) ?? []).length, 2);
  assert.match(renderCitedHtml(result, { idPrefix: '"x' }), /href="#&quot;x1"/);
});

test("bad input names the problem", async () => {
  assertCode(() => new Citeformer(), "INVALID_OPTION");
  assertCode(() => new Citeformer({ lmInvoker: {} }), "INVALID_OPTION");
  assertCode(() => new Citeformer({ lmInvoker: fakeLm(), citationPolicy: "strict" }), "INVALID_OPTION");
  assertCode(() => new Citeformer({ lmInvoker: fakeLm(), markerStyle: "angle" }), "INVALID_OPTION");
  const cf = new Citeformer({ lmInvoker: fakeLm() });
  await assert.rejects(cf.generate({ prompt: "q", sources: [] }), (e) => e.code === "NO_SOURCES");
  await assert.rejects(cf.generate({ prompt: 5, sources }), (e) => e.code === "INVALID_TEXT");
  await assert.rejects(cf.generate({ prompt: "q", sources: [null] }), (e) => e.code === "INVALID_SOURCE");
  await assert.rejects(
    new Citeformer({ lmInvoker: { invoke: async () => 42 } }).generate({ prompt: "q", sources }),
    (e) => e.code === "INVALID_OUTPUT",
  );
  assertCode(() => renderCitedHtml(null), "INVALID_OPTION");
});

test("retrieve → relevance filter → Citeformer → references → verify, with retrieval chunks as they come", async () => {
  const { SimilarityRelevanceFilter, cslItemOf } = await import("citeflow");
  const retrieved = [
    {
      content: "Water boils at 100 degrees Celsius at sea level.",
      metadata: {
        file_name: "boiling.pdf",
        file_url: "https://example.org/boiling.pdf",
        author: "Ada Lovelace",
        date: "2021-05-04",
      },
    },
    { content: "Cats sleep for most of the day.", metadata: { file_name: "cats.txt" } },
    {
      content: "Ice floats on water because it is less dense.",
      metadata: { title: "Ice", url: "https://example.org/ice", published: "2019" },
    },
  ];
  // An embedder of one's own: a bag of the words that matter here.
  const words = ["water", "boils", "ice", "floats", "cats", "sleep"];
  const em = {
    invoke: async (texts) => texts.map((t) => Float32Array.from(words, (w) => (t.toLowerCase().includes(w) ? 1 : 0))),
  };
  const relevant = await new SimilarityRelevanceFilter(em, { threshold: 0.3 }).filter({
    chunks: retrieved,
    query: "Why does ice float on water, and when does water boil?",
  });
  assert.deepEqual(relevant.map((c) => c.metadata.file_name ?? c.metadata.title), ["boiling.pdf", "Ice"]);

  const lmInvoker = { invoke: async () => "Water boils at 100 degrees Celsius [1]. Ice floats on water [2]." };
  const result = await new Citeformer({ lmInvoker }).generate({
    prompt: "Why does ice float, and when does water boil?",
    sources: relevant,
  });
  assert.deepEqual(result.references.map((r) => r.sourceId), [1, 2]);
  assert.equal(
    result.references[0].entry,
    "Ada Lovelace. (2021, May 4). boiling.pdf. https://example.org/boiling.pdf",
    "names stay as written (literal): no guessing which part is the family name",
  );
  assert.match(result.references[1].entry, /^Ice\. \(2019.*https:\/\/example\.org\/ice$/);
  const report = await result.verify();
  assert.deepEqual(report.perCitation.map((c) => [c.sourceId, c.exists, c.supported]), [[1, true, true], [
    2,
    true,
    true,
  ]]);

  assert.deepEqual(cslItemOf({ file_name: "a.pdf", file_url: "https://x.org/a.pdf" }), {
    type: "document",
    title: "a.pdf",
    URL: "https://x.org/a.pdf",
  });
  // One's own mapping replaces the default one.
  const own = await new Citeformer({ lmInvoker, toCslItem: (_source, i) => ({ type: "book", title: `Book ${i + 1}` }) })
    .generate({ prompt: "?", sources: relevant });
  assert.match(own.references[0].entry, /Book 1/);
  assertCode(() => new Citeformer({ lmInvoker, toCslItem: "apa" }), "INVALID_OPTION");
});

test("Citeformer and its streams say their style, policy, marker style and sources", async () => {
  const cf = new Citeformer({
    lmInvoker: fakeLm("Water boils [1]."),
    style: "ieee",
    citationPolicy: "auto",
    markerStyle: "bracket",
  });
  assert.deepEqual([cf.style, cf.policy, cf.markerStyle], ["ieee", "auto", "bracket"]);
  const stream = cf.stream({ prompt: "q", sources });
  assert.equal(stream.style, "ieee");
  assert.deepEqual(stream.sources.map((s) => s.content), sources.map((s) => s.content));
});

test("runs of adjacent markers keep each id once in the result (text, citations, verify), unless asked not to", async () => {
  const answer = "Water boils at 100 degrees Celsius [1] [1] [2] [1]. Ice floats on water [2][2].";
  const result = await new Citeformer({ lmInvoker: fakeLm(answer) }).generate({ prompt: "q", sources });
  assert.equal(result.text, "Water boils at 100 degrees Celsius [1] [2]. Ice floats on water [2].");
  assert.deepEqual(result.citations.map((c) => c.sourceId), [1, 2, 2]);
  const report = await result.verify();
  assert.equal(report.citationsChecked, 3);
  const kept = await new Citeformer({ lmInvoker: fakeLm(answer), deduplicateCites: false }).generate({
    prompt: "q",
    sources,
  });
  assert.equal(kept.text, answer);
  assert.equal(kept.citations.length, 6);
  assertCode(() => new Citeformer({ lmInvoker: fakeLm(answer), deduplicateCites: "yes" }), "INVALID_OPTION");
});
