// CPU time per streamed token, from raw SSE bytes to transformed events: SSE decoding →
// provider message decoding → think tags → citation markers. citeflow against the JS pipeline a
// user would assemble for the same job: eventsource-parser + JSON.parse + the AI SDK's
// reasoning middleware (its transform, called directly) + a regex marker scan. Same bytes,
// same network chunks (1 KB and 128 B), same process. The bodies: minimal OpenAI-style chunks,
// and ones shaped like real traffic: OpenAI's with every field (and a random `obfuscation` per
// chunk), and Anthropic's events.
import { createParser } from "eventsource-parser";
import { CitationParser, ProviderBodyDecoder, ThinkTagOutputTransformer } from "citeflow";
import { rng } from "../tests/js/helpers.mjs";
import { aiSdkReasoningTransform } from "./peers.mjs";
import { compare } from "./timing.mjs";

const WORDS = "the study found that rates rose in most regions while costs fell over the decade".split(" ");

/** The tokens every body carries: a word and a space, or a marker, with a thinking part first. */
function tokenList() {
  const random = rng(5);
  const tokens = ["<think>"];
  for (let i = 0; i < 3000; i++) tokens.push(WORDS[Math.floor(random() * WORDS.length)] + " ");
  tokens.push("</think>");
  for (let i = 0; i < 15000; i++) {
    tokens.push(WORDS[Math.floor(random() * WORDS.length)] + " ");
    if (i % 12 === 11) tokens.push(`[${1 + Math.floor(random() * 5)}]`, ". ");
  }
  return tokens;
}

const data = (value) => `data: ${JSON.stringify(value)}\n\n`;
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/**
 * The SSE events of each body shape, one token per event: `minimal` (the fewest fields an
 * OpenAI-style chunk needs), `openai` (every field OpenAI's chat completions chunks carry, with
 * the random `obfuscation` string of random length each has) and `anthropic` (Anthropic's
 * events, the tokens as `text_delta`s of one text block).
 */
const SHAPES = {
  minimal: {
    label: "minimal OpenAI-style",
    provider: "openai",
    events(tokens) {
      const chunk = (delta, finish_reason) =>
        data({ id: "c1", object: "chat.completion.chunk", choices: [{ index: 0, delta, finish_reason }] });
      return [...tokens.map((content) => chunk({ content }, null)), chunk({}, "stop"), "data: [DONE]\n\n"];
    },
  },
  openai: {
    label: "OpenAI with all fields",
    provider: "openai",
    events(tokens) {
      const random = rng(7);
      const obfuscation = () => {
        let s = "";
        for (let n = 1 + Math.floor(random() * 15); n > 0; n--) s += ALNUM[Math.floor(random() * ALNUM.length)];
        return s;
      };
      const chunk = (delta, finish_reason, usage) =>
        data({
          id: "chatcmpl-Cb7fQ2vXk9T0mZr4Lh1sYwE8dNaPu",
          object: "chat.completion.chunk",
          created: 1733184462,
          model: "gpt-4o-2024-08-06",
          service_tier: "default",
          system_fingerprint: "fp_a288987b44",
          choices: [{ index: 0, delta, logprobs: null, finish_reason }],
          ...(usage ? { usage } : {}),
          obfuscation: obfuscation(),
        });
      return [
        chunk({ role: "assistant", content: "", refusal: null }, null),
        ...tokens.map((content) => chunk({ content }, null)),
        chunk({}, "stop"),
        "data: [DONE]\n\n",
      ];
    },
  },
  anthropic: {
    label: "Anthropic",
    provider: "anthropic",
    events(tokens) {
      const event = (value) => `event: ${value.type}\n${data(value)}`;
      const id = "msg_01XFDUDYJgAACzvnptvVoYEL";
      return [
        event({
          type: "message_start",
          message: {
            id,
            type: "message",
            role: "assistant",
            content: [],
            model: "claude-sonnet-4-5",
            stop_reason: null,
            stop_sequence: null,
            usage: { input_tokens: 472, output_tokens: 2 },
          },
        }),
        event({ type: "content_block_start", index: 0, content_block: { type: "text", text: "" } }),
        event({ type: "ping" }),
        ...tokens.map((text) => event({ type: "content_block_delta", index: 0, delta: { type: "text_delta", text } })),
        event({ type: "content_block_stop", index: 0 }),
        event({
          type: "message_delta",
          delta: { stop_reason: "end_turn", stop_sequence: null },
          usage: { output_tokens: tokens.length },
        }),
        event({ type: "message_stop" }),
      ];
    },
  },
};

/** A body of the shape cut into network chunks of `chunkBytes`. */
export function body(shape, chunkBytes) {
  const tokens = tokenList();
  const bytes = new TextEncoder().encode(SHAPES[shape].events(tokens).join(""));
  const chunks = [];
  for (let i = 0; i < bytes.length; i += chunkBytes) chunks.push(bytes.slice(i, i + chunkBytes));
  return { chunks, tokens: tokens.length, provider: SHAPES[shape].provider };
}

/** The text of a message's data, as the peer reads it (undefined when it carries none). */
const PEER_TEXT = {
  openai: (event) => event.data === "[DONE]" ? undefined : JSON.parse(event.data).choices[0]?.delta?.content,
  anthropic: (event) => {
    const message = JSON.parse(event.data);
    return message.type === "content_block_delta" && message.delta.type === "text_delta"
      ? message.delta.text
      : undefined;
  },
};

export async function run({ runs = 5 } = {}) {
  const rows = [];
  for (const chunkBytes of [1024, 128]) rows.push(await measure("minimal", chunkBytes, runs));
  for (const shape of ["openai", "anthropic"]) {
    for (const chunkBytes of [1024, 128]) rows.push(await measure(shape, chunkBytes, runs));
  }
  return { name: "pipeline", rows };
}

async function measure(shape, chunkBytes, runs) {
  const { chunks, tokens, provider } = body(shape, chunkBytes);
  let oursCites = 0;
  // One decoder running the transformers in the same engine (what invoker streams do).
  const ours = () => {
    const body = new ProviderBodyDecoder(provider, {
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
  const peerText = PEER_TEXT[provider];
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
        const content = peerText(event);
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
    shape: SHAPES[shape].label,
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
      `SSE bytes → events → think tags → citations, ${r.shape} body, ${r.tokens} tokens in ${r.chunkBytes} B chunks: citeflow ${
        r.citeflowNsPerToken.toFixed(0)
      } ns/token, eventsource-parser + AI SDK middleware + regex ${r.peerNsPerToken.toFixed(0)} ns/token (ratio ${
        r.ratio.toFixed(2)
      } = peer time / citeflow time)`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
