// Relevance filters and reference formatters, written once and run in Node
// (tests/js/relevance.test.mjs) and in browsers (tests/browser/run.mjs) against the fake
// provider. Its models read the chunk texts: "relevant" → 0.9, "irrelevant" → 0.2, "p=0.5" →
// exactly 0.5; the "semantic" embedder reads a vector from "@[x,y,…]".

const CHUNKS = [
  {
    id: "a",
    content: "Water boils at 100 °C at sea level. relevant @[1,0,0,0]",
    metadata: { file_name: "boiling.pdf", file_url: "https://example.org/boiling" },
  },
  { id: "b", content: "Borderline chunk p=0.5 @[1,1,1,1]", metadata: { file_name: "edge.pdf" } },
  { id: "c", content: "Cats sleep sixteen hours a day. irrelevant @[0,1,0,0]", metadata: { file_name: "cats.pdf" } },
  { id: "d", content: "Just under p=0.49999 @[0,0,1,0]", metadata: { file_name: "under.pdf" } },
];
const QUERY = "At what temperature does water boil? @[1,1,1,1]";
const ids = (chunks) => chunks.map((c) => c.id);
const codeIs = (code) => (e) => e.code === code;

function setup({ lib, base }) {
  const opts = { apiKey: "sk-test", baseUrl: base };
  return {
    opts,
    em: lib.buildEMInvoker("openai-compatible/semantic", opts),
    dm: (model = "typesafe/jev-1.13") => lib.buildDMInvoker(model, opts),
    lm: (model) => lib.buildLMInvoker(`openai-compatible/${model}`, opts),
  };
}

export const relevanceCases = {
  async "similarity filter: cosine ≥ threshold (0.5 kept), input order, scores available"(ctx) {
    const { lib, assert } = ctx;
    const { em } = setup(ctx);
    const filter = new lib.SimilarityRelevanceFilter(em);
    assert.equal(filter.threshold, 0.5);
    const evaluated = await filter.evaluate({ chunks: CHUNKS, query: QUERY });
    assert.deepEqual(evaluated.map((e) => Math.round(e.score * 1000) / 1000), [0.5, 1, 0.5, 0.5]);
    assert.ok(evaluated.every((e, i) => e.chunk === CHUNKS[i]), "the caller's chunk objects come back");
    assert.deepEqual(ids(await filter.filter({ chunks: CHUNKS, query: QUERY })), ["a", "b", "c", "d"]);
    assert.deepEqual(
      ids(await new lib.SimilarityRelevanceFilter(em, { threshold: 0.6 }).filter({ chunks: CHUNKS, query: QUERY })),
      ["b"],
    );
    assert.deepEqual(await filter.filter({ chunks: [], query: QUERY }), []);
  },

  async "similarity formatter: sorted by similarity, highest first"(ctx) {
    const { lib, assert } = ctx;
    const { em } = setup(ctx);
    const chunks = [
      CHUNKS[0],
      { id: "e", content: "close @[1,1,1,0.5]", metadata: { file_name: "close.pdf" } },
      CHUNKS[1],
      CHUNKS[2],
    ];
    const formatter = new lib.SimilarityReferenceFormatter(em, { threshold: 0.55, stringify: false });
    assert.deepEqual(ids(await formatter.format({ response: QUERY, chunks })), ["b", "e"]);
    const text = await new lib.SimilarityReferenceFormatter(em).format({ response: QUERY, chunks });
    assert.equal(
      text,
      "References:\n1. edge.pdf\n2. close.pdf\n3. [boiling.pdf](https://example.org/boiling)\n4. cats.pdf",
    );
  },

  async "cosine similarity: wasm maths, bad embeddings are errors"({ lib, assert }) {
    const scores = lib.cosineSimilarities(new Float32Array([1, 0, 0, 0, 0]), [[2, 0, 0, 0, 0], [0, 1, 0, 0, 0], [
      1,
      1,
      0,
      0,
      0,
    ], [0, 0, 0, 0, 0]]);
    assert.ok(scores instanceof Float32Array);
    assert.deepEqual([...scores].map((s) => Math.round(s * 1e6) / 1e6), [1, 0, 0.707107, 0]);
    assert.throws(
      () => lib.cosineSimilarities([1, 2], [[1, 2], [1, 2, 3]]),
      (e) => e.code === "INVALID_EMBEDDING" && /embedding 1 has 3 dimensions, the query has 2/.test(e.message),
    );
    assert.throws(
      () => lib.cosineSimilarities([1, 2], [[1, NaN]]),
      (e) => e.code === "INVALID_EMBEDDING" && /chunk 0/.test(e.message),
    );
    assert.throws(() => lib.cosineSimilarities([], [[1]]), codeIs("INVALID_EMBEDDING"));
    assert.throws(() => lib.cosineSimilarities([1], ["x"]), codeIs("INVALID_EMBEDDING"));
  },

  async "decision-model filter: batches with global indices, inclusive threshold, order, no calls for nothing"(ctx) {
    const { lib, assert, requests } = ctx;
    const { dm } = setup(ctx);
    const filter = new lib.DMRelevanceFilter(dm("typesafe/count-batches"), { batchSize: 3 });
    assert.deepEqual([filter.threshold, filter.batchSize, filter.maxConcurrency], [0.5, 3, 10]);
    const before = (await requests()).length;
    const evaluated = await filter.evaluate({ chunks: CHUNKS, query: "boiling" });
    assert.deepEqual(evaluated.map((e) => e.score), [0.9, 0.5, 0.2, 0.49999]);
    assert.deepEqual(evaluated.map((e) => e.kept), [true, true, false, false]);
    const sent = (await requests()).slice(before).map((r) => r.body);
    assert.equal(sent.length, 2, "4 chunks in batches of 3: two calls");
    const second = sent.find((b) => "relevance_chunk_3" in b.questions);
    assert.deepEqual(Object.keys(second.questions), ["relevance_chunk_3"]);
    assert.equal(second.state.query, "boiling");
    assert.equal(second.state.chunks.chunk_3, CHUNKS[3].content);
    assert.deepEqual(second.questions.relevance_chunk_3.instructions.target_chunk, "chunk_3");
    assert.equal(
      second.questions.relevance_chunk_3.instructions.task,
      "Evaluate only the chunk identified by target_chunk.",
    );
    const none = (await requests()).length;
    assert.deepEqual(await filter.filter({ chunks: [], query: "q" }), []);
    assert.equal((await requests()).length, none, "empty input makes no calls");
    await assert.rejects(
      new lib.DMRelevanceFilter(dm("typesafe/wrong-type")).filter({ chunks: CHUNKS, query: "q" }),
      codeIs("INVALID_PROVIDER_DATA"),
    );
  },

  async "decision-model filter: at most maxConcurrency calls in flight, and all of them at once when allowed"(ctx) {
    const { lib, assert, maxInFlight } = ctx;
    const { dm } = setup(ctx);
    const chunks = Array.from(
      { length: 100 },
      (_, i) => ({ id: String(i), content: i % 3 ? `chunk ${i} relevant` : `chunk ${i} irrelevant` }),
    );
    // The server holds calls until that many are in flight at once (gather-N), so the counts
    // do not depend on how fast this machine is. Node runs all 10 at once; a browser opens at
    // most 6 HTTP/1.1 connections to one origin.
    const browser = typeof document === "object";
    const all = browser ? "typesafe/gather-6" : "typesafe/gather-10";
    const kept = await new lib.DMRelevanceFilter(dm(all)).filter({ chunks, query: "q" });
    assert.equal(kept.length, 66);
    assert.deepEqual(ids(kept), chunks.filter((_, i) => i % 3).map((c) => c.id), "input order");
    assert.equal(await maxInFlight(all), browser ? 6 : 10, "most calls in flight");
    await new lib.DMRelevanceFilter(dm("typesafe/gather-3"), { maxConcurrency: 3, batchSize: 10 }).filter({
      chunks,
      query: "q",
    });
    assert.equal(await maxInFlight("typesafe/gather-3"), 3);
  },

  async "decision-model formatter and an LM-backed decision model"(ctx) {
    const { lib, assert, requests } = ctx;
    const { dm, opts } = setup(ctx);
    const formatter = lib.DMReferenceFormatter.fromConfig({ modelId: "typesafe/jev-1.13", ...opts, threshold: 0.5 });
    assert.equal(
      await formatter.format({ response: "Water boils at 100 °C.", chunks: CHUNKS }),
      "References:\n1. [boiling.pdf](https://example.org/boiling)\n2. edge.pdf",
    );
    const body = (await requests()).at(-1).body;
    assert.equal(body.state.response, "Water boils at 100 °C.");
    assert.ok("is_relevant_0" in body.questions);
    const custom = new lib.DMReferenceFormatter(dm(), {
      relevanceQuestion: lib.DMQuestion.noul("Is the chunk cited?", { true: "cited", false: "not cited" }),
      stringify: false,
    });
    assert.deepEqual(ids(await custom.format({ response: "r", chunks: CHUNKS })), ["a", "b"]);
    assert.deepEqual((await requests()).at(-1).body.questions.is_relevant_0.criteria, {
      true: "cited",
      false: "not cited",
    });
    const viaLm = lib.DMRelevanceFilter.fromConfig({ modelId: "openai-compatible/judge", ...opts });
    assert.deepEqual(ids(await viaLm.filter({ chunks: CHUNKS, query: "boiling" })), ["a", "b"]);
    assert.throws(
      () => new lib.DMRelevanceFilter(dm(), { relevanceQuestion: lib.DMQuestion.score("?", ["a", "b"]) }),
      codeIs("INVALID_OPTION"),
    );
  },

  async "LM filter: preset prompt and schema, batches, onFailureKeepAll, fallbacks"(ctx) {
    const { lib, assert, requests } = ctx;
    const { lm, opts } = setup(ctx);
    const filter = lib.LMRelevanceFilter.fromPreset("openai-compatible/relevance-judge", { ...opts, batchSize: 2 });
    const before = (await requests()).length;
    assert.deepEqual(ids(await filter.filter({ chunks: CHUNKS, query: "boiling" })), ["a", "b"]);
    const sent = (await requests()).slice(before).map((r) => r.body);
    assert.equal(sent.length, 2);
    assert.equal(sent[0].response_format.json_schema.schema.required[0], "results");
    assert.match(sent[0].messages[1].content, /^Query:\nboiling\n/);
    assert.match(sent[0].messages[1].content, /\[CHUNK\]\nContent:\nWater boils/);
    const keepAll = new lib.LMRelevanceFilter(lm("wrong-count"));
    const evaluated = await keepAll.evaluate({ chunks: CHUNKS, query: "q" });
    assert.ok(
      evaluated.every((e) => e.kept && e.error?.code === "INVALID_MODEL_ANSWER"),
      "a wrong count keeps the batch",
    );
    assert.deepEqual(
      await new lib.LMRelevanceFilter(lm("wrong-count"), { onFailureKeepAll: false }).filter({
        chunks: CHUNKS,
        query: "q",
      }),
      [],
    );
    const rescued = new lib.LMRelevanceFilter(lm("bad-request"), { fallbackLms: [lm("relevance-judge")] });
    assert.deepEqual(ids(await rescued.filter({ chunks: CHUNKS, query: "q" })), ["a", "b"]);
    const withMeta = new lib.LMRelevanceFilter(lm("relevance-judge"), { metadata: ["file_name"] });
    await withMeta.filter({ chunks: CHUNKS.slice(0, 1), query: "q" });
    assert.match((await requests()).at(-1).body.messages[1].content, /Metadata:\n- file_name: boiling\.pdf/);
    const custom = lib.LMRelevanceFilter.fromConfig({
      modelId: "openai-compatible/relevance-judge",
      ...opts,
      systemTemplate: "Judge chunks.",
      userTemplate: "Q={query}\n{chunks}",
      config: { responseSchema: { type: "object" } },
    });
    await custom.filter({ chunks: CHUNKS.slice(0, 1), query: "why" });
    const last = (await requests()).at(-1).body;
    assert.equal(last.messages[0].content, "Judge chunks.");
    assert.match(last.messages[1].content, /^Q=why\n\[CHUNK\]/);
    assert.deepEqual(last.response_format.json_schema.schema, { type: "object" });
  },

  async "LM filter: both templates filled, a context config before metadata and chunkFormat"({ lib, assert }) {
    const sent = [];
    const lm = {
      invoke: async (messages) => {
        sent.push(messages);
        return { outputs: [{ type: "structured", output: { results: [{ explanation: "x", is_relevant: true }] } }] };
      },
    };
    const chunk = { content: "Water boils.", metadata: { title: "T1" } };
    const filter = new lib.LMRelevanceFilter(lm, {
      systemTemplate: "Query {query}, {count} chunk(s).",
      contextConfig: { fields: ["content"] },
      metadata: ["title"],
      chunkFormat: () => "from chunkFormat",
    });
    await filter.filter({ chunks: [chunk], query: "why?" });
    const [system, user] = sent[0];
    assert.equal(system.content, "Query why?, 1 chunk(s).");
    assert.ok(user.content.includes("Water boils."), user.content);
    for (const dropped of ["T1", "from chunkFormat", "Metadata:"]) {
      assert.ok(!user.content.includes(dropped), `${dropped} in ${user.content}`);
    }
    // A system template that shows the chunks needs its own user message.
    for (const [Component, name] of [[lib.LMRelevanceFilter, "{chunks}"], [lib.LMReferenceFormatter, "{context}"]]) {
      assert.throws(
        () => new Component(lm, { systemTemplate: `See ${name}` }),
        (e) => e.code === "INVALID_OPTION" && e.message.includes("userTemplate") && e.message.includes(name),
      );
    }
    sent.length = 0;
    const own = new lib.LMRelevanceFilter(lm, {
      systemTemplate: "Chunks: {context}",
      userTemplate: "Is {query} answered?",
    });
    await own.filter({ chunks: [chunk], query: "why?" });
    assert.ok(sent[0][0].content.startsWith("Chunks: [CHUNK]") && sent[0][0].content.includes("Water boils."));
    assert.equal(sent[0][1].content, "Is why? answered?");
  },

  async "a relevance question that is not noul is INVALID_OPTION; placeholders are listed once"({ lib, assert }) {
    const dm = { invoke: async () => ({}) };
    for (const Component of [lib.DMRelevanceFilter, lib.DMReferenceFormatter]) {
      for (const q of [lib.DMQuestion.choice("x", ["a", "b"]), lib.DMQuestion.score("x", [1, 2])]) {
        assert.throws(
          () => new Component(dm, { relevanceQuestion: q }),
          (e) => e.code === "INVALID_OPTION" && e.message.includes("relevanceQuestion"),
        );
      }
    }
    assert.throws(() => new lib.ContextConfig({ template: "{bogus}" }), (e) => {
      const listed = e.message.slice(e.message.indexOf("supported ones are")).match(/\{[a-zA-Z_]+\}/g);
      return e.code === "INVALID_CONTEXT_CONFIG" && listed.includes("{metadata}") &&
        new Set(listed).size === listed.length;
    });
  },

  async "LM formatter: reference metadata labels, JSON in prose, events"(ctx) {
    const { lib, assert, requests } = ctx;
    const { lm, opts } = setup(ctx);
    const formatter = lib.LMReferenceFormatter.fromPreset("openai-compatible/ref-judge", opts);
    const events = [];
    const text = await formatter.format({
      response: "Water boils at 100 °C.",
      chunks: CHUNKS,
      eventEmitter: (e) => events.push(e),
    });
    assert.equal(text, "References:\n1. [boiling.pdf](https://example.org/boiling)\n2. edge.pdf");
    assert.equal(events.length, 1);
    assert.deepEqual([events[0].type, events[0].value, events[0].valueType], ["reference", text, "text"]);
    const user = (await requests()).at(-1).body.messages[1].content;
    assert.match(user, /<Chunk>\nfile_name: boiling\.pdf\ncontent:\nWater boils[^\n]*\n<\/Chunk>\n\n<Chunk>/);
    const byId = new lib.LMReferenceFormatter(lm("ref-judge"), {
      referenceMetadata: "doc_id",
      responseSchema: null,
      stringify: false,
    });
    const chunkEvents = [];
    const kept = await byId.format({
      response: "r",
      chunks: CHUNKS,
      eventEmitter: { emit: (e) => chunkEvents.push(e) },
    });
    assert.deepEqual(ids(kept), ["a", "b"], "labels fall back to ids; JSON found in prose");
    assert.deepEqual(chunkEvents.map((e) => [e.type, e.valueType, e.value.id]), [["reference", "json", "a"], [
      "reference",
      "json",
      "b",
    ]]);
    assert.equal(new Set(chunkEvents.map((e) => e.id)).size, 1, "one id for the list's events");
    await assert.rejects(
      new lib.LMReferenceFormatter(lm("ok")).format({ response: "r", chunks: CHUNKS }),
      codeIs("INVALID_MODEL_ANSWER"),
    );
    const ac = new AbortController();
    ac.abort(new Error("user left"));
    await assert.rejects(formatter.format({ response: "r", chunks: CHUNKS, signal: ac.signal }), /user left/);
  },

  async "formatter options: callbacks, metadata map, streamable, WritableStream, no-op"({ lib, assert }) {
    const chunks = [{ id: "1", content: "x", metadata: { title: "Doc one", link: "https://e.org/1" } }, {
      id: "2",
      content: "y",
      metadata: { title: "Doc one", link: "https://e.org/1" },
    }, { id: "3", content: "z" }];
    const noop = new lib.NoOpReferenceFormatter({ formatChunkMetadataMap: { title: "title", url: "link" } });
    assert.equal(await noop.format({ response: "r", chunks }), "References:\n1. [Doc one](https://e.org/1)\n2. 3");
    const custom = new lib.NoOpReferenceFormatter({
      formatChunkFunc: (c) => `<${c.id}>`,
      formatReferencesFunc: (items) => items.join(" | "),
    });
    assert.equal(await custom.formatReference({ response: "r", chunks }), "<1> | <2> | <3>");
    const boom = new Error("my formatter broke");
    await assert.rejects(
      new lib.NoOpReferenceFormatter({
        formatChunkFunc: () => {
          throw boom;
        },
      }).format({ response: "r", chunks }),
      (e) => e === boom,
    );
    const written = [];
    const sink = new WritableStream({ write: (e) => void written.push(e) });
    await new lib.NoOpReferenceFormatter({ stringify: false }).format({ response: "r", chunks, eventEmitter: sink });
    assert.deepEqual(written.map((e) => e.value.id), ["1", "2", "3"]);
    const silent = [];
    await new lib.NoOpReferenceFormatter({ streamable: false }).format({
      response: "r",
      chunks,
      eventEmitter: (e) => silent.push(e),
    });
    await new lib.NoOpReferenceFormatter().format({ response: "r", chunks: [], eventEmitter: (e) => silent.push(e) });
    assert.equal(silent.length, 0, "streamable false, or an empty list: no events");
    assert.equal(await new lib.NoOpReferenceFormatter().format({ response: "r", chunks: [] }), "");
  },

  async "chunks, ContextConfig and the default formats"({ lib, assert }) {
    const chunk = { id: "7", content: "Body text.", metadata: { file_name: "guide.pdf", page: 3 } };
    assert.equal(
      new lib.ContextConfig().render(chunk),
      '{\n  "metadata": {\n    "file_name": "guide.pdf",\n    "page": 3\n  }\n}',
    );
    const cfg = new lib.ContextConfig({
      fields: ["metadata", "content"],
      metadataKeys: ["page"],
      template: "{metadata}\n{content}",
    });
    assert.deepEqual([cfg.fields, cfg.metadataKeys, cfg.template], [
      ["metadata", "content"],
      ["page"],
      "{metadata}\n{content}",
    ]);
    assert.equal(cfg.render(chunk), "page: 3\nBody text.");
    assert.equal(new lib.ContextConfig().render({ content: "No metadata." }), "No metadata.");
    assert.throws(
      () => new lib.ContextConfig({ template: "{context_json} {summary}" }),
      (e) =>
        e.code === "INVALID_CONTEXT_CONFIG" && /\{summary\}/.test(e.message) && /\{metadata_json\}/.test(e.message),
    );
    assert.throws(() => new lib.ContextConfig({ feilds: [] }), codeIs("INVALID_CONTEXT_CONFIG"));
    assert.equal(
      lib.formatChunkAsString({ content: "c", metadata: { file_url: "https://e.org/x" } }),
      "[https://e.org/x](https://e.org/x)",
    );
    assert.equal(lib.formatChunkAsString({ id: "doc-9", content: "c", metadata: { file_name: null } }), "doc-9");
    assert.equal(lib.formatChunkAsString({ content: "c", metadata: { name: "N" } }, { title: "name", url: "u" }), "N");
    assert.equal(lib.formatReferencesAsString(["a", "b", "a"]), "References:\n1. a\n2. b");
    assert.equal(lib.formatReferencesAsString([]), "");
  },

  async "deprecated names work and warn once"(ctx) {
    const { lib, assert } = ctx;
    const { em, lm } = setup(ctx);
    const warnings = [];
    const warn = console.warn;
    console.warn = (m) => warnings.push(String(m));
    try {
      const a = new lib.SimilarityBasedRelevanceFilter(em);
      new lib.SimilarityBasedRelevanceFilter(em);
      assert.deepEqual(ids(await a.filter({ chunks: CHUNKS, query: QUERY })), ["a", "b", "c", "d"]);
      assert.ok(a instanceof lib.SimilarityRelevanceFilter);
      assert.deepEqual(
        ids(await new lib.LMBasedRelevanceFilter(lm("relevance-judge")).filter({ chunks: CHUNKS, query: "q" })),
        ["a", "b"],
      );
      assert.equal(
        await new lib.SimilarityBasedReferenceFormatter(em, { threshold: 0.9 }).format({
          response: QUERY,
          chunks: CHUNKS,
        }),
        "References:\n1. edge.pdf",
      );
      assert.equal(
        await new lib.LMBasedReferenceFormatter(lm("ref-judge")).format({ response: "r", chunks: CHUNKS.slice(0, 1) }),
        "References:\n1. [boiling.pdf](https://example.org/boiling)",
      );
      assert.ok(
        lib.LMBasedReferenceFormatter.fromPreset("openai/gpt-5-nano", { apiKey: "k" }) instanceof
          lib.LMReferenceFormatter,
      );
    } finally {
      console.warn = warn;
    }
    for (
      const name of [
        "SimilarityBasedRelevanceFilter",
        "LMBasedRelevanceFilter",
        "SimilarityBasedReferenceFormatter",
        "LMBasedReferenceFormatter",
      ]
    ) {
      assert.equal(warnings.filter((w) => w.includes(`${name} is deprecated`)).length, 1, name);
    }
  },

  async "bad options and bad chunks are clear errors"(ctx) {
    const { lib, assert } = ctx;
    const { em, dm, lm } = setup(ctx);
    for (const threshold of [1.5, -0.1, true, "0.5", NaN, [0.5]]) {
      assert.throws(
        () => new lib.SimilarityRelevanceFilter(em, { threshold }),
        (e) => e.code === "INVALID_OPTION" && /threshold/.test(e.message),
        String(threshold),
      );
    }
    assert.throws(() => new lib.DMRelevanceFilter(dm(), { batchSize: 0 }), codeIs("INVALID_OPTION"));
    assert.throws(() => new lib.DMRelevanceFilter(dm(), { maxConcurrency: 0.5 }), codeIs("INVALID_OPTION"));
    assert.throws(() => new lib.LMRelevanceFilter(lm("x"), { batchSize: -1 }), codeIs("INVALID_OPTION"));
    assert.throws(
      () => new lib.LMRelevanceFilter(lm("x"), { on_failure_keep_all: true }),
      (e) => e.code === "INVALID_OPTION" && /on_failure_keep_all/.test(e.message),
    );
    assert.throws(() => new lib.SimilarityRelevanceFilter({}), codeIs("INVALID_OPTION"));
    assert.throws(() => new lib.NoOpReferenceFormatter({ stringify: "yes" }), codeIs("INVALID_OPTION"));
    assert.throws(
      () => new lib.NoOpReferenceFormatter({ formatChunkMetadataMap: { heading: "h" } }),
      codeIs("INVALID_OPTION"),
    );
    const filter = new lib.SimilarityRelevanceFilter(em);
    await assert.rejects(
      filter.filter({ chunks: [{ id: "x" }], query: "q" }),
      (e) => e.code === "INVALID_CHUNK" && /chunks\[0\]: has no `content`/.test(e.message),
    );
    await assert.rejects(
      filter.filter({ chunks: [{ content: "ok" }, { content: "   " }], query: "q" }),
      (e) => e.code === "INVALID_CHUNK" && /chunks\[1\]/.test(e.message),
    );
    await assert.rejects(filter.filter({ chunks: CHUNKS }), codeIs("INVALID_OPTION"));
    await assert.rejects(
      new lib.NoOpReferenceFormatter().format({ response: "r", chunks: "nope" }),
      codeIs("INVALID_CHUNK"),
    );
    await assert.rejects(
      new lib.NoOpReferenceFormatter().format({ response: "r", chunks: [], eventEmitter: 42 }),
      codeIs("INVALID_OPTION"),
    );
    const mismatched = new lib.SimilarityRelevanceFilter(
      lib.buildEMInvoker("openai-compatible/semantic", { apiKey: "sk-test", baseUrl: ctx.base }),
    );
    await assert.rejects(
      mismatched.filter({ chunks: [{ content: "two dims @[1,0]" }], query: "q" }),
      codeIs("INVALID_EMBEDDING"),
    );
  },
};
