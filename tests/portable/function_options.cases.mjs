// Options never dropped: every option object (per-call ones included) is read with unknown keys
// refused, and a function in one is refused (INVALID_OPTION) unless the key takes a function
// (an `onEvent` listener where the transformer has `emit`, a `fetch`, a judge, …); a function
// cannot cross into wasm as data, where it would be dropped without a word. An extra positional
// argument nobody reads is refused too. Table-driven over every export of "citeflow" and
// "citeflow/stream", written once and run in Node (tests/js/function_options.test.mjs) and in
// browsers (tests/browser/run.mjs) against the fake provider.

const fn = () => 1;
const MISSPELT = "sourceCuont";

/** A call's outcome, settled: promises awaited, streams read to their end, results finalized. */
async function settle(run) {
  const value = await run();
  if (value !== null && typeof value === "object") {
    if (typeof value.getReader === "function") {
      const reader = value.getReader();
      while (!(await reader.read()).done);
    } else if (typeof value.finalize === "function") {
      await value.finalize();
    }
  }
  return value;
}

/** Why `run` was refused: the error, or a string saying it was not refused with `code`. */
async function refusal(run, code) {
  try {
    await settle(run);
  } catch (e) {
    if (e?.name === "CiteflowError" && e.code === code) return null;
    return `threw ${e?.name} ${e?.code}: ${e?.message}`;
  }
  return "was accepted";
}

/** Where the options object is in the arguments: an index, or an index and a key under it. */
function withOptions(args, at, change) {
  const copy = [...args];
  const [i, key] = Array.isArray(at) ? at : [at];
  if (key === undefined) copy[i] = change(copy[i]);
  else copy[i] = { ...copy[i], [key]: change(copy[i][key]) };
  return copy;
}

/**
 * Every export, and how to call it: `call(args)` with `args()` valid; `arity`: how many
 * positional arguments it reads; `options`: where its options object is (when it takes one);
 * `takes`: its keys that take a function; `emits`: a transformer with `emit`, whose `onEvent`
 * is its listener; `codes`: the code a function under a key gets when that key is an argument
 * of its own domain (a prompt, chunks) rather than an option; `wholeCode`: the code when the
 * options object itself is a function, where that is not INVALID_OPTION; `refused`: keys the
 * issue names as dropped before, checked by name; `valid: false`: a valid call is not
 * repeatable (setting where the CSL module loads from).
 */
export function functionOptionEntries({ lib, base }) {
  const opts = { apiKey: "sk-test", baseUrl: base };
  const lm = () => lib.buildLMInvoker("openai-compatible/ok", { ...opts, maxRetries: 0 });
  const em = () => lib.buildEMInvoker("openai-compatible/embed", opts);
  const dm = () => lib.buildDMInvoker("typesafe/dm", opts);
  const lmDm = () => lib.buildDMInvoker("openai-compatible/judge", opts);
  const chunk = () => ({ id: "a", content: "Paris is the capital of France.", metadata: { file_name: "atlas.txt" } });
  const source = () => ({
    content: "Paris is the capital of France.",
    metadata: { type: "book", title: "Atlas", issued: { "date-parts": [[2020]] } },
  });
  const request = () => ({ state: "s", questions: { q: lib.DMQuestion.noul("Is it relevant?") } });
  // A decision invoker's call: its options, and its request, whose keys are read as options'
  // are (`assets` was dropped from it before).
  const decisions = (name, make) => ({
    [`${name}.invoke`]: { call: (a) => make().invoke(...a), args: () => [request(), {}], arity: 2, options: 1 },
    [`${name}.invoke's request`]: {
      call: (a) => make().invoke(...a),
      args: () => [request()],
      arity: 2,
      options: 0,
      refused: ["assets"],
    },
  });
  const filterArgs = () => [{ chunks: [chunk()], query: "capital of France" }];
  const formatArgs = () => [{ response: "Paris is the capital [1].", chunks: [chunk()] }];
  const argCodes = { chunks: "INVALID_CHUNK", prompt: "INVALID_TEXT", sources: "NO_SOURCES" };
  const generation = () => ({
    text: "Paris [1].",
    citations: [],
    references: [],
    sources: [source()],
    usage: null,
    markerStyle: "bracket",
  });
  const cited = () => [{
    prompt: "Capital?",
    sources: [source()],
    policy: "required",
    markerStyle: "bracket",
    enforce: "prompt",
    modelOptions: { temperature: 0 },
  }];
  const citeformer = () => new lib.Citeformer({ lmInvoker: lm() });
  // A component's call taking one argument object (chunks, a query or a response, a signal).
  const method = (make, name, args, more = {}) => ({
    call: (a) => make()[name](...a),
    args,
    arity: 1,
    options: 0,
    codes: argCodes,
    ...more,
  });
  const filter = (name, make) => ({
    [`${name}.filter`]: method(make, "filter", filterArgs),
    [`${name}.evaluate`]: method(make, "evaluate", filterArgs),
  });
  const formatter = (name, make) => ({
    [`${name}.format`]: method(make, "format", formatArgs, { takes: ["eventEmitter"] }),
    [`${name}.evaluate`]: method(make, "evaluate", formatArgs),
  });
  const building = (Class, model, more = {}) => ({
    [`${Class}.fromConfig`]: {
      call: (a) => lib[Class].fromConfig(...a),
      args: () => [{ modelId: model, ...opts, ...more }],
      arity: 1,
      options: 0,
      takes: ["fetch"],
      codes: { modelId: "INVALID_MODEL_ID" },
    },
  });
  const presets = (Class, model, more) => ({
    ...building(Class, model, more),
    [`${Class}.fromPreset`]: {
      call: (a) => lib[Class].fromPreset(...a),
      args: () => [model, { ...opts, ...more }],
      arity: 2,
      options: 1,
      takes: ["fetch"],
    },
  });
  return {
    ...streamEntries(lib),
    parseCitations: { args: () => ["a [1]", { sourceCount: 3, markerStyle: "bracket" }], arity: 2, options: 1 },
    deduplicateAdjacentCites: { args: () => ["a [1] [1]", { markerStyle: "bracket" }], arity: 2, options: 1 },
    checkPolicy: { args: () => ["a [1] b.", { policy: "required", sourceCount: 3 }], arity: 2, options: 1 },
    citationGrammar: {
      args: () => [{ policy: "required", sourceCount: 3, format: "gbnf", maxSentences: 2, maxCitesPerSentence: 1 }],
      arity: 1,
      options: 0,
    },
    splitSentences: { args: () => ["One. Two."], arity: 1 },
    formatChunkAsString: { args: () => [chunk(), { title: "file_name", url: "file_url" }], arity: 2, options: 1 },
    cslItemOf: { args: () => [{ title: "Atlas" }], arity: 1 },
    formatReferencesAsString: { args: () => [["Atlas"]], arity: 1 },
    cosineSimilarities: { args: () => [[1, 0], [[1, 0]]], arity: 2 },
    lexicalJudge: { args: () => ["Paris is big.", "Paris is big."], arity: 2 },
    groundingCitations: {
      args: () => ["Paris is big.", { groundingChunks: [{ web: { uri: "https://example.org/p", title: "P" } }] }],
      arity: 2,
    },
    aiSdkRequest: {
      args: () => [{
        prompt: "Capital?",
        sources: [source()],
        policy: "required",
        markerStyle: "bracket",
        enforce: "prompt",
      }],
      arity: 1,
      options: 0,
      codes: argCodes,
    },
    renderCitedHtml: {
      args: () => [{ text: "Paris [1].", citations: [], references: [] }, { idPrefix: "r-" }],
      arity: 2,
      options: 1,
    },
    renderReferences: { args: () => [[source()], [1], { style: "apa-7", format: "html" }], arity: 3, options: 2 },
    bundledStyleNames: { args: () => [], arity: 0 },
    setCslWasmUrl: { args: () => ["https://example.invalid/citeflow_csl_bg.wasm"], arity: 1, valid: false },
    buildLMInvoker: {
      args: () => ["openai-compatible/ok", { ...opts, timeoutMs: 5000, maxRetries: 0, maxResponseBytes: 1 << 20 }],
      arity: 2,
      options: 1,
      takes: ["fetch"],
      refused: ["onRetry"],
    },
    buildEMInvoker: { args: () => ["openai-compatible/embed", { ...opts, batchSize: 10 }], arity: 2, options: 1 },
    buildDMInvoker: { args: () => ["typesafe/dm", { ...opts, maxConcurrency: 2 }], arity: 2, options: 1 },
    "lmInvoker.invoke": {
      call: (a) => lm().invoke(...a),
      args: () => ["Hi", { temperature: 0, maxTokens: 20 }],
      arity: 2,
      options: 1,
    },
    "lmInvoker.stream": {
      call: (a) => lm().stream(...a),
      args: () => ["Hi", { temperature: 0, maxTokens: 20 }],
      arity: 2,
      options: 1,
    },
    "emInvoker.invoke": { call: (a) => em().invoke(...a), args: () => [["Hi"], {}], arity: 2, options: 1 },
    ...decisions("dmInvoker", dm),
    ...decisions("LM-backed dmInvoker", lmDm),
    "DMQuestion.noul": {
      call: (a) => lib.DMQuestion.noul(...a),
      args: () => ["Relevant?", { true: "it helps", false: "it does not" }],
      arity: 2,
    },
    "DMQuestion.choice": {
      call: (a) => lib.DMQuestion.choice(...a),
      args: () => ["Which?", { a: "A", b: "B" }],
      arity: 2,
    },
    "DMQuestion.score": {
      call: (a) => lib.DMQuestion.score(...a),
      args: () => ["How much?", ["low", "high"]],
      arity: 2,
    },
    ContextConfig: {
      args: () => [{ fields: ["content"], metadataKeys: null, template: "{content}" }],
      arity: 1,
      options: 0,
    },
    Citeformer: {
      args: () => [{
        lmInvoker: lm(),
        style: "apa-7",
        citationPolicy: "required",
        markerStyle: "bracket",
        deduplicateCites: true,
        enforce: "auto",
      }],
      arity: 1,
      options: 0,
      takes: ["toCslItem"],
      refused: ["eventEmitter"],
    },
    "Citeformer.generate": {
      call: (a) => citeformer().generate(...a),
      args: cited,
      arity: 1,
      options: 0,
      codes: argCodes,
      refused: ["onChunk"],
    },
    "Citeformer.stream": {
      call: (a) => citeformer().stream(...a),
      args: cited,
      arity: 1,
      options: 0,
      codes: argCodes,
      refused: ["onChunk"],
    },
    "Citeformer.request": {
      call: (a) => citeformer().request(...a),
      args: cited,
      arity: 1,
      options: 0,
      codes: argCodes,
    },
    "Citeformer.result": { call: (a) => citeformer().result(...a), args: () => ["Paris [1].", [source()]], arity: 3 },
    GenerationResult: { args: () => [generation()], arity: 1, options: 0 },
    "GenerationResult.verify": {
      call: (a) => new lib.GenerationResult(generation()).verify(...a),
      args: () => [{ threshold: 0.5 }],
      arity: 1,
      options: 0,
      takes: ["judge"],
    },
    NoOpReferenceFormatter: {
      args: () => [{ stringify: true, streamable: true, formatChunkMetadataMap: { title: "file_name" } }],
      arity: 1,
      options: 0,
      takes: ["formatChunkFunc", "formatReferencesFunc"],
    },
    ...formatter("NoOpReferenceFormatter", () => new lib.NoOpReferenceFormatter()),
    SimilarityRelevanceFilter: { args: () => [em(), { threshold: 0.5 }], arity: 2, options: 1 },
    ...filter("SimilarityRelevanceFilter", () => new lib.SimilarityRelevanceFilter(em())),
    SimilarityBasedRelevanceFilter: { args: () => [em(), { threshold: 0.5 }], arity: 2, options: 1 },
    SimilarityReferenceFormatter: {
      args: () => [em(), { threshold: 0.5, stringify: false }],
      arity: 2,
      options: 1,
      takes: ["formatChunkFunc", "formatReferencesFunc"],
    },
    ...formatter("SimilarityReferenceFormatter", () => new lib.SimilarityReferenceFormatter(em())),
    SimilarityBasedReferenceFormatter: { args: () => [em(), { threshold: 0.5 }], arity: 2, options: 1 },
    LMRelevanceFilter: {
      args: () => [lm(), { batchSize: 2, maxConcurrency: 2, onFailureKeepAll: true }],
      arity: 2,
      options: 1,
      takes: ["chunkFormat"],
    },
    ...presets("LMRelevanceFilter", "openai-compatible/relevance-judge", { batchSize: 2 }),
    ...filter("LMRelevanceFilter", () => new lib.LMRelevanceFilter(lm())),
    LMBasedRelevanceFilter: { args: () => [lm(), { batchSize: 2 }], arity: 2, options: 1, takes: ["chunkFormat"] },
    LMReferenceFormatter: {
      args: () => [lm(), { batchSize: 2, referenceMetadata: "file_name", stringify: false }],
      arity: 2,
      options: 1,
      takes: ["formatChunkFunc", "formatReferencesFunc"],
    },
    ...presets("LMReferenceFormatter", "openai-compatible/ref-judge", { batchSize: 2 }),
    ...formatter(
      "LMReferenceFormatter",
      () => lib.LMReferenceFormatter.fromPreset("openai-compatible/ref-judge", opts),
    ),
    LMBasedReferenceFormatter: { args: () => [lm(), { batchSize: 2 }], arity: 2, options: 1 },
    DMRelevanceFilter: {
      args: () => [dm(), { threshold: 0.5, batchSize: 2, maxConcurrency: 2 }],
      arity: 2,
      options: 1,
    },
    ...building("DMRelevanceFilter", "typesafe/dm", { threshold: 0.5 }),
    ...filter("DMRelevanceFilter", () => new lib.DMRelevanceFilter(dm())),
    DMReferenceFormatter: { args: () => [dm(), { threshold: 0.5, stringify: false }], arity: 2, options: 1 },
    ...building("DMReferenceFormatter", "typesafe/dm", { threshold: 0.5 }),
    ...formatter("DMReferenceFormatter", () => new lib.DMReferenceFormatter(lmDm())),
  };
}

/** The streaming surface's entries, of "citeflow" or of "citeflow/stream". */
function streamEntries(lib) {
  const stream = "data: " +
    JSON.stringify({ choices: [{ index: 0, delta: { content: "Hi" }, finish_reason: "stop" }] }) +
    "\n\ndata: [DONE]\n\n";
  // A config's kwargs that are not an object (a function among them) are a config of the wrong
  // shape: INVALID_CONFIG, as for any config.
  const config = (name, args, arity, options) => ({
    [`OutputTransformerConfig.${name}`]: {
      call: (a) => lib.OutputTransformerConfig[name](...a),
      args,
      arity,
      options,
      wholeCode: "INVALID_CONFIG",
    },
  });
  return {
    groundingCitations: {
      args: () => ["Paris is big.", { groundingChunks: [{ web: { uri: "https://example.org/p", title: "P" } }] }],
      arity: 2,
    },
    IdentityOutputTransformer: { args: () => [{}], arity: 1, options: 0, emits: true },
    JSONOutputTransformer: { args: () => [{}], arity: 1, options: 0, emits: true },
    EventFilterOutputTransformer: { args: () => [["response"], {}], arity: 2, options: 1, emits: true },
    ThinkTagOutputTransformer: {
      args: () => [{ tags: ["think"], startInThinking: false, idPrefix: "p" }],
      arity: 1,
      options: 0,
      emits: true,
    },
    ValidationOutputTransformer: {
      args: () => [{ requiredTypes: ["text"], mode: "all" }],
      arity: 1,
      options: 0,
      emits: true,
    },
    CitationParser: { args: () => [{ sourceCount: 3, markerStyle: "bracket" }], arity: 1, options: 0, emits: true },
    OutputTransformerChain: {
      args: () => [[new lib.ThinkTagOutputTransformer()], {}],
      arity: 2,
      options: 1,
      emits: true,
    },
    "OutputTransformerChain.fromConfigs": {
      call: (a) => lib.OutputTransformerChain.fromConfigs(...a),
      args: () => [["think_tag"], {}],
      arity: 2,
      options: 1,
      emits: true,
    },
    OutputTransformerConfig: {
      args: () => ["think_tag", { tags: ["think"] }],
      arity: 2,
      options: 1,
      wholeCode: "INVALID_CONFIG",
    },
    ...config("identity", () => [], 0),
    ...config("json", () => [], 0),
    ...config("thinkTag", () => [{ tags: ["think"], idPrefix: "p" }], 1, 0),
    ...config("eventFilter", () => [["response"]], 1),
    ...config("validation", () => [{ requiredTypes: ["text"] }], 1, 0),
    ...config("citations", () => [{ sourceCount: 2, markerStyle: "paren" }], 1, 0),
    ...config("fromConfig", () => [{ type: "citations", kwargs: { sourceCount: 2 } }], 1, [0, "kwargs"]),
    SSEDecoder: { args: () => [{ maxLineBytes: 1024, maxEventBytes: 4096 }], arity: 1, options: 0 },
    ProviderStreamDecoder: { args: () => ["openai"], arity: 1 },
    ProviderBodyDecoder: { args: () => ["openai", { transformers: [{ type: "think_tag" }] }], arity: 2, options: 1 },
    decodeProviderStream: {
      args: () => [new Response(stream).body, "openai", { transformers: [{ type: "citations" }] }],
      arity: 3,
      options: 2,
    },
  };
}

// Exports that take no options and no data: the initialisers (wasm sources, not data), the
// readiness checks, the abstract base class, and a result only Citeformer.stream makes.
const NOT_CALLED = new Set(["default", "init", "initFull", "isReady", "isFullReady", "OutputTransformer"]);
const NOT_CONSTRUCTED = new Set(["StreamingResult"]);

/** Runs the table's checks; returns the problems found. */
async function check(lib, entries) {
  const problems = [];
  const callOf = (name, spec) => {
    if (spec.call) return spec.call;
    const target = lib[name];
    const isClass = /^[A-Z]/.test(name);
    return isClass ? (a) => new target(...a) : (a) => target(...a);
  };
  for (const name of Object.keys(lib)) {
    if (!(name in entries) && !NOT_CALLED.has(name) && !NOT_CONSTRUCTED.has(name) && name !== "DMQuestion") {
      problems.push(`export ${name} has no entry in tests/portable/function_options.cases.mjs`);
    }
  }
  for (const [name, spec] of Object.entries(entries)) {
    const call = callOf(name, spec);
    const expect = async (what, args, code = "INVALID_OPTION", test = null) => {
      const why = await refusal(() => call(args), code);
      if (why !== null) problems.push(`${name}: ${what} ${why}`);
      else if (test !== null) {
        try {
          await settle(() => call(args));
        } catch (e) {
          if (!test(e)) problems.push(`${name}: ${what} was refused, but not as expected: ${e.message}`);
        }
      }
    };
    // Not vacuous: the valid call works, so each refusal below is the change made to it.
    if (spec.valid !== false) {
      try {
        await settle(() => call(spec.args()));
      } catch (e) {
        problems.push(`${name}: the valid call threw ${e?.code}: ${e?.message}`);
        continue;
      }
    }
    const padded = [...spec.args(), ...Array(Math.max(0, spec.arity - spec.args().length)).fill(undefined)];
    await expect("an extra argument", [...padded, fn], "INVALID_OPTION", (e) => /as argument \d/.test(e.message));
    if (spec.options === undefined) continue;
    const options = spec.args();
    const at = spec.options;
    const [index, sub] = Array.isArray(at) ? at : [at];
    const given = sub === undefined ? options[index] : options[index][sub];
    // The message names the key refused.
    const names = (key) => (e) => e.message.includes(key);
    await expect(
      "a function under a misspelt key",
      withOptions(options, at, (o) => ({ ...o, [MISSPELT]: fn })),
      "INVALID_OPTION",
      names(MISSPELT),
    );
    for (const key of spec.refused ?? []) {
      await expect(
        `a function under \`${key}\``,
        withOptions(spec.args(), at, (o) => ({ ...o, [key]: fn })),
        "INVALID_OPTION",
        names(key),
      );
    }
    if (sub === undefined) {
      await expect("a function as the options object", withOptions(spec.args(), at, () => fn), spec.wholeCode);
    }
    for (const key of Object.keys(given)) {
      if ((spec.takes ?? []).includes(key)) continue;
      const code = spec.codes?.[key] ?? "INVALID_OPTION";
      await expect(
        `a function under \`${key}\``,
        withOptions(spec.args(), at, (o) => ({ ...o, [key]: fn })),
        code,
        code === "INVALID_OPTION" ? names(key) : null,
      );
    }
    if (spec.emits) {
      const seen = [];
      try {
        const made = call(withOptions(spec.args(), at, (o) => ({ ...o, onEvent: (e) => seen.push(e) })));
        made.emit("Hello there.");
        made.emitFinish();
      } catch (e) {
        problems.push(`${name}: emit with an onEvent option threw ${e?.code}: ${e?.message}`);
      }
      if (seen.length === 0 || !seen.every((e) => typeof e?.type === "string")) {
        problems.push(`${name}: onEvent was not called with the events emit released (${JSON.stringify(seen)})`);
      }
      await expect("an onEvent that is not a function", withOptions(spec.args(), at, (o) => ({ ...o, onEvent: 1 })));
    } else {
      await expect(
        "an onEvent listener (it has no emit)",
        withOptions(spec.args(), at, (o) => ({ ...o, onEvent: fn })),
      );
    }
  }
  return problems;
}

export const functionOptionCases = {
  async "every entry point of citeflow: a function where data goes is refused, onEvent taken where there is emit"(
    ctx,
  ) {
    const { lib, assert } = ctx;
    const problems = await check(lib, functionOptionEntries(ctx));
    assert.equal(problems.length, 0, `${problems.length} problems:\n${problems.slice(0, 80).join("\n")}`);
  },

  async "every entry point of citeflow/stream: the same rules in the lean streaming module"({ streamLib, assert }) {
    const problems = await check(streamLib, streamEntries(streamLib));
    assert.equal(problems.length, 0, `${problems.length} problems:\n${problems.slice(0, 80).join("\n")}`);
  },

  async "the issue's cases: sourceCount as a function is refused, not read as no source count"(
    { lib, streamLib, assert },
  ) {
    for (const l of [lib, streamLib]) {
      assert.throws(
        () => new l.CitationParser({ sourceCount: () => 1 }),
        (e) => e.code === "INVALID_OPTION" && /sourceCount/.test(e.message) && /function/.test(e.message),
      );
      assert.throws(
        () => new l.ThinkTagOutputTransformer({ idPrefx: () => "x" }),
        (e) => e.code === "INVALID_OPTION" && /idPrefx/.test(e.message),
      );
      assert.throws(() => new l.ThinkTagOutputTransformer(fn), (e) => e.code === "INVALID_OPTION");
      assert.throws(() => new l.EventFilterOutputTransformer(["response"], fn), (e) => e.code === "INVALID_OPTION");
      assert.throws(() => new l.ProviderStreamDecoder("openai", {}), (e) => e.code === "INVALID_OPTION");
      // A listener goes where emit uses it, and a fresh copy reads the same options.
      const seen = [];
      const parser = new l.CitationParser({ sourceCount: 5, onEvent: (e) => seen.push(e.type) });
      parser.emit("Paris [5] and [6].");
      parser.emitFinish();
      assert.ok(seen.includes("citation"), JSON.stringify(seen));
      assert.deepEqual(
        parser.fresh().transform({ outputs: [{ type: "text", output: "a [6]" }] }).citations.map((c) => c.valid),
        [false],
      );
    }
    assert.throws(
      () => lib.parseCitations("[5]", { sourceCount: () => 1 }),
      (e) => e.code === "INVALID_OPTION" && /sourceCount/.test(e.message),
    );
  },
};
