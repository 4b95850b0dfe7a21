// Citeformer end to end on the real model: the request it builds (with the small model's example
// exchange and its grammar, bounded), the answer, the citations, the references and verify().
import assert from "node:assert/strict";
import { test } from "node:test";
import { checkPolicy, Citeformer, renderCitedHtml } from "citeflow";
import { smallModelInvoker } from "../../www/small-model.js";
import { lm, SOURCES } from "./support.mjs";

const cf = new Citeformer({ lmInvoker: smallModelInvoker(lm), style: "apa-7" });
const prompt = "When was the Eiffel Tower completed, and how do honeybees share where food is?";

function assertCited(result) {
  assert.ok(result.text.length > 0);
  assert.ok(checkPolicy(result.text, { policy: "required", sourceCount: SOURCES.length }).ok, result.text);
  assert.ok(result.citations.length >= 1 && result.citations.every((c) => c.valid), JSON.stringify(result.citations));
  for (const c of result.citations) assert.equal(result.text.slice(...c.span), c.marker);
  const cited = [...new Set(result.citations.map((c) => c.sourceId))].sort();
  assert.deepEqual(result.references.map((r) => r.sourceId).sort(), cited);
  const expected = {
    1: ["Loyrette, H.", "(1985)", "Gustave Eiffel"],
    2: ["Frisch, K.", "(1967)", "The dance language and orientation of bees"],
  };
  for (const r of result.references) {
    for (const part of expected[r.sourceId]) assert.ok(r.entry.includes(part), r.entry);
  }
}

test("generate: a cited answer, its citations, APA references, and a verify report", async () => {
  const result = await cf.generate({ prompt, sources: SOURCES });
  assertCited(result);
  assert.ok(result.usage.outputTokens >= 1);
  const report = await result.verify();
  assert.equal(report.citationsChecked, result.citations.length);
  assert.deepEqual(report.missingSources, []);
  assert.ok(report.supportRate >= 0 && report.supportRate <= 1);
  const html = renderCitedHtml(result);
  for (const r of result.references) assert.ok(html.includes(`href="#ref-${r.sourceId}"`));
});

test("stream: the text arrives in pieces and finalize() gives the same result as generate", async () => {
  const stream = cf.stream({ prompt, sources: SOURCES });
  const pieces = [];
  for await (const piece of stream) pieces.push(piece);
  const result = await stream.finalize();
  assert.ok(pieces.length > 1);
  assert.equal(pieces.join(""), result.text);
  assertCited(result);
  assert.equal(result.usage.outputTokens >= 1, true, "usage from the stream's last chunk");
  const whole = await cf.generate({ prompt, sources: SOURCES });
  assert.equal(result.text, whole.text, "greedy decoding: streamed and whole answers agree");
});
