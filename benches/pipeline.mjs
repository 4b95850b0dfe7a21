// CPU time per streamed token, from raw SSE bytes to transformed events: SSE decoding →
// OpenAI delta decoding → think tags → citation markers. citeflow against the JS pipeline a
// user would assemble for the same job: eventsource-parser + JSON.parse + the AI SDK's
// reasoning middleware (its transform, called directly) + a regex marker scan. Same bytes,
// same network chunks (1 KB and 128 B), same process.
import { createParser } from "eventsource-parser";
import { CitationParser, ProviderBodyDecoder, ThinkTagOutputTransformer } from "citeflow";
import { rng } from "../tests/js/helpers.mjs";
import { aiSdkReasoningTransform } from "./peers.mjs";
import { compare } from "./timing.mjs";

const WORDS = "the study found that rates rose in most regions while costs fell over the decade".split(" ");

/** An OpenAI-style SSE body: one token (a word and a space, or a marker) per event. */
function body(chunkBytes) {
  const random = rng(5);
  const tokens = ["<think>"];
  for (let i = 0; i < 3000; i++) tokens.push(WORDS[Math.floor(random() * WORDS.length)] + " ");
  tokens.push("</think>");
  for (let i = 0; i < 15000; i++) {
    tokens.push(WORDS[Math.floor(random() * WORDS.length)] + " ");
    if (i % 12 === 11) tokens.push(`[${1 + Math.floor(random() * 5)}]`, ". ");
  }
  const events = tokens.map((content) =>
    `data: ${
      JSON.stringify({
        id: "c1",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: { content }, finish_reason: null }],
      })
    }\n\n`
  );
  events.push(
    `data: ${
      JSON.stringify({
        id: "c1",
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: {}, finish_reason: "stop" }],
      })
    }\n\n`,
    "data: [DONE]\n\n",
  );
  const bytes = new TextEncoder().encode(events.join(""));
  const chunks = [];
  for (let i = 0; i < bytes.length; i += chunkBytes) chunks.push(bytes.slice(i, i + chunkBytes));
  return { chunks, tokens: tokens.length };
}

export async function run({ runs = 5 } = {}) {
  const rows = [];
  for (const chunkBytes of [1024, 128]) rows.push(await measure(chunkBytes, runs));
  return { name: "pipeline", rows };
}

async function measure(chunkBytes, runs) {
  const { chunks, tokens } = body(chunkBytes);
  let oursCites = 0;
  // One decoder running the transformers in the same engine (what invoker streams do).
  const ours = () => {
    const body = new ProviderBodyDecoder("openai", {
      transformers: [new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 5 })],
    });
    let cites = 0;
    const take = (events) => {
      for (const e of events) if (e.type === "citation") cites++;
    };
    for (const c of chunks) take(body.push(c));
    take(body.finish());
    oursCites = cites;
  };
  const decoder = new TextDecoder();
  let theirsCites = 0;
  const theirs = async () => {
    const reasoning = await aiSdkReasoningTransform();
    const re = /\[(\d+)\]/g;
    let tail = "";
    let cites = 0;
    const controller = {
      enqueue(part) {
        if (part.type !== "text-delta") return;
        tail += part.delta;
        re.lastIndex = 0;
        let done = 0;
        while (re.exec(tail) !== null) {
          cites++;
          done = re.lastIndex;
        }
        const open = tail.indexOf("[", done);
        tail = open >= 0 && /^\[\d*$/.test(tail.slice(open)) ? tail.slice(open) : "";
      },
    };
    const parser = createParser({
      onEvent(event) {
        if (event.data === "[DONE]") return;
        const content = JSON.parse(event.data).choices[0]?.delta?.content;
        if (content) reasoning.transform({ type: "text-delta", id: "t", delta: content }, controller);
      },
    });
    for (const c of chunks) parser.feed(decoder.decode(c, { stream: true }));
    reasoning.transform({ type: "text-end", id: "t" }, controller);
    theirsCites = cites;
  };
  const { a, b, ratio } = await compare(ours, theirs, runs);
  if (oursCites !== theirsCites) throw new Error(`citation counts differ: citeflow ${oursCites}, peer ${theirsCites}`);
  return {
    chunkBytes,
    tokens,
    citeflowNsPerToken: (a * 1e6) / tokens,
    peerNsPerToken: (b * 1e6) / tokens,
    ratio,
  };
}

export function print({ rows }) {
  for (const r of rows) {
    console.log(
      `SSE bytes → events → think tags → citations, ${r.tokens} tokens in ${r.chunkBytes} B chunks: citeflow ${
        r.citeflowNsPerToken.toFixed(0)
      } ns/token, eventsource-parser + AI SDK middleware + regex ${r.peerNsPerToken.toFixed(0)} ns/token (ratio ${
        r.ratio.toFixed(2)
      } = peer time / citeflow time)`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
