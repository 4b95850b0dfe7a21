// Citeformer's citation grammar constraining a real model's decoding (GBNF through the
// invoker's `grammar` option), and its JSON-schema form through `responseSchema`.
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkPolicy, citationGrammar, parseCitations, splitSentences } from "citeflow";
import { boundedCitationGrammar, SMALL_MODEL, withCitedExample } from "../../www/small-model.js";
import { lm, SOURCES, sourcesPrompt, textOf } from "./support.mjs";

const messages = (question) =>
  withCitedExample([
    {
      role: "system",
      content: `Answer from the numbered sources below only. Cite a source as [N], where N is its number.\n\n${
        sourcesPrompt(SOURCES)
      }`,
    },
    { role: "user", content: question },
  ]);

/**
 * The text with each cite written after its sentence's end (`Paris. [1]`, which the grammar
 * allows) moved before it (`Paris [1].`), so that one pattern checks both forms.
 */
const citesBeforeEnds = (text) => text.replace(/([.!?]) (\[[12]\](?: \[[12]\])*)/g, " $2$1");

test("the bounded grammar: the answer finishes, and every sentence ends in a valid marker", async () => {
  const grammar = boundedCitationGrammar({ sourceCount: 2 });
  for (const question of ["When was the Eiffel Tower completed?", "How do honeybees share where food is?"]) {
    const out = await lm.invoke(messages(question), { grammar, temperature: 0, maxTokens: SMALL_MODEL.maxTokens });
    const text = textOf(out);
    assert.equal(out.finishReason, "stop", `finished by the grammar, not max_tokens: ${text}`);
    const report = checkPolicy(text, { policy: "required", sourceCount: 2 });
    assert.ok(report.ok, JSON.stringify(report));
    const sentences = splitSentences(citesBeforeEnds(text));
    assert.ok(sentences.length >= 1 && sentences.length <= 2, text);
    for (const s of sentences) assert.match(s.text.trim(), /[^\s[] ?\[[12]\][.!?]$/);
    assert.ok(parseCitations(text, { sourceCount: 2 }).every((c) => c.valid), text);
  }
});

test("Citeformer's own grammar, unbounded, still allows only valid markers, even when cut by max_tokens", async () => {
  const grammar = citationGrammar({ sourceCount: 2 });
  const out = await lm.invoke(messages("Tell me about the Eiffel Tower."), { grammar, temperature: 0, maxTokens: 48 });
  const text = textOf(out);
  assert.ok(text.length > 0);
  const citations = parseCitations(text, { sourceCount: 2 });
  assert.ok(citations.every((c) => c.valid), text);
  // Every finished sentence (up to a . ! or ?) ends in markers; only the tail may be unfinished.
  const moved = citesBeforeEnds(text);
  const finished = moved.match(/[^.!?]*[.!?]/g) ?? [];
  for (const s of finished) assert.match(s, /\[[12]\]( \[[12]\])*[.!?]$/, text);
  if (out.finishReason === "stop") assert.equal(finished.join(""), moved);
});

test("a decimal point inside a sentence is not its end: the grammar lets the model write 3.5", async () => {
  const grammar = citationGrammar({ sourceCount: 1, maxSentences: 1, maxCitesPerSentence: 1, maxContentChars: 60 });
  const out = await lm.invoke([{ role: "user", content: "Repeat exactly: The pole is 3.5 m tall [1]." }], {
    grammar,
    temperature: 0,
    maxTokens: 40,
  });
  const text = textOf(out);
  assert.equal(out.finishReason, "stop", text);
  assert.ok(checkPolicy(text, { policy: "required", sourceCount: 1 }).ok, text);
  assert.match(citesBeforeEnds(text), /^[^[]*\[1\]\.$/, "one sentence, one marker");
  assert.match(text, /3\.5/, "the decimal point is written, not refused");
});

test("the JSON-schema form through responseSchema: segments whose citations are source numbers", async () => {
  // Bounded for the small model as the GBNF is (two segments), so the answer always closes.
  const schema = JSON.parse(
    citationGrammar({ sourceCount: 2, format: "json_schema", maxContentChars: 120, maxSentences: 2 }),
  );
  const out = await lm.invoke(messages("When was the Eiffel Tower completed?"), {
    responseSchema: schema,
    temperature: 0,
    maxTokens: 400,
  });
  // A structured answer comes back as a structured item, as from Anthropic's forced tool.
  assert.deepEqual(out.outputs.map((o) => o.type), ["structured"]);
  const answer = out.outputs[0].output;
  assert.equal(out.finishReason, "stop");
  assert.ok(Array.isArray(answer.segments) && answer.segments.length >= 1);
  for (const segment of answer.segments) {
    assert.deepEqual(Object.keys(segment).sort(), ["citations", "text"]);
    assert.ok(segment.text.length >= 1 && segment.text.length <= 120);
    assert.ok(segment.citations.length >= 1 && segment.citations.every((id) => id === 1 || id === 2));
  }
});
