// The streaming module reads transformer configs and options from the JS values in place (no
// JSON copy on the way: src/options/js_value.rs). Differential: for every config of
// tests/fixtures/stage_configs.json, the table of what the JSON reader answers (checked by a Rust
// test against it, src/transform/config/differential.rs), the streaming module gives the same
// canonical config and triggers, or the same error code naming the same key. Then what JSON
// cannot hold, and callers' code that throws, at every place an option is read.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  EngineCore,
  fullModuleStages,
  initSync,
  normalizeConfig,
  SseDecoderCore,
} from "../../pkg/gen/stream/citeflow_stream.js";
import * as full from "../../pkg/gen/stream-full/citeflow_stream_full.js";

initSync({ module: readFileSync(new URL("../../pkg/gen/stream/citeflow_stream_bg.wasm", import.meta.url)) });
full.initSync({
  module: readFileSync(new URL("../../pkg/gen/stream-full/citeflow_stream_full_bg.wasm", import.meta.url)),
});
const { TransformerCore } = full;
// The stages the streaming module leaves to the full one: an engine of them is made there.
const fullOnly = new Set(fullModuleStages().split(","));
test("the stages only the full streaming module holds, both spellings, and the stream formats it alone reads", () => {
  assert.deepEqual([...fullOnly].sort(), [
    "citedAnswer",
    "cited_answer",
    "format:cohere",
    "format:google",
    "format:mistral",
    "format:openai-responses",
    "format:perplexity",
    "format:xai",
    "json",
    "validation",
  ]);
  assert.equal(full.fullModuleStages(), "");
});

const { cases } = JSON.parse(readFileSync(new URL("../fixtures/stage_configs.json", import.meta.url), "utf8"));

/** The engine of one transformer of `kind` from its options, in the module that holds it. */
const stageEngine = (kind, options) => (fullOnly.has(kind) ? full.EngineCore : EngineCore).forStage(kind, options);

/** What can change a config's stage, as the engine made of its options says. */
function stageTriggers(config) {
  const engine = stageEngine(config.type, config.kwargs);
  try {
    return engine.stageTriggers();
  } finally {
    engine.free();
  }
}

/** The config an engine made of one transformer's options read them into. */
function stageConfig(kind, options) {
  const engine = stageEngine(kind, options);
  try {
    return engine.stageConfig();
  } finally {
    engine.free();
  }
}

/** What the module makes of `read()`: as the table words an answer. */
function answer(read, triggers) {
  try {
    const config = read();
    return { config, triggers: triggers(config) };
  } catch (e) {
    assert.equal(e.name, "CiteflowError", String(e));
    const named = e.message.split("`");
    return { code: e.code, named: named.length >= 3 ? named[1] : null };
  }
}

test("every config of the table: the streaming module answers as the JSON reader", () => {
  assert.ok(cases.length > 500);
  let read = 0;
  for (const { input, answer: expected } of cases) {
    const got = answer(() => normalizeConfig(input), stageTriggers);
    assert.deepEqual(got, expected, JSON.stringify(input));
    if (got.config) read++;
    // The engine reads the same configs, and a stage of one kind its options alone (in the
    // module that holds the stage).
    const Core = fullOnly.has(got.config?.type) ? full.EngineCore : EngineCore;
    const engine = answer(() => (new Core(undefined, [input]).free(), null), () => []);
    if (expected.code) assert.deepEqual(engine, expected, `engine: ${JSON.stringify(input)}`);
    else assert.deepEqual(engine, { config: null, triggers: [] });
    // (Options that are not an object are the options' error there, not the config's.)
    const kwargs = input?.kwargs;
    const kind = typeof input === "object" && input !== null && Object.keys(input).length <= 2 &&
        typeof input.type === "string" && !("kwarg" in input) &&
        (kwargs === undefined || kwargs === null || (typeof kwargs === "object" && !Array.isArray(kwargs)))
      ? input.type
      : null;
    if (kind !== null && expected.code !== "UNKNOWN_TRANSFORMER") {
      const staged = answer(() => stageConfig(kind, input.kwargs), stageTriggers);
      if (expected.code) assert.deepEqual(staged, expected, `stageConfig: ${JSON.stringify(input)}`);
      else {
        assert.deepEqual(staged.triggers, expected.triggers);
        const { idPrefix, ...rest } = staged.config.kwargs;
        const { idPrefix: given, id_prefix: snake, ...wanted } = expected.config.kwargs;
        assert.deepEqual(rest, wanted);
        if (expected.config.type === "think_tag") {
          assert.equal(typeof idPrefix, "string");
          if (typeof (given ?? snake) === "string") assert.equal(idPrefix, given ?? snake);
        }
      }
    }
  }
  assert.ok(read > 50, `${read} configs read`);
});

const boom = () => {
  throw new Error("thrown by the caller's code");
};
const getter = (key) => Object.defineProperty({}, key, { get: boom, enumerable: true });
const coded = (code, key) => (e) =>
  e.name === "CiteflowError" && e.code === code && (key === undefined || e.message.includes(`\`${key}\``));

test("callers' code that throws while an option is read: a coded error with the exception as its cause", () => {
  const cases = [
    [() => stageConfig("think_tag", getter("tags")), "INVALID_OPTION", "tags"],
    [() => stageConfig("think_tag", { tags: [getter("open")] }), "INVALID_OPTION", "tags"],
    [() => stageConfig("think_tag", { tags: Object.defineProperty([], 0, { get: boom }) }), "INVALID_OPTION", "tags"],
    [() => stageConfig("citations", { toJSON: boom }), "INVALID_OPTION", "options"],
    [() => EngineCore.forStage("event_filter", getter("eventTypes")), "INVALID_OPTION", "eventTypes"],
    [() => new SseDecoderCore(getter("maxLineBytes")), "INVALID_OPTION", "maxLineBytes"],
    [() => normalizeConfig(getter("type")), "INVALID_CONFIG", "type"],
    [() => normalizeConfig({ type: "think_tag", kwargs: getter("idPrefix") }), "INVALID_OPTION", "idPrefix"],
    [() => new EngineCore(undefined, Object.defineProperty([], 0, { get: boom })), "INVALID_CONFIG"],
    [() => new TransformerCore({ type: "validation", kwargs: getter("mode") }), "INVALID_OPTION", "mode"],
  ];
  for (const [call, code, key] of cases) {
    assert.throws(
      call,
      (e) => coded(code, key)(e) && e.cause instanceof Error && /caller's code/.test(e.cause.message),
    );
  }
  const proxy = new Proxy({}, { ownKeys: boom, get: boom, getOwnPropertyDescriptor: boom });
  assert.throws(() => stageConfig("think_tag", proxy), coded("INVALID_OPTION"));
  assert.throws(() => normalizeConfig(proxy), coded("INVALID_CONFIG"));
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  assert.throws(() => stageConfig("think_tag", revoked.proxy), coded("INVALID_OPTION"));
  assert.throws(() => stageConfig("think_tag", { tags: revoked.proxy }), coded("INVALID_OPTION", "tags"));
});

test("what JSON cannot hold is refused, naming the option; what JSON leaves out is absent", () => {
  const refused = (options, key, said) =>
    assert.throws(
      () => stageConfig("think_tag", options),
      (e) => coded("INVALID_OPTION", key)(e) && e.message.includes(said),
    );
  refused({ idPrefix: 5n }, "idPrefix", "BigInt");
  refused({ startInThinking: NaN }, "startInThinking", "not a finite number");
  const cyclic = [];
  cyclic.push(cyclic);
  refused({ tags: cyclic }, "tags", "tag pair 0");
  const deep = [];
  let inner = deep;
  for (let i = 0; i < 200; i++) inner = inner[0] = [];
  refused({ tags: deep }, "tags", "tag pair 0");
  const sparse = [];
  sparse.length = 2 ** 32 - 1;
  refused({ tags: sparse }, "tags", "more than");
  assert.throws(
    () => EngineCore.forStage("event_filter", { eventTypes: sparse }),
    coded("INVALID_OPTION", "eventTypes"),
  );
  refused({ tags: { length: 2, 0: "a", 1: "b" } }, "tags", "expected a list of tag pairs");
  refused("tags", "options", "must be an object");
  refused([], "options", "must be an object");
  // Left out as JSON leaves them: undefined and symbols as values; symbol keys.
  const config = stageConfig("think_tag", {
    tags: ["r"],
    idPrefix: "p",
    startInThinking: undefined,
    y: Symbol("s"),
    [Symbol("z")]: 1,
  });
  assert.deepEqual(config, { type: "think_tag", kwargs: { tags: ["r"], idPrefix: "p" } });
  // A function is refused wherever it is (JSON would drop it: a listener or a limit lost
  // without a word); under a key the stage does not take, that key is refused.
  refused({ idPrefix: () => "p" }, "idPrefix", "a function");
  refused({ tags: [() => "r"] }, "tags", "a function");
  refused({ tags: [{ open: "<a>", close: () => "</a>" }] }, "tags", "a function");
  refused({ x: () => 1 }, "x", "unknown field");
  refused(() => ({}), "options", "must be an object");
  assert.throws(
    () => normalizeConfig({ type: "citations", kwargs: { sourceCount: () => 1 } }),
    (e) => coded("INVALID_OPTION", "sourceCount")(e) && e.message.includes("a function"),
  );
  assert.throws(
    () => new SseDecoderCore({ maxLineBytes: () => 10 }),
    (e) => coded("INVALID_OPTION", "maxLineBytes")(e) && e.message.includes("a function"),
  );
  // toJSON is honoured, as JSON honours it.
  const tags = { toJSON: () => [["<r>", "</r>"]] };
  assert.deepEqual(stageTriggers(stageConfig("think_tag", { tags })), ["<r>", "</r>"]);
  assert.deepEqual(normalizeConfig({ toJSON: () => "json" }), { type: "json", kwargs: {} });
  // A whole number is an integer wherever it is; a fraction is not, and its digits are not shown.
  assert.deepEqual(normalizeConfig({ type: "citations", kwargs: { sourceCount: 3 } }).type, "citations");
  assert.throws(
    () => stageConfig("citations", { sourceCount: 2.5 }),
    (e) => coded("INVALID_OPTION", "sourceCount")(e) && !/2\.5/.test(e.message),
  );
  assert.throws(() => new EngineCore(undefined, "think_tag"), coded("INVALID_CONFIG"));
  assert.throws(() => new EngineCore(undefined, sparse), coded("INVALID_CONFIG"));
});
