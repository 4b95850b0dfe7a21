// The demo: stream a canned model answer in random-sized chunks through ThinkTag, then show
// reasoning and answer apart with two event filters.
import init, { EventFilterOutputTransformer, ThinkTagOutputTransformer } from "citeflow";

const ANSWERS = {
  "How old is the Eiffel Tower?":
    "<think>The tower was finished in 1889 for the Exposition Universelle. It is 2026 now, so 2026 - 1889 = 137. " +
    "Double-check: 1889 + 137 = 2026, fine.</think>The Eiffel Tower was completed in 1889, which makes it 137 years old.",
  "Is 0.1 + 0.2 == 0.3 in JavaScript?":
    "<think>Floating point: 0.1 and 0.2 are not exact in binary; their sum is 0.30000000000000004, and a < b " +
    "comparisons with an epsilon are the usual fix.</think>No: `0.1 + 0.2` is `0.30000000000000004`. Compare with a " +
    "tolerance, e.g. `Math.abs(a - b) < Number.EPSILON`.",
  "Why split reasoning on the client?":
    "<think>Reasons: the server may just proxy raw tokens; the UI wants to collapse reasoning; tags arrive cut " +
    "across chunks, so naive string matching leaks `<th` fragments.</think>Because models stream their reasoning " +
    "inline, and a tag like <think> can be cut anywhere between two chunks. Splitting on the client keeps the " +
    "server a plain proxy and the answer clean.",
};

const $ = (id) => document.getElementById(id);

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

async function stream(question, largest) {
  for (const id of ["reasoning", "answer", "raw", "stats"]) $(id).textContent = "";
  $("answer").setAttribute("aria-busy", "true");
  $("reasoning-state").textContent = "thinking…";
  const thinking = new EventFilterOutputTransformer(["thinking"]);
  const answer = new EventFilterOutputTransformer(["response"]);
  let count = 0;
  const events = modelStream(ANSWERS[question], largest, $("raw")).pipeThrough(new ThinkTagOutputTransformer().transformStream());
  for await (const event of events) {
    count += 1;
    for (const e of thinking.push(event)) {
      if (e.type === "thinking") $("reasoning").append(e.value);
      if (e.type === "thinking_end") $("reasoning-state").textContent = "done";
    }
    for (const e of answer.push(event)) if (e.type === "response") $("answer").append(e.value);
  }
  $("answer").setAttribute("aria-busy", "false");
  $("stats").textContent = `${$("raw").querySelectorAll(".boundary").length} chunks in, ${count} events out.`;
}

await init();
for (const q of Object.keys(ANSWERS)) $("question").append(new Option(q, q));
$("chunk").addEventListener("input", () => ($("chunk-value").value = $("chunk").value));
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
