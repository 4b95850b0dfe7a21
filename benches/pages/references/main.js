// The invoker page (benches/pages/invoker) plus the reference list of the sources the answer
// cites, in APA: renderReferences loads the CSL module and the style when first called.
import init, { buildLMInvoker, CitationParser, renderReferences, ThinkTagOutputTransformer } from "citeflow";

const SOURCES = [
  {
    content: "The Eiffel Tower was completed in March 1889.",
    metadata: {
      type: "book",
      title: "Gustave Eiffel",
      author: [{ family: "Loyrette", given: "Henri" }],
      issued: { "date-parts": [[1985]] },
      publisher: "Rizzoli",
    },
  },
  {
    content: "The tower is 330 m tall.",
    metadata: {
      type: "article-journal",
      title: "Measuring the tower",
      author: [{ family: "Martin", given: "Anne" }],
      "container-title": "Structures",
      volume: 12,
      page: "40-52",
      issued: { "date-parts": [[2004]] },
    },
  },
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
  const references = await renderReferences(SOURCES, cites, { style: "apa-7" });
  show("references", references.map((r) => r.entry).join("\n"));
} catch (e) {
  show("error", `${e?.code ?? ""} ${e?.message ?? e}`);
}
