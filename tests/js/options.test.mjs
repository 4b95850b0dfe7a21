// A misspelt option is an INVALID_OPTION error that names it, never silently ignored; things that
// take no options refuse them.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  Citeformer,
  IdentityOutputTransformer,
  JSONOutputTransformer,
  OutputTransformer,
  OutputTransformerChain,
  renderCitedHtml,
} from "citeflow";

const refused = (key) => (e) => e.name === "CiteflowError" && e.code === "INVALID_OPTION" && e.message.includes(key);
const lmInvoker = { invoke: async () => ({ outputs: [{ type: "text", output: "Paris [1]." }] }) };
const sources = [{ content: "Paris is the capital of France.", metadata: { type: "book", title: "Atlas" } }];

test("Citeformer: misspelt options and call arguments are refused", async () => {
  assert.throws(() => new Citeformer({ lmInvoker, stlye: "apa-7" }), refused("stlye"));
  const cf = new Citeformer({ lmInvoker, style: "ieee" });
  for (const extra of [{ polcy: "auto" }, { markerStyle: "paren" }, { temperature: 0.2 }]) {
    const [key] = Object.keys(extra);
    await assert.rejects(cf.generate({ prompt: "Capital?", sources, ...extra }), refused(key));
    assert.throws(() => cf.stream({ prompt: "Capital?", sources, ...extra }), refused(key));
    assert.throws(() => cf.request({ prompt: "Capital?", sources, ...extra }), refused(key));
  }
  const result = await cf.generate({ prompt: "Capital?", sources, policy: "auto" });
  assert.equal(result.text, "Paris [1].");
  await assert.rejects(result.verify({ treshold: 0.5 }), refused("treshold"));
  assert.throws(() => renderCitedHtml(result, { idPrefx: "x" }), refused("idPrefx"));
});

test("transformers that take no options refuse them", () => {
  assert.throws(() => new IdentityOutputTransformer({ eventTypes: ["response"] }), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => new JSONOutputTransformer({ strict: true }), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => new OutputTransformerChain([new IdentityOutputTransformer()], { name: "x" }), (e) => e.code === "INVALID_OPTION");
  assert.doesNotThrow(() => new OutputTransformerChain([new JSONOutputTransformer()]));
});

test("a custom transformer without fresh() gets a clear error from transformStream()", () => {
  class Custom extends OutputTransformer {}
  assert.throws(() => new Custom().transformStream(), (e) => e.code === "NOT_IMPLEMENTED" && /Custom does not implement fresh\(\)/.test(e.message));
  assert.ok(new IdentityOutputTransformer().transformStream() instanceof TransformStream);
});
