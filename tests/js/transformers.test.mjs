import { test } from "node:test";
import assert from "node:assert/strict";
import {
  EventFilterOutputTransformer,
  IdentityOutputTransformer,
  JSONOutputTransformer,
  OutputTransformerChain,
  OutputTransformerConfig,
  ThinkTagOutputTransformer,
  ValidationOutputTransformer,
} from "citeflow";
import { assertCode, merged, runStream } from "./helpers.mjs";

const text = (output) => ({ outputs: [{ type: "text", output }] });

test("every exported class is called by its name (consoles and constructor.name show it), an alias by its class's", async () => {
  for (const entry of ["citeflow", "citeflow/stream"]) {
    const lib = await import(entry);
    const classes = Object.entries(lib).filter(([, v]) => typeof v === "function" && /^class\b/.test(String(v)));
    assert.ok(classes.length > 0, entry);
    const names = new Set(Object.keys(lib));
    for (const [key, value] of classes) {
      assert.ok(value.name === key || names.has(value.name), `${entry}: ${key} is called ${value.name}`);
    }
  }
  const { ThinkTagOutputTransformer: T } = await import("citeflow");
  assert.equal(new T().constructor.name, "ThinkTagOutputTransformer");
});

test("event filter: its answer for a type does not depend on the first event of that type", () => {
  // Half a surrogate pair, an empty text, a huge value: each passes whole, and so does the next.
  for (const first of ["\ud83d", "", "x".repeat(1 << 20)]) {
    const f = new EventFilterOutputTransformer(["response"]);
    const event = { type: "response", value: first };
    assert.equal(f.push(event)[0], event);
    assert.equal(f.push({ type: "response", value: "a" }).length, 1);
    assert.equal(f.push({ type: "thinking", value: first }).length, 0);
    assert.deepEqual(f.finish(), []);
  }
});

test("event filter keeps base types with their _start/_end variants, as the same objects", () => {
  const f = new EventFilterOutputTransformer(["thinking_start", "status"]);
  assert.deepEqual(f.allowedEventTypes, ["status", "thinking"]);
  const status = { type: "status", value: "searching", metadata: { step: 1 } };
  assert.equal(f.push(status)[0], status);
  for (const type of ["thinking", "thinking_start", "thinking_end"]) {
    assert.equal(f.push({ type, value: "" }).length, 1, type);
  }
  for (const type of ["response", "Thinking", "thinkingx", "code_end"]) {
    assert.equal(f.push({ type, value: "" }).length, 0, type);
  }
  assert.equal(f.push("bare text is a response event").length, 0);
  assert.deepEqual(f.finish(), []);
  assertCode(() => f.push(status), "STREAM_FINISHED");
  assert.equal(new EventFilterOutputTransformer([]).push({ type: "response", value: "x" }).length, 0);
});

test("event filter rejects blank and non-string types", () => {
  const e = assertCode(() => new EventFilterOutputTransformer(["thinking", " "]), "EMPTY_EVENT_TYPE");
  assert.match(e.message, /index 1/);
  assertCode(() => new EventFilterOutputTransformer("thinking"), "INVALID_OPTION");
  assertCode(() => new EventFilterOutputTransformer([1]), "INVALID_OPTION");
  assertCode(() => new EventFilterOutputTransformer(), "INVALID_OPTION");
});

test("JSON: the reference rules on whole outputs", () => {
  const j = new JSONOutputTransformer();
  const structured = (s) => j.transform(text(s)).outputs[0];
  assert.deepEqual(structured('Here is the output: {"key": "value"}'), {
    type: "structured",
    output: { key: "value" },
  });
  assert.deepEqual(structured('```json\n{"a": [1, 2], "b": {"c": null}}\n```'), {
    type: "structured",
    output: { a: [1, 2], b: { c: null } },
  });
  assert.deepEqual(structured("text {} text"), { type: "structured", output: {} });
  for (const s of ['{"a":1} {"b":2}', "[1, 2]", '{"a": 1,}', "{'a': 1}", '{"a":1}}', "no json"]) {
    assert.deepEqual(structured(s), { type: "text", output: s }, s);
  }
});

test("JSON after ThinkTag: braces in reasoning never count, whole or streamed", () => {
  const chain = OutputTransformerChain.fromConfigs(["think_tag", "json"]);
  const whole = chain.transform(text('<think>maybe {"x": 0}?</think>{"answer": 42}'));
  assert.deepEqual(whole.outputs, [{ type: "thinking", output: 'maybe {"x": 0}?' }, {
    type: "structured",
    output: { answer: 42 },
  }]);

  const events = runStream(OutputTransformerChain.fromConfigs(["think_tag", "json"]), [
    '<think>{"x"',
    ": 0}</think>",
    '{"answer"',
    ": 42}",
  ]);
  const last = events[events.length - 1];
  assert.equal(last.type, "structured");
  assert.equal(last.valueType, "json");
  assert.deepEqual(last.value, { answer: 42 });
  assert.equal(events.filter((e) => e.type === "structured").length, 1);
});

test("JSON stream without an object emits nothing extra; events keep their extra fields", () => {
  const j = new JSONOutputTransformer();
  const out = j.push({ type: "status", value: "x", level: "INFO", metadata: { a: 1 } });
  assert.deepEqual(out, [{
    id: null,
    type: "status",
    value: "x",
    valueType: "text",
    level: "INFO",
    metadata: { a: 1 },
  }]);
  j.push("no braces here");
  assert.deepEqual(j.finish(), []);
});

test("validation: all / any, whole and streamed", () => {
  const all = new ValidationOutputTransformer({ requiredTypes: ["text", "thinking"] });
  assert.ok(all.transform({ outputs: [{ type: "text", output: "a" }, { type: "thinking", output: "b" }] }));
  const e = assertCode(() => all.transform(text("a")), "VALIDATION_FAILED");
  assert.match(e.message, /all of \[text, thinking\] but found \[text\]/);
  const any = new ValidationOutputTransformer({ requiredTypes: ["structured", "text"], mode: "any" });
  assert.deepEqual(any.transform(text("a")), text("a"));

  const s = OutputTransformerChain.fromConfigs([
    "think_tag",
    OutputTransformerConfig.validation({ requiredTypes: ["thinking"] }),
  ]);
  s.push("no reasoning");
  assertCode(() => s.finish(), "VALIDATION_FAILED");
  assertCode(() => new ValidationOutputTransformer({ requiredTypes: ["image"] }), "INVALID_OPTION");
  assertCode(() => new ValidationOutputTransformer({ requiredTypes: ["text"], mode: "most" }), "INVALID_OPTION");
  assertCode(() => new ValidationOutputTransformer({ requiredTypes: [] }), "INVALID_OPTION");
});

test("identity passes everything as is", () => {
  const i = new IdentityOutputTransformer();
  const e = { type: "code", value: "x", custom: new Date(0) };
  assert.equal(i.push(e)[0], e);
  assert.deepEqual(i.push("t"), [{ id: null, type: "response", value: "t", valueType: "text" }]);
  const out = text("x");
  assert.equal(i.transform(out), out);
  i.finish();
  assertCode(() => i.push("late"), "STREAM_FINISHED");
});

test("configs: every constructor and form, canonical and buildable", () => {
  assert.deepEqual(OutputTransformerConfig.identity().toJSON(), { type: "identity", kwargs: {} });
  assert.deepEqual(OutputTransformerConfig.json().toJSON(), { type: "json", kwargs: {} });
  assert.deepEqual(OutputTransformerConfig.thinkTag().toJSON(), { type: "think_tag", kwargs: {} });
  assert.deepEqual(OutputTransformerConfig.eventFilter(["thinking"]).toJSON(), {
    type: "event_filter",
    kwargs: { eventTypes: ["thinking"] },
  });
  assert.equal(OutputTransformerConfig.fromConfig("thinkTag").type, "think_tag");
  assert.equal(
    OutputTransformerConfig.fromConfig({ type: "event_filter", kwargs: { event_types: ["x"] } }).type,
    "event_filter",
  );
  const c = OutputTransformerConfig.thinkTag({ tags: ["reasoning"] });
  assert.equal(OutputTransformerConfig.fromConfig(c), c);
  assert.ok(c.build() instanceof ThinkTagOutputTransformer);
  assert.deepEqual(merged(runStream(c.build(), ["<reasoning>r</reasoning>a"])).map((e) => e.value), [
    "",
    "r",
    "",
    "",
    "a",
    "",
  ]);
  assert.ok(
    OutputTransformerConfig.fromConfig({ type: "event_filter", kwargs: { event_types: ["x"] } }).build() instanceof
      EventFilterOutputTransformer,
  );
  assert.ok(
    OutputTransformerConfig.fromConfig(
      JSON.parse(JSON.stringify(OutputTransformerConfig.validation({ requiredTypes: ["text"] }))),
    ).build() instanceof ValidationOutputTransformer,
  );
});

test("bad configs name the problem", () => {
  const e = assertCode(() => OutputTransformerConfig.fromConfig("magic"), "UNKNOWN_TRANSFORMER");
  assert.match(e.message, /"magic".*think_tag/);
  assertCode(() => OutputTransformerConfig.fromConfig(7), "INVALID_CONFIG");
  assertCode(() => OutputTransformerConfig.fromConfig({ kwargs: {} }), "INVALID_CONFIG");
  assertCode(() => OutputTransformerConfig.fromConfig({ type: "json", extra: 1 }), "INVALID_CONFIG");
  assertCode(() => OutputTransformerConfig.fromConfig({ type: "json", kwargs: { pretty: true } }), "INVALID_OPTION");
  assertCode(() => OutputTransformerChain.fromConfigs("think_tag"), "INVALID_CONFIG");
  assertCode(() => new OutputTransformerChain([{}]), "INVALID_OPTION");
  // still usable afterwards
  assert.equal(OutputTransformerConfig.fromConfig("json").type, "json");
});

test("a chain is a pipeline: push/finish, transformStream, and pipeThrough of each stage agree", async () => {
  const chunks = ["status?", "<th", "ink>secret</think>", "visible ", "answer"];
  const make = () => [new ThinkTagOutputTransformer({ idPrefix: "c" }), new EventFilterOutputTransformer(["response"])];
  const pushed = runStream(new OutputTransformerChain(make()), chunks);

  const viaChainStream = [];
  for await (const e of ReadableStream.from(chunks).pipeThrough(new OutputTransformerChain(make()).transformStream())) {
    viaChainStream.push(e);
  }

  const [think, filter] = make();
  const viaStages = [];
  for await (
    const e of ReadableStream.from(chunks).pipeThrough(think.transformStream()).pipeThrough(filter.transformStream())
  ) viaStages.push(e);

  assert.deepEqual(merged(pushed).map((e) => [e.type, e.value]), [
    ["response_start", ""],
    ["response", "status?"],
    ["response_end", ""],
    ["response_start", ""],
    ["response", "visible answer"],
    ["response_end", ""],
  ]);
  assert.deepEqual(viaChainStream, pushed);
  assert.deepEqual(viaStages, pushed);
});

test("a finished chain refuses more input", () => {
  const chain = new OutputTransformerChain([]);
  assert.deepEqual(chain.push("x"), [{ id: null, type: "response", value: "x", valueType: "text" }]);
  assert.deepEqual(chain.finish(), []);
  assertCode(() => chain.push("y"), "STREAM_FINISHED");
  assertCode(() => chain.finish(), "STREAM_FINISHED");
});

test("JSON written by a model cannot set prototypes: __proto__ stays an own key, as JSON.parse keeps it", () => {
  const answer = 'Sure: {"__proto__": {"isAdmin": true}, "constructor": {"prototype": {"x": 1}}, "ok": 1}';
  const whole = new JSONOutputTransformer().transform(text(answer)).outputs[0].output;
  const streamed =
    runStream(new JSONOutputTransformer(), [answer.slice(0, 9), answer.slice(9)]).find((e) => e.type === "structured")
      .value;
  for (const value of [whole, streamed]) {
    assert.equal(Object.getPrototypeOf(value), Object.prototype);
    assert.equal(value.isAdmin, undefined);
    assert.ok(Object.hasOwn(value, "__proto__"));
    assert.deepEqual(Object.getOwnPropertyDescriptor(value, "__proto__").value, JSON.parse('{"isAdmin": true}'));
    assert.equal(value.ok, 1);
  }
  assert.equal({}.isAdmin, undefined);
  assert.equal({}.x, undefined);
});

test("the original's observable surface: onEvent with emit/emitFinish, ThinkTag's thinking and block ids", () => {
  const seen = [];
  const chain = new OutputTransformerChain([new ThinkTagOutputTransformer({ idPrefix: "t" })], {
    onEvent: (e) => seen.push(e.type),
  });
  chain.emit("<think>plan</think>Ans");
  chain.emitFinish();
  assert.deepEqual(seen, ["thinking_start", "thinking", "thinking_end", "response_start", "response", "response_end"]);
  const fromConfigs = OutputTransformerChain.fromConfigs(["think_tag"], { onEvent: (e) => seen.push(e.type) });
  fromConfigs.emit("x");
  assert.equal(seen.at(-1), "response");

  const think = new ThinkTagOutputTransformer({ idPrefix: "p" });
  assert.equal(think.thinking, false);
  assert.equal(think.responseId, null);
  think.push("<think>a");
  assert.equal(think.thinking, true);
  assert.equal(think.thinkingId, "p-1");
  think.push("</think>b");
  assert.equal(think.thinking, false);
  assert.equal(think.responseId, "p-2");
  assertCode(() => think.emit("c"), "INVALID_OPTION");
  const got = [];
  think.onEvent = (e) => got.push(e.value);
  think.emit("c");
  assert.deepEqual(got, ["c"]);
  assertCode(() => (think.onEvent = "log"), "INVALID_OPTION");
  assertCode(() => new OutputTransformerChain([], { onEvnt: () => {} }), "INVALID_OPTION");
});
