// Models as Citeformer takes them, under Next.js's default `lib` (no "dom.asynciterable").
import { buildLMInvoker, Citeformer, type Event } from "citeflow";

// The README's central line: a built invoker, whose `stream` is a web ReadableStream.
const cf = new Citeformer({ lmInvoker: buildLMInvoker("openai/gpt-4o-mini", { apiKey: "k" }) });

// A model of your own whose stream is read through its reader alone: citeflow never iterates a
// ReadableStream with `for await` (WebKit's cannot be).
const readerOnly: { getReader(): ReadableStreamDefaultReader<string> } = new ReadableStream<string>();
new Citeformer({ lmInvoker: { invoke: () => "x", stream: () => readerOnly } });
// An async generator of text, events and usage reports.
new Citeformer({
  lmInvoker: {
    invoke: async () => ({ outputs: [{ type: "text", output: "x" }] }),
    async *stream() {
      yield "Water boils [1].";
      yield { type: "thinking", value: "why" };
      yield { usage: { inputTokens: 3 } };
    },
  },
});
// @ts-expect-error: a stream is an async iterable or a ReadableStream
new Citeformer({ lmInvoker: { invoke: () => "x", stream: () => "x" } });

// A fallback is called with the call's input and options, and streams through its reader.
const fallback = {
  invoke: async (input: string | { role: string; content: string }[]) => ({
    outputs: [{ type: "text" as const, output: String(input.length) }],
  }),
  stream: (): ReadableStream<Event> => new ReadableStream<Event>(),
};
buildLMInvoker("openai/gpt-4o-mini", { fallbackLms: [fallback, buildLMInvoker("anthropic/claude-haiku-4-5")] });
// @ts-expect-error: a fallback's stream is read through its reader
buildLMInvoker("openai/gpt-4o-mini", { fallbackLms: [{ invoke: fallback.invoke, stream: async function* () {} }] });
console.log(cf.style);
