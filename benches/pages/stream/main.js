// The smallest page that streams an answer through think tags and citations with
// citeflow/stream: the answer arrives in small pieces (here cut from a constant, where a chat
// page would read them from its server), the reasoning is split off and each [n] marker becomes
// a citation event as soon as it is complete.
import init, { CitationParser, ThinkTagOutputTransformer } from "citeflow/stream";

const ANSWER = "<think>Source 1 dates it, source 2 measures it.</think>" +
  "The Eiffel Tower was completed in 1889 [1]. It is 330 m tall [2].";

const show = (id, text) => {
  document.getElementById(id).textContent = text;
};

try {
  await init();
  const pieces = new ReadableStream({
    start(controller) {
      for (let i = 0; i < ANSWER.length; i += 7) controller.enqueue(ANSWER.slice(i, i + 7));
      controller.close();
    },
  });
  const events = pieces
    .pipeThrough(new ThinkTagOutputTransformer().transformStream())
    .pipeThrough(new CitationParser({ sourceCount: 2 }).transformStream());
  let answer = "";
  const cites = [];
  for await (const e of events) {
    if (e.type === "response") answer += e.value;
    if (e.type === "citation") cites.push(`${e.value.sourceId}@${e.value.span.join("-")}`);
  }
  show("answer", answer);
  show("citations", cites.join(" "));
} catch (e) {
  show("error", `${e?.code ?? ""} ${e?.message ?? e}`);
}
