// The demo: a canned model answer streams in random-sized chunks through ThinkTag (reasoning
// apart from the answer) and CitationParser (markers found as they complete); when it ends, the
// answer is shown as safe HTML with citation links, and the reference list is rendered by the
// CSL module in the style picked (re-rendered on change).
import init, { CitationParser, EventFilterOutputTransformer, ThinkTagOutputTransformer, renderCitedHtml, renderReferences } from "citeflow";

const SOURCES = [
  { content: "Gustave Eiffel's company built the tower for the 1889 Exposition Universelle in Paris.", metadata: { id: "toureiffel", type: "webpage", title: "History of the Eiffel Tower", author: [{ literal: "Société d'Exploitation de la Tour Eiffel" }], issued: { "date-parts": [[2023]] }, URL: "https://www.toureiffel.paris/en/the-monument/history" } },
  { content: "The tower was completed in March 1889 and opened to the public that May.", metadata: { id: "loyrette", type: "book", title: "Gustave Eiffel", author: [{ family: "Loyrette", given: "Henri" }], publisher: "Rizzoli", "publisher-place": "New York", issued: { "date-parts": [[1985]] } } },
  { content: "Binary floating point cannot represent 0.1 exactly; sums carry rounding error.", metadata: { id: "goldberg", type: "article-journal", title: "What every computer scientist should know about floating-point arithmetic", author: [{ family: "Goldberg", given: "David" }], "container-title": "ACM Computing Surveys", volume: "23", issue: "1", page: "5-48", issued: { "date-parts": [[1991]] }, DOI: "10.1145/103162.103163" } },
];

const ANSWERS = {
  "How old is the Eiffel Tower?":
    "<think>Source 1 says it was built for the 1889 Exposition; source 2 says it was completed in March 1889. " +
    "It is 2026 now, so 2026 - 1889 = 137.</think>The Eiffel Tower was built for the 1889 Exposition Universelle [1] " +
    "and completed in March 1889 [2], which makes it 137 years old.",
  "Is 0.1 + 0.2 == 0.3 in JavaScript?":
    "<think>Source 3 explains binary floating point: 0.1 is not exact, so a < b comparisons need a tolerance.</think>" +
    "No: `0.1 + 0.2` is `0.30000000000000004`, because binary floating point cannot represent 0.1 exactly [3]. " +
    "Compare with a tolerance, e.g. `Math.abs(a - b) < Number.EPSILON`.",
  "Why split reasoning on the client?":
    "<think>Tags arrive cut across chunks, so naive string matching leaks `<th` fragments.</think>Because models " +
    "stream their reasoning inline, and a tag like <think> can be cut anywhere between two chunks. Splitting on the " +
    "client keeps the server a plain proxy and the answer clean.",
};

const $ = (id) => document.getElementById(id);
let last = null; // { text, citations } of the latest answer

function* chunksOf(text, largest) {
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(Math.random() * largest);
    let end = Math.min(text.length, i + n);
    // Never split a surrogate pair (emoji): chunks are what a real stream would send.
    if (end < text.length && /[\uD800-\uDBFF]/.test(text[end - 1])) end += 1;
    yield text.slice(i, end);
    i = end;
  }
}

function modelStream(text, largest, raw) {
  const chunks = chunksOf(text, largest);
  return new ReadableStream({
    async pull(controller) {
      const { value, done } = chunks.next();
      if (done) return controller.close();
      await new Promise((r) => setTimeout(r, 12));
      raw.append(value, Object.assign(document.createElement("span"), { className: "boundary", textContent: "│" }));
      controller.enqueue(value);
    },
  });
}

async function showReferences() {
  if (last === null) return;
  const style = $("style").value;
  const references = await renderReferences(SOURCES, last.citations, { style });
  $("answer").innerHTML = renderCitedHtml({ text: last.text, citations: last.citations, references });
  for (const a of $("answer").querySelectorAll("a.citeflow-cite")) {
    const ref = references.find((r) => `#ref-${r.sourceId}` === a.getAttribute("href"));
    a.setAttribute("aria-label", `Source: ${ref ? ref.entry : "unknown"}`);
  }
  const list = $("answer").querySelector("ol.citeflow-references");
  if (list) {
    list.remove();
    $("references").replaceChildren(...list.children);
  } else {
    $("references").replaceChildren();
  }
  $("references").dataset.style = style;
}

async function stream(question, largest) {
  for (const id of ["reasoning", "answer", "raw", "stats", "references"]) $(id).textContent = "";
  last = null;
  $("answer").setAttribute("aria-busy", "true");
  $("reasoning-state").textContent = "thinking…";
  const thinking = new EventFilterOutputTransformer(["thinking"]);
  let count = 0;
  let text = "";
  const citations = [];
  const events = modelStream(ANSWERS[question], largest, $("raw"))
    .pipeThrough(new ThinkTagOutputTransformer().transformStream())
    .pipeThrough(new CitationParser({ sourceCount: SOURCES.length }).transformStream());
  for await (const event of events) {
    count += 1;
    for (const e of thinking.push(event)) {
      if (e.type === "thinking") $("reasoning").append(e.value);
      if (e.type === "thinking_end") $("reasoning-state").textContent = "done";
    }
    if (event.type === "response") {
      text += event.value;
      $("answer").append(event.value);
    }
    if (event.type === "citation") citations.push(event.value);
  }
  last = { text, citations };
  await showReferences();
  $("answer").setAttribute("aria-busy", "false");
  $("stats").textContent = `${$("raw").querySelectorAll(".boundary").length} chunks in, ${count} events out, ${citations.length} citations.`;
}

await init();
for (const q of Object.keys(ANSWERS)) $("question").append(new Option(q, q));
$("chunk").addEventListener("input", () => ($("chunk-value").value = $("chunk").value));
$("style").addEventListener("change", () => showReferences());
$("controls").addEventListener("submit", async (e) => {
  e.preventDefault();
  $("go").disabled = true;
  try {
    await stream($("question").value, Number($("chunk").value));
  } finally {
    $("go").disabled = false;
  }
});
document.body.dataset.ready = "true";
