// The smoke scenario every runtime runs: import the package, stream a canned answer through
// ThinkTag and an event filter as web streams, and report what came out.
export const CHUNKS = ["<th", "ink>Check the sources", " first.</thi", "nk>The answer", " is 42 😀."];

export const EXPECTED = {
  citations: [[1, "[1]"]],
  reference: ["[1]", "[1] E. A. Poe, The Purloined Letter. Wiley, 1845."],
  thinking: "Check the sources first.",
  answer: "The answer is 42 😀.",
  types: ["thinking_start", "thinking", "thinking_end", "response_start", "response", "response_end"],
  errorCode: "INVALID_CHUNK",
};

export async function scenario(lib) {
  await lib.init();
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
  const poe = { type: "book", title: "The Purloined Letter", author: [{ family: "Poe", given: "Edgar Allan" }], issued: { "date-parts": [[1845]] }, publisher: "Wiley" };
  const [ref] = await lib.renderReferences([poe], cites, { style: "ieee" });
  return {
    citations: cites.map((c) => [c.sourceId, c.marker]),
    reference: [ref.inlineMarker, ref.entry],
    thinking: events.filter((e) => e.type === "thinking").map((e) => e.value).join(""),
    answer,
    types: [...new Set(events.map((e) => e.type))],
    errorCode,
  };
}

export function check(result, runtime) {
  const a = JSON.stringify(result);
  const b = JSON.stringify(EXPECTED);
  if (a !== b) throw new Error(`${runtime}: smoke scenario gave ${a}, expected ${b}`);
  console.log(`smoke ok: ${runtime}`);
}
