// An answer in a note style: each run of adjacent citation markers becomes a footnote, and the
// notes are the clusters of a CslDocument (citeflow/csl), which knows where each cite sits
// among the others: a source's first note is full, a later one short, and, in a style that
// uses it (MHRA), a cite of the source the note before cited alone is "Ibid.". The bibliography
// comes from the same document.
import initCsl, { CslDocument, loadStyle } from "citeflow/csl";

/**
 * The footnotes of an answer: `citations` as the parser gave them (UTF-16 spans in `text`),
 * grouped into runs of markers with nothing but spaces or commas between them, invalid ones
 * left out. Each note: `{ start, end, sourceIds }`, in the order of the text.
 */
export function noteRuns(text, citations) {
  const valid = citations.filter((c) => c.valid).sort((a, b) => a.span[0] - b.span[0]);
  const notes = [];
  for (const c of valid) {
    const last = notes.at(-1);
    if (last && /^[\s,;]*$/.test(text.slice(last.end, c.span[0]))) {
      last.end = c.span[1];
      if (!last.sourceIds.includes(c.sourceId)) last.sourceIds.push(c.sourceId);
    } else {
      notes.push({ start: c.span[0], end: c.span[1], sourceIds: [c.sourceId] });
    }
  }
  return notes;
}

/**
 * Renders `text` into `answer` with a superscript note number in place of each marker run, the
 * notes into `notesList` and the bibliography into `references`, in `style` (a bundled note
 * style). `sources[i].metadata` is source i + 1's CSL-JSON item.
 */
export async function showNotes({ text, citations, sources, style, answer, notesList, references }) {
  await initCsl();
  await loadStyle(style);
  const items = sources.map((s, i) => ({ ...s.metadata, id: String(i + 1) }));
  const doc = new CslDocument({ style, format: "html", items });
  const runs = noteRuns(text, citations);
  runs.forEach((run, k) =>
    doc.setCluster({ id: `n${k + 1}`, noteIndex: k + 1, items: run.sourceIds.map((id) => ({ id: String(id) })) })
  );
  const rendered = new Map(doc.clusters().map((c) => [c.id, c.text]));

  const parts = [];
  let at = 0;
  runs.forEach((run, k) => {
    parts.push(document.createTextNode(text.slice(at, run.start)));
    const link = Object.assign(document.createElement("a"), { href: `#note-${k + 1}`, textContent: `${k + 1}` });
    link.setAttribute("aria-label", `Note ${k + 1}`);
    const sup = Object.assign(document.createElement("sup"), { className: "note-ref", id: `noteref-${k + 1}` });
    sup.append(link);
    parts.push(sup);
    at = run.end;
  });
  parts.push(document.createTextNode(text.slice(at)));
  answer.replaceChildren(...parts);

  // The CSL module's HTML output escapes the items' text: it is safe as markup.
  notesList.replaceChildren(...runs.map((run, k) => {
    const li = Object.assign(document.createElement("li"), { id: `note-${k + 1}` });
    li.dataset.sources = run.sourceIds.join(" ");
    li.innerHTML = rendered.get(`n${k + 1}`);
    return li;
  }));
  references.replaceChildren(
    ...doc.bibliography().map((e) => {
      const li = Object.assign(document.createElement("li"), { id: `ref-${e.sourceId}` });
      li.innerHTML = e.entry;
      return li;
    }),
  );
}
