// The invoker page (benches/pages/invoker) plus the reference list of the sources the answer
// cites, in APA: renderReferences loads the CSL module and the style when first called.
import { renderReferences } from "citeflow";
import { citedAnswer, show } from "./cited-answer.js";

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

try {
  const cites = await citedAnswer(SOURCES);
  const references = await renderReferences(SOURCES, cites, { style: "apa-7" });
  show("references", references.map((r) => r.entry).join("\n"));
} catch (e) {
  show("error", `${e?.code ?? ""} ${e?.message ?? e}`);
}
