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
  for (const extra of [{ polcy: "auto" }, { markerstyle: "paren" }, { temperature: 0.2 }]) {
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

test("Citeformer: a call's marker style and the model's own options reach the model and the result", async () => {
  const seen = [];
  const lm = {
    invoke: async (messages, options) => {
      seen.push({ messages, options });
      return { outputs: [{ type: "text", output: "Paris (1)." }] };
    },
  };
  const cf = new Citeformer({ lmInvoker: lm, style: "ieee" });
  const result = await cf.generate({
    prompt: "Capital?",
    sources,
    markerStyle: "paren",
    modelOptions: { temperature: 0, maxTokens: 40, grammar: 'root ::= "Paris (1)."' },
  });
  assert.deepEqual(result.citations.map((c) => [c.sourceId, c.marker]), [[1, "(1)"]]);
  const { options, messages } = seen[0];
  assert.equal(options.markerStyle, "paren");
  assert.equal(options.temperature, 0);
  assert.equal(options.maxTokens, 40);
  assert.equal(options.grammar, 'root ::= "Paris (1)."', "a grammar of the caller's replaces the policy's");
  assert.ok(messages[0].content.includes("(1)"), "the prompt asks for the call's marker style");
  const streamed = await cf.stream({ prompt: "Capital?", sources, markerStyle: "paren" }).finalize();
  assert.deepEqual(streamed.citations.map((c) => c.marker), ["(1)"]);
  assert.equal(
    (await cf.generate({ prompt: "Capital?", sources })).citations.length,
    0,
    "the Citeformer's own style (bracket) finds no (1)",
  );
  await assert.rejects(cf.generate({ prompt: "Capital?", sources, modelOptions: "hot" }), refused("modelOptions"));
});

test("transformers that take no options refuse them", () => {
  assert.throws(() => new IdentityOutputTransformer({ eventTypes: ["response"] }), (e) => e.code === "INVALID_OPTION");
  assert.throws(() => new JSONOutputTransformer({ strict: true }), (e) => e.code === "INVALID_OPTION");
  assert.throws(
    () => new OutputTransformerChain([new IdentityOutputTransformer()], { name: "x" }),
    (e) => e.code === "INVALID_OPTION",
  );
  assert.doesNotThrow(() => new OutputTransformerChain([new JSONOutputTransformer()]));
});

test("a custom transformer without fresh() gets a clear error from transformStream()", () => {
  class Custom extends OutputTransformer {}
  assert.throws(
    () => new Custom().transformStream(),
    (e) => e.code === "NOT_IMPLEMENTED" && /Custom does not implement fresh\(\)/.test(e.message),
  );
  assert.ok(new IdentityOutputTransformer().transformStream() instanceof TransformStream);
});
