// `maxConcurrency` bounds HTTP requests in flight, not calls or batches: for a decision model
// built on a language model (one request per question), one `invoke` and a relevance
// component's whole call (all its batches and their questions). Written once, run in Node
// (tests/js/concurrency.test.mjs) and in browsers (tests/browser/run.mjs) against the fake
// provider, whose `judge-…-gather-N-slow-M` models hold calls until N are in flight at once,
// then M ms more, and count the most in flight per model (so "N at once" is seen however slow
// the machine is, and more than N whenever more are sent).

// A browser opens at most 6 HTTP/1.1 connections to one origin: a bound above that shows as 6.
const seenAt = (bound) => (typeof document === "object" ? Math.min(bound, 6) : bound);
const codeIs = (code) => (e) => e.code === code;

function setup({ lib, base }) {
  const opts = { apiKey: "sk-test", baseUrl: base };
  return { opts, dm: (model, more = {}) => lib.buildDMInvoker(`openai-compatible/${model}`, { ...opts, ...more }) };
}

// 40 chunks: 8 batches of 5 (the default batch size), 40 requests; every third is irrelevant.
const CHUNKS = Array.from(
  { length: 40 },
  (_, i) => ({ id: String(i), content: i % 3 ? `chunk ${i} relevant` : `chunk ${i} irrelevant` }),
);
const KEPT = CHUNKS.filter((_, i) => i % 3).map((c) => c.id);

export const concurrencyCases = {
  async "a relevance filter on an LM-backed decision model: maxConcurrency: 1 is one HTTP request at a time"(ctx) {
    const { lib, assert, maxInFlight } = ctx;
    const { dm } = setup(ctx);
    const model = "judge-filter-one-gather-1-slow-20";
    const filter = new lib.DMRelevanceFilter(dm(model), { maxConcurrency: 1 });
    const kept = await filter.filter({ chunks: CHUNKS, query: "q" });
    assert.deepEqual(kept.map((c) => c.id), KEPT, "input order");
    assert.equal(await maxInFlight(model), 1, "requests in flight at most");
  },

  async "a relevance filter on an LM-backed decision model: the default bound (10) across batches and questions"(ctx) {
    const { lib, assert, maxInFlight } = ctx;
    const { dm, opts } = setup(ctx);
    const bound = seenAt(10);
    const model = `judge-filter-default-gather-${bound}-slow-30`;
    const filter = new lib.DMRelevanceFilter(dm(model));
    assert.equal(filter.maxConcurrency, 10);
    const kept = await filter.filter({ chunks: CHUNKS, query: "q" });
    assert.deepEqual(kept.map((c) => c.id), KEPT, "input order");
    assert.equal(await maxInFlight(model), bound, "requests in flight at most");
    // Built from a config, and as a reference formatter: the same bound.
    const formatter = lib.DMReferenceFormatter.fromConfig({
      modelId: "openai-compatible/judge-formatter-gather-3-slow-30",
      ...opts,
      maxConcurrency: 3,
      stringify: false,
    });
    const used = await formatter.format({ response: "r", chunks: CHUNKS });
    assert.deepEqual(used.map((c) => c.id), KEPT);
    assert.equal(await maxInFlight("judge-formatter-gather-3-slow-30"), 3);
  },

  async "one LM-backed decision of 100 questions: at most maxConcurrency requests (default 10), answers in order"(
    ctx,
  ) {
    const { lib, assert, maxInFlight } = ctx;
    const { dm } = setup(ctx);
    // Question i's answer is the probability its instructions name (the fake judge reads "p=").
    const p = (i) => ((i + 1) / 200).toFixed(3);
    const questions = Object.fromEntries(
      Array.from({ length: 100 }, (_, i) => [`q${i}`, lib.DMQuestion.noul(`Is it so? p=${p(i)}`)]),
    );
    const bound = seenAt(10);
    const model = `judge-invoke-default-gather-${bound}-slow-30`;
    const decision = await dm(model).invoke({ state: "a state", questions });
    assert.equal(await maxInFlight(model), bound, "requests in flight at most");
    assert.deepEqual(Object.keys(decision.answers), Object.keys(questions), "the questions' order");
    Object.values(decision.answers).forEach((a, i) => {
      assert.ok(Math.abs(a.noul - Number(p(i))) < 1e-9, `q${i}: ${a.noul}`);
    });
    assert.equal(decision.usage.raw.length, 100);
    // Its own bound, and the checks of it.
    const three = "judge-invoke-three-gather-3-slow-30";
    const answered = await dm(three, { maxConcurrency: 3 }).invoke({ state: "s", questions });
    assert.equal(Object.keys(answered.answers).length, 100);
    assert.equal(await maxInFlight(three), 3);
    for (const bad of [0, 1.5, "10", -1]) {
      assert.throws(() => dm("judge", { maxConcurrency: bad }), codeIs("INVALID_OPTION"), String(bad));
    }
    // A language model's own invoker sends one request per call: the option is not one of its.
    assert.throws(
      () => lib.buildLMInvoker("openai-compatible/judge", { ...setup(ctx).opts, maxConcurrency: 2 }),
      codeIs("INVALID_OPTION"),
    );
  },

  async "after a failed request no waiting request starts, and the first error is the caller's"(ctx) {
    const { lib, assert, requests } = ctx;
    // The server refuses this key: every request fails, and with one at a time only the first
    // is sent (its 401 is not retried).
    const questions = Object.fromEntries(
      Array.from({ length: 20 }, (_, i) => [`q${i}`, lib.DMQuestion.noul(`Question ${i}?`)]),
    );
    const model = "judge-refused";
    const refused = lib.buildDMInvoker(`openai-compatible/${model}`, {
      apiKey: "sk-wrong",
      baseUrl: ctx.base,
      maxConcurrency: 1,
    });
    await assert.rejects(
      refused.invoke({ state: "s", questions }),
      (e) => e.code === "PROVIDER_ERROR" && e.status === 401,
    );
    const sent = (await requests()).filter((r) => r.body?.model === model);
    assert.equal(sent.length, 1, "requests sent");
  },
};
