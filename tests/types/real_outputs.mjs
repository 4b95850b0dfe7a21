// The types tell the truth: this runs the package for real (transformers, citations, the
// decoders, invokers against the fake provider, relevance, Citeformer, references) and writes
// every value a public call returned as a TypeScript literal annotated with the type the .d.ts
// declares for it. `deno check` on the written file then fails when a declared field is
// missing, has another type, or when a real value carries a field the type does not declare
// (object literals are checked for excess properties). It also checks that the package's
// runtime exports and the .d.ts's value exports are the same set, in both directions.
//
//   node tests/types/real_outputs.mjs   → tests/out/types/real-outputs.ts (then deno check it)
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import * as lib from "citeflow";
import * as csl from "citeflow/csl";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { typeLiteral } from "./literal.mjs";

const out = fileURLToPath(new URL("../out/types/", import.meta.url));
const samples = [];
/** Records `value` as an instance of the declared type `type` (a TS type expression). */
const sample = (name, type, value) => samples.push({ name, type, value });
const drain = async (stream) => {
  const all = [];
  for await (const v of stream) all.push(v);
  return all;
};

await lib.default();
await csl.default();
const server = await startFakeProvider();
try {
  // ---- output transformers --------------------------------------------------------------
  const think = new lib.ThinkTagOutputTransformer();
  sample("think events", "Event[]", [...think.push("<think>why</think>Because [1]."), ...think.finish()]);
  sample(
    "think transform",
    "LMOutput",
    new lib.ThinkTagOutputTransformer().transform({
      outputs: [{ type: "text", output: "<think>a</think>b" }],
      usage: { inputTokens: 1 },
    }),
  );
  sample(
    "json transform",
    "LMOutput",
    new lib.JSONOutputTransformer().transform({ outputs: [{ type: "text", output: 'Here: {"a": 1}' }] }),
  );
  sample(
    "filter events",
    '(Event | { type: "response"; value: string; id: string })[]',
    new lib.EventFilterOutputTransformer(["response"]).push({ type: "response", value: "x", id: "r" }),
  );
  const chain = lib.OutputTransformerChain.fromConfigs(["think_tag", {
    type: "citations",
    kwargs: { sourceCount: 2 },
  }]);
  sample("chain events", "Event[]", [...chain.push("<think>a</think>Water [1] and [2]."), ...chain.finish()]);
  sample(
    "config json",
    "ReturnType<OutputTransformerConfig['toJSON']>",
    lib.OutputTransformerConfig.eventFilter(["response"]).toJSON(),
  );
  const streamed = await drain(
    new ReadableStream({ start: (c) => (c.enqueue("<think>x</think>y"), c.close()) }).pipeThrough(
      new lib.ThinkTagOutputTransformer().transformStream(),
    ),
  );
  sample("transformStream events", "Event[]", streamed);

  // ---- citations ------------------------------------------------------------------------
  sample("parseCitations", "Citation[]", lib.parseCitations("Water boils [1][2]. Ice (3).", { sourceCount: 3 }));
  sample(
    "groundingCitations",
    "{ citations: Citation[]; sources: ProviderSource[] }",
    lib.groundingCitations("Tokyo 東京 is big.", {
      groundingChunks: [
        { web: { uri: "https://example.org/tokyo", title: "example.org" } },
        { retrievedContext: { title: "notes", documentName: "fileSearchStores/s/documents/d", text: "Tokyo" } },
      ],
      groundingSupports: [{ segment: { startIndex: 13, endIndex: 20 }, groundingChunkIndices: [0, 1, 7] }],
    }),
  );
  sample(
    "checkPolicy",
    "PolicyReport",
    lib.checkPolicy("Water boils [1]. Ice floats.", { policy: "required", sourceCount: 1 }),
  );
  sample("splitSentences", "ReturnType<typeof splitSentences>", lib.splitSentences("One. Two [1]."));
  const parser = new lib.CitationParser({ sourceCount: 2 });
  sample("parser events", "Event[]", [...parser.push("Fact [1"), ...parser.push("] more [2]."), ...parser.finish()]);
  sample(
    "parser transform",
    "LMOutput & { citations: Citation[] }",
    new lib.CitationParser({ sourceCount: 1 }).transform({ outputs: [{ type: "text", output: "A [1]." }] }),
  );

  // ---- decoders -------------------------------------------------------------------------
  const sse = new lib.SSEDecoder();
  sample("sse messages", "SSEMessage[]", [
    ...sse.push('event: e\nid: 7\nretry: 10\ndata: {"a":1}\n\n'),
    ...sse.finish(),
  ]);
  const body = new lib.ProviderBodyDecoder("anthropic");
  const anthropicBody = [
    'event: message_start\ndata: {"type":"message_start","message":{"id":"m","usage":{"input_tokens":3,"output_tokens":1}}}\n\n',
    'event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n',
    'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hi [1]."}}\n\n',
    'event: content_block_stop\ndata: {"type":"content_block_stop","index":0}\n\n',
    'event: message_delta\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":4}}\n\n',
    'event: message_stop\ndata: {"type":"message_stop"}\n\n',
  ].join("");
  sample("anthropic body events", "Event[]", [...body.push(anthropicBody), ...body.finish()]);

  const openaiMessages = [{ data: '{"choices":[{"index":0,"delta":{"content":"Hi"}}]}' }, {
    data: '{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}',
  }, { data: "[DONE]" }];
  const messages = new lib.ProviderStreamDecoder("openai");
  sample("provider stream events", "Event[]", [
    ...openaiMessages.flatMap((m) => messages.push(m)),
    ...messages.finish(),
  ]);
  const bytes = new TextEncoder().encode(anthropicBody);
  const decoded = lib.decodeProviderStream(
    new ReadableStream({ start: (c) => (c.enqueue(bytes), c.close()) }),
    "anthropic",
    { transformers: [new lib.CitationParser({ sourceCount: 1 })] },
  );
  sample("decodeProviderStream events", "Event[]", await drain(decoded));
  // Every recorded provider stream and every provider stream case, as a body decoder gives
  // them: all the event kinds the decoders make (text, blocks, citations, sources, usage, a
  // forced tool's structured_delta and structured).
  const recordings = fileURLToPath(new URL("../fixtures/providers/", import.meta.url));
  for (const provider of readdirSync(recordings, { withFileTypes: true }).filter((d) => d.isDirectory())) {
    for (const file of readdirSync(`${recordings}${provider.name}`).filter((f) => f.endsWith(".sse"))) {
      const decoder = new lib.ProviderBodyDecoder(provider.name);
      const body = readFileSync(`${recordings}${provider.name}/${file}`, "utf8");
      sample(`${provider.name}/${file} events`, "Event[]", [...decoder.push(body), ...decoder.finish()]);
    }
  }
  const streamCases = JSON.parse(
    readFileSync(new URL("../fixtures/provider_streams.json", import.meta.url), "utf8"),
  ).cases;
  for (const { name, format, sse } of streamCases) {
    const decoder = new lib.ProviderBodyDecoder(format);
    const events = [];
    try {
      events.push(...decoder.push(sse), ...decoder.finish());
    } catch {
      // a case that ends in an error: the events before it
    }
    sample(`${name} (events)`, "Event[]", events);
  }
  const json = new lib.JSONOutputTransformer();
  sample("json events", "Event[]", [...json.push('Here: {"a": [1, "x"]}'), ...json.finish()]);
  sample(
    "validation transform",
    "LMOutput",
    new lib.ValidationOutputTransformer({ requiredTypes: ["text"] }).transform({
      outputs: [{ type: "text", output: "ok" }],
    }),
  );

  // ---- invokers (real HTTP against the fake provider) -----------------------------------
  const lm = lib.buildLMInvoker("openai-compatible/m", { apiKey: "sk-test", baseUrl: server.base, maxRetries: 0 });
  sample("invoke", "Awaited<ReturnType<LMInvoker['invoke']>>", await lm.invoke("Hi"));
  sample(
    "invoke reasoner",
    "Awaited<ReturnType<LMInvoker['invoke']>>",
    await lib.buildLMInvoker("openai-compatible/reasoner", { apiKey: "sk-test", baseUrl: server.base, maxRetries: 0 })
      .invoke("Hi"),
  );
  sample("stream events", "Event[]", await drain(lm.stream("Hi")));
  const claude = lib.buildLMInvoker("anthropic/claude", { apiKey: "sk-ant-test", baseUrl: server.base, maxRetries: 0 });
  sample("anthropic invoke", "Awaited<ReturnType<LMInvoker['invoke']>>", await claude.invoke("Hi"));
  sample("anthropic stream", "Event[]", await drain(claude.stream("Hi")));
  const em = lib.buildEMInvoker("openai-compatible/e", { apiKey: "sk-test", baseUrl: server.base, maxRetries: 0 });
  sample("embeddings", "Float32Array[]", await em.invoke(["a", "bc"]));
  const dm = lib.buildDMInvoker("typesafe/dm", { apiKey: "sk-test", baseUrl: server.base, maxRetries: 0 });
  sample(
    "dm invoke",
    "Awaited<ReturnType<DMInvoker['invoke']>>",
    await dm.invoke({
      state: { q: "relevant" },
      questions: {
        r: lib.DMQuestion.noul("Is it relevant?"),
        c: lib.DMQuestion.choice("Pick", { a: "A", b: "B" }),
        s: lib.DMQuestion.score("Rate", ["low", "high"]),
      },
    }),
  );
  try {
    await lib.buildLMInvoker("openai-compatible/bad-request", {
      apiKey: "sk-test",
      baseUrl: server.base,
      maxRetries: 0,
    }).invoke("Hi");
  } catch (error) {
    sample("provider error", "ProviderError", error);
  }
  try {
    lib.parseCitations("x", { markerStyle: "nope" });
  } catch (error) {
    sample("citeflow error", "CiteflowError", error);
  }

  // ---- relevance and context --------------------------------------------------------------
  const chunks = [
    {
      content: "Water boils at 100 C @[1,0]",
      metadata: { file_name: "water.pdf", file_url: "https://example.org/water.pdf", title: "Water" },
    },
    { content: "Cats sleep @[0,1]", metadata: { file_name: "cats.txt" } },
  ];
  const semantic = lib.buildEMInvoker("openai-compatible/semantic", {
    apiKey: "sk-test",
    baseUrl: server.base,
    maxRetries: 0,
  });
  const similarity = new lib.SimilarityRelevanceFilter(semantic, { threshold: 0.5 });
  sample("similarity evaluations", "ChunkEvaluation[]", await similarity.evaluate({ query: "water @[1,0]", chunks }));
  const judge = lib.buildLMInvoker("openai-compatible/relevance-judge", {
    apiKey: "sk-test",
    baseUrl: server.base,
    maxRetries: 0,
  });
  sample(
    "lm evaluations",
    "ChunkEvaluation[]",
    await new lib.LMRelevanceFilter(judge).evaluate({
      query: "water",
      chunks: [{ content: "relevant water" }, { content: "irrelevant" }],
    }),
  );
  sample(
    "dm evaluations",
    "ChunkEvaluation[]",
    await new lib.DMRelevanceFilter(dm).evaluate({ query: "water", chunks: [{ content: "relevant water" }] }),
  );
  const referenceEvents = [];
  const formatted = await new lib.SimilarityReferenceFormatter(semantic).format({
    response: "Water boils @[1,0]",
    chunks,
    eventEmitter: (e) => referenceEvents.push(e),
  });
  sample("formatted references", "string | Chunk[]", formatted);
  sample("reference events", "Event[]", referenceEvents);
  sample("formatChunkAsString", "string", lib.formatChunkAsString(chunks[0]));
  sample("cslItemOf", "ReturnType<typeof cslItemOf>", lib.cslItemOf(chunks[0].metadata));
  sample("cosineSimilarities", "Float32Array", lib.cosineSimilarities([1, 0], [[1, 0], [0, 1]]));

  // ---- Citeformer and references ------------------------------------------------------------
  const cf = new lib.Citeformer({ lmInvoker: lm, style: "apa" });
  const sources = chunks.map((c) => ({ content: c.content, metadata: c.metadata }));
  const result = await cf.generate({ prompt: "Why?", sources });
  sample("generation result", "GenerationResult", result);
  sample("verify report", "VerifyReport", await result.verify());
  const live = cf.stream({ prompt: "Why?", sources });
  await drain(live);
  sample("finalized stream", "GenerationResult", await live.finalize());
  sample("request", "ReturnType<Citeformer['request']>", cf.request({ prompt: "Why?", sources }));
  sample(
    "references",
    "Reference[]",
    await lib.renderReferences(
      [{
        type: "book",
        title: "T",
        author: [{ family: "Doe", given: "J." }],
        issued: { "date-parts": [[2019], [2020]] },
      }],
      [1],
      { style: "ieee" },
    ),
  );
  sample(
    "csl references",
    "Reference[]",
    csl.renderReferences(
      [{ content: "x", metadata: { type: "webpage", title: "W", URL: "https://example.org" } }],
      [1],
      { format: "html" },
    ),
  );
  sample("bundled styles", "BundledStyle[]", await lib.bundledStyleNames());
} finally {
  await server.close();
}

// Events whose type promises a value shape (a citation, a usage report) are checked as such.
const eventKinds = { citation: "CitationEvent", usage: "UsageEvent" };
for (const { name, type, value } of [...samples]) {
  if (type !== "Event[]") continue;
  for (const event of value) {
    if (eventKinds[event.type]) sample(`${name}: ${event.type}`, eventKinds[event.type], event);
  }
}

// ---- exports: the runtime's and the .d.ts's, both ways -----------------------------------
const exportCheck = (module, names) =>
  `const exports_${module.replace(/\W/g, "_")}: Record<keyof typeof import("${module}"), true> = {\n${
    names.map((n) => `  ${JSON.stringify(n)}: true,`).join("\n")
  }\n};`;

const typeNames = [
  "Event",
  "CitationEvent",
  "UsageEvent",
  "LMOutput",
  "OutputTransformerConfig",
  "Citation",
  "PolicyReport",
  "SSEMessage",
  "LMInvoker",
  "DMInvoker",
  "ProviderError",
  "CiteflowError",
  "ChunkEvaluation",
  "Chunk",
  "GenerationResult",
  "VerifyReport",
  "Citeformer",
  "Reference",
  "BundledStyle",
  "ProviderSource",
];
const values = ["splitSentences", "cslItemOf"];
const text = [
  "// Written by tests/types/real_outputs.mjs from real outputs; checked with deno check.",
  `import type { ${typeNames.join(", ")} } from "citeflow";`,
  `import type { ${values.join(", ")} } from "citeflow";`,
  "/** A value's data: what a literal can hold (methods dropped, getters kept). */",
  "type Data<T> = T extends (...args: never[]) => unknown ? never : T extends Float32Array ? T : T extends readonly unknown[] ? { [K in keyof T]: Data<T[K]> } : T extends object ? { [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: Data<T[K]> } : T;",
  ...samples.map((s, i) => `// ${s.name}\nexport const sample${i}: Data<${s.type}> = ${typeLiteral(s.value)};`),
  exportCheck("citeflow", Object.keys(lib)),
  exportCheck("citeflow/csl", Object.keys(csl)),
  "",
].join("\n");
mkdirSync(out, { recursive: true });
writeFileSync(`${out}real-outputs.ts`, text);
console.log(`types: ${samples.length} real outputs written to tests/out/types/real-outputs.ts`);
