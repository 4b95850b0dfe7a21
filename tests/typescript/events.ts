// Events are a discriminated union: narrowing on `type` gives the value's type, and a field
// the narrowed value lacks is an error.
import {
  CitationParser,
  decodeProviderStream,
  type Event,
  OutputTransformerChain,
  ProviderBodyDecoder,
  ThinkTagOutputTransformer,
} from "citeflow";
import { type Event as StreamEvent, ThinkTagOutputTransformer as StreamThinkTag } from "citeflow/stream";

/** What each kind of event holds, read as a UI reads it. */
function describe(e: Event): string {
  switch (e.type) {
    case "response":
    case "thinking":
    case "structured_delta":
      return e.value.toUpperCase();
    case "response_start":
    case "response_end":
    case "thinking_start":
    case "thinking_end":
      return `${e.type} ${e.id ?? ""}`;
    case "citation":
      return `${e.value.sourceId} ${e.value.marker} ${e.value.span[0]} ${e.value.url ?? ""}`;
    case "usage":
      return `${e.value.inputTokens ?? 0} in, ${e.value.outputTokens ?? 0} out`;
    case "sources":
      return e.value.map((s) => `${s.sourceId} ${s.kind} ${s.title ?? ""}`).join(", ");
    case "structured":
      return Object.keys(e.value).join(",");
    case "reference":
      return typeof e.value === "string" ? e.value : e.value.content;
    default: {
      // Every kind citeflow makes is handled above.
      const none: never = e;
      return none;
    }
  }
}

const parser = new CitationParser({ sourceCount: 2 });
for (const e of [...parser.push("Water boils [1]."), ...parser.finish()]) {
  if (e.type === "citation") {
    const id: number = e.value.sourceId;
    const valid: boolean = e.value.valid;
    // @ts-expect-error: a citation has no `text`
    e.value.text;
    console.log(id, valid);
  } else if (e.type === "response") {
    const text: string = e.value;
    // @ts-expect-error: response text is a string, not a citation
    e.value.sourceId;
    console.log(text);
  } else if (e.type === "usage") {
    // @ts-expect-error: token counts name no source
    e.value.sourceId;
  }
  console.log(describe(e));
}

// The streaming subpath's events are the same union.
const streamed: StreamEvent[] = new StreamThinkTag().push("<think>a</think>b");
const fromMain: Event[] = streamed;
console.log(fromMain.map(describe));

// A decoder's and a provider stream's events narrow the same way.
const body = new ProviderBodyDecoder("anthropic", { transformers: ["think_tag", "citations"] });
for (const e of body.push("data: {}\n\n")) if (e.type === "sources") console.log(e.value[0]?.url);
const reader = decodeProviderStream(new ReadableStream<Uint8Array>(), "google").getReader();
const first = await reader.read();
if (!first.done && first.value.type === "citation") console.log(first.value.value.covers);

// An event of your own passes through as it went in, typed as given; it does not widen the
// events citeflow makes.
interface ToolCall {
  type: "tool_call";
  value: { name: string };
}
const call: ToolCall = { type: "tool_call", value: { name: "search" } };
const think = new ThinkTagOutputTransformer();
for (const e of think.push(call)) {
  if (e.type === "tool_call") console.log(e.value.name);
  else if (e.type === "citation") console.log(e.value.sourceId);
}
const chain = OutputTransformerChain.fromConfigs(["think_tag", "citations"]);
const custom: ReadableStream<Event | ToolCall> = new ReadableStream<ToolCall>().pipeThrough(
  chain.transformStream<ToolCall>(),
);
// Transformer streams pipe into each other with citeflow's events.
const piped: ReadableStream<Event> = new ReadableStream<string>()
  .pipeThrough(new ThinkTagOutputTransformer().transformStream())
  .pipeThrough(new CitationParser().transformStream());
console.log(custom.locked, piped.locked);

// A listener typed for citeflow's events is accepted.
new ThinkTagOutputTransformer({ onEvent: (e: Event) => console.log(describe(e)) }).emit("a");
