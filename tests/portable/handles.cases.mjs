// Event objects pushed into a transformer or chain whose stages all take handles stay in JS: the
// core reads their type, id and answer text, and gives back the caller's very object (or, for
// answer text a stage released in an event's shape, a copy with the new `value`). What it
// refuses it refuses as when events cross whole, with the same codes; hostile objects give
// coded errors and the instance survives. Written once, run by node --test
// (tests/js/engine_handles.test.mjs) and in every browser engine (tests/browser/cases.html).
// Each case gets { lib, assert, internals }.
import { rng } from "./rng.mjs";

const boom = () => {
  throw new Error("thrown by caller code");
};
const coded = (code) => (e) => e instanceof Error && e.name === "CiteflowError" && e.code === code;

/** Chains of stages that take handles, and one with a stage that needs whole events. */
const chains = (lib) => [
  new lib.OutputTransformerChain([new lib.ThinkTagOutputTransformer(), new lib.CitationParser({ sourceCount: 2 })]),
  new lib.OutputTransformerChain([
    new lib.CitationParser({ sourceCount: 2 }),
    new lib.EventFilterOutputTransformer(["response", "tool_call", "citation", "status"]),
  ]),
  new lib.ThinkTagOutputTransformer(),
  new lib.CitationParser({ sourceCount: 2 }),
];
// A chain with a stage that reads whole events (JSON extraction, in the full streaming module),
// so events cross whole: the path the handles must agree with.
const wholeChain = (lib) =>
  new lib.OutputTransformerChain([
    new lib.ThinkTagOutputTransformer(),
    new lib.CitationParser({ sourceCount: 2 }),
    new lib.JSONOutputTransformer(),
  ]);

/** Fully formed events (all four fields), so that the JSON copy of the whole path is equal. */
function randomEvents(next, n) {
  const texts = ["Paris [", "1]", " is ", "<think>", "hm</think>", "[2]", "é😀", "[", ""];
  const out = [];
  for (let i = 0; i < n; i++) {
    const pick = next() % 7;
    const text = texts[next() % texts.length];
    const id = next() % 2 === 0 ? null : "r1";
    if (pick === 0) out.push(text);
    else if (pick === 1) out.push({ id, type: "response", value: text, valueType: "text" });
    else if (pick === 2) out.push({ id, type: "response", value: text, valueType: "text", meta: i });
    else if (pick === 3) out.push({ id: "c", type: "tool_call", value: { n: i }, valueType: "json" });
    else if (pick === 4) {
      out.push({ id, type: next() % 2 ? "response_start" : "response_end", value: "", valueType: "text", x: 1 });
    } else if (pick === 5) out.push({ id: null, type: "usage", value: { total: i }, valueType: "json" });
    else out.push({ id: null, type: "thinking", value: text, valueType: "text" });
  }
  return out;
}

export const handleCases = {
  "an event object comes back as the caller's very object"({ lib, assert }) {
    for (const chain of chains(lib)) {
      const pushed = {
        type: "tool_call",
        id: "call_1",
        value: { name: "search", arguments: { k: 5 } },
        valueType: "json",
      };
      const out = chain.push(pushed);
      assert.equal(out.length, 1);
      assert.equal(out[0], pushed);
      const status = { type: "status", value: "thinking hard", level: "info", valueType: "text", id: null };
      assert.equal(chain.push(status)[0], status);
      chain.finish();
    }
    // So does the identity stage, alone or in a chain.
    const pushed0 = { type: "tool_call", id: "call_0", value: { k: 4 } };
    assert.equal(new lib.IdentityOutputTransformer().push(pushed0)[0], pushed0);
    const identityChain = new lib.OutputTransformerChain([
      new lib.IdentityOutputTransformer(),
      lib.OutputTransformerConfig.thinkTag().build(),
    ]);
    assert.equal(identityChain.push(pushed0)[0], pushed0);
    // A chain with a stage that needs whole events gives a copy (as before).
    const pushed = { type: "tool_call", id: "call_1", value: { k: 5 }, valueType: "json" };
    const out = wholeChain(lib).push(pushed);
    assert.notEqual(out[0], pushed);
    assert.deepEqual(out[0], pushed);
  },

  "answer text held across steps comes out in the shape of its response event"({ lib, assert }) {
    const parser = new lib.CitationParser({ sourceCount: 2 });
    const first = { id: "r", type: "response", value: "Paris [", valueType: "text", meta: 1 };
    const second = { id: "r", type: "response", value: "1] is old [", valueType: "text", meta: 2 };
    const a = parser.push(first);
    assert.deepEqual(a, [{ ...first, value: "Paris " }]);
    assert.notEqual(a[0], first);
    assert.equal(first.value, "Paris [", "the caller's object is not changed");
    const b = parser.push(second);
    assert.deepEqual(b.map((e) => e.type), ["response", "citation"]);
    assert.deepEqual(b[0], { ...second, value: "[1] is old " });
    // The held "[" goes at the end in the latest response event's shape.
    const end = parser.finish();
    assert.deepEqual(end, [{ ...second, value: "[" }]);
  },

  "events as handles give the events pushed whole give, for random streams"({ lib, assert }) {
    const next = rng(20261201);
    for (let round = 0; round < 300; round++) {
      const events = randomEvents(next, 1 + (next() % 12));
      const handles = new lib.OutputTransformerChain([
        new lib.ThinkTagOutputTransformer({ idPrefix: "t" }),
        new lib.CitationParser({ sourceCount: 2 }),
      ]);
      const whole = new lib.OutputTransformerChain([
        new lib.ThinkTagOutputTransformer({ idPrefix: "t" }),
        new lib.CitationParser({ sourceCount: 2 }),
        new lib.IdentityOutputTransformer(),
      ]);
      const run = (chain) => [...events.flatMap((e) => chain.push(e)), ...chain.finish()];
      assert.deepEqual(run(handles), run(whole), JSON.stringify(events));
    }
  },

  "what the core refuses of a whole event it refuses of a kept one, with the same code"({ lib, assert }) {
    const bad = [
      { type: 5, value: "x" },
      { type: "", value: "x" },
      { type: "tool_call", id: 5, value: {} },
      { type: "tool_call", id: { a: 1 }, value: {} },
      { type: "tool_call", id: 5n, value: {} },
      { type: "tool_call", valueType: "xml", value: {} },
      { type: "tool_call", valueType: 3, value: {} },
      { type: "tool_call", valueType: null, value: {} },
      { type: "response", value: 7 },
      { type: "response", value: { no: "text" } },
      { type: "response", value: null },
      { type: "response", value: ["a"] },
    ];
    for (const event of bad) {
      for (const make of [...chains(lib).map((c) => () => c), () => wholeChain(lib)]) {
        const chain = make();
        let code;
        try {
          chain.push(event);
        } catch (e) {
          assert.equal(e.name, "CiteflowError");
          code = e.code;
        }
        // An event filter alone passes any response on; every other chain refuses.
        if (code === undefined) {
          assert.ok(event.type !== "response" || event.valueType === undefined, `${String(event.type)} passed`);
          continue;
        }
        assert.equal(code, "INVALID_EVENT", JSON.stringify(event, (_, v) => (typeof v === "bigint" ? `${v}n` : v)));
      }
    }
    // Field errors read the same either way.
    for (const event of [{ type: "tool_call", id: 5 }, { type: "tool_call", valueType: "xml" }]) {
      const messages = [chains(lib)[0], wholeChain(lib)].map((c) => {
        try {
          c.push(event);
        } catch (e) {
          return e.message;
        }
      });
      assert.equal(messages[0], messages[1]);
      assert.match(messages[0], /^invalid event: `(id|valueType)`/);
    }
  },

  "hostile event objects give coded errors and the engine goes on"({ lib, assert, internals }) {
    const replacements = () => internals.stream().state().replacements;
    const before = replacements();
    const hostile = [
      Object.defineProperty({ type: "tool_call" }, "id", { get: boom, enumerable: true }),
      Object.defineProperty({ type: "response" }, "value", { get: boom, enumerable: true }),
      Object.defineProperty({ type: "tool_call" }, "valueType", { get: boom, enumerable: true }),
      new Proxy({ type: "tool_call" }, { ownKeys: boom }),
      new Proxy({ type: "tool_call", value: 1 }, { getOwnPropertyDescriptor: boom }),
      new Proxy({}, { get: boom }),
      (() => {
        const r = Proxy.revocable({ type: "tool_call" }, {});
        r.revoke();
        return r.proxy;
      })(),
    ];
    for (const event of hostile) {
      const chain = chains(lib)[0];
      assert.throws(() => chain.push(event), coded("INVALID_EVENT"));
      const after = chain.push({ type: "response", value: "ok [1]" });
      assert.equal(after.map((e) => e.value).join("").includes("ok"), true);
    }
    // An extra field whose getter throws: read only when a stage copies the event to give text
    // back in its shape (the whole path reads it at once): a coded error either way.
    const throwingExtra = () =>
      Object.defineProperty({ type: "response", value: "a [" }, "meta", { get: boom, enumerable: true });
    assert.throws(() => new lib.CitationParser({ sourceCount: 2 }).push(throwingExtra()), coded("INVALID_EVENT"));
    assert.throws(() => wholeChain(lib).push(throwingExtra()), coded("INVALID_EVENT"));
    const parser = new lib.CitationParser({ sourceCount: 2 });
    assert.throws(() => parser.push(throwingExtra()), coded("INVALID_EVENT"));
    const rest = [...parser.push("b [2]."), ...parser.finish()];
    assert.ok(rest.some((e) => e.type === "citation" && e.value.sourceId === 2));
    assert.equal(replacements(), before, "no wasm instance was replaced");
  },

  "a plain answer event still crosses as text: a surrogate pair cut between events is joined"({ lib, assert }) {
    const parser = new lib.ThinkTagOutputTransformer();
    const out = [
      ...parser.push({ type: "response", value: "a\uD83D" }),
      ...parser.push({ type: "response", value: "\uDE00b" }),
      ...parser.finish(),
    ];
    assert.equal(out.filter((e) => e.type === "response").map((e) => e.value).join(""), "a😀b");
  },
};
