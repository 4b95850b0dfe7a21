// The language-model decision model (buildDMInvoker over an OpenAI-compatible id) reading a real
// model's log-probabilities: each answer is what the server's top_logprobs say, by the rule the
// README gives (yes-like against no-like mass; a letter per choice; a digit per level).
import assert from "node:assert/strict";
import { test } from "node:test";
import { DMQuestion, DMRelevanceFilter } from "citeflow";
import { dm, SOURCES } from "./support.mjs";

/** A fetch that keeps each chat call's request and answer. */
function recorder() {
  const calls = [];
  const fetchAndKeep = async (url, init) => {
    const res = await fetch(url, init);
    calls.push({ request: JSON.parse(init.body), answer: await res.clone().json() });
    return res;
  };
  return { calls, fetch: fetchAndKeep };
}

/** Probability mass of the first token's alternatives per option, normalised (the oracle). */
function shares(answer, optionOf, count) {
  const mass = new Array(count).fill(0);
  for (const alt of answer.choices[0].logprobs.content[0].top_logprobs) {
    const i = optionOf(alt.token.replace(/^[\s!-/:-@[-`{-~]+|[\s!-/:-@[-`{-~]+$/g, "").toLowerCase());
    if (i !== undefined && i >= 0 && i < count) mass[i] += Math.exp(alt.logprob);
  }
  const total = mass.reduce((a, b) => a + b, 0);
  return mass.map((m) => m / total);
}

const STATE = { text: "The Eiffel Tower was completed in March 1889." };

test("noul, choice and score answers are read from the real first-token distribution", async () => {
  const { calls, fetch } = recorder();
  const questions = {
    built_1889: DMQuestion.noul("Was the Eiffel Tower completed in 1889?"),
    city: DMQuestion.choice("Which topic is the text about?", {
      tower: "a tower",
      bees: "honeybees",
      code: "computer code",
    }),
    clarity: DMQuestion.score("How clearly written is the text?", ["unclear", "somewhat clear", "clear"]),
  };
  const { answers } = await dm(fetch).invoke({ state: STATE, questions });
  assert.equal(calls.length, 3);
  const by = (name) =>
    calls.find((c) => c.request.messages.at(-1).content.includes(questions[name].instructions)).answer;
  for (const c of calls) {
    assert.equal(c.request.max_tokens, 1);
    assert.equal(c.request.top_logprobs, 20);
    assert.equal(c.answer.choices[0].logprobs.content[0].top_logprobs.length, 20);
  }

  const yesNo = shares(by("built_1889"), (t) => ({ yes: 0, y: 0, true: 0, no: 1, n: 1, false: 1 })[t], 2);
  assert.ok(answers.built_1889.noul >= 0 && answers.built_1889.noul <= 1);
  assert.ok(Math.abs(answers.built_1889.noul - yesNo[0]) < 1e-9, `${answers.built_1889.noul} vs ${yesNo[0]}`);

  const letters = shares(by("city"), (t) => (t.length === 1 ? "abc".indexOf(t) : undefined), 3);
  const labels = ["tower", "bees", "code"];
  labels.forEach((label, i) => assert.ok(Math.abs(answers.city.probabilities[label] - letters[i]) < 1e-9));
  assert.equal(answers.city.choice, labels[letters.indexOf(Math.max(...letters))]);

  const digits = shares(by("clarity"), (t) => (/^\d+$/.test(t) ? Number(t) : undefined), 3);
  digits.forEach((p, i) => assert.ok(Math.abs(answers.clarity.probabilities[String(i)] - p) < 1e-9));
  assert.equal(answers.clarity.score, digits.indexOf(Math.max(...digits)));
});

test("DMRelevanceFilter scores every chunk with a probability from the real model", async () => {
  const { calls, fetch } = recorder();
  const filter = new DMRelevanceFilter(dm(fetch), { threshold: 0.5 });
  const chunks = SOURCES.map((s, i) => ({ id: String(i + 1), content: s.content }));
  const evaluated = await filter.evaluate({ chunks, query: "When was the Eiffel Tower completed?" });
  assert.deepEqual(evaluated.map((e) => e.chunk.id), ["1", "2"]);
  for (const e of evaluated) {
    assert.ok(e.score >= 0 && e.score <= 1, String(e.score));
    assert.equal(e.kept, e.score >= 0.5);
  }
  assert.equal(calls.length, chunks.length);
});
