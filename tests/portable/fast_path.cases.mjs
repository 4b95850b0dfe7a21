// The fast path of ThinkTagOutputTransformer and CitationParser used on their own (chunks that
// cannot change the stage are answered without the core; pkg/src/transformers.js) against the
// engine alone (a chain of one, which always asks the core): the same events, push by push,
// for any split of any input. Written once, run by node --test (tests/js/fast_path.test.mjs),
// in every browser engine (tests/browser/cases.html), in Deno and in workerd (tests/smoke).
// Each case gets { lib, assert, internals }: the package, node:assert-like checks, and the
// package's internal runtime state (tests/portable/internals.mjs: a way to force a trap).
import { pickPiece } from "./odd_characters.mjs";
import { rng } from "./rng.mjs";

const PIECES = [
  "<think>",
  "</think>",
  "<th",
  "ink>",
  "</",
  "<",
  ">",
  "a",
  "b c",
  "é",
  "😀",
  "\ud800",
  "\udc00",
  "\n",
  "think",
  "[1]",
  "[",
  "]",
  "2",
  "(3)",
  "```",
  "`",
  "~",
  "://",
  "x:y",
  ". ",
  "plain words ",
];

/**
 * Cuts anywhere in UTF-16 (inside surrogate pairs too), mostly token-sized pieces; `long`
 * pieces up to that length now and then (the fast path scans long chunks another way).
 */
function cuts(text, random, long = 40) {
  const out = [];
  for (let i = 0; i < text.length;) {
    const n = random() < 0.8 ? 1 + Math.floor(random() * 4) : Math.floor(random() * long);
    out.push(text.slice(i, i + n));
    i += n;
  }
  return out;
}

/** Each push's events (and finish's), as one list per call. */
function perPush(transformer, inputs) {
  const out = inputs.map((input) => transformer.push(input));
  out.push(transformer.finish());
  return out;
}

/** `Kind` on its own (its fast path) and in a chain of one (the engine alone), per push. */
function bothWays(lib, Kind, options, chunks) {
  return [perPush(new Kind(options), chunks), perPush(new lib.OutputTransformerChain([new Kind(options)]), chunks)];
}

const throwsCode = (assert, fn, code) => assert.throws(fn, (e) => e.name === "CiteflowError" && e.code === code);

// Tag sets whose tags share prefixes or start with characters a lone surrogate becomes, and
// pieces that begin tags without finishing them: the fast path answers a chunk with a `<`
// in it only when no tag starts there and none can.
const TAG_SETS = [
  undefined,
  [["<a<b>", "</a<b>"], ["<aX", "<aY"]],
  [["<c<c>", "<cZ>"]],
  [["\ufffd<", "<\ufffd"]],
  [["<<", ">>"]],
  [["<c>z", "</x>"], ["<o>", "<c>"]],
  [["<o>", "<c>"], ["<c>z<c>", "<c>zz"]],
  [["😀", "🙂"], ["<t>", "</t>"]],
  // Tags holding a tag's first character after their start: the core, holding `<c>xy<c`,
  // can release `xy` and hold `<cxy` (the start of `<cxyZ`).
  [["<c>xy<c>", "<c>"], ["<cxyZ", "</z>"]],
  [["😀<😀", "<😀"], ["😀a", "b😀"]],
];
const TRICKY = [
  "<a",
  "<a<",
  "<a<b>",
  "</a<b>",
  "<aX",
  "<aY",
  "<c",
  "<c<c",
  "<cZ>",
  "<c>",
  "<c>z",
  "z",
  "<o>",
  "</x>",
  "<<",
  ">>",
  "\ufffd",
  "\ud800",
  "\udc00",
  "😀",
  "🙂",
  "<t>",
  "</t>",
  "x < y",
  "a<b",
  "<think",
  "</think>",
  "<think>",
  "</",
  "<",
  "plain ",
  "q",
  "<c>xy<c",
  "<cxy",
  "xy",
  "Z",
  "😀<",
  "b",
];

export const fastPathCases = {
  async "property: ThinkTag on its own gives the engine's events push by push, any split"({ lib, assert }) {
    const random = rng(0xfa57);
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: Math.floor(random() * 60) }, () => pickPiece(random, PIECES))
        .join("");
      const options = {
        idPrefix: "p",
        ...(round % 3 === 0 ? { startInThinking: true } : {}),
        ...(round % 5 === 0 ? { tags: [["😀", "🙂"]] } : {}),
      };
      const chunks = cuts(text, random);
      const [alone, engine] = bothWays(lib, lib.ThinkTagOutputTransformer, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify(chunks));
    }
  },

  async "property: ThinkTag with any tag set gives the engine's events push by push, any split"({ lib, assert }) {
    const random = rng(0x7a65);
    for (let round = 0; round < 1200; round++) {
      const tags = TAG_SETS[round % TAG_SETS.length];
      const text = Array.from({ length: Math.floor(random() * 50) }, () => TRICKY[Math.floor(random() * TRICKY.length)])
        .join("");
      const options = {
        idPrefix: "p",
        ...(round % 4 === 1 ? { startInThinking: true } : {}),
        ...(tags === undefined ? {} : { tags }),
      };
      const chunks = cuts(text, random);
      const [alone, engine] = bothWays(lib, lib.ThinkTagOutputTransformer, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify({ tags, chunks }));
    }
  },

  async "property: ThinkTag with any tag set and long chunks gives the engine's events push by push"({ lib, assert }) {
    const random = rng(0x10c5);
    for (let round = 0; round < 600; round++) {
      const tags = TAG_SETS[round % TAG_SETS.length];
      const text = Array.from(
        { length: Math.floor(random() * 120) },
        () => TRICKY[Math.floor(random() * TRICKY.length)],
      )
        .join("");
      const options = {
        idPrefix: "p",
        ...(round % 4 === 1 ? { startInThinking: true } : {}),
        ...(tags === undefined ? {} : { tags }),
      };
      const chunks = cuts(text, random, 120);
      const [alone, engine] = bothWays(lib, lib.ThinkTagOutputTransformer, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify({ tags, chunks }));
    }
  },

  // Where the fast path comes back after the core held something: tags holding a tag's first
  // character after their start, and a tag starting with U+FFFD after the start of another
  // (a lone half waiting in JS becomes U+FFFD before the next chunk).
  async "property: the fast path comes back only when the core holds nothing, any split"({ lib, assert }) {
    const random = rng(0x4e57);
    const sets = [
      {
        tags: [["<c>xy<c>", "<c>"], ["<cxyZ", "</z>"]],
        pieces: ["a", "<c>", "xy", "<c", "Z", "<cxy", "<c>xy<c", "</z>"],
      },
      { tags: [["😀<😀", "<😀"], ["😀a", "b😀"]], pieces: ["a", "b", "😀", "<", "<😀", "😀<", "\ud83d", "\ude00"] },
      {
        tags: [["<a", "</a>"], ["\ufffdqq", "\ufffdz"]],
        pieces: ["x", "<", "a", "\ud800", "q", "z", "</a>", "\ufffd"],
      },
    ];
    for (let round = 0; round < 600; round++) {
      const { tags, pieces } = sets[round % sets.length];
      const parts = Array.from(
        { length: Math.floor(random() * 30) },
        () => pieces[Math.floor(random() * pieces.length)],
      );
      const options = { idPrefix: "p", tags, ...(round % 3 === 1 ? { startInThinking: true } : {}) };
      // Cut at the pieces' own ends half the time (what the tags' overlaps need), else anywhere.
      const chunks = round % 2 === 0 ? parts : cuts(parts.join(""), random, 12);
      const [alone, engine] = bothWays(lib, lib.ThinkTagOutputTransformer, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify({ tags, chunks }));
    }
  },

  async "a chunk released whole while the core still holds the start of a tag keeps the fast path off"(
    { lib, assert },
  ) {
    const options = { idPrefix: "p", tags: [["<c>xy<c>", "<c>"], ["<cxyZ", "</z>"]] };
    // `<c>xy<c` is held (it may become `<c>xy<c>`); with `xy` the closing tag `<c>` is taken,
    // `xy` released, and `<cxy` held: `Z` completes `<cxyZ`.
    const chunks = ["a", "<c>xy<c", "xy", "Z", "q"];
    const [alone, engine] = bothWays(lib, lib.ThinkTagOutputTransformer, options, chunks);
    assert.deepEqual(alone, engine);
    assert.deepEqual(alone[3].map((e) => e.type), ["response_end", "thinking_start"]);
  },

  async "the fast path takes chunks with a `<` that starts no tag, and not those that could"({ lib, assert }) {
    const think = new lib.ThinkTagOutputTransformer();
    think.push("<think>a");
    think.push("b");
    think.push("c");
    assert.equal(think.passesWhole("x < y"), true);
    assert.equal(think.passesWhole("a<b"), true);
    assert.equal(think.passesWhole("x <"), false);
    assert.equal(think.passesWhole("x </thi"), false);
    assert.equal(think.passesWhole("x </think> y"), false);
    assert.equal(think.passesWhole("<think>"), false);
    // quietKind: 0 a trigger, 1 quiet and not ASCII, 2 ASCII and not only spaces, 3 spaces.
    assert.equal(think.quietKind("x < y"), 0);
    assert.equal(think.quietKind("x y"), 2);
    assert.equal(think.quietKind("  "), 3);
    assert.equal(think.quietKind("é y"), 1);
    assert.equal(think.quietKind("  " + "words ".repeat(4)), 2);
    assert.equal(think.quietKind(" ".repeat(12)), 3);
    assert.equal(think.quietKind(" ".repeat(12) + "é"), 1);
    // Long chunks (scanned by the runtime's string search) answer the same.
    const pad = "words and more words ".repeat(3);
    assert.equal(think.passesWhole(pad + "x < y" + pad), true);
    assert.equal(think.passesWhole(pad + "x </thi"), false);
    assert.equal(think.passesWhole(pad + "</think>" + pad), false);
    assert.equal(think.passesWhole(pad + "\ud800" + pad), false);
    assert.equal(think.passesWhole(pad + "😀"), true);
    assert.equal(think.passesWhole(pad + "\ud83d"), false);
    assert.equal(think.quietKind(pad + "x < y"), 0);
    assert.equal(think.quietKind(pad), 2);
    assert.equal(think.quietKind(" ".repeat(40)), 3);
    assert.equal(think.quietKind(pad + "é"), 1);
  },

  async "property: CitationParser on its own gives the engine's events push by push, any split"({ lib, assert }) {
    const random = rng(0xc17e);
    for (let round = 0; round < 300; round++) {
      const text = Array.from({ length: Math.floor(random() * 60) }, () => pickPiece(random, PIECES))
        .join("");
      const options = { sourceCount: round % 4, markerStyle: ["bracket", "paren", "curly", "caret"][round % 4] };
      const chunks = cuts(text, random);
      // Now and then an event object among the strings (the fast path then stays off).
      if (round % 7 === 0 && chunks.length > 2) chunks.splice(1, 0, { type: "status", value: "searching" });
      const [alone, engine] = bothWays(lib, lib.CitationParser, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify(chunks));
    }
  },

  // Where the citation fast path comes back after the core held something (the core's step
  // says so): a marker's start, a marker waiting for the next character to rule out a link, a
  // list going on, code, a URL's scheme, half a surrogate pair waiting in JS.
  async "property: CitationParser's fast path comes back only when the core holds nothing, any split"({ lib, assert }) {
    const random = rng(0x401d);
    const pieces = [
      "a",
      " ",
      "x y",
      "[1]",
      "[2",
      "]",
      "(",
      ")",
      "[1,",
      " 2]",
      "(3)",
      "{1}",
      "^",
      "[^1]",
      "`",
      "```",
      "~~~",
      "  ",
      "\n",
      "https",
      "://",
      "\ud83d",
      "\ude00",
      "é",
    ];
    for (let round = 0; round < 600; round++) {
      const parts = Array.from(
        { length: Math.floor(random() * 30) },
        () => pieces[Math.floor(random() * pieces.length)],
      );
      const options = { sourceCount: 1 + (round % 3), markerStyle: ["bracket", "paren", "curly", "caret"][round % 4] };
      // Cut at the pieces' own ends half the time, else anywhere.
      const chunks = round % 2 === 0 ? parts : cuts(parts.join(""), random, 12);
      const [alone, engine] = bothWays(lib, lib.CitationParser, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify({ options, chunks }));
    }
  },

  // A chunk ending in a marker's start (`[`, `[12`, `[3]`) after a step that left the core in
  // plain text is answered without the core, its start held for the next chunk: whatever
  // follows (a link, a reference definition, another marker, code, a URL, the end).
  async "property: a marker's start held for the next chunk gives the engine's events, any split"({ lib, assert }) {
    const random = rng(0x5ea7);
    const pieces = [
      "word ",
      " ",
      "[",
      "[1",
      "[12]",
      "[0]",
      "[3]",
      "]",
      "4",
      "1234567890",
      "(",
      "(x)",
      ":",
      ": ",
      ",",
      " 2]",
      "-",
      "–",
      "^",
      "`",
      "```",
      "\n",
      "http://a/",
      "é",
      "😀",
      ".",
    ];
    for (let round = 0; round < 600; round++) {
      const text = Array.from({ length: Math.floor(random() * 40) }, () => pieces[Math.floor(random() * pieces.length)])
        .join("");
      const options = { sourceCount: 1 + (round % 5), markerStyle: round % 5 === 4 ? "paren" : "bracket" };
      const chunks = cuts(text, random, 10);
      // Now and then an event object, and the start of the stream made plain first (a step
      // that lets the fast path take chunks).
      if (round % 3 === 0) chunks.unshift("a [1] b");
      if (round % 11 === 0 && chunks.length > 3) chunks.splice(3, 0, { type: "status", value: "x" });
      const [alone, engine] = bothWays(lib, lib.CitationParser, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify({ options, chunks }));
    }
  },

  // Simple markers (`[3]`) decided by the fast path itself once the next character rules out
  // a link or a reference definition (pkg/src/simple_markers.js), with everything near them
  // that is not simple: groups, ranges, footnotes, leading zeros, ids of nine and ten digits,
  // adjacent markers, spaces at a line's start, code, URLs, text that is not ASCII before and
  // after a marker (spans in UTF-16 units), half a surrogate pair, event objects, and options
  // with and without a source count.
  async "property: simple markers decided by the fast path give the engine's events, any split"({ lib, assert }) {
    const random = rng(0x51e9);
    const pieces = [
      "word ",
      "w",
      " ",
      "  ",
      ". ",
      "[1]",
      "[3]",
      "[12]",
      "[0]",
      "[007]",
      "[123456789]",
      "[1234567890]",
      "[2",
      "[",
      "]",
      "5",
      "(",
      "(x)",
      ":",
      "[1, 2]",
      "[1-3]",
      "[^1]",
      "[]",
      "`",
      "```",
      "\n",
      "\n  ",
      "http://a/",
      "é",
      "😀",
      "\ud83d",
    ];
    const counts = [undefined, 0, 1, 3, 8, 200];
    for (let round = 0; round < 800; round++) {
      const text = Array.from({ length: Math.floor(random() * 50) }, () => pieces[Math.floor(random() * pieces.length)])
        .join("");
      const sourceCount = counts[round % counts.length];
      const options = sourceCount === undefined ? {} : { sourceCount };
      const chunks = cuts(text, random, 14);
      // Mostly after a step that leaves the core in plain text (the fast path takes chunks).
      if (round % 4 !== 0) chunks.unshift("Plain [1] text");
      if (round % 13 === 0 && chunks.length > 4) chunks.splice(4, 0, { type: "status", value: "x" });
      const [alone, engine] = bothWays(lib, lib.CitationParser, options, chunks);
      assert.deepEqual(alone, engine, JSON.stringify({ options, chunks }));
    }
  },

  async "markers the fast path decides have the engine's spans and ids after long text"({ lib, assert }) {
    // Text that is not ASCII (written into the core's input) at the start and near the end.
    const text = "é " + "plain words [3] ".repeat(400) + "[0][05] 😀 [9]: x [2](y) [123456789]. end";
    const chunks = text.match(/.{1,4}/gsu);
    const options = { sourceCount: 8 };
    const [alone, engine] = bothWays(lib, lib.CitationParser, options, chunks).map((calls) => calls.flat());
    assert.deepEqual(alone, engine);
    const cites = alone.filter((e) => e.type === "citation").map((e) => e.value);
    assert.equal(cites.length, 403);
    assert.deepEqual(cites[399], {
      sourceId: 3,
      marker: "[3]",
      span: [2 + 399 * 16 + 12, 2 + 399 * 16 + 15],
      valid: true,
    });
    assert.deepEqual(cites.slice(400).map((c) => [c.sourceId, c.marker, c.valid]), [
      [0, "[0]", false],
      [5, "[05]", true],
      [123456789, "[123456789]", false],
    ]);
  },

  async "long plain runs wait for the core at most DEFER_LIMIT units, and spans stay exact"({ lib, assert }) {
    const text = "plain ".repeat(3000) + "[1] end.";
    const chunks = text.match(/.{1,4}/gs);
    const [alone, engine] = bothWays(lib, lib.CitationParser, { sourceCount: 1 }, chunks).map((calls) => calls.flat());
    assert.deepEqual(alone, engine);
    assert.deepEqual(alone.filter((e) => e.type === "citation").map((e) => e.value.span), [[18000, 18003]]);
  },

  async "the fast path answers as the core would: after finish, and after the instance was replaced"(
    { lib, assert, internals },
  ) {
    const think = new lib.ThinkTagOutputTransformer();
    think.push("<think>a");
    think.push("b");
    assert.deepEqual(think.push("c").map((e) => e.value), ["c"]);
    think.finish();
    throwsCode(assert, () => think.push("d"), "STREAM_FINISHED");

    const quiet = new lib.ThinkTagOutputTransformer();
    quiet.push("answer");
    quiet.push(" more");
    const parser = new lib.CitationParser();
    parser.push("plain");
    // After a step, shown text is only counted (the core moves past it by its length).
    const counting = new lib.CitationParser();
    counting.push("[1].");
    counting.push(" plain");
    // A marker's start held for the next chunk: the chunk is answered without the core.
    const holding = new lib.CitationParser();
    holding.push("[1].");
    assert.deepEqual(holding.push(" see [2").map((e) => e.value), [" see "]);
    assert.throws(() => internals.stream().forceTrap(), (e) => e instanceof WebAssembly.RuntimeError);
    throwsCode(assert, () => quiet.push(" words"), "INSTANCE_RESET");
    throwsCode(assert, () => parser.push(" words"), "INSTANCE_RESET");
    throwsCode(assert, () => counting.push(" words"), "INSTANCE_RESET");
    throwsCode(assert, () => holding.push("]"), "INSTANCE_RESET");
    assert.deepEqual(new lib.ThinkTagOutputTransformer().push("fresh").map((e) => e.type), [
      "response_start",
      "response",
    ]);
  },
};
