// What a model writes, read back whole whatever it is and however the network cuts it: every id
// of a cited answer comes back as a citation, a structured answer that is not JSON has one
// error code at every split, and think tags are bounded (a tag over 256 characters is refused;
// a long tag that repeats its first character is matched as the core matches it, pushed in any
// chunks). Written once, run by node --test (tests/js/model_output.test.mjs) and in every
// browser engine (tests/browser/cases.html). Each case gets { lib, assert }.
import { rng } from "./rng.mjs";

const encoder = new TextEncoder();

/** An OpenAI-style stream whose answer text is `pieces`, as SSE text. */
function openaiSse(pieces) {
  const chunk = (delta, finish = null) =>
    `data: ${JSON.stringify({ id: "c", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
  return pieces.map((p) => chunk({ content: p })).join("") + chunk({}, "stop") + "data: [DONE]\n\n";
}

/** An Anthropic stream whose forced tool's input is `pieces` (input_json_delta), as SSE text. */
function anthropicSse(pieces) {
  const events = [
    { type: "message_start", message: { id: "msg", usage: { input_tokens: 9, output_tokens: 1 } } },
    {
      type: "content_block_start",
      index: 0,
      content_block: { type: "tool_use", id: "toolu", name: "cited_answer", input: {} },
    },
    ...pieces.map((p) => ({
      type: "content_block_delta",
      index: 0,
      delta: { type: "input_json_delta", partial_json: p },
    })),
    { type: "content_block_stop", index: 0 },
    { type: "message_delta", delta: { stop_reason: "tool_use" }, usage: { output_tokens: 30 } },
    { type: "message_stop" },
  ];
  return events.map((e) => `event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`).join("");
}

const CITED = { type: "cited_answer", kwargs: { markerStyle: "bracket", sourceCount: 3 } };

/** A decoder's text and citations for `bytes` pushed in pieces cut at `cuts`. */
function decode(lib, format, transformers, bytes, cuts) {
  const decoder = new lib.ProviderBodyDecoder(format, { transformers });
  const events = [];
  let at = 0;
  for (const cut of [...cuts, bytes.length]) {
    events.push(...decoder.push(bytes.slice(at, cut)));
    at = cut;
  }
  events.push(...decoder.finish());
  const text = events.filter((e) => e.type === "response").map((e) => e.value).join("");
  const citations = events.filter((e) => e.type === "citation").map((e) => e.value);
  return { text, citations };
}

/** The code a decoder fails with for `bytes` cut at `cut`, or "none". */
function failure(lib, format, transformers, bytes, cut) {
  try {
    decode(lib, format, transformers, bytes, [cut]);
    return "none";
  } catch (e) {
    return e.name === "CiteflowError" ? e.code : `not a CiteflowError: ${e}`;
  }
}

/** Each block's text, merged, in order: `[type, text]`. */
function blocks(events) {
  const out = [];
  for (const e of events) {
    if (e.type !== "response" && e.type !== "thinking") continue;
    const last = out[out.length - 1];
    if (last?.[0] === e.type) last[1] += e.value;
    else out.push([e.type, e.value]);
  }
  return out;
}

const throwsCode = (assert, fn, code) => assert.throws(fn, (e) => e.name === "CiteflowError" && e.code === code);

export const modelOutputCases = {
  async "cited answer: every id the model writes comes back as a citation, valid or not, any split"({ lib, assert }) {
    const answer =
      '{"segments": [{"text": "A.", "citations": [2.0, -1, 1.5, 1e300, true, null, [1], "x", "2", 20e-1, 0, " 3 "]}]}';
    const bytes = encoder.encode(openaiSse([answer.slice(0, 40), answer.slice(40)]));
    const whole = decode(lib, "openai", [CITED], bytes, []);
    assert.equal(whole.text, 'A [2] [-1] [1.5] [1e300] [true] [null] [?] ["x"] [0] [3].');
    assert.deepEqual(
      whole.citations.map((c) => [c.sourceId, c.marker, c.valid]),
      [
        [2, "[2]", true],
        [0, "[-1]", false],
        [0, "[1.5]", false],
        [0, "[1e300]", false],
        [0, "[true]", false],
        [0, "[null]", false],
        [0, "[?]", false],
        [0, '["x"]', false],
        [0, "[0]", false],
        [3, "[3]", true],
      ],
    );
    for (const c of whole.citations) assert.equal(whole.text.slice(...c.span), c.marker);
    // Read again, the text names no source the answer did not cite.
    for (const c of lib.parseCitations(whole.text, { sourceCount: 3 })) {
      assert.ok(!c.valid || [2, 3].includes(c.sourceId), JSON.stringify(c));
    }
    const random = rng(0xc17e);
    for (let round = 0; round < 200; round++) {
      const cuts = Array.from({ length: 1 + Math.floor(random() * 6) }, () => Math.floor(random() * bytes.length));
      cuts.sort((a, b) => a - b);
      assert.deepEqual(decode(lib, "openai", [CITED], bytes, cuts), whole, `cuts ${cuts}`);
    }
  },

  async "cited answer: a structured answer that is not JSON is INVALID_OUTPUT at every split"({ lib, assert }) {
    for (const pieces of [['{"segments": [1,]]}'], ['{"segments": [{"text": "a", "cit', 'ations": [01]}]}']]) {
      const bytes = encoder.encode(anthropicSse(pieces));
      for (const transformers of [[CITED], []]) {
        const codes = new Set();
        for (let cut = 0; cut <= bytes.length; cut++) codes.add(failure(lib, "anthropic", transformers, bytes, cut));
        assert.deepEqual([...codes], ["INVALID_OUTPUT"], `${pieces} with ${transformers.length} transformers`);
      }
    }
  },

  async "think tag: a tag over 256 characters is refused, counted in characters"({ lib, assert }) {
    for (const unit of ["a", "é", "😀"]) {
      const ok = unit.repeat(256);
      const long = unit.repeat(257);
      new lib.ThinkTagOutputTransformer({ tags: [[ok, "</x>"]] });
      new lib.ThinkTagOutputTransformer({ tags: [{ open: "<x>", close: ok }] });
      for (const tags of [[[long, "</x>"]], ["think", { open: "<x>", close: long }]]) {
        throwsCode(assert, () => new lib.ThinkTagOutputTransformer({ tags }), "INVALID_OPTION");
        throwsCode(
          assert,
          () => lib.OutputTransformerChain.fromConfigs([{ type: "think_tag", kwargs: { tags } }]),
          "INVALID_OPTION",
        );
      }
    }
    assert.throws(
      () => new lib.ThinkTagOutputTransformer({ tags: ["think", ["<x>", "y".repeat(300)]] }),
      /tag pair 1 has a tag longer than 256 characters/,
    );
  },

  async "think tag: a long tag that repeats its first character splits text that almost matches it, any chunks"(
    { lib, assert },
  ) {
    const open = "a".repeat(255) + "b";
    const text = "x" + "a".repeat(3000) + "b" + "plan" + "</x>" + "a".repeat(600) + "answer";
    const want = [
      ["response", "x" + "a".repeat(3000 - 255)],
      ["thinking", "plan"],
      ["response", "a".repeat(600) + "answer"],
    ];
    const random = rng(0x7a9);
    for (let round = 0; round < 40; round++) {
      const size = [1, 3, 64, 1000, text.length][round % 5];
      const chunks = [];
      for (let i = 0; i < text.length;) {
        const n = round < 5 ? size : 1 + Math.floor(random() * 300);
        chunks.push(text.slice(i, i + n));
        i += n;
      }
      // On its own (its fast path first) and in a chain of one (the core alone).
      for (
        const t of [
          new lib.ThinkTagOutputTransformer({ tags: [[open, "</x>"]] }),
          new lib.OutputTransformerChain([new lib.ThinkTagOutputTransformer({ tags: [[open, "</x>"]] })]),
        ]
      ) {
        const events = chunks.flatMap((c) => t.push(c));
        events.push(...t.finish());
        assert.deepEqual(blocks(events), want, `round ${round}`);
      }
    }
  },
};
