import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import Ajv2020 from "ajv/dist/2020.js";
import init, {
  checkPolicy,
  citationGrammar,
  CitationParser,
  deduplicateAdjacentCites,
  OutputTransformerChain,
  parseCitations,
  ProviderBodyDecoder,
  splitSentences,
  ThinkTagOutputTransformer,
} from "citeflow";
import { assertCode, pickPiece, randomSplit, rng, runStream } from "./helpers.mjs";

const fixtures = JSON.parse(readFileSync(new URL("../fixtures/citations.json", import.meta.url), "utf8"));
const triples = (cites) => cites.map((c) => [c.sourceId, c.marker, c.valid]);
const streamed = (options, pieces) => {
  const events = runStream(new CitationParser(options), pieces);
  return {
    citations: events.filter((e) => e.type === "citation").map((e) => e.value),
    text: events.filter((e) => e.type === "response").map((e) => e.value).join(""),
  };
};

for (const c of fixtures.parse) {
  test(`parse fixture: ${c.name}`, () => {
    const options = { markerStyle: c.markerStyle, sourceCount: c.sourceCount };
    const cites = parseCitations(c.text, options);
    assert.deepEqual(triples(cites), c.citations);
    for (const cite of cites) assert.equal(c.text.slice(...cite.span), cite.marker, "span slices the marker");
    const random = rng(c.name.length);
    for (let round = 0; round < 50; round++) {
      const s = streamed(options, randomSplit(c.text, random, 8));
      assert.deepEqual(s.citations, cites);
      assert.equal(s.text, c.text);
    }
  });
}

test("dedup fixtures", () => {
  for (const c of fixtures.dedup) {
    assert.equal(deduplicateAdjacentCites(c.text, { markerStyle: c.markerStyle }), c.expected, c.text);
  }
});

test("property: streamed citations equal whole ones for any split, every style", () => {
  const PIECES = [
    "[",
    "]",
    "1",
    "2",
    "12",
    ", ",
    "-",
    "(",
    ")",
    "{",
    "}",
    "^",
    "`",
    "```",
    "\n",
    "://",
    "a",
    "é",
    "😀",
    "[1]",
    "(2)",
    // Plain runs, so that the scan's 16-byte blocks (wasm SIMD) meet triggers at every offset.
    "plain ",
    "seventeen letters",
    "a much longer run of plain words",
  ];
  const random = rng(42);
  for (let round = 0; round < 600; round++) {
    const text = Array.from({ length: Math.floor(random() * 60) }, () => pickPiece(random, PIECES))
      .join("");
    const options = { markerStyle: ["bracket", "paren", "curly", "caret"][round % 4], sourceCount: round % 7 };
    const whole = parseCitations(text, options);
    const s = streamed(options, randomSplit(text, random));
    assert.deepEqual(s.citations, whole, JSON.stringify(text));
    assert.equal(s.text, text);
  }
});

test("long plain runs (shown at once, fed to the core later) keep spans exact", () => {
  const text = "é".repeat(5000) + " [1] " + "plain ".repeat(1500) + "[2]" + "😀".repeat(3000) + " (see `[3]`) [1].";
  for (const size of [1, 7, 500, 9000]) {
    const pieces = [];
    for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
    const s = streamed({ sourceCount: 2 }, pieces);
    assert.equal(s.text, text);
    assert.deepEqual(s.citations, parseCitations(text, { sourceCount: 2 }));
    assert.deepEqual(s.citations.map((c) => text.slice(...c.span)), ["[1]", "[2]", "[1]"]);
  }
});

test("after ThinkTag, spans index the visible answer, not the raw text", () => {
  const chain = new OutputTransformerChain([new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 2 })]);
  const events = runStream(chain, ["<think>Is [1] right?</th", "ink>Yes, ", "it is [", "2]."]);
  const answer = events.filter((e) => e.type === "response").map((e) => e.value).join("");
  const cites = events.filter((e) => e.type === "citation").map((e) => e.value);
  assert.equal(answer, "Yes, it is [2].");
  assert.deepEqual(triples(cites), [[2, "[2]", true]]);
  assert.equal(answer.slice(...cites[0].span), "[2]");
  // citation events follow the text that completes them; response events keep their block id
  const ids = new Set(events.filter((e) => e.type === "response").map((e) => e.id));
  assert.equal(ids.size, 1);
});

test("a block end releases held text before the end event", () => {
  const p = new CitationParser();
  const out = [
    ...p.push({ id: "r", type: "response", value: "ends with [" }),
    ...p.push({ id: "r", type: "response_end", value: "" }),
  ];
  assert.deepEqual(out.map((e) => [e.type, e.value]), [["response", "ends with "], ["response", "["], [
    "response_end",
    "",
  ]]);
  assert.equal(out[1].id, "r");
});

test("whole outputs get a citations field", () => {
  const out = new CitationParser({ sourceCount: 1 }).transform({
    outputs: [{ type: "text", output: "A [1]. B [2]." }],
    usage: { inputTokens: 1 },
  });
  assert.deepEqual(triples(out.citations), [[1, "[1]", true], [2, "[2]", false]]);
  assert.deepEqual(out.usage, { inputTokens: 1 });
});

test("policy checks per sentence", () => {
  const r = checkPolicy("Dr. Smith agrees [1]. Nobody else does. Bad one [7].", { sourceCount: 3 });
  assert.equal(r.policy, "required");
  assert.equal(r.ok, false);
  assert.deepEqual(r.sentences.map((s) => [s.text, s.ok]), [["Dr. Smith agrees [1].", true], [
    "Nobody else does.",
    false,
  ], ["Bad one [7].", false]]);
  assert.match(r.sentences[2].problem, /source 7, but there are 3 sources/);
  const text = "Dr. Smith agrees [1]. Nobody else does.";
  for (const s of checkPolicy(text, { sourceCount: 3 }).sentences) assert.equal(text.slice(...s.span), s.text);
  assert.equal(checkPolicy('He said "yes" [1].', { policy: "quotes_only", sourceCount: 1 }).ok, true);
  assert.equal(checkPolicy("No cites at all.", { policy: "auto" }).ok, true);
  assert.deepEqual(splitSentences("Fig. 2 shows it. Done!").map((s) => s.text), ["Fig. 2 shows it.", "Done!"]);
});

test("grammar: the JSON-schema form, checked by Ajv", () => {
  const ajv = new Ajv2020({ strict: false });
  const required = ajv.compile(JSON.parse(citationGrammar({ sourceCount: 2, format: "json_schema" })));
  assert.ok(required({ segments: [{ text: "Water boils", citations: [1] }] }));
  assert.ok(!required({ segments: [{ text: "Uncited", citations: [] }] }));
  assert.ok(!required({ segments: [{ text: "Bad id", citations: [3] }] }));
  assert.ok(!required({ segments: [{ text: "x".repeat(241), citations: [1] }] }));
  assert.ok(!required({ segments: [] }));
  const auto = ajv.compile(JSON.parse(citationGrammar({ sourceCount: 2, format: "jsonSchema", policy: "auto" })));
  assert.ok(auto({ segments: [{ text: "Uncited is fine", citations: [] }] }));
  const quotes = ajv.compile(
    JSON.parse(citationGrammar({ sourceCount: 2, format: "json_schema", policy: "quotes_only" })),
  );
  assert.ok(quotes({ segments: [{ text: "plain", citations: [] }] }));
  assert.ok(!quotes({ segments: [{ text: 'he said "so"', citations: [] }] }));
  assert.ok(quotes({ segments: [{ text: 'he said "so"', citations: [2] }] }));
});

test("grammar: GBNF and regex forms are well formed from JS", () => {
  assert.match(citationGrammar({ sourceCount: 3 }), /^root ::= sentence \(ws sentence\)\*/);
  const re = new RegExp(citationGrammar({ sourceCount: 3, format: "regex" }));
  assert.ok(re.test("Fact [1] [3]. Next [2]!"));
  assert.ok(!re.test("Fact [4]."));
});

test("bad input names the problem", () => {
  for (const bad of [5, null, undefined, {}]) assertCode(() => parseCitations(bad), "INVALID_TEXT");
  assertCode(() => deduplicateAdjacentCites(1), "INVALID_TEXT");
  assertCode(() => parseCitations("x", { markerStyle: "angle" }), "INVALID_OPTION");
  assertCode(() => parseCitations("x", { sourceCount: -1 }), "INVALID_OPTION");
  assertCode(() => parseCitations("x", { sourceCount: "3" }), "INVALID_OPTION");
  assertCode(() => parseCitations("x", { sourcecount: 3 }), "INVALID_OPTION");
  assertCode(() => parseCitations("x", "bracket"), "INVALID_OPTION");
  assertCode(() => checkPolicy("x", { policy: "strict" }), "INVALID_OPTION");
  assertCode(() => citationGrammar({ sourceCount: 0 }), "NO_SOURCES");
  assertCode(() => citationGrammar({}), "INVALID_OPTION");
  assertCode(() => citationGrammar({ sourceCount: 2, format: "ebnf" }), "INVALID_OPTION");
  const p = new CitationParser();
  assertCode(() => p.push(7), "INVALID_CHUNK");
  assertCode(() => p.push({ type: "response", value: 7 }), "INVALID_EVENT");
  p.finish();
  assertCode(() => p.push("late"), "STREAM_FINISHED");
  assert.equal(parseCitations("still fine [1]").length, 1);
});

test("property: the packed policy report and citation list are what the core builds, for any text", async () => {
  // The package's own core instance (checkPolicy above made sure it is initialised): its glue,
  // which the entry's init keeps for tests (not part of the API).
  const core = (await import("citeflow")).init[Symbol.for("citeflow.internals")].core.glue;
  const { citationList, policyReport } = await import("../../pkg/src/packed.js");
  const PARTS = [
    "Water boils [1]. ",
    "Ice [2] [3] melts! ",
    "Bad [9]. ",
    "Huge [99999999999]. ",
    'He said "yes" [1]. ',
    'She said "no". ',
    "“Quoted”, [2] here. ",
    "Dr. Who is fiction. ",
    "Group [1, 2]. ",
    "Range [1-3]. ",
    "(2) paren. ",
    "{3} curly ^4^ caret. ",
    "`[1]` code. ",
    "See https://x.y/[1]. ",
    "[link](http://a) ",
    "é ü 😀 [1]. ",
    "\ud800 lone [1]. ",
    "\ufffd replaced. ",
    "no end",
    "\n\n",
    "? ",
  ];
  const random = rng(0x901c);
  let packedCount = 0;
  let listed = 0;
  for (let round = 0; round < 300; round++) {
    const text = Array.from({ length: Math.floor(random() * 12) }, () => PARTS[Math.floor(random() * PARTS.length)])
      .join("");
    const options = {
      policy: ["required", "quotes_only", "auto"][round % 3],
      markerStyle: ["bracket", "paren", "curly", "caret"][Math.floor(round / 3) % 4],
      ...(round % 5 === 0 ? {} : { sourceCount: round % 4 }),
    };
    const raw = core.checkPolicy(text, options, true);
    if (Array.isArray(raw)) packedCount++;
    const packed = policyReport(text, raw);
    assert.deepEqual(packed, core.checkPolicy(text, options), JSON.stringify({ text, options }));
    assert.equal(JSON.stringify(packed), JSON.stringify(core.checkPolicy(text, options)));
    assert.deepEqual(checkPolicy(text, options), packed);

    const words = core.parseCitations(text, options, true);
    if (words instanceof Uint32Array) listed++;
    const list = citationList(text, words);
    assert.deepEqual(list, core.parseCitations(text, options), JSON.stringify({ text, options }));
    assert.equal(JSON.stringify(list), JSON.stringify(core.parseCitations(text, options)));
    assert.deepEqual(parseCitations(text, options), list);
  }
  // Most texts take the packed form (those with U+FFFD or a lone surrogate do not).
  assert.ok(packedCount > 100, `${packedCount} packed`);
  assert.ok(listed > 100, `${listed} lists packed`);
});

test("property: dedup applied from the core's edits is the text the core rewrites, for any text", async () => {
  // The package's own glue (bundled into its entry), brought up by a first public call.
  const core = init[Symbol.for("citeflow.internals")].core.glue;
  deduplicateAdjacentCites("", {});
  const MARKERS = {
    bracket: ["[1]", "[2]", "[1, 2]", "[2-4]", "[99999999999]", "[1]"],
    paren: ["(1)", "(2)", "(1, 2)", "(2020)"],
    curly: ["{1}", "{2}", "{3}", "{1, 3}"],
    caret: ["^1", "^2", "^12"],
  };
  const PARTS = [
    " ",
    "  ",
    " ",
    "\n",
    "\u00a0",
    ". ",
    "word",
    "é",
    "😀",
    "\ud800",
    "\ufffd",
    "`",
    "https://x.y/",
    "](u)",
  ];
  const pick = (list) => list[Math.floor(random() * list.length)];
  const random = rng(0xded0);
  let edited = 0;
  for (let round = 0; round < 400; round++) {
    const markerStyle = ["bracket", "paren", "curly", "caret"][round % 4];
    const text = Array.from(
      { length: Math.floor(random() * 16) },
      () => pick(random() < 0.5 ? MARKERS[markerStyle] : PARTS),
    )
      .join("");
    const options = { markerStyle };
    const raw = core.deduplicateAdjacentCites(text, options, true);
    if (Array.isArray(raw) && raw[0].length > 0) edited++;
    const expected = core.deduplicateAdjacentCites(text, options);
    assert.equal(deduplicateAdjacentCites(text, options), expected, JSON.stringify({ text, options }));
  }
  assert.ok(edited > 50, `${edited} edited`);
});

test("long texts (which go into wasm by the native encoder) give what their pieces give", () => {
  for (const base of ["Ünïcode 😀 café [1] [1] [2]. ", "X \ud800 y [2] [2]. ", "Plain words [3] [1] [3]. "]) {
    const n = 200; // well past the 1024 units from which the glue encodes natively
    assert.equal(deduplicateAdjacentCites(base.repeat(n)), deduplicateAdjacentCites(base).repeat(n));
    const one = checkPolicy(base, { sourceCount: 2 });
    const all = checkPolicy(base.repeat(n), { sourceCount: 2 });
    assert.equal(all.sentences.length, n * one.sentences.length);
    assert.deepEqual(
      all.sentences.at(-1).citations.map((c) => c.marker),
      one.sentences[0].citations.map((c) => c.marker),
    );
    assert.equal(all.sentences.at(-1).text, one.sentences[0].text);
  }
});

test("a marker that ends the answer has its citation before the block's end, streamed through a decoder too", () => {
  const kinds = (events) => events.map((e) => e.type);
  const parser = new CitationParser({ sourceCount: 3 });
  const direct = [
    ...parser.push({ type: "response_start", value: "", id: "a" }),
    ...parser.push({ type: "response", value: "It is tall. [2]", id: "a" }),
    ...parser.push({ type: "response_end", value: "", id: "a" }),
    ...parser.finish(),
  ];
  assert.deepEqual(kinds(direct), ["response_start", "response", "response", "citation", "response_end"]);
  const sse = 'data: {"id":"x","choices":[{"delta":{"content":"<think>hm</think>It is tall. [2]"}}]}\n\n' +
    'data: {"id":"x","choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n';
  const decoder = new ProviderBodyDecoder("openai", {
    transformers: [new ThinkTagOutputTransformer(), new CitationParser({ sourceCount: 3 })],
  });
  const events = [...decoder.push(new TextEncoder().encode(sse)), ...decoder.finish()];
  assert.deepEqual(kinds(events).slice(-3), ["response", "citation", "response_end"]);
  assert.equal(events.at(-2).value.marker, "[2]");
});
