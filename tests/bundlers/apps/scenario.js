// The page every bundler app shows, whatever built it: a core call and a streamed citation at
// load, then an APA reference list when the button is pressed (the main entry's lazy
// renderReferences, which fetches the CSL wasm only then). tests/bundlers/run.mjs reads the
// elements by id and the browser's network log.
export const ANSWER = "The Eiffel Tower was completed in 1889 [1]. It is 330 m tall [2].";

export const SOURCES = [
  {
    type: "book",
    title: "Gustave Eiffel",
    author: [{ family: "Loyrette", given: "Henri" }],
    issued: { "date-parts": [[1985]] },
    publisher: "Rizzoli",
  },
  {
    type: "article-journal",
    title: "Measuring the tower",
    author: [{ family: "Martin", given: "Anne" }],
    "container-title": "Structures",
    volume: 12,
    page: "40-52",
    issued: { "date-parts": [[2004]] },
  },
];

/** The core call and the streamed citation, as the text the page shows. */
export function coreResults(lib) {
  const citations = lib.parseCitations(ANSWER, { sourceCount: SOURCES.length });
  const parser = new lib.CitationParser({ sourceCount: SOURCES.length });
  const events = [ANSWER.slice(0, 38), ANSWER.slice(38)].flatMap((piece) => parser.push(piece)).concat(parser.finish());
  return {
    core: citations.map((c) => `${c.sourceId}:${ANSWER.slice(...c.span)}`).join(" "),
    citation: events.filter((e) => e.type === "citation").map((e) => `${e.value.sourceId}@${e.value.span.join("-")}`)
      .join(" "),
  };
}

/** The APA entries of the cited sources (loads the CSL module on first use). */
export async function referenceText(lib) {
  const refs = await lib.renderReferences(SOURCES, lib.parseCitations(ANSWER, { sourceCount: SOURCES.length }), {
    style: "apa-7",
  });
  return refs.map((r) => r.entry).join("\n");
}

/** For the plain-DOM apps: fills #core and #citation, and #references when #render is pressed. */
export function mount(lib, ready) {
  const show = (id, text) => {
    document.getElementById(id).textContent = text;
  };
  const fail = (e) => show("error", `${e?.code ?? ""} ${e?.message ?? e}`);
  ready.then(() => {
    const { core, citation } = coreResults(lib);
    show("core", core);
    show("citation", citation);
    document.getElementById("render").addEventListener(
      "click",
      () => referenceText(lib).then((text) => show("references", text), fail),
    );
    document.getElementById("render").disabled = false;
  }, fail);
}
