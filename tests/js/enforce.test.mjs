// Citations enforced with each provider's own mechanism (structured outputs, a forced tool, a
// GBNF grammar, or the prompt alone), and providers' own citations, against a local server
// speaking each wire format, streamed and whole.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { buildLMInvoker, Citeformer } from "citeflow";
import { assertCode } from "./helpers.mjs";
import { CITED, MARKED, startCitedProvider } from "./support/cited-provider.mjs";
import { sources } from "./support/sources.mjs";

let server;
before(async () => (server = await startCitedProvider()));
after(() => server.close());

const prompt = "Why does ice float?";
const lm = (modelId) => buildLMInvoker(modelId, { apiKey: "sk-test", baseUrl: server.base, maxRetries: 0 });
const lastBody = () => server.requests.at(-1).body;

/** The stream's text, and the result it finalizes to. */
async function streamed(citeformer, args = {}) {
  const stream = citeformer.stream({ prompt, sources, ...args });
  let text = "";
  for await (const chunk of stream) text += chunk;
  return { text, result: await stream.finalize() };
}

const ids = (citations) => citations.map((c) => c.sourceId);

test("openai and openrouter: structured outputs with the cited-answer schema, read back as marked text", async () => {
  for (const modelId of ["openai/gpt-4o-mini", "openrouter/openai/gpt-4o-mini"]) {
    const citeformer = new Citeformer({ lmInvoker: lm(modelId) });
    const result = await citeformer.generate({ prompt, sources });
    const format = lastBody().response_format;
    assert.equal(format.type, "json_schema");
    assert.deepEqual([format.json_schema.name, format.json_schema.strict], ["cited_answer", true]);
    const citations = format.json_schema.schema.properties.segments.items.properties.citations;
    assert.deepEqual(
      [citations.items.enum, citations.minItems],
      [[1, 2], 1],
      "ids of the sources; at least one per sentence (required policy)",
    );
    assert.equal(lastBody().grammar, undefined);
    assert.equal(result.text, MARKED, modelId);
    assert.deepEqual(ids(result.citations), [1, 2, 1]);
    assert.equal(result.references.length, 2);
    assert.equal(result.usage.inputTokens, 30);

    const { text, result: fromStream } = await streamed(citeformer);
    assert.equal(lastBody().stream, true);
    assert.equal(text, MARKED);
    assert.deepEqual(fromStream.toJSON(), result.toJSON(), "streamed and whole give one result");
  }
});

test("anthropic: a forced tool with the same schema, whole and streamed", async () => {
  const citeformer = new Citeformer({ lmInvoker: lm("anthropic/claude-sonnet-4-5"), markerStyle: "paren" });
  const result = await citeformer.generate({ prompt, sources });
  const body = lastBody();
  assert.deepEqual(body.tool_choice, { type: "tool", name: "cited_answer" });
  assert.equal(body.tools[0].name, "cited_answer");
  assert.deepEqual(body.tools[0].input_schema.properties.segments.items.required, ["text", "citations"]);
  const paren = MARKED.replaceAll("[", "(").replaceAll("]", ")");
  assert.equal(result.text, paren, "markers in the Citeformer's style");
  assert.deepEqual(ids(result.citations), [1, 2, 1]);
  const { text, result: fromStream } = await streamed(citeformer);
  assert.equal(text, paren);
  assert.deepEqual(fromStream.toJSON(), result.toJSON());
});

test("the invoker's stream says each citation as its marker completes, in one response block", async () => {
  const events = [];
  const options = { policy: "required", markerStyle: "bracket", sourceCount: 2, enforce: "auto" };
  for (const modelId of ["openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5"]) {
    events.length = 0;
    for await (const e of lm(modelId).stream("Why?", options)) events.push(e);
    const types = events.map((e) => e.type);
    assert.equal(types.filter((t) => t === "response_start").length, 1, modelId);
    assert.equal(types.filter((t) => t === "response_end").length, 1, modelId);
    assert.ok(!types.includes("structured") && !types.includes("structured_delta"), modelId);
    const text = events.filter((e) => e.type === "response").map((e) => e.value).join("");
    assert.equal(text, MARKED, modelId);
    const cites = events.filter((e) => e.type === "citation").map((e) => e.value);
    assert.deepEqual(
      cites.map((c) => [c.sourceId, text.slice(...c.span)]),
      [[1, "[1]"], [2, "[2]"], [1, "[1]"]],
      modelId,
    );
    // Each citation comes after the text that holds its marker.
    let seen = 0;
    for (const e of events) {
      if (e.type === "response") seen += e.value.length;
      if (e.type === "citation") assert.ok(e.value.span[1] <= seen);
    }
  }
  // Whole: the same text, citations beside it.
  const whole = await lm("anthropic/claude-sonnet-4-5").invoke("Why?", options);
  assert.deepEqual(whole.outputs, [{ type: "text", output: MARKED }]);
  assert.deepEqual(ids(whole.citations), [1, 2, 1]);
});

test("openai-compatible servers get the GBNF grammar; enforce: prompt sends no mechanism", async () => {
  const compatible = new Citeformer({ lmInvoker: lm("openai-compatible/llama") });
  await compatible.generate({ prompt, sources });
  assert.match(lastBody().grammar, /cite-id ::= "\[" \("1" \| "2"\) "\]"/);
  assert.equal(lastBody().response_format, undefined);
  // A schema instead, where the server has structured outputs.
  const schema = await compatible.generate({ prompt, sources, enforce: "schema" });
  assert.equal(lastBody().response_format.json_schema.name, "cited_answer");
  assert.equal(lastBody().grammar, undefined, "one mechanism at a time");
  assert.equal(schema.text, MARKED);
  for (const modelId of ["openai/gpt-4o-mini", "anthropic/claude-sonnet-4-5", "openai-compatible/llama"]) {
    const prose = await new Citeformer({ lmInvoker: lm(modelId), enforce: "prompt" }).generate({ prompt, sources });
    const body = lastBody();
    assert.deepEqual([body.grammar, body.response_format, body.tools, body.tool_choice], [
      undefined,
      undefined,
      undefined,
      undefined,
    ], modelId);
    assert.match(JSON.stringify(body), /\[1\]/, "the rule is in the prompt");
    assert.deepEqual(ids(prose.citations), [1, 2]);
  }
});

test("a mechanism the provider has not, or a bad name, fails when the Citeformer is built", async () => {
  assert.match(
    assertCode(() => new Citeformer({ lmInvoker: lm("openai/gpt-4o-mini"), enforce: "tool" }), "INVALID_OPTION")
      .message,
    /not available for openai/,
  );
  assertCode(
    () => new Citeformer({ lmInvoker: lm("anthropic/claude-sonnet-4-5"), enforce: "grammar" }),
    "INVALID_OPTION",
  );
  assert.match(
    assertCode(() => new Citeformer({ lmInvoker: lm("openai/gpt-4o-mini"), enforce: "strict" }), "INVALID_OPTION")
      .message,
    /`auto`, `grammar`, `schema`, `tool`, `prompt`/,
  );
  assertCode(() => new Citeformer({ lmInvoker: lm("openai/gpt-4o-mini"), enforce: 1 }), "INVALID_OPTION");
  const citeformer = new Citeformer({ lmInvoker: lm("openai/gpt-4o-mini") });
  assert.equal(citeformer.enforce, "auto");
  assertCode(() => citeformer.request({ prompt, sources, enforce: "tool" }), "INVALID_OPTION");
  // Any other invoker is told the option and decides what to do with it.
  const own = {
    modelId: "mine",
    async invoke(_messages, options) {
      own.options = options;
      return JSON.stringify(CITED);
    },
  };
  assert.equal(
    new Citeformer({ lmInvoker: own, enforce: "schema" }).request({ prompt, sources }).options.enforce,
    "schema",
  );
  // A responseSchema of the caller's own cannot share the answer with the citations.
  await assert.rejects(
    lm("openai/gpt-4o-mini").invoke("Hi", { sourceCount: 2, enforce: "schema", responseSchema: { type: "object" } }),
    (e) => e.code === "INVALID_OPTION" && /responseSchema/.test(e.message),
  );
});

test("providers' own citations become Citations: Anthropic document citations, OpenAI url_citation annotations", async () => {
  const anthropic = lm("anthropic/native");
  const whole = await anthropic.invoke("Why?");
  const wholeCites = whole.citations;
  assert.deepEqual(wholeCites.map((c) => [c.sourceId, c.span, c.location, c.sourceSpan]), [[
    1,
    [17, 43],
    "char_location",
    [0, 48],
  ], [2, [43, 59], "page_location", [2, 3]]]);
  const text = whole.outputs.map((o) => o.output).join("");
  assert.equal(text.slice(...wholeCites[0].span), "water boils at 100 degrees");
  const events = [];
  for await (const e of anthropic.stream("Why?")) events.push(e);
  assert.deepEqual(
    events.filter((e) => e.type === "citation").map((e) => e.value),
    wholeCites,
    "streamed and whole agree",
  );

  const openai = lm("openai/native");
  const web = await openai.invoke("Why?");
  const [cite] = web.citations;
  assert.deepEqual([cite.sourceId, cite.url, cite.documentTitle, cite.location, cite.marker], [
    1,
    "https://example.org/boil",
    "Boiling point",
    "url_citation",
    "",
  ]);
  assert.equal(
    web.outputs[0].output.slice(...cite.span),
    "[Boiling](https://example.org/boil)",
    "code points read as UTF-16 spans",
  );
  const webEvents = [];
  for await (const e of openai.stream("Why?")) webEvents.push(e);
  assert.deepEqual(webEvents.filter((e) => e.type === "citation").map((e) => e.value), web.citations);

  // Through Citeformer (the prompt rule: the answer is prose): the provider's citations join
  // the result's, in text order, and name sources in the references.
  for (const generate of [(c) => c.generate({ prompt, sources }), async (c) => (await streamed(c)).result]) {
    const result = await generate(new Citeformer({ lmInvoker: anthropic, enforce: "prompt" }));
    assert.deepEqual(result.citations.map((c) => [c.sourceId, c.location]), [[1, "char_location"], [
      2,
      "page_location",
    ]]);
    assert.equal(result.references.length, 2);
  }
});

test("citationGrammar bounds sentences and markers per sentence; a decimal point stays inside a sentence", async () => {
  const { citationGrammar } = await import("citeflow");
  const re = new RegExp(citationGrammar({ sourceCount: 2, format: "regex", maxSentences: 2, maxCitesPerSentence: 1 }));
  assert.ok(re.test("It is 3.5 m tall [1]. Ice floats [2]."));
  assert.ok(!re.test("A [1]. B [2]. C [1]."), "three sentences");
  assert.ok(!re.test("A [1] [2]."), "two markers");
  assert.match(
    citationGrammar({ sourceCount: 2, maxSentences: 3, maxCitesPerSentence: 1 }),
    /^root ::= sentence \(ws sentence\)\{0,2\}\n[\s\S]*^cite-group ::= cite-id\n/m,
  );
  const schema = JSON.parse(
    citationGrammar({ sourceCount: 2, format: "json_schema", maxSentences: 2, maxCitesPerSentence: 1 }),
  );
  assert.deepEqual([
    schema.properties.segments.maxItems,
    schema.properties.segments.items.properties.citations.maxItems,
  ], [2, 1]);
  assertCode(() => citationGrammar({ sourceCount: 2, maxSentences: 0 }), "INVALID_OPTION");
  assertCode(() => citationGrammar({ sourceCount: 2, maxSentences: 2, policy: "auto" }), "INVALID_OPTION");
  assertCode(() => citationGrammar({ sourceCount: 2, maxSentence: 2 }), "INVALID_OPTION");
});

test("a server that ignores the schema and answers prose: its markers still count, streamed and whole", async () => {
  // The fake answers prose when the request names no cited_answer format: as a server that
  // does not know response_format would. The invoker is told the answer is a cited answer.
  const options = { markerStyle: "bracket", sourceCount: 2, enforce: "schema" };
  const compatible = lm("openai-compatible/ignores-schema");
  const whole = await compatible.invoke("Why?", options);
  assert.equal(lastBody().response_format.json_schema.name, "cited_answer");
  assert.deepEqual(whole.outputs, [{
    type: "text",
    output: "Water boils at 100 degrees Celsius [1]. Ice floats [2].",
  }]);
  assert.deepEqual(ids(whole.citations), [1, 2]);
  const events = [];
  for await (const e of compatible.stream("Why?", options)) events.push(e);
  assert.equal(events.filter((e) => e.type === "response").map((e) => e.value).join(""), whole.outputs[0].output);
  assert.deepEqual(events.filter((e) => e.type === "citation").map((e) => e.value), whole.citations);
});

test("enforce auto falls back to the prompt rule when the provider refuses the mechanism; named, it does not", async () => {
  for (const modelId of ["openrouter/some/no-structured", "anthropic/no-structured"]) {
    const citeformer = new Citeformer({ lmInvoker: lm(modelId) });
    const before = server.requests.length;
    const result = await citeformer.generate({ prompt, sources });
    const sent = server.requests.slice(before).map((r) => r.body);
    assert.equal(sent.length, 2, `${modelId}: refused, then asked again`);
    assert.ok(sent[0].response_format || sent[0].tools);
    assert.ok(!sent[1].response_format && !sent[1].tools && !sent[1].grammar);
    assert.deepEqual(ids(result.citations), [1, 2], modelId);
    const { text, result: fromStream } = await streamed(citeformer);
    assert.equal(text, result.text);
    assert.deepEqual(fromStream.toJSON(), result.toJSON());
    const named = new Citeformer({
      lmInvoker: lm(modelId),
      enforce: modelId.startsWith("anthropic") ? "tool" : "schema",
    });
    await assert.rejects(named.generate({ prompt, sources }), (e) => e.code === "PROVIDER_ERROR" && e.status === 400);
    await assert.rejects(streamed(named), (e) => e.code === "PROVIDER_ERROR" && e.status === 400);
  }
});
