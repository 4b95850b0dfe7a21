// The re-entry table: every callback citeflow calls into the caller's code (getters and Proxies
// on pushed events, options and inputs, `toJSON`, `Symbol.toPrimitive`, the collator, `onEvent`
// listeners, custom invokers, a custom `fetch`, a judge, `toCslItem`) calls back into (a) the
// very object it runs for, (b) another object of the same kind and (c) another entry point of
// the same wasm module, for each module: the core ("citeflow"), the lean streaming module
// ("citeflow/stream"), the full streaming module (JSON, validation, whole outputs) and the CSL
// module ("citeflow/csl"). (No style loader is the caller's: a style is a bundled name or XML.)
// Written once, run by node --test (tests/js/reentry.test.mjs) and in every browser engine
// (tests/browser/cases.html).
//
// The guarantee under test, for every row: the inner call works with the right result, or, only
// when it calls the very stream object whose call is running the callback, throws a
// CiteflowError with the code REENTRANT_CALL; the outer call runs to its own right result; no
// wasm instance was replaced, every module's shadow stack pointer is back where it was, and
// afterwards an unrelated call works in every module. (The rule is looser: either call
// may throw any coded error.) And a trap in such an inner call (forced, standing in for a bug)
// costs only the calls on that instance's stack.
import * as csl from "citeflow/csl";

const isCoded = (e) => e instanceof Error && e.name === "CiteflowError" && typeof e.code === "string" && e.code !== "";

/** A copy of `object` whose `key` is an enumerable getter: `cb()`, then the value. */
function withGetter(object, key, cb) {
  const value = object[key];
  const copy = { ...object };
  delete copy[key];
  return Object.defineProperty(copy, key, {
    enumerable: true,
    configurable: true,
    get() {
      cb();
      return value;
    },
  });
}
/** A hook: a push into a new object of `make()` of `event()` whose `key` is a getter. */
const pushWithGetter = (make, event, key) => (cb) => {
  const object = make();
  return [object, () => object.push(withGetter(event(), key, cb))];
};
/**
 * A hook: `emit` of `input()` on a new object of `make()`, whose `onEvent` listener calls `cb()`
 * after each event; the outer call's result is the events the listener was given.
 */
const emitTo = (make, input) => (cb) => {
  const object = make();
  return [object, () => {
    const seen = [];
    object.onEvent = (e) => {
      seen.push(e);
      cb();
    };
    object.emit(input());
    return seen;
  }];
};
/** `object` behind a Proxy whose `get` trap calls `cb()` first. */
const viaProxy = (object, cb) =>
  new Proxy(object, {
    get(target, key, receiver) {
      cb();
      return Reflect.get(target, key, receiver);
    },
  });
/** An object whose `toJSON` calls `cb()` and gives `value`. */
const viaToJSON = (value, cb) => ({
  toJSON() {
    cb();
    return value;
  },
});
/** A String object whose `Symbol.toPrimitive` calls `cb()` (JSON.stringify converts it so). */
const viaToPrimitive = (text, cb) =>
  Object.defineProperty(new String(text), Symbol.toPrimitive, {
    value() {
      cb();
      return text;
    },
  });

const texts = (events) => events.filter((e) => e.type === "response").map((e) => e.value).join("");
const sourceIds = (events) => events.filter((e) => e.type === "citation").map((e) => e.value.sourceId);
const source = (family) => ({
  content: `${family} wrote that Paris is the capital of France.`,
  metadata: {
    type: "book",
    title: "Atlas",
    author: [{ family, given: "Jo" }],
    issued: { "date-parts": [[2020]] },
  },
});
// Names whose order is the collator's to decide (not ASCII: the engine asks the host's collation).
const FAMILIES = ["Šimon", "Zola", "Abel"];
const answer = (content) => ({
  id: "c",
  object: "chat.completion",
  choices: [{ index: 0, message: { role: "assistant", content }, finish_reason: "stop" }],
  usage: { prompt_tokens: 3, completion_tokens: 2, total_tokens: 5 },
});
/** A `fetch` of one's own: an OpenAI-style answer, or embeddings, without a network. */
async function fakeFetch(url, init) {
  const body = JSON.parse(init.body);
  const json = String(url).endsWith("/embeddings")
    ? { data: body.input.map((_, index) => ({ object: "embedding", index, embedding: [1, 0] })) }
    : answer("Paris is the capital of France [1].");
  return new Response(JSON.stringify(json), { status: 200, headers: { "content-type": "application/json" } });
}
const invokerOptions = { apiKey: "sk-test", baseUrl: "https://model.invalid/v1", maxRetries: 0 };
/** A language model of one's own: `before()` runs in each call (the hook), then it answers. */
const lmOf = (before = () => {}) => ({
  async invoke() {
    await before();
    return "Paris is the capital of France [1].";
  },
});
/** A streaming language model of one's own: `item(before)` is what its stream yields. */
const streamingLmOf = (item) => ({
  invoke: lmOf().invoke,
  async *stream() {
    yield await item();
  },
});
/** A StreamingResult read to its end, then finalized. */
async function streamed(result) {
  for await (const _ of result);
  return result.finalize();
}
/** An embedding model of one's own: every text the same vector. */
const emOf = (before = () => {}) => ({
  async invoke(texts) {
    await before();
    return texts.map(() => new Float32Array([1, 0]));
  },
});
const chunks = () => [{ content: "Paris is the capital of France.", metadata: { title: "Atlas" } }];

/**
 * One probe per wasm module: a call into another of its entry points, and what it must give.
 * Each row calls the probe of its module as target (c), and every probe after the row.
 */
export function probes(lib) {
  return {
    core: () => {
      const chunk = { content: "x", metadata: { file_name: "T", file_url: "https://a.example/" } };
      const out = lib.formatChunkAsString(chunk);
      if (out !== "[T](https://a.example/)") throw new Error(`core probe gave ${JSON.stringify(out)}`);
      return out;
    },
    lean: () => {
      const out = new lib.ThinkTagOutputTransformer().push("<think>a</think>b");
      const types = out.map((e) => e.type).join(",");
      if (types !== "thinking_start,thinking,thinking_end,response_start,response") {
        throw new Error(`lean probe gave ${types}`);
      }
      return out;
    },
    full: () => {
      const out = new lib.JSONOutputTransformer().transform({ outputs: [{ type: "text", output: '{"a": 1}' }] });
      if (JSON.stringify(out.outputs) !== '[{"type":"structured","output":{"a":1}}]') {
        throw new Error(`full probe gave ${JSON.stringify(out)}`);
      }
      return out;
    },
    csl: () => {
      const out = csl.renderReferences([source("Doe")], [1], { style: "apa-7" });
      if (out.length !== 1 || !out[0].entry.includes("Doe")) throw new Error(`csl probe gave ${JSON.stringify(out)}`);
      return out;
    },
  };
}

/**
 * The subjects: for each, its module, how to make a fresh one (`make`, null for a free
 * function: then the function itself is the "same object" and there is no other one), a plain
 * call on one (`call`) and its check, and the hooks that put a callback into a call. A hook
 * takes the callback and returns `[self, run]`: the object the callback's run is for (null when
 * it has none yet: a constructor's options) and the outer call.
 */
export function subjects(lib) {
  const eventOf = (value) => ({ id: "e", type: "response", value, valueType: "text" });
  const parser = () => new lib.CitationParser({ sourceCount: 2 });
  const parsed = (events) => texts(events) === "a [1] b" && sourceIds(events).join() === "1";
  const think = () => new lib.ThinkTagOutputTransformer();
  const thought = (events) =>
    events.filter((e) => e.type === "thinking").map((e) => e.value).join("") === "t" && texts(events) === "r";
  const json = () => new lib.JSONOutputTransformer();
  const structured = (output) => JSON.stringify(output?.outputs) === '[{"type":"structured","output":{"a":1}}]';
  const jsonOutput = () => ({ outputs: [{ type: "text", output: '{"a": 1}' }] });
  const jsonEvent = () => ({ id: "j", type: "data", value: { a: 1 }, valueType: "json" });
  const passedJson = (events) => events.length === 1 && JSON.stringify(events[0].value) === '{"a":1}';
  const validation = () => new lib.ValidationOutputTransformer({ requiredTypes: ["text"] });
  const jsonChain = () =>
    new lib.OutputTransformerChain([new lib.ThinkTagOutputTransformer(), new lib.JSONOutputTransformer()]);
  // In collation order (Š with S), not code point order (Š after Z).
  const collated = (refs) => Array.isArray(refs) && refs.map((r) => r.entry.split(",")[0]).join() === "Abel,Šimon,Zola";
  const cslArgs = () => [FAMILIES.map(source), null, { style: "apa-7" }];
  const generated = (result) =>
    result?.text === "Paris is the capital of France [1]." && result.citations.length === 1 &&
    result.references.length === 1;
  const generateArgs = () => ({ prompt: "Capital?", sources: [source("Doe")] });
  const filtered = (kept) => Array.isArray(kept) && kept.length === 1;
  const invoked = (out) =>
    JSON.stringify(out?.outputs?.[0]) === '{"type":"text","output":"Paris is the capital of France [1]."}';
  const verified = (report) => report?.supportRate === 1 && report.citationsChecked === 1;
  const result = () =>
    new lib.GenerationResult({
      text: "Paris is the capital of France [1].",
      citations: [],
      references: [],
      sources: [source("Doe")],
      usage: null,
      markerStyle: "bracket",
    });
  return [
    // ---- the core module
    {
      module: "core",
      name: "parseCitations options",
      make: null,
      call: () => lib.parseCitations("a [1] b", { sourceCount: 2 }),
      check: (c) => c.length === 1 && c[0].sourceId === 1 && c[0].valid === true,
      hooks: {
        getter: (cb) => [null, () => lib.parseCitations("a [1] b", withGetter({ sourceCount: 2 }, "sourceCount", cb))],
        proxy: (cb) => [null, () => lib.parseCitations("a [1] b", viaProxy({ sourceCount: 2 }, cb))],
        toJSON: (cb) => [null, () => lib.parseCitations("a [1] b", { sourceCount: viaToJSON(2, cb) })],
      },
    },
    {
      module: "core",
      name: "formatChunkAsString chunk",
      make: null,
      call: () => lib.formatChunkAsString({ content: "x", metadata: { file_name: "A" } }),
      check: (s) => s === "A",
      hooks: {
        getter: (
          cb,
        ) => [
          null,
          () => lib.formatChunkAsString(withGetter({ content: "x", metadata: { file_name: "A" } }, "metadata", cb)),
        ],
        toJSON: (
          cb,
        ) => [null, () => lib.formatChunkAsString({ content: "x", metadata: viaToJSON({ file_name: "A" }, cb) })],
      },
    },
    {
      module: "core",
      name: "Citeformer.generate",
      make: () => new lib.Citeformer({ lmInvoker: lmOf() }),
      call: (c) => c.generate(generateArgs()),
      check: generated,
      hooks: {
        lmInvoker: (cb) => {
          const c = new lib.Citeformer({ lmInvoker: lmOf(cb) });
          return [c, () => c.generate(generateArgs())];
        },
        toCslItem: (cb) => {
          const c = new lib.Citeformer({
            lmInvoker: lmOf(),
            toCslItem: (s) => {
              cb();
              return s.metadata;
            },
          });
          return [c, () => c.generate(generateArgs())];
        },
        "sources getter": (cb) => {
          const c = new lib.Citeformer({ lmInvoker: lmOf() });
          return [c, () => c.generate({ prompt: "Capital?", sources: [withGetter(source("Doe"), "content", cb)] })];
        },
      },
    },
    {
      module: "core",
      name: "Citeformer.stream",
      make: () => new lib.Citeformer({ lmInvoker: streamingLmOf(() => "Paris is the capital of France [1].") }),
      call: (c) => streamed(c.stream(generateArgs())),
      check: generated,
      hooks: {
        "lmInvoker.stream": (cb) => {
          const c = new lib.Citeformer({
            lmInvoker: streamingLmOf(async () => {
              await cb();
              return "Paris is the capital of France [1].";
            }),
          });
          return [c, () => streamed(c.stream(generateArgs()))];
        },
        "streamed event getter": (cb) => {
          const event = () => withGetter(eventOf("Paris is the capital of France [1]."), "value", cb);
          const c = new lib.Citeformer({ lmInvoker: streamingLmOf(event) });
          return [c, () => streamed(c.stream(generateArgs()))];
        },
      },
    },
    {
      module: "core",
      name: "SimilarityRelevanceFilter.filter",
      make: () => new lib.SimilarityRelevanceFilter(emOf()),
      call: (f) => f.filter({ chunks: chunks(), query: "capital" }),
      check: filtered,
      hooks: {
        emInvoker: (cb) => {
          const f = new lib.SimilarityRelevanceFilter(emOf(cb));
          return [f, () => f.filter({ chunks: chunks(), query: "capital" })];
        },
      },
    },
    {
      module: "core",
      name: "LM invoker.invoke",
      make: () => lib.buildLMInvoker("openai/gpt-4o-mini", { ...invokerOptions, fetch: fakeFetch }),
      call: (lm) => lm.invoke("Capital?"),
      check: invoked,
      hooks: {
        fetch: (cb) => {
          const lm = lib.buildLMInvoker("openai/gpt-4o-mini", {
            ...invokerOptions,
            fetch: async (url, init) => {
              await cb();
              return fakeFetch(url, init);
            },
          });
          return [lm, () => lm.invoke("Capital?")];
        },
      },
    },
    {
      module: "core",
      name: "GenerationResult.verify",
      make: result,
      call: (r) => r.verify(),
      check: verified,
      hooks: {
        judge: (cb) => {
          const r = result();
          return [r, () =>
            r.verify({
              judge: async () => {
                await cb();
                return 1;
              },
            })];
        },
      },
    },
    // ---- the lean streaming module
    {
      module: "lean",
      name: "CitationParser.push",
      make: parser,
      call: (p) => p.push("a [1] b"),
      check: parsed,
      hooks: {
        "event getter": pushWithGetter(parser, () => eventOf("a [1] b"), "value"),
        "event Proxy": (cb) => {
          const p = parser();
          return [p, () => p.push(viaProxy(eventOf("a [1] b"), cb))];
        },
        onEvent: emitTo(parser, () => "a [1] b"),
      },
    },
    {
      // Text a stage releases in an event's shape comes back in a copy of the event object: its
      // other fields are read then (here the held `[` keeps the event from passing whole).
      module: "lean",
      name: "CitationParser.push (an event released in part)",
      make: parser,
      call: (p) => p.push(eventOf("a [1] b [")),
      check: (events) => texts(events) === "a [1] b " && sourceIds(events).join() === "1",
      hooks: {
        "copied field getter": pushWithGetter(parser, () => ({ ...eventOf("a [1] b ["), meta: 1 }), "meta"),
      },
    },
    {
      module: "lean",
      name: "ThinkTagOutputTransformer",
      make: think,
      call: (t) => t.push("<think>t</think>r"),
      check: thought,
      hooks: {
        "options getter": (cb) => {
          // The object does not exist while its options are read: only (b) and (c) apply.
          return [
            null,
            () =>
              new lib.ThinkTagOutputTransformer(withGetter({ startInThinking: false }, "startInThinking", cb)).push(
                "<think>t</think>r",
              ),
          ];
        },
        "options toJSON": (
          cb,
        ) => [
          null,
          () => new lib.ThinkTagOutputTransformer({ idPrefix: viaToJSON("p", cb) }).push("<think>t</think>r"),
        ],
        "event getter": pushWithGetter(think, () => eventOf("<think>t</think>r"), "value"),
      },
    },
    {
      module: "lean",
      name: "ProviderStreamDecoder.push",
      make: () => new lib.ProviderStreamDecoder("openai"),
      call: (d) => d.push({ data: '{"choices":[{"delta":{"content":"r"}}]}' }),
      check: (events) => texts(events) === "r",
      hooks: {
        "message getter": (cb) => {
          const d = new lib.ProviderStreamDecoder("openai");
          return [d, () => d.push(withGetter({ data: '{"choices":[{"delta":{"content":"r"}}]}' }, "data", cb))];
        },
      },
    },
    // ---- the full streaming module
    {
      module: "full",
      name: "JSONOutputTransformer.push",
      make: json,
      call: (t) => t.push(jsonEvent()),
      check: passedJson,
      hooks: {
        "event getter": pushWithGetter(json, jsonEvent, "value"),
        "event Proxy": (cb) => {
          const t = json();
          return [t, () => t.push(viaProxy(jsonEvent(), cb))];
        },
        "value toJSON": (cb) => {
          const t = json();
          return [t, () => t.push({ ...jsonEvent(), value: viaToJSON({ a: 1 }, cb) })];
        },
        onEvent: emitTo(json, jsonEvent),
      },
    },
    {
      module: "full",
      name: "JSONOutputTransformer.transform",
      make: json,
      call: (t) => t.transform(jsonOutput()),
      check: structured,
      hooks: {
        "output getter": (cb) => {
          const t = json();
          return [t, () => t.transform({ outputs: [withGetter(jsonOutput().outputs[0], "output", cb)] })];
        },
      },
    },
    {
      // A stage transformer's whole output goes through the full module's transformOutput.
      module: "full",
      name: "ThinkTagOutputTransformer.transform",
      make: think,
      call: (t) => t.transform({ outputs: [{ type: "text", output: "<think>t</think>r" }] }),
      check: (out) =>
        JSON.stringify(out?.outputs) === '[{"type":"thinking","output":"t"},{"type":"text","output":"r"}]',
      hooks: {
        "output getter": (cb) => {
          const t = think();
          return [
            t,
            () => t.transform({ outputs: [withGetter({ type: "text", output: "<think>t</think>r" }, "output", cb)] }),
          ];
        },
      },
    },
    {
      module: "full",
      name: "ValidationOutputTransformer.push",
      make: validation,
      call: (t) => t.push(jsonEvent()),
      check: passedJson,
      hooks: {
        "event getter": pushWithGetter(validation, jsonEvent, "value"),
      },
    },
    {
      module: "full",
      name: "OutputTransformerChain (JSON stage) push",
      make: jsonChain,
      // Not answer text: the event crosses whole, and the core reads its fields itself.
      call: (c) => c.push(jsonEvent()),
      check: passedJson,
      hooks: {
        "event getter": pushWithGetter(jsonChain, jsonEvent, "value"),
      },
    },
    // ---- the CSL module
    {
      module: "csl",
      name: "renderReferences",
      make: null,
      call: () => csl.renderReferences(...cslArgs()),
      check: collated,
      hooks: {
        collator: (cb) => [null, () => withCollator(cb, () => csl.renderReferences(...cslArgs()))],
        "options getter": (cb) => {
          const [sources, cited] = cslArgs();
          return [null, () => csl.renderReferences(sources, cited, withGetter({ style: "apa-7" }, "style", cb))];
        },
        "source toJSON": (cb) => {
          const [sources, cited, options] = cslArgs();
          return [null, () => csl.renderReferences([viaToJSON(sources[0], cb), ...sources.slice(1)], cited, options)];
        },
        "source toPrimitive": (cb) => {
          const [sources, cited, options] = cslArgs();
          const first = { ...sources[0], content: viaToPrimitive(sources[0].content, cb) };
          return [null, () => csl.renderReferences([first, ...sources.slice(1)], cited, options)];
        },
        "source Proxy": (cb) => {
          const [sources, cited, options] = cslArgs();
          return [null, () => csl.renderReferences(viaProxy(sources, cb), cited, options)];
        },
      },
    },
  ];
}

/** Runs `f` with `Intl.Collator`'s `compare` calling `cb()` first, then restores it. */
function withCollator(cb, f) {
  const proto = Intl.Collator.prototype;
  const original = Object.getOwnPropertyDescriptor(proto, "compare");
  Object.defineProperty(proto, "compare", {
    configurable: true,
    get() {
      const compare = original.get.call(this);
      return (a, b) => {
        cb();
        return compare(a, b);
      };
    },
  });
  try {
    return f();
  } finally {
    Object.defineProperty(proto, "compare", original);
  }
}

/** What a call gave: `{ok, value}` or `{ok: false, error}`, promises settled. */
async function settle(call) {
  try {
    return { ok: true, value: await call() };
  } catch (error) {
    return { ok: false, error };
  }
}

const describeError = (e) => {
  try {
    return `${e?.name}: ${e?.message} (code ${e?.code})`;
  } catch {
    return "an unprintable exception";
  }
};

/**
 * Whether an outcome is right: a value `check` accepts, or a CiteflowError with one of the
 * `codes` (any code when not given); else what was wrong.
 */
function judge(outcome, check, what, codes = null) {
  if (!outcome.ok) {
    const fine = isCoded(outcome.error) && (codes === null || codes.includes(outcome.error.code));
    return fine ? null : `${what} threw ${describeError(outcome.error)}`;
  }
  let good;
  try {
    good = check(outcome.value);
  } catch (e) {
    return `${what}'s result failed its check: ${describeError(e)}`;
  }
  if (good === true) return null;
  let shown;
  try {
    shown = JSON.stringify(outcome.value);
  } catch {
    shown = String(outcome.value);
  }
  return `${what} gave a wrong result: ${shown?.slice(0, 300)}`;
}

// How many times one row's callback calls back (the collator is asked once per comparison).
const INNER = 3;

/** Every row of one module's table; returns the problems found. */
async function runModule(module, { lib, internals }) {
  const probe = probes(lib);
  const states = statesOf(internals);
  const replacements = () => Object.values(states).map((s) => s().replacements).join();
  const problems = [];
  // Loads the CSL module and the style in any runtime (citeflow/csl is then the same instance).
  await lib.renderReferences([source("Doe")], [1], { style: "apa-7" });
  for (const subject of subjects(lib).filter((s) => s.module === module)) {
    for (const [hook, put] of Object.entries(subject.hooks)) {
      for (const target of ["same", "other", "module"]) {
        const row = `${module}: ${subject.name}, ${hook} → ${target}`;
        const before = replacements();
        const stacks = internals.stackPointers().join();
        const inner = [];
        let self = null;
        let inside = false;
        // The caller's callback: each time citeflow calls it (a value may be read more than
        // once: in JS, then by the core), up to INNER times, it calls back into the target; not
        // from within the calls it makes itself.
        const callback = () => {
          if (inside || inner.length >= INNER) return undefined;
          inside = true;
          try {
            const call = target === "module"
              ? () => probe[module]()
              : () => subject.call(target === "same" ? (subject.make === null ? undefined : self) : subject.make?.());
            const check = target === "module" ? () => true : subject.check;
            // The inner call's own outcome, settled when it is a promise (an async callback
            // awaits it: the hook passes the promise on).
            let pending;
            try {
              pending = call();
            } catch (error) {
              inner.push({ outcome: Promise.resolve({ ok: false, error }), check });
              return undefined;
            }
            const outcome = settle(() => pending);
            inner.push({ outcome, check });
            return outcome;
          } finally {
            inside = false;
          }
        };
        const [object, run] = put(callback);
        self = object;
        if (target === "same" && self === null && subject.make !== null) continue; // nothing to re-enter yet
        if (target === "other" && subject.make === null) continue; // a free function has no other
        const outer = await settle(run);
        if (inner.length === 0) {
          problems.push(`${row}: the callback was never called`);
          continue;
        }
        for (const [k, { outcome, check }] of inner.entries()) {
          const settled = await outcome;
          if (globalThis.process?.env?.REENTRY_TRACE) {
            console.log(row, k, settled.ok ? "ok" : settled.error?.code ?? settled.error);
          }
          // Only a call back into the very object may be refused, and only as re-entry.
          const innerProblem = judge(
            settled,
            check,
            `inner call ${k + 1}`,
            target === "same" ? ["REENTRANT_CALL"] : [],
          );
          if (innerProblem) problems.push(`${row}: ${innerProblem}`);
        }
        // The outer call runs to its own right result (refusing a callback's call is no error).
        const outerProblem = judge(outer, subject.check, "the outer call", []);
        if (outerProblem) problems.push(`${row}: ${outerProblem}`);
        if (replacements() !== before) problems.push(`${row}: a wasm instance was replaced (${replacements()})`);
        problems.push(...afterwards(row, stacks, probe, internals));
      }
    }
  }
  return problems;
}

/**
 * What is wrong after a row: each module's shadow stack pointer is where it was before the row
 * (`stacks`), and each module's probe works.
 */
function afterwards(row, stacks, probe, internals) {
  const problems = [];
  const now = internals.stackPointers().join();
  if (now !== stacks) problems.push(`${row}: a shadow stack pointer moved: ${stacks} -> ${now}`);
  for (const [name, p] of Object.entries(probe)) {
    try {
      p();
    } catch (e) {
      problems.push(`${row}: afterwards, the ${name} module's probe failed: ${describeError(e)}`);
    }
  }
  return problems;
}

/** Each module's instance state (how many times it was replaced). */
const statesOf = (internals) => ({
  core: () => internals.instanceState(),
  lean: () => internals.stream().state(),
  full: () => internals.full().state(),
  csl: () => internals.csl().state(),
});

/** A callback run inside each module's wasm, and the module's forced trap (a bug stand-in). */
const TRAPS = [
  ["core", "parseCitations options", "getter", (internals) => internals.forceTrapForTests()],
  ["lean", "ThinkTagOutputTransformer", "options getter", (internals) => internals.stream().forceTrap()],
  ["full", "JSONOutputTransformer.push", "event getter", (internals) => internals.full().forceTrap()],
  ["csl", "renderReferences", "collator", (internals) => internals.csl().forceTrap()],
];

/**
 * A trap in a call made from a callback of an outer call into the same instance: the instance
 * is replaced once, when the outer call ends (its result cannot be trusted: it is the trap's
 * error unless it was refused with a code first); nothing of the old instance reaches the new
 * one (its shadow stack pointer where a fresh instance has it), and every module works after.
 */
async function trapInCallback({ lib, internals }) {
  const problems = [];
  const probe = probes(lib);
  await lib.renderReferences([source("Doe")], [1], { style: "apa-7" });
  const states = statesOf(internals);
  const modules = Object.keys(states);
  const state = (m) => states[m]();
  const isTrap = (e) => e instanceof WebAssembly.RuntimeError && /__citeflowTrap/.test(e.message);
  for (const [module, name, hook, trap] of TRAPS) {
    const row = `${module}: a trap from ${name}'s ${hook}`;
    const subject = subjects(lib).find((s) => s.name === name);
    const before = modules.map((m) => state(m).replacements);
    const stacks = internals.stackPointers().join();
    const inner = [];
    const [, run] = subject.hooks[hook](() => {
      if (inner.length !== 0) return;
      try {
        trap(internals);
        inner.push("no trap");
      } catch (e) {
        inner.push(e);
      }
    });
    const outer = await settle(run);
    if (!isTrap(inner[0])) problems.push(`${row}: the inner call gave ${describeError(inner[0])}`);
    if (!outer.ok && !isCoded(outer.error) && !isTrap(outer.error)) {
      problems.push(`${row}: the outer call threw ${describeError(outer.error)}`);
    } else if (outer.ok) {
      const wrong = judge(outer, subject.check, "the outer call");
      if (wrong) problems.push(`${row}: ${wrong}`);
    }
    const replaced = modules.map((m, i) => state(m).replacements - before[i]);
    const expected = modules.map((m) => (m === module ? 1 : 0));
    if (replaced.join() !== expected.join()) problems.push(`${row}: replacements ${replaced}, expected ${expected}`);
    for (let k = 0; k < 3; k++) problems.push(...afterwards(row, stacks, probe, internals));
  }
  return problems;
}

export const reentryCases = {
  ...Object.fromEntries(
    ["core", "lean", "full", "csl"].map((module) => [
      `re-entry from every callback of the ${module} module: inner call right (or REENTRANT_CALL), outer right, no instance replaced, later calls work`,
      async (ctx) => {
        const problems = await runModule(module, ctx);
        ctx.assert.deepEqual(problems, [], `${problems.length} problems`);
      },
    ]),
  ),
  async "a trap in a callback's call costs the calls on that instance's stack: replaced once, after the outer call; later calls work"(
    ctx,
  ) {
    const problems = await trapInCallback(ctx);
    ctx.assert.deepEqual(problems, [], `${problems.length} problems`);
  },
};
