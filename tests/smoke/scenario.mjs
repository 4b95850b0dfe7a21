// The smoke scenario every runtime runs: import the package, stream a canned answer through
// ThinkTag and an event filter as web streams, and report what came out.
export const CHUNKS = ["<th", "ink>Check the sources", " first.</thi", "nk>The answer", " is 42 😀."];

export const EXPECTED = {
  citations: [[1, "[1]"]],
  reference: ["[1]", "[1] E. A. Poe, The Purloined Letter. Wiley, 1845."],
  invoked: ["hidden", "Hello [1].", "Water boils at 100 °C [1]."],
  relevant: [["a", 1, true], ["b", 0, false]],
  thinking: "Check the sources first.",
  answer: "The answer is 42 😀.",
  types: ["thinking_start", "thinking", "thinking_end", "response_start", "response", "response_end"],
  errorCode: "INVALID_CHUNK",
  recovered: [1, "RuntimeError", 2],
};

/** The package's internal state (not part of its API), which each entry's `init` keeps under a symbol. */
export function internalsOf(lib) {
  const { core, stream } = lib.init[Symbol.for("citeflow.internals")];
  return {
    instanceState: core.instanceState,
    forceTrapForTests: core.forceTrap,
    stream: () => ({ state: stream.instanceState, forceTrap: stream.forceTrap, memoryBytes: stream.memoryBytes }),
  };
}

/**
 * `providerBase`: the fake provider's OpenAI-style base URL (tests/js/support/fake-provider.mjs).
 * `internals`: the core instance's internal state as this runtime loads the package
 * (`internalsOf(lib)`), to force a trap and see the instance replaced.
 */
export async function scenario(lib, { providerBase, internals }) {
  await lib.init();
  const lm = lib.buildLMInvoker("openai-compatible/ok", {
    apiKey: "sk-test",
    baseUrl: providerBase,
    outputTransformers: ["think_tag"],
  });
  const whole = await lm.invoke("Hi");
  let streamed = "";
  const lmReader = lm.stream("Hi").getReader();
  for (;;) {
    const { value, done } = await lmReader.read();
    if (done) break;
    if (value.type === "response") streamed += value.value;
  }
  const source = new ReadableStream({
    start(controller) {
      for (const c of CHUNKS) controller.enqueue(c);
      controller.close();
    },
  });
  const events = [];
  const reader = source.pipeThrough(new lib.ThinkTagOutputTransformer().transformStream()).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push(value);
  }
  const kept = new lib.EventFilterOutputTransformer(["response"]);
  const answer = events.flatMap((e) => kept.push(e)).filter((e) => e.type === "response").map((e) => e.value).join("");
  let errorCode = null;
  try {
    new lib.ThinkTagOutputTransformer().push(42);
  } catch (e) {
    errorCode = e.code;
  }
  const cites = lib.parseCitations("Poe wrote it [1].", { sourceCount: 1 });
  const poe = {
    type: "book",
    title: "The Purloined Letter",
    author: [{ family: "Poe", given: "Edgar Allan" }],
    issued: { "date-parts": [[1845]] },
    publisher: "Wiley",
  };
  const [ref] = await lib.renderReferences([poe], cites, { style: "ieee" });
  const em = lib.buildEMInvoker("openai-compatible/semantic", { apiKey: "sk-test", baseUrl: providerBase });
  const chunks = [{ id: "a", content: "near @[1,0]" }, { id: "b", content: "far @[0,1]" }];
  const relevant = (await new lib.SimilarityRelevanceFilter(em).evaluate({ chunks, query: "q @[1,0]" })).map((
    e,
  ) => [e.chunk.id, e.score, e.kept]);
  // A trap (as a bug would cause) costs that call: the instance is replaced and works.
  const replacements = internals.instanceState().replacements;
  let trap = null;
  try {
    internals.forceTrapForTests();
  } catch (e) {
    trap = e?.constructor?.name ?? String(e);
  }
  const recovered = [
    internals.instanceState().replacements - replacements,
    trap,
    lib.parseCitations("a [1] b [2]", { sourceCount: 2 }).length,
  ];
  return {
    invoked: [whole.outputs[0].output, whole.outputs[1].output, streamed],
    relevant,
    citations: cites.map((c) => [c.sourceId, c.marker]),
    reference: [ref.inlineMarker, ref.entry],
    thinking: events.filter((e) => e.type === "thinking").map((e) => e.value).join(""),
    answer,
    types: [...new Set(events.map((e) => e.type))],
    errorCode,
    recovered,
  };
}

/**
 * `result` and `expected` as JSON in the expected key order, with no key missing or extra (a
 * browser driver may hand the object back with its keys sorted).
 */
function inExpectedOrder(result, expected) {
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(result)])];
  return [result, expected].map((o) => JSON.stringify(keys.map((k) => [k, o[k]])));
}

export function check(result, runtime) {
  const [a, b] = inExpectedOrder(result, EXPECTED);
  if (a !== b) throw new Error(`${runtime}: smoke scenario gave ${a}, expected ${b}`);
  console.log(`smoke ok: ${runtime}`);
}

// The streaming entry ("citeflow/stream") on its own: a provider's SSE body through ThinkTag and
// the citation parser, in one decoder.
const SSE = [
  'data: {"choices":[{"delta":{"content":"<think>Check the sou"}}]}\n\n',
  'data: {"choices":[{"delta":{"content":"rces.</think>Water boils [1"}}]}\n\ndata: {"choices":[{"delta":{"content":"]."},"finish_reason":"stop"}]}\n\n',
  "data: [DONE]\n\n",
];

export const STREAM_EXPECTED = {
  thinking: "Check the sources.",
  answer: "Water boils [1].",
  citations: [[1, "[1]", true]],
  exports: [
    "CitationParser",
    "OutputTransformerChain",
    "ProviderBodyDecoder",
    "ThinkTagOutputTransformer",
    "decodeProviderStream",
    "init",
    "isReady",
  ],
};

export async function streamScenario(lib) {
  await lib.init();
  const encoder = new TextEncoder();
  const body = new ReadableStream({
    start(controller) {
      for (const s of SSE) controller.enqueue(encoder.encode(s));
      controller.close();
    },
  });
  const transformers = [new lib.ThinkTagOutputTransformer(), new lib.CitationParser({ sourceCount: 1 })];
  const reader = lib.decodeProviderStream(body, "openai", { transformers }).getReader();
  const events = [];
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    events.push(value);
  }
  const text = (type) => events.filter((e) => e.type === type).map((e) => e.value).join("");
  return {
    thinking: text("thinking"),
    answer: text("response"),
    citations: events.filter((e) => e.type === "citation").map((
      e,
    ) => [e.value.sourceId, e.value.marker, e.value.valid]),
    exports: STREAM_EXPECTED.exports.filter((name) => name in lib),
  };
}

export function checkStream(result, runtime) {
  const [a, b] = inExpectedOrder(result, STREAM_EXPECTED);
  if (a !== b) throw new Error(`${runtime}: citeflow/stream gave ${a}, expected ${b}`);
  console.log(`smoke ok: ${runtime}, citeflow/stream`);
}
