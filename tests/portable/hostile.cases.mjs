// Hostile JS values at every entry point, and a forced trap: written once, run by node --test
// (tests/js/hostile.test.mjs) and in every browser engine (tests/browser/cases.html).
// Each case gets { lib, streamLib, assert, base, internals }: the package, its "citeflow/stream"
// entry, assert, the fake provider's base URL, and the package's internal runtime state
// (instance epochs of the core and streaming modules, a way to force a trap in each).
//
// The rule under test: whatever a caller passes, a call either works or throws (or rejects
// with) a CiteflowError with a string `code`; it never unwinds through wasm (which would
// replace the instance: counted here), and the package keeps working afterwards.

const boom = () => {
  throw new Error("hostile: thrown by caller code");
};
const trapAll = {
  get: boom,
  has: boom,
  ownKeys: boom,
  getOwnPropertyDescriptor: boom,
  getPrototypeOf: boom,
  apply: boom,
  construct: boom,
};
const DEEP_ARRAY = "[".repeat(3000) + "]".repeat(3000);
const DEEP_OBJECT = '{"a":'.repeat(3000) + "1" + "}".repeat(3000);

/** Values a careless or hostile caller can pass: each factory builds a fresh one. */
export const hostileValues = {
  cyclic: () => {
    const o = {};
    o.self = o;
    return o;
  },
  cyclicArray: () => {
    const a = [];
    a.push(a);
    return a;
  },
  deepArray: () => JSON.parse(DEEP_ARRAY),
  deepObject: () => JSON.parse(DEEP_OBJECT),
  // Every field an entry point reads, as a getter that throws (enumerable, as in a literal).
  throwingGetters: () =>
    Object.defineProperties(
      {},
      Object.fromEntries(
        ["type", "value", "content", "metadata", "outputs", "sourceCount", "length", "prompt", "sources"]
          .map((key) => [key, { get: boom, enumerable: true, configurable: true }]),
      ),
    ),
  proxy: () => new Proxy({}, trapAll),
  arrayProxy: () => new Proxy([], trapAll),
  revokedProxy: () => {
    const r = Proxy.revocable({}, {});
    r.revoke();
    return r.proxy;
  },
  badPrimitive: () => ({ toString: boom, valueOf: boom, [Symbol.toPrimitive]: boom, toJSON: boom }),
  bigint: () => 12345678901234567890n,
  symbol: () => Symbol("hostile"),
  sparse: () => {
    const a = [];
    a.length = 2 ** 32 - 1;
    return a;
  },
  fakeArrayLike: () => ({ length: 2 ** 32 - 1, 0: "a" }),
  nan: () => NaN,
  infinity: () => Infinity,
  hugeNumber: () => 1e300,
  negative: () => -4294967297,
  hugeString: () => "[".repeat(200000),
  protoKey: () => JSON.parse('{"__proto__": {"polluted": true}, "type": "response", "value": "x"}'),
  nullValue: () => null,
};

const TIMEOUT_MS = 5000;

function withTimeout(promise, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`hostile: ${what} did not settle in ${TIMEOUT_MS} ms`)), TIMEOUT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** A value whose reads can throw: one of the hostile objects handed back unchanged. */
function isProxyLike(v) {
  Object.getPrototypeOf(v);
  Object.keys(v);
  return false;
}

/** Runs `call`, settling promises and draining streams; returns null or a problem string. */
async function outcome(call, what) {
  try {
    let value = call();
    // Reading what came back can run the caller's own traps (transform(output) returns its
    // argument): only the package's own results are inspected.
    const ours = (v) => {
      try {
        return v !== null && typeof v === "object" && !isProxyLike(v);
      } catch {
        return false;
      }
    };
    if (ours(value) && typeof value.then === "function") value = await withTimeout(value, what);
    if (!ours(value)) return null;
    if (typeof value.getReader === "function") {
      const reader = value.getReader();
      await withTimeout(
        (async () => {
          while (!(await reader.read()).done);
        })(),
        what,
      );
    } else if (value && typeof value[Symbol.asyncIterator] === "function" && typeof value.finalize === "function") {
      await withTimeout(
        (async () => {
          for await (const _ of value);
        })(),
        what,
      );
    }
    return null;
  } catch (e) {
    if (e instanceof Error && e.name === "CiteflowError" && typeof e.code === "string" && e.code !== "") return null;
    let shown;
    try {
      shown = `${e?.constructor?.name}: ${e?.message}`;
    } catch {
      shown = "an unprintable exception";
    }
    return `${what} threw ${shown}`;
  }
}

/**
 * For each export: how to call it validly. `args(ctx)` gives fresh valid arguments; `make` builds
 * an instance whose methods are then called with hostile arguments.
 */
export function entryPoints({ lib, base }) {
  const lm = () => lib.buildLMInvoker("openai-compatible/ok", { apiKey: "sk-test", baseUrl: base });
  const em = () => lib.buildEMInvoker("openai-compatible/embed", { apiKey: "sk-test", baseUrl: base });
  const dm = () => lib.buildDMInvoker("typesafe/dm", { apiKey: "sk-test", baseUrl: base });
  const chunk = () => ({
    content: "Paris is the capital of France.",
    metadata: { title: "Atlas", file_name: "atlas.txt" },
  });
  const source = () => ({
    content: "Paris is the capital of France.",
    metadata: {
      type: "book",
      title: "Atlas",
      author: [{ family: "Doe", given: "Jo" }],
      issued: { "date-parts": [[2020]] },
    },
  });
  const event = () => ({ id: null, type: "response", value: "a [1] b", valueType: "text" });
  const output = () => ({ outputs: [{ type: "text", output: "a [1]" }] });
  const filterArgs = () => ({ chunks: [chunk()], query: "capital of France" });
  const formatArgs = () => ({ response: "Paris [1].", chunks: [chunk()] });
  const stream = (m) => ({ make: m, methods: { push: [event()], transform: [output()] } });
  return {
    functions: {
      parseCitations: () => ["a [1] b", { sourceCount: 3 }],
      deduplicateAdjacentCites: () => ["a [1][1] b", { markerStyle: "bracket" }],
      checkPolicy: () => ["a [1] b.", { policy: "required", sourceCount: 3 }],
      citationGrammar:
        () => [{ policy: "required", sourceCount: 3, format: "gbnf", maxSentences: 2, maxCitesPerSentence: 1 }],
      splitSentences: () => ["One. Two."],
      aiSdkRequest: () => [{ prompt: "Capital?", sources: [source()], policy: "required" }],
      groundingCitations: () => ["Paris is big.", { groundingChunks: [], groundingSupports: [] }],
      formatChunkAsString: () => [chunk(), { Title: "title" }],
      cslItemOf: () => [chunk().metadata],
      formatReferencesAsString: () => [["Atlas", "Globe"]],
      cosineSimilarities: () => [new Float32Array([1, 0]), [new Float32Array([1, 0])]],
      decodeProviderStream:
        () => [new Response("data: [DONE]\n\n").body, "openai", { transformers: [{ type: "think_tag" }] }],
      lexicalJudge: () => ["Paris is the capital of France.", "Paris is the capital."],
      renderCitedHtml: () => [
        { text: "Paris [1].", citations: lib.parseCitations("Paris [1].", { sourceCount: 1 }), references: [] },
        { idPrefix: "r-" },
      ],
      renderReferences: () => [[source()], [1], { style: "apa-7", format: "html" }],
      bundledStyleNames: () => [],
      setCslWasmUrl: () => [new URL("https://example.invalid/citeflow_csl_bg.wasm")],
      buildLMInvoker: () => ["openai-compatible/ok", {
        apiKey: "sk-test",
        baseUrl: base,
        maxResponseBytes: 1 << 20,
        timeoutMs: 5000,
        // Read as fetch reads it (an object, a Headers object or pairs): hostile values here too.
        headers: [["x-trace", "t"]],
      }],
      buildEMInvoker: () => ["openai-compatible/embed", { apiKey: "sk-test", baseUrl: base }],
      buildDMInvoker: () => ["typesafe/dm", { apiKey: "sk-test", baseUrl: base }],
      isReady: () => [],
      isFullReady: () => [],
    },
    classes: {
      CitationParser: { args: () => [{ sourceCount: 3 }], ...stream(() => new lib.CitationParser({ sourceCount: 3 })) },
      ThinkTagOutputTransformer: {
        // Options read from the JS values in place (src/options/js_value.rs): each one made hostile.
        args: () => [{
          tags: [["<think>", "</think>"], "r", { open: "<a>", close: "</a>" }],
          startInThinking: false,
          idPrefix: "p",
        }],
        ...stream(() => new lib.ThinkTagOutputTransformer()),
      },
      EventFilterOutputTransformer: {
        args: () => [["response"]],
        ...stream(() => new lib.EventFilterOutputTransformer(["response"])),
      },
      IdentityOutputTransformer: { args: () => [], ...stream(() => new lib.IdentityOutputTransformer()) },
      JSONOutputTransformer: { args: () => [], ...stream(() => new lib.JSONOutputTransformer()) },
      ValidationOutputTransformer: {
        args: () => [{ requiredTypes: ["text"] }],
        ...stream(() => new lib.ValidationOutputTransformer({ requiredTypes: ["text"] })),
      },
      OutputTransformerChain: {
        args: () => [[new lib.ThinkTagOutputTransformer()], { onEvent: null }],
        ...stream(() => new lib.OutputTransformerChain([new lib.ThinkTagOutputTransformer()])),
        statics: { fromConfigs: () => [[{ type: "think_tag" }], { onEvent: null }] },
      },
      OutputTransformerConfig: {
        args: () => ["think_tag", {}],
        make: () => lib.OutputTransformerConfig.thinkTag(),
        methods: { build: [], toJSON: [] },
        statics: {
          identity: () => [],
          json: () => [],
          thinkTag: () => [{ tags: ["r"], startInThinking: true }],
          eventFilter: () => [["response"]],
          validation: () => [{ requiredTypes: ["text"] }],
          citations: () => [{ sourceCount: 3, markerStyle: "paren" }],
          fromConfig: () => [{ type: "think_tag", kwargs: { tags: ["r"] } }],
        },
      },
      OutputTransformer: {
        args: () => [],
        make: () => new lib.IdentityOutputTransformer(),
        methods: { transformStream: [] },
      },
      SSEDecoder: {
        args: () => [{ maxLineBytes: 1024, maxEventBytes: 4096 }],
        make: () => new lib.SSEDecoder(),
        methods: { push: ["data: x\n\n"] },
      },
      ProviderStreamDecoder: {
        args: () => ["openai"],
        make: () => new lib.ProviderStreamDecoder("openai"),
        // Every field of an SSE message made hostile in turn (each checked before it is framed).
        methods: { push: [{ event: "message", data: "[DONE]", id: "1", retry: 1000 }] },
      },
      ProviderBodyDecoder: {
        args: () => ["openai", {
          transformers: [new lib.ThinkTagOutputTransformer(), { type: "citations", kwargs: { sourceCount: 1 } }],
        }],
        make: () => new lib.ProviderBodyDecoder("openai", { transformers: [{ type: "citations" }] }),
        methods: { push: ["data: [DONE]\n\n"] },
      },
      ContextConfig: {
        args: () => [{ fields: ["content"] }],
        make: () => new lib.ContextConfig(),
        methods: { render: [chunk()] },
      },
      Citeformer: {
        args: () => [{ lmInvoker: lm(), toCslItem: (s) => s.metadata, deduplicateCites: true, enforce: "auto" }],
        make: () => new lib.Citeformer({ lmInvoker: lm() }),
        methods: {
          generate: [{
            prompt: "Capital?",
            sources: [source()],
            markerStyle: "paren",
            modelOptions: { temperature: 0 },
          }],
          request: [{
            prompt: "Capital?",
            sources: [source()],
            markerStyle: "bracket",
            enforce: "prompt",
            modelOptions: { maxTokens: 20 },
          }],
          stream: [{ prompt: "Capital?", sources: [source()] }],
          result: ["Paris [1].", [source()]],
        },
      },
      GenerationResult: {
        args: () => [{
          text: "Paris [1].",
          citations: [],
          references: [],
          sources: [source()],
          usage: null,
          markerStyle: "bracket",
        }],
        make: () =>
          new lib.GenerationResult({
            text: "Paris [1].",
            citations: [],
            references: [],
            sources: [source()],
            usage: null,
            markerStyle: "bracket",
          }),
        methods: { verify: [{ threshold: 0.5 }], toJSON: [] },
      },
      StreamingResult: { constructOnly: true, args: () => [] },
      NoOpReferenceFormatter: {
        args: () => [{}],
        make: () => new lib.NoOpReferenceFormatter(),
        methods: { format: [formatArgs()], evaluate: [formatArgs()] },
      },
      SimilarityRelevanceFilter: {
        args: () => [em(), {}],
        make: () => new lib.SimilarityRelevanceFilter(em()),
        methods: { filter: [filterArgs()], evaluate: [filterArgs()] },
      },
      SimilarityReferenceFormatter: {
        args: () => [em(), {}],
        make: () => new lib.SimilarityReferenceFormatter(em()),
        methods: { format: [formatArgs()], evaluate: [formatArgs()], ordered: [formatArgs()] },
      },
      SimilarityBasedRelevanceFilter: {
        args: () => [em(), {}],
        make: () => new lib.SimilarityBasedRelevanceFilter(em()),
        methods: { filter: [filterArgs()] },
      },
      SimilarityBasedReferenceFormatter: {
        args: () => [em(), {}],
        make: () => new lib.SimilarityBasedReferenceFormatter(em()),
        methods: { format: [formatArgs()] },
      },
      LMRelevanceFilter: {
        args: () => [lm(), {}],
        make: () => new lib.LMRelevanceFilter(lm()),
        methods: { filter: [filterArgs()], texts: [filterArgs()], evaluate: [filterArgs()] },
        statics: {
          fromPreset: () => ["openai-compatible/ok", { apiKey: "sk-test", baseUrl: base }],
          fromConfig: () => [{ modelId: "openai-compatible/ok", apiKey: "sk-test", baseUrl: base }],
        },
      },
      LMReferenceFormatter: {
        args: () => [lm(), {}],
        make: () => new lib.LMReferenceFormatter(lm()),
        methods: { format: [formatArgs()], evaluate: [formatArgs()] },
        statics: {
          fromPreset: () => ["openai-compatible/ok", { apiKey: "sk-test", baseUrl: base }],
          fromConfig: () => [{ modelId: "openai-compatible/ok", apiKey: "sk-test", baseUrl: base }],
        },
      },
      LMBasedRelevanceFilter: {
        args: () => [lm(), {}],
        make: () => new lib.LMBasedRelevanceFilter(lm()),
        methods: { filter: [filterArgs()] },
      },
      LMBasedReferenceFormatter: {
        args: () => [lm(), {}],
        make: () => new lib.LMBasedReferenceFormatter(lm()),
        methods: { format: [formatArgs()] },
      },
      DMRelevanceFilter: {
        args: () => [dm(), {}],
        make: () => new lib.DMRelevanceFilter(dm()),
        methods: { filter: [filterArgs()], evaluate: [filterArgs()] },
        statics: { fromConfig: () => [{ modelId: "typesafe/dm", apiKey: "sk-test", baseUrl: base }] },
      },
      DMReferenceFormatter: {
        args: () => [dm(), {}],
        make: () => new lib.DMReferenceFormatter(dm()),
        methods: { format: [formatArgs()], evaluate: [formatArgs()] },
        statics: { fromConfig: () => [{ modelId: "typesafe/dm", apiKey: "sk-test", baseUrl: base }] },
      },
    },
    objects: {
      DMQuestion: {
        noul: () => ["Is it relevant?"],
        choice: () => ["Which?", ["a", "b"]],
        score: () => ["How much?", 5],
      },
    },
    invokers: {
      lm: { make: lm, methods: { invoke: ["Hi"], stream: ["Hi"] } },
      em: { make: em, methods: { invoke: [["Hi"]] } },
      dm: { make: dm, methods: { invoke: [null, { q: { type: "noul", question: "Yes?" } }] } },
      // A decision model made of a language model: its calls and its decision are the core's
      // (lmDecisionCalls, lmDecisionResult), the state and questions read there.
      lmDm: {
        make: () => lib.buildDMInvoker("openai-compatible/judge", { apiKey: "sk-test", baseUrl: base }),
        methods: { invoke: [{ state: { query: "q" }, questions: { q: { type: "noul", instructions: "Yes?" } } }] },
      },
    },
    // The initialisers take wasm modules (bytes, URLs, Modules), not data.
    ignored: new Set(["default", "init", "initFull"]),
  };
}

/** Argument lists with one position, or one key of an object argument, made hostile. */
function* variants(args, hostile) {
  const positions = Math.max(args.length, 1);
  for (let i = 0; i < positions; i++) {
    for (const [name, make] of Object.entries(hostile)) {
      const copy = [...args];
      copy[i] = make();
      yield [copy, `argument ${i} = ${name}`];
      const arg = args[i];
      if (
        arg && typeof arg === "object" && !ArrayBuffer.isView(arg) && Object.getPrototypeOf(arg) === Object.prototype
      ) {
        for (const key of Object.keys(arg)) {
          const nested = [...args];
          nested[i] = { ...arg, [key]: make() };
          yield [nested, `argument ${i}.${key} = ${name}`];
        }
      }
      if (Array.isArray(arg) && arg.length > 0) {
        const nested = [...args];
        nested[i] = [make(), ...arg.slice(1)];
        yield [nested, `argument ${i}[0] = ${name}`];
      }
    }
  }
}

function methodsOf(object) {
  const names = new Set();
  for (let p = Object.getPrototypeOf(object); p && p !== Object.prototype; p = Object.getPrototypeOf(p)) {
    for (const n of Object.getOwnPropertyNames(p)) {
      if (n !== "constructor" && typeof Object.getOwnPropertyDescriptor(p, n).value === "function") names.add(n);
    }
  }
  return names;
}

export const hostileCases = {
  async "every entry point refuses hostile values with a CiteflowError and the instance survives"(
    { lib, assert, base, internals },
  ) {
    const table = entryPoints({ lib, base });
    const hostile = hostileValues;
    const problems = [];
    // Both modules count: the transformers, the parser and the decoders live in the streaming one.
    const replacements = () => internals.instanceState().replacements + internals.stream().state().replacements;
    const before = replacements();
    const check = async (what, call) => {
      if (globalThis.process?.env?.HOSTILE_TRACE) console.log("call", what);
      const problem = await outcome(call, what);
      if (problem) problems.push(problem);
      if (problem && globalThis.process?.env?.HOSTILE_TRACE) console.log("PROBLEM", problem);
      const after = replacements();
      if (after !== before) {
        problems.push(
          `${what}: a wasm instance had to be replaced (${
            internals.instanceState().lastFatal ?? internals.stream().state().lastFatal
          })`,
        );
      }
      assert.equal(lib.parseCitations("a [1]", { sourceCount: 1 }).length, 1, `the package works after ${what}`);
    };
    // Every export is in the table, so a new one cannot skip this test.
    for (const name of Object.keys(lib)) {
      const known = name in table.functions || name in table.classes || name in table.objects ||
        table.ignored.has(name);
      if (!known) problems.push(`export ${name} has no entry in tests/portable/hostile.cases.mjs`);
    }
    for (const [name, args] of Object.entries(table.functions)) {
      for (const [hostileArgs, how] of variants(args(), hostile)) {
        await check(`${name}(${how})`, () => lib[name](...hostileArgs));
      }
    }
    for (const [name, spec] of Object.entries(table.classes)) {
      for (const [hostileArgs, how] of variants(spec.args(), hostile)) {
        await check(`new ${name}(${how})`, () => new lib[name](...hostileArgs));
      }
      for (const [method, args] of Object.entries(spec.methods ?? {})) {
        if (!methodsOf(spec.make()).has(method)) problems.push(`${name}.${method} is not a method any more`);
        for (const [hostileArgs, how] of variants(args, hostile)) {
          await check(`${name}.${method}(${how})`, () => spec.make()[method](...hostileArgs));
        }
      }
      for (const [method, args] of Object.entries(spec.statics ?? {})) {
        for (const [hostileArgs, how] of variants(args(), hostile)) {
          await check(`${name}.${method}(${how})`, () => lib[name][method](...hostileArgs));
        }
      }
    }
    for (const [name, fns] of Object.entries(table.objects)) {
      for (const [method, args] of Object.entries(fns)) {
        for (const [hostileArgs, how] of variants(args(), hostile)) {
          await check(`${name}.${method}(${how})`, () => lib[name][method](...hostileArgs));
        }
      }
    }
    for (const [name, spec] of Object.entries(table.invokers)) {
      for (const [method, args] of Object.entries(spec.methods)) {
        for (const [hostileArgs, how] of variants(args, hostile)) {
          await check(`${name}.${method}(${how})`, () => spec.make()[method](...hostileArgs));
        }
      }
    }
    assert.deepEqual(problems.slice(0, 40), [], `${problems.length} problems`);
  },

  async "thousands of refused values in a row leak nothing: same instance, no memory growth"(
    { lib, assert, internals },
  ) {
    const replacements = () => internals.instanceState().replacements + internals.stream().state().replacements;
    const memoryBytes = () => internals.memoryBytes() + internals.stream().memoryBytes();
    const before = replacements();
    const bytesBefore = memoryBytes();
    const refused = (fn) => assert.throws(fn, (e) => e.name === "CiteflowError");
    for (let i = 0; i < 2000; i++) {
      refused(() => new lib.ThinkTagOutputTransformer(hostileValues.throwingGetters()));
      refused(() => new lib.ThinkTagOutputTransformer({ tags: hostileValues.proxy() }));
      refused(() => lib.parseCitations("a [1]", hostileValues.cyclic()));
      refused(() => lib.formatChunkAsString({ content: "x", metadata: hostileValues.deepArray() }));
    }
    assert.equal(replacements(), before, "no call unwound through wasm");
    const grown = memoryBytes() - bytesBefore;
    assert.ok(grown <= 16 * 1024 * 1024, `wasm memory grew by ${grown} bytes over 8,000 refused calls`);
    assert.equal(lib.parseCitations("a [1] b [2]", { sourceCount: 2 }).length, 2);
  },

  async "a trap costs one call: the instance is replaced, new objects and free functions work, old stream objects say INSTANCE_RESET"(
    { lib, assert, internals },
  ) {
    // Two modules, each guarded: the core (whole-text functions) and the streaming one (the
    // transformers, the parser and the decoders live there).
    const before = internals.instanceState().replacements;
    const stream = internals.stream();
    const streamBefore = stream.state().replacements;
    const parser = new lib.CitationParser({ sourceCount: 2 });
    parser.push("Paris [1");
    // The error that reaches the caller names the export that trapped and, from the core, the
    // panic (the module noted it before trapping). The lean streaming module compiles panics as
    // plain traps (wasm-pack.toml): it names the export only.
    // (Each engine words the trap itself: "unreachable", "unreachable code executed", ….)
    const PANIC =
      /\(in `__citeflowTrap`\) \(panicked at src\/wasm\/mod\.rs:\d+:\d+: a panic forced by the package's tests\)/;
    // The plain build (tests/plain/run.mjs; docs/build.md) keeps std's panic code: a note too.
    const plainBuild = globalThis.process?.env?.CITEFLOW_PLAIN_BUILD === "1";
    const TRAP = plainBuild ? PANIC : /\(in `__citeflowTrap`\)$/;
    assert.throws(
      () => internals.forceTrapForTests(),
      (e) => e instanceof WebAssembly.RuntimeError && PANIC.test(e.message),
    );
    assert.equal(internals.instanceState().replacements, before + 1);
    assert.equal(lib.parseCitations("a [1] b [2]", { sourceCount: 2 }).length, 2);
    assert.equal(stream.state().replacements, streamBefore, "a trap in the core leaves the streaming module alone");
    assert.deepEqual(parser.push("] and").map((e) => e.type), ["response", "citation"]);
    assert.throws(() => stream.forceTrap(), (e) => e instanceof WebAssembly.RuntimeError && TRAP.test(e.message));
    assert.equal(stream.state().replacements, streamBefore + 1);
    const think = new lib.ThinkTagOutputTransformer();
    assert.deepEqual(think.push("<think>a</think>b").map((e) => e.type), [
      "thinking_start",
      "thinking",
      "thinking_end",
      "response_start",
      "response",
    ]);
    assert.throws(
      () => parser.finish(),
      (e) =>
        e.code === "INSTANCE_RESET" && /create a new one/.test(e.message) && /\(in `__citeflowTrap`\)/.test(e.message),
    );
    // Many traps in a row: each costs its own call only.
    for (let i = 0; i < 300; i++) assert.throws(() => internals.forceTrapForTests());
    assert.equal(internals.instanceState().replacements, before + 301);
    for (let i = 0; i < 100; i++) assert.throws(() => stream.forceTrap());
    assert.equal(stream.state().replacements, streamBefore + 101);
    assert.equal(lib.parseCitations("a [1]", { sourceCount: 1 })[0].sourceId, 1);
    assert.equal(
      new lib.CitationParser({ sourceCount: 1 }).push("a [1] b").filter((e) => e.type === "citation").length,
      1,
    );
  },

  async "citeflow/stream exports citeflow's streaming classes, which refuse hostile values without a trap"(
    { lib, streamLib, assert, internals },
  ) {
    const names = Object.keys(streamLib).filter((name) => !["default", "init", "isReady"].includes(name));
    for (
      const name of [
        "CitationParser",
        "OutputTransformerChain",
        "ProviderBodyDecoder",
        "ThinkTagOutputTransformer",
        "decodeProviderStream",
      ]
    ) assert.ok(names.includes(name), name);
    for (const name of names) assert.equal(streamLib[name], lib[name], `citeflow/stream's ${name} is citeflow's`);
    assert.equal(streamLib.isReady(), true);
    const before = internals.stream().state().replacements;
    const refused = (fn) => assert.throws(fn, (e) => e.name === "CiteflowError" && typeof e.code === "string");
    refused(() => new streamLib.ThinkTagOutputTransformer(hostileValues.throwingGetters()));
    refused(() => new streamLib.CitationParser(hostileValues.cyclic()));
    refused(() => new streamLib.CitationParser({ sourceCount: hostileValues.bigint() }));
    refused(() => new streamLib.OutputTransformerChain(hostileValues.proxy()));
    refused(() => new streamLib.ProviderBodyDecoder("openai", { transformers: hostileValues.arrayProxy() }));
    refused(() => new streamLib.CitationParser().push(hostileValues.throwingGetters()));
    refused(() => new streamLib.ProviderBodyDecoder("openai").push(hostileValues.badPrimitive()));
    assert.equal(internals.stream().state().replacements, before, "no call unwound through wasm");
    assert.equal(
      new streamLib.CitationParser({ sourceCount: 1 }).push("a [1] b").filter((e) => e.type === "citation").length,
      1,
    );
  },

  async "CSL: hostile styles, dates and titles are errors or escaped, never a dead instance"(
    { lib, assert, internals },
  ) {
    const names = await lib.bundledStyleNames();
    const csl = internals.csl();
    const before = csl.state().replacements;
    const item = (extra) => ({
      id: "a",
      type: "book",
      title: "Atlas",
      author: [{ family: "Doe", given: "Jo" }],
      issued: { "date-parts": [[2020]] },
      ...extra,
    });
    for (const style of names) {
      const [ref] = await lib.renderReferences([item({ issued: { "date-parts": [[2019], [2020]] } })], null, { style });
      assert.ok(ref.entry.includes("2019"), `${style}: a date range renders (its start): ${ref.entry}`);
      const [html] = await lib.renderReferences(
        [item({ title: "<script>alert(1)</script>", author: [{ literal: "<img src=x onerror=alert(1)>" }] })],
        null,
        { style, format: "html" },
      );
      assert.ok(
        !/<script|<img/i.test(html.entry + html.inlineMarker),
        `${style}: markup is escaped: ${html.inlineMarker} ${html.entry}`,
      );
    }
    for (const date of [[[]], [[2020, 0, 0]], [[2020, 14]], [[2020, 2, 45]], [["x"]], [[2020], [2021], [2022]]]) {
      await lib.renderReferences([item({ issued: { "date-parts": date } })], null, { style: "apa-7" }).catch((e) =>
        assert.equal(e.name, "CiteflowError")
      );
    }
    const wrap = (body) =>
      `<?xml version="1.0"?><style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0"><info><title>t</title><id>t</id><updated>2020-01-01T00:00:00+00:00</updated></info>${body}<citation><layout><text variable="title"/></layout></citation></style>`;
    const nested = wrap(
      `<bibliography><layout>${"<group>".repeat(2000)}<text variable="title"/>${
        "</group>".repeat(2000)
      }</layout></bibliography>`,
    );
    const selfCalling = wrap(
      `<macro name="m"><text macro="m"/></macro><bibliography><layout><text macro="m"/></layout></bibliography>`,
    );
    let doubling = `<macro name="m0"><text variable="title"/></macro>`;
    for (let i = 1; i <= 20; i++) {
      doubling += `<macro name="m${i}"><text macro="m${i - 1}"/><text macro="m${i - 1}"/></macro>`;
    }
    doubling = wrap(`${doubling}<bibliography><layout><text macro="m20"/></layout></bibliography>`);
    for (const style of [nested, selfCalling, doubling]) {
      await assert.rejects(lib.renderReferences([item()], null, { style }), (e) => e.code === "INVALID_STYLE");
    }
    const many = Array.from({ length: 1001 }, (_, i) => item({ id: `i${i}`, title: `Work ${i}` }));
    await assert.rejects(lib.renderReferences(many, null, { style: "apa-7" }), (e) => e.code === "TOO_MANY_SOURCES");
    // citeflow/csl's loadStyle (the bundled styles are files loaded on demand).
    for (const make of Object.values(hostileValues)) {
      await csl.loadStyle(make()).then(
        () => {},
        (e) => assert.ok(e.name === "CiteflowError" && typeof e.code === "string", String(e)),
      );
    }
    await assert.rejects(csl.loadStyle("apa-99"), (e) => e.code === "UNKNOWN_STYLE");
    await csl.loadStyle("vancouver");
    assert.equal(csl.state().replacements, before, "no CSL instance was replaced");
    assert.throws(
      () => csl.forceTrap(),
      (e) => e instanceof WebAssembly.RuntimeError && /a panic forced by the package's tests/.test(e.message),
    );
    assert.equal((await lib.renderReferences([item()], null, { style: "apa-7" })).length, 1, "CSL works after a trap");
  },
};
