// The smallest page that asks a model and shows its answer cited as it streams, with citeflow:
// an invoker for an OpenAI-compatible server (this page's own /v1), its events through think
// tags and citations (./cited-answer.js, copied here from ../shared/ before the build).
import { citedAnswer, show } from "./cited-answer.js";

const SOURCES = [
  { content: "The Eiffel Tower was completed in March 1889.", metadata: { title: "Gustave Eiffel" } },
  { content: "The tower is 330 m tall.", metadata: { title: "Measuring the tower" } },
];

try {
  await citedAnswer(SOURCES);
} catch (e) {
  show("error", `${e?.code ?? ""} ${e?.message ?? e}`);
}
