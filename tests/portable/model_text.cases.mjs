// Model text is never changed on its way through: U+FEFF (a byte-order mark when it comes first),
// U+FFFE and every other noncharacter are text like any other, kept in place by every stage
// (citation parser, think tags, chains, SSE and provider body decoding), whatever the split.
// Written once, run by node --test (tests/js/model_text.test.mjs) and in every browser engine
// (tests/browser/cases.html).
// Each case gets { lib, streamLib, assert }: the package and its "citeflow/stream" entry.
import { ODD_CHARACTERS, pickPiece } from "./odd_characters.mjs";
import { rng } from "./rng.mjs";

const BOM = "\ufeff";
const WORDS = ["a", "b c", "é", "😀", "\n", ". ", "[1]", "[2]", "(3)", "<", ">", "think"];

/** Text made of WORDS and odd characters, without `<think>` tags. */
function randomText(random, n) {
  let s = "";
  for (let i = 0; i < n; i++) s += pickPiece(random, WORDS);
  return s;
}

/** Cuts anywhere in UTF-16, mostly token-sized pieces. */
function cuts(text, random) {
  const out = [];
  for (let i = 0; i < text.length;) {
    const n = 1 + Math.floor(random() * (random() < 0.8 ? 4 : 30));
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

/** Every event of `inputs` pushed one by one, then finish. */
function run(transformer, inputs) {
  const out = [];
  for (const input of inputs) out.push(...transformer.push(input));
  out.push(...transformer.finish());
  return out;
}

const textOf = (events, type) =>
  events.filter((e) => e.type === type && typeof e.value === "string").map((e) => e.value).join("");

/** Every citation's span, sliced from `text`, is its marker. */
function assertSpans(assert, events, text, where) {
  for (const c of events.filter((e) => e.type === "citation")) {
    assert.equal(text.slice(...c.value.span), c.value.marker, `${where}: span of ${c.value.marker}`);
  }
}

/** An OpenAI-style streamed body carrying `pieces` as content deltas, then usage, as bytes. */
function openaiBody(pieces) {
  const chunk = (delta, extra = {}) =>
    `data: ${JSON.stringify({ id: "c1", choices: [{ index: 0, delta, ...extra }] })}\n\n`;
  const usage = { prompt_tokens: 3, completion_tokens: pieces.length, total_tokens: 3 + pieces.length };
  return new TextEncoder().encode(
    [
      ...pieces.map((content) => chunk({ content })),
      chunk({}, { finish_reason: "stop" }),
      `data: ${JSON.stringify({ id: "c1", choices: [], usage })}\n\n`,
      "data: [DONE]\n\n",
    ].join(""),
  );
}

/** SSE text of these messages, each with its `event:` line when `typed`. */
function sseOf(messages, typed = false) {
  return messages.map((m) => `${typed ? `event: ${m.type}\n` : ""}data: ${JSON.stringify(m)}\n\n`).join("");
}

/** `pieces` as a streamed body of each provider format citeflow reads besides OpenAI's (built here
 * from each format's documented shape, with usage last). */
const OTHER_FORMAT_BODIES = {
  google: (pieces) =>
    pieces.map((text, i) =>
      `data: ${
        JSON.stringify({
          candidates: [{
            content: { role: "model", parts: [{ text }] },
            ...(i === pieces.length - 1 ? { finishReason: "STOP" } : {}),
          }],
          ...(i === pieces.length - 1
            ? { usageMetadata: { promptTokenCount: 3, candidatesTokenCount: pieces.length, totalTokenCount: 9 } }
            : {}),
        })
      }\r\n\r\n`
    ).join(""),
  "openai-responses": (pieces) =>
    sseOf([
      ...pieces.map((delta) => ({
        type: "response.output_text.delta",
        item_id: "msg_1",
        output_index: 0,
        content_index: 0,
        delta,
      })),
      {
        type: "response.completed",
        response: {
          id: "resp_1",
          status: "completed",
          output: [],
          usage: { input_tokens: 3, output_tokens: pieces.length, total_tokens: 9 },
        },
      },
    ], true),
  cohere: (pieces) =>
    sseOf([
      { type: "message-start", id: "m1", delta: { message: { role: "assistant" } } },
      { type: "content-start", index: 0, delta: { message: { content: { type: "text", text: "" } } } },
      ...pieces.map((text) => ({ type: "content-delta", index: 0, delta: { message: { content: { text } } } })),
      { type: "content-end", index: 0 },
      {
        type: "message-end",
        delta: {
          finish_reason: "COMPLETE",
          usage: { tokens: { input_tokens: 3, output_tokens: pieces.length } },
        },
      },
    ], true),
};
OTHER_FORMAT_BODIES.xai = OTHER_FORMAT_BODIES["openai-responses"];
const openaiText = (pieces) => new TextDecoder().decode(openaiBody(pieces));
OTHER_FORMAT_BODIES.mistral = openaiText;
OTHER_FORMAT_BODIES.perplexity = openaiText;

/** `bytes` cut at random points (inside UTF-8 sequences too). */
function byteCuts(bytes, random) {
  const out = [];
  for (let i = 0; i < bytes.length;) {
    const j = Math.min(bytes.length, i + 1 + Math.floor(random() * 40));
    out.push(bytes.slice(i, j));
    i = j;
  }
  return out;
}

export const modelTextCases = {
  "a byte-order mark first in a chunk stays in the parsed text, and spans stay exact": ({ lib, streamLib, assert }) => {
    for (const [where, Parser] of [["citeflow", lib.CitationParser], ["citeflow/stream", streamLib.CitationParser]]) {
      const events = run(new Parser({ sourceCount: 5 }), [`${BOM}[3] x`]);
      assert.equal(textOf(events, "response"), `${BOM}[3] x`, where);
      const cites = events.filter((e) => e.type === "citation").map((e) => e.value);
      assert.deepEqual(cites.map((c) => [c.marker, c.span, c.sourceId]), [["[3]", [1, 4], 3]], where);
    }
  },

  "a byte-order mark in a later chunk stays in the think-tag split text": ({ lib, assert }) => {
    const events = run(new lib.ThinkTagOutputTransformer(), ["hi ", `${BOM}a <`]);
    assert.equal(textOf(events, "response"), `hi ${BOM}a <`);
    const thought = run(new lib.ThinkTagOutputTransformer(), ["<think>", `${BOM}x`, "</think>", `${BOM}y`]);
    assert.equal(textOf(thought, "thinking"), `${BOM}x`);
    assert.equal(textOf(thought, "response"), `${BOM}y`);
  },

  "every odd character survives the citation parser, the think tags and a chain, for any split": (
    { lib, streamLib, assert },
  ) => {
    const random = rng(47);
    for (let round = 0; round < 200; round++) {
      const answer = randomText(random, Math.floor(random() * 24));
      const thought = randomText(random, Math.floor(random() * 8));
      const where = `round ${round}: ${JSON.stringify(answer)}`;
      for (const lib_ of [lib, streamLib]) {
        const parsed = run(new lib_.CitationParser({ sourceCount: 2 }), cuts(answer, random));
        assert.equal(textOf(parsed, "response"), answer, `parser, ${where}`);
        assertSpans(assert, parsed, answer, `parser, ${where}`);
      }
      const tagged = `<think>${thought}</think>${answer}`;
      const split = run(new lib.ThinkTagOutputTransformer(), cuts(tagged, random));
      assert.equal(textOf(split, "thinking"), thought, `think tags, ${where}`);
      assert.equal(textOf(split, "response"), answer, `think tags, ${where}`);
      const chain = new lib.OutputTransformerChain([
        new lib.ThinkTagOutputTransformer(),
        new lib.CitationParser({ sourceCount: 2 }),
      ]);
      const chained = run(chain, cuts(tagged, random));
      assert.equal(textOf(chained, "thinking"), thought, `chain, ${where}`);
      assert.equal(textOf(chained, "response"), answer, `chain, ${where}`);
      assertSpans(assert, chained, answer, `chain, ${where}`);
    }
  },

  "every odd character survives a provider body, cut anywhere, with usage after it": ({ lib, streamLib, assert }) => {
    const random = rng(4747);
    for (let round = 0; round < 120; round++) {
      const pieces = Array.from({ length: 1 + Math.floor(random() * 10) }, () => randomText(random, 3));
      const answer = pieces.join("");
      const bytes = openaiBody(pieces);
      const where = `round ${round}: ${JSON.stringify(answer)}`;
      for (const lib_ of [lib, streamLib]) {
        for (const transformers of [[], [new lib_.CitationParser({ sourceCount: 2 })]]) {
          const events = run(new lib_.ProviderBodyDecoder("openai", { transformers }), byteCuts(bytes, random));
          assert.equal(textOf(events, "response"), answer, `${transformers.length} stages, ${where}`);
          assertSpans(assert, events, answer, where);
          const usage = events.filter((e) => e.type === "usage");
          assert.equal(usage.length, 1, where);
          assert.equal(usage[0].value.raw.completion_tokens, pieces.length, where);
        }
      }
    }
  },

  "every odd character survives the body of every other provider format, cut anywhere": ({ lib, assert }) => {
    const random = rng(4343);
    for (const [format, bodyOf] of Object.entries(OTHER_FORMAT_BODIES)) {
      for (let round = 0; round < 30; round++) {
        const pieces = Array.from({ length: 1 + Math.floor(random() * 8) }, () => randomText(random, 3));
        if (round === 0) pieces[0] = `${BOM}${pieces[0]}`;
        const answer = pieces.join("");
        const bytes = new TextEncoder().encode(bodyOf(pieces));
        const where = `${format}, round ${round}: ${JSON.stringify(answer)}`;
        for (const transformers of [[], [new lib.CitationParser({ sourceCount: 2 })]]) {
          const events = run(new lib.ProviderBodyDecoder(format, { transformers }), byteCuts(bytes, random));
          assert.equal(textOf(events, "response"), answer, `${transformers.length} stages, ${where}`);
          assertSpans(assert, events, answer, where);
          const usage = events.filter((e) => e.type === "usage");
          assert.equal(usage.length, 1, where);
          assert.equal(events.at(-1).type, "usage", `usage last, ${where}`);
        }
      }
    }
  },

  "an invoker's stream keeps a byte-order mark, whatever the network split": async ({ lib, assert }) => {
    const pieces = [`${BOM}Paris [1]`, ` is ${BOM}`, `${BOM}big.`];
    const bytes = openaiBody(pieces);
    for (const size of [1, 2, 3, 5, 64]) {
      const fetch = () => {
        const parts = [];
        for (let i = 0; i < bytes.length; i += size) parts.push(bytes.slice(i, i + size));
        const body = new ReadableStream({
          pull(controller) {
            if (parts.length) controller.enqueue(parts.shift());
            else controller.close();
          },
        });
        return Promise.resolve(new Response(body, { headers: { "content-type": "text/event-stream" } }));
      };
      const lm = lib.buildLMInvoker("openai-compatible/m", { baseUrl: "http://127.0.0.1:9/v1", fetch });
      const events = [];
      const reader = lm.stream("q").getReader(); // WebKit's streams are not async iterable
      for (let r = await reader.read(); !r.done; r = await reader.read()) events.push(r.value);
      assert.equal(textOf(events, "response"), pieces.join(""), `chunks of ${size} bytes`);
      assert.equal(events.filter((e) => e.type === "usage").length, 1, `chunks of ${size} bytes`);
    }
  },

  "SSE data keeps a byte-order mark and noncharacters": ({ lib, assert }) => {
    for (const odd of ODD_CHARACTERS) {
      const bytes = new TextEncoder().encode(`data: ${odd}x${odd}\n\n`);
      for (let cut = 0; cut <= bytes.length; cut++) {
        const decoder = new lib.SSEDecoder();
        const messages = [...decoder.push(bytes.slice(0, cut)), ...decoder.push(bytes.slice(cut)), ...decoder.finish()];
        assert.deepEqual(
          messages.map((m) => m.data),
          [`${odd}x${odd}`],
          `U+${odd.codePointAt(0).toString(16)} cut ${cut}`,
        );
      }
    }
  },
};
