// What each stream costs before its first token: making the pipeline a streaming chat UI or an
// edge worker makes per request, and ending it. citeflow: a ProviderBodyDecoder running a
// ThinkTagOutputTransformer and a CitationParser, given one `data: [DONE]` body and finished.
// The peer: eventsource-parser's parser and the AI SDK's reasoning middleware wrapped around a
// stream, given the same body. Per stream, in one process, the two timed in turns.
import { createParser } from "eventsource-parser";
import { extractReasoningMiddleware } from "ai";
import { CitationParser, ProviderBodyDecoder, ThinkTagOutputTransformer } from "citeflow";
import { compare } from "./timing.mjs";

const STREAMS = 2000;
const DONE = new TextEncoder().encode("data: [DONE]\n\n");

export async function run({ runs = 9 } = {}) {
  let ours = 0;
  const citeflow = () => {
    for (let i = 0; i < STREAMS; i++) {
      const decoder = new ProviderBodyDecoder("openai", {
        transformers: [new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 5 })],
      });
      ours += decoder.push(DONE).length + decoder.finish().length;
    }
  };
  let theirs = 0;
  const decoder = new TextDecoder();
  const peer = async () => {
    for (let i = 0; i < STREAMS; i++) {
      const { stream } = await extractReasoningMiddleware({ tagName: "think" }).wrapStream({
        doStream: async () => ({ stream: new ReadableStream({ start: (c) => c.close() }) }),
      });
      const parser = createParser({ onEvent: () => theirs++ });
      parser.feed(decoder.decode(DONE));
      for await (const _ of stream);
    }
  };
  const t = await compare(citeflow, peer, runs);
  if (ours !== 0) throw new Error(`citeflow released ${ours} events for an empty stream`);
  if (theirs !== runs * STREAMS + STREAMS) throw new Error(`the peer read ${theirs} events`);
  return {
    name: "setup",
    streams: STREAMS,
    citeflowUsPerStream: (t.a * 1000) / STREAMS,
    peerUsPerStream: (t.b * 1000) / STREAMS,
    ratio: t.ratio,
  };
}

export function print(r) {
  console.log(
    `Per-stream set-up (decoder + think tags + citations, made and finished): citeflow ${
      r.citeflowUsPerStream.toFixed(1)
    } µs, eventsource-parser + AI SDK middleware ${r.peerUsPerStream.toFixed(1)} µs (ratio ${
      r.ratio.toFixed(2)
    } = peer time / citeflow time)`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
