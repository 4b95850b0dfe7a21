// A misspelt option is an INVALID_OPTION error that names it, never silently ignored; things that
// take no options refuse them.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  citationGrammar,
  Citeformer,
  formatChunkAsString,
  IdentityOutputTransformer,
  JSONOutputTransformer,
  OutputTransformer,
  OutputTransformerChain,
  parseCitations,
  renderCitedHtml,
  renderReferences,
  ThinkTagOutputTransformer,
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

test("Citeformer: a style that is neither bundled nor CSL XML is refused before any model call", async () => {
  let calls = 0;
  const lm = { invoke: async () => (calls++, { outputs: [{ type: "text", output: "Paris [1]." }] }) };
  assert.throws(
    () => new Citeformer({ lmInvoker: lm, style: "apa7" }),
    (e) => e.code === "UNKNOWN_STYLE" && e.message.includes('"apa7"') && e.message.includes("apa-7"),
  );
  assert.equal(calls, 0);
  for (const style of ["apa-7", "mla", "harvard", " <style xmlns='http://purl.org/net/xbiblio/csl'/>"]) {
    assert.equal(new Citeformer({ lmInvoker: lm, style }).style, style);
  }
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

test("every option object refuses a misspelt key, and a value of the wrong type, naming it", async () => {
  // Citeformer's plain options are checked by the core; its JS-only ones (lmInvoker, toCslItem) in JS.
  for (const bad of [{ stlye: "apa-7" }, { style: 7 }, { citationPolicy: "always" }, { markerStyle: 1 }]) {
    const [key] = Object.keys(bad);
    assert.throws(() => new Citeformer({ lmInvoker, ...bad }), refused(key));
  }
  assert.throws(() => new Citeformer({ lmInvoker, deduplicateCites: "yes" }), refused("deduplicateCites"));
  assert.throws(() => new Citeformer({ lmInvoker, enforce: 1 }), refused("enforce"));
  assert.throws(() => new Citeformer({ lmInvoker, toCslItem: "x" }), refused("toCslItem"));
  assert.throws(() => new Citeformer({ lmInvokr: lmInvoker }), refused("lmInvokr"));
  const cf = new Citeformer({ lmInvoker, citationPolicy: "quotesOnly", markerStyle: "paren" });
  assert.deepEqual([cf.policy, cf.markerStyle, cf.style, cf.enforce], ["quotes_only", "paren", "apa-7", "auto"]);
  for (const bad of [{ policy: 1 }, { markerStyle: "angle" }, { enforce: "strict" }, { sourcess: [] }]) {
    const [key] = Object.keys(bad);
    assert.throws(() => cf.request({ prompt: "Capital?", sources, ...bad }), refused(key));
  }
  assert.throws(() => renderCitedHtml({ text: 1 }), refused("text"));
  // Citation functions, a transformer's options, the metadata map, renderReferences' options.
  assert.throws(() => parseCitations("a [1].", { stlye: "paren" }), refused("stlye"));
  assert.throws(() => parseCitations("a [1].", { sourceCount: "3" }), refused("sourceCount"));
  assert.throws(() => citationGrammar({ sourceCount: 2, maxSentence: 3 }), refused("maxSentence"));
  assert.throws(() => new ThinkTagOutputTransformer({ idPrefx: "p" }), refused("idPrefx"));
  assert.throws(() => formatChunkAsString({ content: "x" }, { titel: "t" }), refused("titel"));
  await assert.rejects(renderReferences(sources, null, { stlye: "ieee" }), refused("stlye"));
  await assert.rejects(renderReferences(sources, null, { format: 1 }), refused("format"));
});

test("an option named __proto__ is a key like any other: refused by name, never a prototype", async () => {
  const lib = await import("citeflow");
  const proto = (json) => JSON.parse(json);
  assert.throws(
    () =>
      lib.LMRelevanceFilter.fromConfig(
        proto('{"modelId": "openai/gpt-4o-mini", "apiKey": "k", "__proto__": {"batchSize": 1}}'),
      ),
    refused("__proto__"),
  );
  assert.throws(
    () => lib.LMRelevanceFilter.fromPreset("openai/gpt-4o-mini", proto('{"apiKey": "k", "__proto__": {"x": 1}}')),
    refused("__proto__"),
  );
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

test("the streaming module: a number with a fraction where a name, flag or string belongs is refused, naming the option", async () => {
  // Through citeflow/stream, the module that does not link Rust's float formatting: the message
  // names the option and what it expects, and describes the number without printing its digits
  // ("a fractional or very large number"); a byte limit prints a whole number as an integer and
  // any other number by what it is.
  const stream = await import("citeflow/stream");
  const refusedFloat = (key, expected) => (e) =>
    refused(key)(e) &&
    e.message.includes("a fractional or very large number") &&
    e.message.includes(`expected ${expected}`) &&
    !/\d\.\d/.test(e.message);
  const cases = [
    [() => new stream.ThinkTagOutputTransformer({ startInThinking: 1.5 }), "startInThinking", "a boolean"],
    [() => new stream.ThinkTagOutputTransformer({ idPrefix: 2.5 }), "idPrefix", "a string"],
    [() => new stream.ValidationOutputTransformer({ requiredTypes: ["text"], mode: 0.5 }), "mode", "a string"],
    [() => new stream.EventFilterOutputTransformer(["response", 1.5]), "eventTypes", "a string"],
    [() => new stream.CitationParser({ markerStyle: 1.5 }), "markerStyle", "a string"],
    [
      () => stream.OutputTransformerChain.fromConfigs([{ type: "think_tag", kwargs: { startInThinking: 1e300 } }]),
      "startInThinking",
      "a boolean",
    ],
  ];
  for (const [make, key, expected] of cases) assert.throws(make, refusedFloat(key, expected));
  const limit = (maxLineBytes, shown) =>
    assert.throws(
      () => new stream.SSEDecoder({ maxLineBytes }),
      (e) =>
        refused("maxLineBytes")(e) &&
        e.message.includes(`invalid value: ${shown}, expected a whole number of bytes from 1 to 4294967295`),
    );
  limit(1.5, "a fractional or very large number");
  limit(0, "integer `0`");
  limit(-3, "integer `-3`");
  limit(2 ** 60, "a fractional or very large number");
  limit(2 ** 32, "integer `4294967296`");
  assert.ok(new stream.SSEDecoder({ maxLineBytes: 2 ** 32 - 1, maxEventBytes: 1 }));
  // NaN and the infinities are not data: refused when the options are read, naming the key.
  for (const maxLineBytes of [NaN, -Infinity]) {
    assert.throws(
      () => new stream.SSEDecoder({ maxLineBytes }),
      (e) => refused("maxLineBytes")(e) && e.message.includes("not a finite number"),
    );
  }
  // The decoder's options are read by the core: a misspelt key and a wrong type, named.
  assert.throws(() => new stream.SSEDecoder({ maxLinebytes: 8 }), refused("maxLinebytes"));
  assert.throws(() => new stream.SSEDecoder({ maxEventBytes: "8" }), refused("maxEventBytes"));
  assert.throws(() => new stream.SSEDecoder("big"), refused("options"));
});

test("the relevance components: the core refuses a misspelt or mistyped plain option, naming it", async () => {
  const lib = await import("citeflow");
  const em = { invoke: async (texts) => texts.map(() => [1, 0]) };
  const lm = { invoke: async () => ({ outputs: [] }) };
  const dm = { invoke: async () => ({ answers: [] }) };
  const components = [
    ["NoOpReferenceFormatter", (o) => new lib.NoOpReferenceFormatter(o), [{ stringfy: false }, { streamable: "yes" }]],
    ["SimilarityRelevanceFilter", (o) => new lib.SimilarityRelevanceFilter(em, o), [
      { treshold: 0.5 },
      {
        threshold: "high",
      },
      { threshold: 1.5 },
      { stringify: false },
    ]],
    ["SimilarityReferenceFormatter", (o) => new lib.SimilarityReferenceFormatter(em, o), [
      { treshold: 0.5 },
      { threshold: -1 },
      { stringify: 1 },
      { formatChunkMetadataMap: { titel: "t" } },
    ]],
    ["LMRelevanceFilter", (o) => new lib.LMRelevanceFilter(lm, o), [
      { batchsize: 2 },
      { batchSize: 0 },
      { maxConcurrency: 1.5 },
      { onFailureKeepAll: "no" },
      { userTemplate: " " },
      { systemTemplate: 3 },
      { metadata: [1] },
      { chunkFormat: 7 },
      { referenceMetadata: "file_name" },
      { batchSize: () => 2 },
    ]],
    ["LMReferenceFormatter", (o) => new lib.LMReferenceFormatter(lm, o), [
      { referenceMetadta: "x" },
      { referenceMetadata: "" },
      { maxConcurrency: "10" },
      { onFailureKeepAll: true },
      { streamable: null, stringify: "no" },
    ]],
    ["DMRelevanceFilter", (o) => new lib.DMRelevanceFilter(dm, o), [
      { relevanceQuestoin: "q" },
      { threshold: "0.5" },
      { batchSize: -1 },
      { stringify: true },
    ]],
    ["DMReferenceFormatter", (o) => new lib.DMReferenceFormatter(dm, o), [
      { thresold: 0.5 },
      { maxConcurrency: 0 },
      { streamable: 0 },
    ]],
  ];
  for (const [name, make, cases] of components) {
    for (const bad of cases) {
      const key = Object.keys(bad).at(-1);
      assert.throws(() => make(bad), refused(key), `${name} ${JSON.stringify(bad)}`);
    }
  }
  // Defaults, and the JS-only options kept by JS.
  const f = new lib.LMRelevanceFilter(lm, { chunkFormat: (c) => c.content, responseSchema: null });
  assert.deepEqual([f.batchSize, f.maxConcurrency, f.onFailureKeepAll, f.responseSchema], [5, 10, true, undefined]);
  assert.equal(typeof f.chunkFormat, "function");
  assert.ok(f.systemTemplate.length > 0 && typeof new lib.LMRelevanceFilter(lm).responseSchema === "object");
  const s = new lib.SimilarityReferenceFormatter(em, { formatChunkFunc: (c) => c.content, threshold: 0 });
  assert.deepEqual([s.threshold, s.stringify, s.streamable, typeof s.formatChunkFunc], [0, true, true, "function"]);
  assert.throws(() => new lib.SimilarityReferenceFormatter(em, { formatChunkFunc: "x" }), refused("formatChunkFunc"));
  assert.equal(new lib.LMReferenceFormatter(lm).referenceMetadata, "file_name");
  assert.equal(new lib.DMRelevanceFilter(dm).threshold, 0.5);
});

test("a transformer config and a think-tag pair: misspelt and mistyped keys refused, naming them", async () => {
  const { OutputTransformerChain } = await import("citeflow");
  const config = (c) => () => OutputTransformerChain.fromConfigs([c]);
  const coded = (code, key) => (e) => e.code === code && e.message.includes(key);
  assert.throws(config({ type: "json", kwarg: {} }), coded("INVALID_CONFIG", "kwarg"));
  assert.throws(config({ type: 3 }), coded("INVALID_CONFIG", "type"));
  assert.throws(config({ type: "json", kwargs: 3 }), coded("INVALID_CONFIG", "kwargs"));
  const tags = (pair) => config({ type: "think_tag", kwargs: { tags: [pair] } });
  assert.throws(tags({ open: "<a>", clos: "</a>" }), refused("clos"));
  assert.throws(tags({ open: "<a>", close: 1 }), refused("close"));
  assert.doesNotThrow(tags({ open: "<a>", close: "</a>" }));
});

test("the invoker builders: the core refuses a misspelt or mistyped plain option, naming it", async () => {
  const { buildDMInvoker, buildEMInvoker, buildLMInvoker } = await import("citeflow");
  const fetch = async () => new Response("{}");
  const builders = [
    [buildLMInvoker, "openai/gpt-4o-mini"],
    [buildEMInvoker, "openai/text-embedding-3-small"],
    [buildDMInvoker, "openrouter/typesafe/jev-1.13"],
  ];
  for (const [build, id] of builders) {
    for (const bad of [{ apikey: "k" }, { apiKey: 7 }, { baseUrl: ["x"] }, { timeoutMs: "5" }, { maxRetries: true }]) {
      const key = Object.keys(bad)[0];
      assert.throws(() => build(id, { fetch, ...bad }), refused(key), `${build.name} ${key}`);
    }
  }
  // Each builder's own options, and a JS-only one given to a builder that does not take it.
  assert.throws(() => buildEMInvoker("openai/text-embedding-3-small", { fetch, batchSize: "8" }), refused("batchSize"));
  assert.throws(() => buildDMInvoker("openrouter/typesafe/jev-1.13", { fetch, batchSize: 8 }), refused("batchSize"));
  assert.throws(
    () => buildDMInvoker("openrouter/typesafe/jev-1.13", { fetch, fallbackLms: [] }),
    refused("fallbackLms"),
  );
  assert.throws(() => buildLMInvoker("openai/gpt-4o-mini", { fetch: "f" }), refused("fetch"));
  assert.doesNotThrow(() => buildLMInvoker("openai/gpt-4o-mini", { fetch, headers: new Headers(), fallbackLms: [] }));
  assert.equal(
    buildEMInvoker("openai/text-embedding-3-small", { fetch, apiKey: "k" }).modelId,
    "openai/text-embedding-3-small",
  );
});
