// The demo: a question goes through the whole pipeline in the browser.
//   1. Retrieval: every chunk of the bundled corpus (corpus.json) is scored against the
//      question by SimilarityRelevanceFilter (embeddings from the model server, cosine in wasm);
//      the table shows each score and what was kept.
//   2. Generation: Citeformer numbers the kept chunks as sources and builds the request; the
//      model's stream goes through ThinkTagOutputTransformer (reasoning apart) and
//      CitationParser (markers as they complete).
//   3. References: the answer becomes safe HTML with citation chips (hover or focus one to see
//      its source), and the reference list is rendered by the CSL module in the style picked;
//      in a note style the markers become footnotes, rendered by a CslDocument (notes.js).
// With no settings it talks to the local model server mounted at /v1 by `make demo`: the real
// one (scripts/model-server.mjs: SmolLM2-135M answers, MiniLM embeddings decide relevance) or
// the scripted stand-in (scripts/local-model.mjs); with a base URL and key it talks to that
// provider instead.
import init, {
  buildEMInvoker,
  buildLMInvoker,
  CitationParser,
  Citeformer,
  renderCitedHtml,
  renderReferences,
  SimilarityRelevanceFilter,
  ThinkTagOutputTransformer,
} from "citeflow";
import { showNotes } from "./notes.js";
import { smallModelOptions, withCitedExample } from "./small-model.js";

const $ = (id) => document.getElementById(id);
const LOCAL = new URL("/v1", location.href).href;
const CONTEXT = { fields: ["metadata", "content"], metadataKeys: ["file_name"], template: "{metadata}\n{content}" };
let corpus = [];
let last = null; // { text, citations, sources } of the latest answer
let running = null; // the AbortController of the answer in progress
// What /v1 serves: { chat, embed, real } (real: the small language model, not the scripted stand-in).
let backend = { chat: "citeflow-local", embed: "citeflow-embed", real: false };

const NOTES = {
  real:
    "Answers here come from SmolLM2-135M-Instruct, a 135-million-parameter model running on this machine's CPU, and all-MiniLM-L6-v2 embeddings decide which chunks are relevant. A model this small writes short and often wrong answers: the citation grammar guarantees that every sentence ends in a marker naming a real source, not that the source says what the sentence claims. For better answers, use a real provider below.",
  scripted:
    "Answers here come from a scripted stand-in (scripts/local-model.mjs), not a language model: it copies the best-matching sentence of each source and cites it, and its embeddings are word overlap. For real answers, use a real provider below.",
};

/** Which local model /v1 serves, shown on the page; the real one gets a higher threshold (MiniLM cosines). */
async function detectBackend() {
  const listed = await fetch(new URL("/v1/models", location.href)).then((r) => (r.ok ? r.json() : {}), () => ({}));
  const ids = (listed.data ?? []).map((m) => m.id);
  const real = ids.includes("SmolLM2-135M-Instruct");
  backend = real ? { chat: "SmolLM2-135M-Instruct", embed: "all-MiniLM-L6-v2", real } : backend;
  $("model-note").textContent = NOTES[real ? "real" : "scripted"];
  document.body.dataset.backend = real ? "real" : "scripted";
  if (real) $("threshold").value = $("threshold-value").value = "0.3";
}

const linkOf = (csl) => csl.URL ?? (csl.DOI ? `https://doi.org/${csl.DOI}` : undefined);

function chunksOf(entries) {
  return entries.map((c) => ({
    id: c.id,
    content: c.content,
    metadata: { file_name: c.csl.title, file_url: linkOf(c.csl) },
  }));
}

function showRelevance(evaluated, threshold) {
  const rows = [...evaluated].sort((a, b) => b.score - a.score).map(({ chunk, score, kept }) => {
    const tr = document.createElement("tr");
    tr.className = kept ? "kept" : "dropped";
    tr.dataset.chunk = chunk.id;
    const cells = [chunk.metadata.file_name, score.toFixed(3), kept ? "kept" : "dropped"];
    for (const text of cells) tr.append(Object.assign(document.createElement("td"), { textContent: text }));
    return tr;
  });
  $("relevance-body").replaceChildren(...rows);
  $("relevance-caption").textContent = `Cosine similarity of each chunk to the question; kept when ≥ ${threshold}.`;
}

function placeTip(chip) {
  const tip = $("cite-tip");
  const n = Number(chip.getAttribute("href").slice("#ref-".length));
  const source = last?.sources[n - 1];
  if (!source) return;
  tip.replaceChildren(
    Object.assign(document.createElement("strong"), { textContent: `[${n}] ${source.metadata.title}` }),
    Object.assign(document.createElement("span"), { textContent: source.content }),
  );
  const box = chip.getBoundingClientRect();
  tip.hidden = false;
  const width = tip.offsetWidth;
  tip.style.left = `${
    Math.max(8, Math.min(window.scrollX + box.left, window.scrollX + document.documentElement.clientWidth - width - 8))
  }px`;
  tip.style.top = `${window.scrollY + box.bottom + 6}px`;
}

const hideTip = () => ($("cite-tip").hidden = true);

/** The bundled note styles: their citations are footnotes (notes.js). */
const NOTE_STYLES = new Set(["chicago-notes", "mhra-notes"]);

async function showReferences() {
  if (last === null) return;
  const style = $("style").value;
  $("notes-section").hidden = !NOTE_STYLES.has(style);
  if (NOTE_STYLES.has(style)) {
    await showNotes({ ...last, style, answer: $("answer"), notesList: $("notes"), references: $("references") });
    $("references").dataset.style = style;
    return;
  }
  $("notes").replaceChildren();
  const references = last.citations.some((c) => c.valid)
    ? await renderReferences(last.sources, last.citations, { style })
    : [];
  $("answer").innerHTML = renderCitedHtml({ text: last.text, citations: last.citations, references });
  for (const a of $("answer").querySelectorAll("a.citeflow-cite")) {
    const ref = references.find((r) => `#ref-${r.sourceId}` === a.getAttribute("href"));
    a.setAttribute("aria-label", `Source ${ref?.sourceId}: ${ref ? ref.entry : "unknown"}`);
    a.setAttribute("aria-describedby", "cite-tip");
    for (const on of ["mouseenter", "focus"]) a.addEventListener(on, () => placeTip(a));
    for (const off of ["mouseleave", "blur"]) a.addEventListener(off, hideTip);
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

function settings() {
  const base = $("base-url").value.trim();
  return {
    baseUrl: base || LOCAL,
    apiKey: $("api-key").value || "local",
    model: $("model").value.trim() || backend.chat,
    local: base === "",
  };
}

async function ask(question, signal) {
  for (const id of ["reasoning", "answer", "raw", "stats", "references", "notice"]) $(id).textContent = "";
  $("relevance-body").replaceChildren();
  last = null;
  $("answer").setAttribute("aria-busy", "true");
  $("reasoning-state").textContent = "retrieving…";
  const threshold = Number($("threshold").value);

  // 1. Retrieval: the corpus is local, so its embeddings always come from the demo server.
  const em = buildEMInvoker(`openai-compatible/${backend.embed}`, { apiKey: "local", baseUrl: LOCAL });
  const filter = new SimilarityRelevanceFilter(em, { threshold, contextConfig: CONTEXT });
  const evaluated = await filter.evaluate({ chunks: chunksOf(corpus), query: question, signal });
  showRelevance(evaluated, threshold);
  const kept = evaluated.filter((e) => e.kept).sort((a, b) => b.score - a.score).slice(0, 4);
  if (kept.length === 0) {
    $("notice").textContent =
      "No chunk passed the relevance filter: lower the threshold or ask about the Eiffel Tower, floating point, honeybees, server-sent events or chain-of-thought prompting.";
    $("reasoning-state").textContent = "idle";
    return;
  }
  const byId = new Map(corpus.map((c) => [c.id, c]));
  const sources = kept.map((e) => ({ content: e.chunk.content, metadata: byId.get(e.chunk.id).csl }));

  // 2. Generation.
  const { baseUrl, apiKey, model, local } = settings();
  const lm = buildLMInvoker(`openai-compatible/${model}`, { apiKey, baseUrl });
  const cf = new Citeformer({ lmInvoker: lm, style: $("style").value });
  const request = cf.request({ prompt: question, sources });
  // The small local model gets an example exchange and Citeformer's grammar, bounded so it ends
  // (see small-model.js); a provider gets Citeformer's messages as they are.
  const small = local && backend.real;
  const messages = small ? withCitedExample(request.messages) : request.messages;
  const options = small ? { signal, ...smallModelOptions(request.options) } : { signal };
  const started = performance.now();
  $("reasoning-state").textContent = "thinking…";
  const tap = new TransformStream({
    transform(event, controller) {
      if (event.type === "response") {
        $("raw").append(
          event.value,
          Object.assign(document.createElement("span"), { className: "boundary", textContent: "│" }),
        );
      }
      controller.enqueue(event);
    },
  });
  const events = lm.stream(messages, options)
    .pipeThrough(tap)
    .pipeThrough(new ThinkTagOutputTransformer().transformStream())
    .pipeThrough(new CitationParser({ sourceCount: sources.length }).transformStream());
  let text = "";
  let count = 0;
  let usage = null;
  const citations = [];
  // A reader, not `for await`: WebKit (Safari) cannot async-iterate a ReadableStream.
  const reader = events.getReader();
  for (let next = await reader.read(); !next.done; next = await reader.read()) {
    const event = next.value;
    count += 1;
    if (event.type === "thinking") $("reasoning").append(event.value);
    if (event.type === "thinking_end") $("reasoning-state").textContent = "done";
    if (event.type === "response") {
      text += event.value;
      $("answer").append(event.value);
    }
    if (event.type === "citation") citations.push(event.value);
    if (event.type === "usage") usage = event.value;
  }
  if ($("reasoning-state").textContent !== "done") $("reasoning-state").textContent = "none sent";

  // 3. References.
  last = { text, citations, sources };
  await showReferences();
  const chunks = $("raw").querySelectorAll(".boundary").length;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  $("stats").textContent = `${chunks} chunks in, ${count} events out, ${citations.length} citations` +
    (usage ? `, ${usage.outputTokens ?? usage.completion_tokens ?? "?"} tokens answered` : "") + ` in ${seconds} s.`;
}

await init();
await detectBackend();
corpus = (await (await fetch("./corpus.json")).json()).chunks;
$("style").addEventListener("change", () => showReferences());
$("threshold").addEventListener("input", () => ($("threshold-value").value = $("threshold").value));
document.addEventListener("keydown", (e) => e.key === "Escape" && hideTip());
$("stop").addEventListener("click", () => running?.abort(new Error("stopped")));
$("controls").addEventListener("submit", async (e) => {
  e.preventDefault();
  const question = $("question").value.trim();
  if (!question) return;
  $("go").disabled = true;
  $("stop").disabled = false;
  running = new AbortController();
  try {
    await ask(question, running.signal);
  } catch (error) {
    $("notice").textContent = running.signal.aborted ? "Stopped." : `${error.code ?? "Error"}: ${error.message}`;
  } finally {
    $("answer").setAttribute("aria-busy", "false");
    $("go").disabled = false;
    $("stop").disabled = true;
    running = null;
    document.body.dataset.answered = String(Number(document.body.dataset.answered ?? 0) + 1);
  }
});
document.body.dataset.ready = "true";
