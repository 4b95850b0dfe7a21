// Type-checked (deno check) against pkg/index.d.ts: the public API as a user writes it.
import init, {
  buildDMInvoker,
  buildEMInvoker,
  buildLMInvoker,
  checkPolicy,
  type Chunk,
  type Citation,
  citationGrammar,
  CitationParser,
  type CiteflowError,
  Citeformer,
  ContextConfig,
  cosineSimilarities,
  cslItemOf,
  decodeProviderStream,
  DMQuestion,
  DMReferenceFormatter,
  DMRelevanceFilter,
  type Event,
  EventFilterOutputTransformer,
  formatChunkAsString,
  formatReferencesAsString,
  type GenerationResult,
  initFull,
  isFullReady,
  JSONOutputTransformer,
  LMBasedReferenceFormatter,
  type LMOutput,
  LMReferenceFormatter,
  LMRelevanceFilter,
  NoOpReferenceFormatter,
  OutputTransformerChain,
  OutputTransformerConfig,
  parseCitations,
  ProviderBodyDecoder,
  type Reference,
  renderCitedHtml,
  renderReferences,
  setCslWasmUrl,
  SimilarityReferenceFormatter,
  SimilarityRelevanceFilter,
  SSEDecoder,
  type SSEMessage,
  ThinkTagOutputTransformer,
  ValidationOutputTransformer,
} from "citeflow";
import initCsl, { CslDocument, type RenderedCluster, renderReferences as renderNow } from "citeflow/csl";
// The .wasm subpaths (pkg/wasm.d.ts), as the README's esbuild recipes import them: a URL or bytes.
import wasmUrl from "citeflow/citeflow_bg.wasm";
import streamWasmUrl from "citeflow/citeflow_stream_bg.wasm";
import fullWasmUrl from "citeflow/citeflow_stream_full_bg.wasm";
import cslWasmUrl from "citeflow/citeflow_csl_bg.wasm";

await init();
setCslWasmUrl(cslWasmUrl);
await init(wasmUrl, streamWasmUrl, fullWasmUrl);
const wasmSource: string | Uint8Array = wasmUrl;
void wasmSource;
await initFull();
const fullReady: boolean = isFullReady();
if (!fullReady) throw new Error("initFull() leaves the full streaming module ready");
const think = new ThinkTagOutputTransformer({
  tags: ["think", ["<r>", "</r>"], { open: "[[", close: "]]" }],
  startInThinking: false,
});
// An event pushed comes out as it went in, typed as given.
const events: (Event | { type: "status"; value: string })[] = [
  ...think.push("<think>a"),
  ...think.push({ type: "status", value: "x" }),
  ...think.finish(),
];
const out: LMOutput = new JSONOutputTransformer().transform({
  outputs: [{ type: "text", output: "{}" }],
  usage: { inputTokens: 1 },
});
const chain = OutputTransformerChain.fromConfigs(["think_tag", OutputTransformerConfig.eventFilter(["response"]), {
  type: "json",
}]);
const stream: ReadableStream<Event> = new ReadableStream<string>().pipeThrough(chain.transformStream());
new ValidationOutputTransformer({ requiredTypes: ["text"], mode: "any" });
new EventFilterOutputTransformer(["thinking"]).allowedEventTypes.join(",");
try {
  think.push("late");
} catch (e) {
  const code: string = (e as CiteflowError).code;
  console.log(code, events.length, out.outputs.length, stream.locked);
}

const cites: Citation[] = parseCitations("a [1]", { markerStyle: "bracket", sourceCount: 1 });
const [start, end] = cites[0].span;
const grammar: string = citationGrammar({ sourceCount: 2, policy: "quotes_only", format: "regex" });
const ok: boolean = checkPolicy("a [1].", { policy: "required" }).sentences[0].ok;
const cited = new CitationParser({ sourceCount: 2 }).transform({ outputs: [] }).citations;
console.log(start, end, grammar, ok, cited);
await initCsl();
const refs: Reference[] = await renderReferences([{ type: "book", title: "T" }], cites, {
  style: "ieee",
  format: "html",
});
const now: Reference[] = renderNow([{ content: "x", metadata: { type: "webpage", title: "W" } }], [1]);
console.log(refs[0].inlineMarker, now.length);
// An editor's loop: insert, edit, remove, re-render what changed.
const cslDoc = new CslDocument({
  style: "chicago",
  format: "html",
  items: [{ id: "poe", type: "book", title: "The Raven" }],
});
const changed: RenderedCluster[] = cslDoc.setCluster({
  id: "c1",
  noteIndex: 1,
  items: [{ id: "poe", locator: 12, label: "page", prefix: "see ", suppressAuthor: false }],
}, 0);
cslDoc.setCluster({ id: "c1", items: [{ id: "poe" }] });
const removed: RenderedCluster[] = cslDoc.removeCluster("c1");
const bib: string[] = cslDoc.bibliography({ uncited: ["poe"] }).map((e) => e.entry);
console.log(changed[0].text, removed.length, bib, cslDoc.clusters().map((c) => c.id), cslDoc.setItems([]));
// @ts-expect-error: a cluster's cites are objects with an item id
cslDoc.setCluster({ id: "c2", items: ["poe"] });
const cf = new Citeformer({ lmInvoker: { invoke: async () => "Answer [1]." }, style: "ieee", citationPolicy: "auto" });
const result = await cf.generate({
  prompt: "q",
  sources: [{ content: "c", metadata: { type: "webpage", title: "t" } }],
});
const rate: number = (await result.verify({ judge: async () => 1, threshold: 0.4 })).supportRate;
for await (const chunk of cf.stream({ prompt: "q", sources: [] })) console.log(chunk.length);
console.log(rate, renderCitedHtml(result));
const sse: SSEMessage[] = new SSEDecoder({ maxLineBytes: 1024 }).push(new Uint8Array([100]));
const piped: ReadableStream<SSEMessage> = new ReadableStream<Uint8Array>().pipeThrough(
  new SSEDecoder().transformStream(),
);
console.log(sse.length, piped.locked);
const providerEvents: ReadableStream<Event> = decodeProviderStream(new ReadableStream<Uint8Array>(), "anthropic");
// @ts-expect-error: unknown provider format (Gemini's is "google")
decodeProviderStream(new ReadableStream<Uint8Array>(), "gemini");
decodeProviderStream(new ReadableStream<Uint8Array>(), "cohere");
console.log(providerEvents.locked);
const lm = buildLMInvoker("openai/gpt-4o-mini", { apiKey: "k", maxRetries: 3, outputTransformers: ["think_tag"] });
const answer: LMOutput = await lm.invoke("Hi", { temperature: 0.1, signal: new AbortController().signal });
const cfFromLm = new Citeformer({ lmInvoker: lm });
console.log(answer.outputs.length, cfFromLm);
const grounded: LMOutput = await buildLMInvoker("google/gemini-2.5-flash", { apiKey: "k" }).invoke("Hi");
const chips: string[] = (grounded.sources ?? []).map((s) => `${s.sourceId} ${s.kind} ${s.url ?? s.rawUrl ?? ""}`);
const covered: ("claim" | "link" | "marker" | "point" | undefined)[] = (grounded.citations ?? []).map((c) => c.covers);
console.log(chips, covered, grounded.finishReason);
// @ts-expect-error: unknown option
buildLMInvoker("openai/gpt-4o-mini", { timeout: 1 });
const vecs: Float32Array[] = await buildEMInvoker("openai/text-embedding-3-small", { batchSize: 64 }).invoke([
  "a",
  "b",
]);
const vec: Float32Array = await buildEMInvoker("openai/text-embedding-3-small").invoke("a");
console.log(vecs.length, vec.length);
const decided = await buildDMInvoker("openrouter/typesafe/jev-1.13", { apiKey: "k" }).invoke({
  state: "s",
  questions: { q: DMQuestion.noul("Relevant?") },
});
const answer0 = decided.answers.q;
if (answer0.type === "noul") console.log(answer0.noul.toFixed(2));
// @ts-expect-error: a model needs invoke
new Citeformer({ lmInvoker: {} });
// @ts-expect-error: a source needs a CSL type

renderNow([{ title: "T" }]);
// @ts-expect-error: unknown marker style
parseCitations("x", { markerStyle: "angle" });
// @ts-expect-error: a grammar needs sourceCount
citationGrammar({ policy: "auto" });

// @ts-expect-error: event types are a list
new EventFilterOutputTransformer("thinking");
// @ts-expect-error: modes are "all" or "any"
new ValidationOutputTransformer({ requiredTypes: ["text"], mode: "most" });
// @ts-expect-error: unknown option
new ThinkTagOutputTransformer({ tag: "x" });
// Every transformer takes its emit listener; configs (data) take none.
const heard: string[] = [];
const listener = { onEvent: (e: Event) => void heard.push(e.type) };
new ThinkTagOutputTransformer({ tags: ["think"], ...listener }).emit("a");
new CitationParser({ sourceCount: 2, ...listener }).emit("a [1]");
new EventFilterOutputTransformer(["response"], listener).emit("a");
new JSONOutputTransformer(listener).emitFinish();
new ValidationOutputTransformer({ requiredTypes: ["text"], ...listener }).emit("a");
// @ts-expect-error: a config is data, without a listener
OutputTransformerConfig.thinkTag({ onEvent: listener.onEvent });
// @ts-expect-error: a transformer takes an options object, not a listener
new ThinkTagOutputTransformer(listener.onEvent);
const bounded = buildDMInvoker("openai/gpt-4o-mini", { apiKey: "k", maxConcurrency: 4 });
// @ts-expect-error: a language model's invoker sends one request per call: no maxConcurrency
buildLMInvoker("openai/gpt-4o-mini", { maxConcurrency: 4 });
console.log(heard.length, bounded.modelId);

// relevance
type MyChunk = Chunk & { metadata: { file_name: string } };
const myChunks: MyChunk[] = [{ content: "c", metadata: { file_name: "a.pdf" } }];
const em = buildEMInvoker("openai/text-embedding-3-small");
const kept: MyChunk[] = await new SimilarityRelevanceFilter(em, {
  threshold: 0.6,
  contextConfig: { fields: ["content"] },
}).filter({ chunks: myChunks, query: "q" });
const scored = await DMRelevanceFilter.fromConfig({
  modelId: "openrouter/typesafe/jev-1.13",
  apiKey: "k",
  threshold: 0.6,
}).evaluate({ chunks: myChunks, query: "q" });
console.log(kept.length, scored[0].score, scored[0].chunk.metadata.file_name);
const lmFilter = LMRelevanceFilter.fromPreset("openai/gpt-5-nano", {
  apiKey: "k",
  batchSize: 3,
  onFailureKeepAll: false,
});
const refList = await LMReferenceFormatter.fromPreset("openai/gpt-5-nano", { referenceMetadata: "file_name" }).format({
  response: "r",
  chunks: myChunks,
  eventEmitter: (e) => console.log(e.type),
});
const noop = new NoOpReferenceFormatter({ stringify: false, formatChunkFunc: (c) => c.content });
const dmFormatter = new DMReferenceFormatter(buildDMInvoker("typesafe/jev-1.13"), {
  relevanceQuestion: DMQuestion.noul("Cited?"),
});
console.log(
  lmFilter,
  refList,
  noop,
  dmFormatter,
  new SimilarityReferenceFormatter(em),
  new LMBasedReferenceFormatter(lm),
);
console.log(
  new ContextConfig({ template: "{metadata}" }).render(myChunks[0]),
  formatChunkAsString(myChunks[0], { title: "file_name" }),
  formatReferencesAsString(["a"]),
);
const sims: Float32Array = cosineSimilarities(new Float32Array(3), [[1, 2, 3]]);
console.log(sims);
// @ts-expect-error: a threshold is a number
new SimilarityRelevanceFilter(em, { threshold: "0.5" });
// @ts-expect-error: unknown option
new DMRelevanceFilter(buildDMInvoker("typesafe/jev-1.13"), { batch_size: 3 });
// @ts-expect-error: a filter needs a query
await lmFilter.filter({ chunks: myChunks });
const streamedResult: GenerationResult = await cf.result("Answer [1].", [{
  content: "c",
  metadata: { type: "book", title: "t" },
}]);
console.log(streamedResult.text);

// The streaming engine: a decoder running transformers, configs naming the citation parser.
{
  const decoder = new ProviderBodyDecoder("openai", {
    transformers: [new ThinkTagOutputTransformer(), OutputTransformerConfig.citations({ sourceCount: 2 }), {
      type: "event_filter",
      kwargs: { eventTypes: ["response"] },
    }],
  });
  const events: Event[] = decoder.push(new Uint8Array());
  const reason: string | null = decoder.finishReason;
  void events;
  void reason;
}

// Retrieval chunks straight into Citeformer: the default CSL mapping, or one's own.
{
  const item: Record<string, unknown> = cslItemOf({ file_name: "a.pdf", file_url: "https://example.org/a.pdf" });
  const cf = new Citeformer({
    lmInvoker: { invoke: () => "x" },
    toCslItem: (source, i) => ({ type: "document", title: `${i}: ${(source.content ?? "").slice(0, 10)}` }),
  });
  void item;
  void cf;
}
