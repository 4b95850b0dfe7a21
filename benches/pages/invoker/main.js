// The smallest page that asks a model and shows its answer cited as it streams, with citeflow:
// an invoker for an OpenAI-compatible server (this page's own /v1), its events through think
// tags and citations, as docs/runtimes.md shows for browsers.
import init, { buildLMInvoker, CitationParser, ThinkTagOutputTransformer } from "citeflow";

const SOURCES = [
  { content: "The Eiffel Tower was completed in March 1889.", metadata: { title: "Gustave Eiffel" } },
  { content: "The tower is 330 m tall.", metadata: { title: "Measuring the tower" } },
];
const QUESTION = "When was the Eiffel Tower completed and how tall is the tower?";

const show = (id, text) => {
  document.getElementById(id).textContent = text;
};

try {
  await init();
  const lm = buildLMInvoker("openai-compatible/citeflow-local", { baseUrl: "/v1" });
  const system = "Answer from the sources and cite each sentence as [n].\n\n" +
    SOURCES.map((s, i) => `Source ${i + 1}: ${s.metadata.title}\n${s.content}`).join("\n\n");
  const events = lm.stream([{ role: "system", content: system }, { role: "user", content: QUESTION }])
    .pipeThrough(new ThinkTagOutputTransformer().transformStream())
    .pipeThrough(new CitationParser({ sourceCount: SOURCES.length }).transformStream());
  let answer = "";
  const cites = [];
  for await (const e of events) {
    if (e.type === "response") answer += e.value;
    if (e.type === "citation") cites.push(e.value);
  }
  show("answer", answer);
  show("citations", cites.map((c) => `${c.sourceId}@${c.span.join("-")}`).join(" "));
} catch (e) {
  show("error", `${e?.code ?? ""} ${e?.message ?? e}`);
}
