// Type-checked (deno check) against pkg/index.d.ts: the public API as a user writes it.
import init, {
  type CiteflowError,
  type Event,
  EventFilterOutputTransformer,
  JSONOutputTransformer,
  type LMOutput,
  OutputTransformerChain,
  OutputTransformerConfig,
  ThinkTagOutputTransformer,
  ValidationOutputTransformer,
} from "citeflow";

await init();
const think = new ThinkTagOutputTransformer({ tags: ["think", ["<r>", "</r>"], { open: "[[", close: "]]" }], startInThinking: false });
const events: Event[] = [...think.push("<think>a"), ...think.push({ type: "status", value: "x" }), ...think.finish()];
const out: LMOutput = new JSONOutputTransformer().transform({ outputs: [{ type: "text", output: "{}" }], usage: { inputTokens: 1 } });
const chain = OutputTransformerChain.fromConfigs(["think_tag", OutputTransformerConfig.eventFilter(["response"]), { type: "json" }]);
const stream: ReadableStream<Event> = new ReadableStream<string>().pipeThrough(chain.transformStream());
new ValidationOutputTransformer({ requiredTypes: ["text"], mode: "any" });
new EventFilterOutputTransformer(["thinking"]).allowedEventTypes.join(",");
try {
  think.push("late");
} catch (e) {
  const code: string = (e as CiteflowError).code;
  console.log(code, events.length, out.outputs.length, stream.locked);
}

// @ts-expect-error: event types are a list
new EventFilterOutputTransformer("thinking");
// @ts-expect-error: modes are "all" or "any"
new ValidationOutputTransformer({ requiredTypes: ["text"], mode: "most" });
// @ts-expect-error: unknown option
new ThinkTagOutputTransformer({ tag: "x" });
