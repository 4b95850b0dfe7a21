import { test } from "node:test";
import assert from "node:assert/strict";
import { ThinkTagOutputTransformer } from "citeflow";
import { assertCode, merged, pickPiece, randomSplit, rng, runStream, thinkTagCases } from "./helpers.mjs";

/** Block ids: `<prefix>-<n>`, the prefix `tt<instance>` unless `idPrefix` was given. */
function idsAreConsistent(events, idPrefix = null) {
  const ours = events.filter((e) => e.type.startsWith("thinking") || e.type.startsWith("response"));
  const pattern = idPrefix === null ? /^tt\d+-\d+$/ : new RegExp(`^${idPrefix}-\\d+$`);
  // Input events passed through carry no id here; every id present must be one of ours.
  const checked = ours.filter((e) => e.id !== null && e.id !== undefined);
  for (const e of checked) assert.match(e.id, pattern);
  const seen = new Set();
  let open = null;
  for (const e of checked) {
    if (e.type.endsWith("_start")) {
      assert.equal(open, null, "nested block");
      assert.ok(!seen.has(e.id), "id reused");
      seen.add(e.id);
      open = e.id;
    } else {
      assert.equal(e.id, open, `${e.type} outside its block`);
      if (e.type.endsWith("_end")) open = null;
    }
  }
  assert.equal(open, null, "block left open");
}

// Adjacent text of one block may come as one event or several (the engine merges the text of
// one step): the fixtures are compared as a UI shows them.
const shown = (pairs) =>
  merged(pairs.map(([type, value]) => ({ id: null, type, value }))).map((e) => [e.type, e.value]);

for (const c of thinkTagCases) {
  test(`fixture: ${c.name}`, () => {
    const events = runStream(new ThinkTagOutputTransformer(c.options), c.input);
    assert.deepEqual(shown(events.map((e) => [e.type, e.value])), shown(c.events));
    idsAreConsistent(events);
    if (c.items) {
      const whole = new ThinkTagOutputTransformer(c.options).transform({
        outputs: [{ type: "text", output: c.input.join("") }],
      });
      assert.deepEqual(whole.outputs, c.items);
    }
  });
}

const PIECES = ["<think>", "</think>", "<th", "ink>", "</", "<", ">", "a", "b c", "é", "😀", "\n", "think"];

test("property: any split of the input gives the same merged events as one chunk", () => {
  const random = rng(0xc17ef10);
  for (let round = 0; round < 400; round++) {
    const text = Array.from({ length: Math.floor(random() * 30) }, () => pickPiece(random, PIECES))
      .join("");
    const whole = runStream(new ThinkTagOutputTransformer({ idPrefix: "p" }), [text]);
    const split = runStream(new ThinkTagOutputTransformer({ idPrefix: "p" }), randomSplit(text, random));
    assert.deepEqual(merged(split), merged(whole), JSON.stringify(text));
    idsAreConsistent(split, "p");
  }
});

test("property: long chunks (encoded straight into wasm memory) agree too, non-ASCII included", () => {
  const random = rng(0xbeef);
  for (let round = 0; round < 100; round++) {
    const text = Array.from(
      { length: 100 + Math.floor(random() * 300) },
      () => pickPiece(random, PIECES),
    ).join("");
    const whole = runStream(new ThinkTagOutputTransformer({ idPrefix: "p" }), [text]);
    const split = runStream(new ThinkTagOutputTransformer({ idPrefix: "p" }), randomSplit(text, random, 4));
    assert.deepEqual(merged(split), merged(whole));
    const items = new ThinkTagOutputTransformer().transform({ outputs: [{ type: "text", output: text }] }).outputs;
    const visible = whole.filter((e) => e.type === "thinking" || e.type === "response").map((e) => e.value).join("");
    assert.equal(items.map((i) => i.output).join(""), visible);
  }
});

test("the held-back fast path and the wasm path agree on long non-tag runs", () => {
  const t = new ThinkTagOutputTransformer({ idPrefix: "f" });
  const events = runStream(t, ["<think>", "a".repeat(1000), "b<", "/think>", "x".repeat(500), "y"]);
  assert.deepEqual(merged(events).map((e) => [e.type, e.value.length]), [
    ["thinking_start", 0],
    ["thinking", 1001],
    ["thinking_end", 0],
    ["response_start", 0],
    ["response", 501],
    ["response_end", 0],
  ]);
});

test("bad input is a CiteflowError with a code, and the module keeps working", () => {
  const t = new ThinkTagOutputTransformer();
  for (const bad of [42, null, undefined, ["x"], true]) assertCode(() => t.push(bad), "INVALID_CHUNK");
  assertCode(() => t.push({ type: "", value: "x" }), "INVALID_EVENT");
  assertCode(() => t.push({ type: "response", value: { no: "text" } }), "INVALID_EVENT");
  assertCode(() => new ThinkTagOutputTransformer({ tags: [["<a>", "<a>"]] }), "INVALID_OPTION");
  assertCode(() => new ThinkTagOutputTransformer({ tag: "x" }), "INVALID_OPTION");
  assertCode(() => t.transform({ outputs: [{ type: "image", output: "" }] }), "INVALID_OUTPUT");
  assertCode(() => t.transform("not an output"), "INVALID_OUTPUT");
  assert.deepEqual(t.push("<think>ok").map((e) => e.type), ["thinking_start", "thinking"]);
  t.finish();
  assertCode(() => t.push("late"), "STREAM_FINISHED");
  assertCode(() => t.push({ type: "status", value: "late" }), "STREAM_FINISHED");
  assertCode(() => t.finish(), "STREAM_FINISHED");
  assert.equal(new ThinkTagOutputTransformer().push("fine")[1].value, "fine");
});

test("whole outputs keep their other fields and non-text items", () => {
  const out = new ThinkTagOutputTransformer().transform({
    outputs: [{ type: "text", output: "<think>r</think>a" }, { type: "structured", output: { k: [1, 2] } }],
    usage: { inputTokens: 10, outputTokens: 5 },
    finishReason: "stop",
  });
  assert.deepEqual(out, {
    outputs: [{ type: "thinking", output: "r" }, { type: "text", output: "a" }, {
      type: "structured",
      output: { k: [1, 2] },
    }],
    usage: { inputTokens: 10, outputTokens: 5 },
    finishReason: "stop",
  });
});

test("works as a web TransformStream, each stream with fresh state", async () => {
  const t = new ThinkTagOutputTransformer();
  for (let round = 0; round < 2; round++) {
    const source = ReadableStream.from(["<thi", "nk>plan</th", "ink>answer"]);
    const events = [];
    for await (const e of source.pipeThrough(t.transformStream())) events.push(e);
    assert.deepEqual(merged(events).map((e) => [e.type, e.value]), [
      ["thinking_start", ""],
      ["thinking", "plan"],
      ["thinking_end", ""],
      ["response_start", ""],
      ["response", "answer"],
      ["response_end", ""],
    ]);
  }
});

test("a stream error reaches the reader", async () => {
  const source = ReadableStream.from(["ok", 7]);
  await assert.rejects(async () => {
    for await (const _ of source.pipeThrough(new ThinkTagOutputTransformer().transformStream()));
  }, (e) => e.code === "INVALID_CHUNK");
});

test("an id prefix comes back from the core as given: short ASCII strings are read without TextDecoder", () => {
  // scripts/glue.mjs reads strings from wasm of up to 16 bytes that are ASCII by a loop: each
  // side of that bound, with NUL and with non-ASCII characters at either end, reads the same.
  for (
    const prefix of ["a", "\0x", "ü", "a".repeat(15) + "ü", "ü" + "a".repeat(14), "a".repeat(16), "a".repeat(17), "😀"]
  ) {
    const t = new ThinkTagOutputTransformer({ idPrefix: prefix });
    const events = [...t.push("<think>x</think>y"), ...t.finish()];
    assert.equal(events[0].id, `${prefix}-1`, JSON.stringify(prefix));
    assert.equal(t.thinkingId, `${prefix}-1`, JSON.stringify(prefix));
    assert.equal(t.responseId, `${prefix}-2`, JSON.stringify(prefix));
  }
});
