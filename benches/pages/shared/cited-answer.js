// What the invoker and references pages share: ask this page's own /v1 (an OpenAI-compatible
// server) about `sources`, stream the answer through think tags and citations, as
// docs/runtimes.md shows for browsers, and show the answer and its citations. Copied next to
// each page's main.js before the page is built (benches/page_bytes.mjs).
import init, { buildLMInvoker, CitationParser, ThinkTagOutputTransformer } from "citeflow";

const QUESTION = "When was the Eiffel Tower completed and how tall is the tower?";

/** Sets the text of the element `id`. */
export const show = (id, text) => {
  document.getElementById(id).textContent = text;
};

/** The answer about `sources`, shown in #answer and #citations; resolves to its citations. */
export async function citedAnswer(sources) {
  await init();
  const lm = buildLMInvoker("openai-compatible/citeflow-local", { baseUrl: "/v1" });
  const system = "Answer from the sources and cite each sentence as [n].\n\n" +
    sources.map((s, i) => `Source ${i + 1}: ${s.metadata.title}\n${s.content}`).join("\n\n");
  const events = lm.stream([{ role: "system", content: system }, { role: "user", content: QUESTION }])
    .pipeThrough(new ThinkTagOutputTransformer().transformStream())
    .pipeThrough(new CitationParser({ sourceCount: sources.length }).transformStream());
  let answer = "";
  const cites = [];
  for await (const e of events) {
    if (e.type === "response") answer += e.value;
    if (e.type === "citation") cites.push(e.value);
  }
  show("answer", answer);
  show("citations", cites.map((c) => `${c.sourceId}@${c.span.join("-")}`).join(" "));
  return cites;
}
