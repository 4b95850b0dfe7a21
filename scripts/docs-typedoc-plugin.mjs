// A TypeDoc plugin for the site `make docs` builds (scripts/docs.mjs). Each guide in docs/ is a
// TypeDoc document: its page keeps the file's name (docs/streaming.md becomes
// documents/streaming.html), its title is the guide's first heading (as on GitHub), and that
// heading leaves the page body, where TypeDoc shows the title already. The four entry points'
// modules are shown by the specifier a user imports (`citeflow/stream`, not `stream`).
import { Converter, ReflectionKind, RendererEvent } from "typedoc";

/** The module of each .d.ts entry point, by the import specifier that loads it. */
const SPECIFIERS = { index: "citeflow", stream: "citeflow/stream", csl: "citeflow/csl", "ai-sdk": "citeflow/ai-sdk" };

/** Called by TypeDoc with the application (`--plugin`). */
export function load(app) {
  const titles = new Map();
  app.converter.on(Converter.EVENT_CREATE_DOCUMENT, (_context, document) => {
    const first = document.content[0];
    const heading = first?.kind === "text" ? /^# (.+)\n+/.exec(first.text) : null;
    if (heading === null) return;
    first.text = first.text.slice(heading[0].length);
    titles.set(document, heading[1].trim());
  });
  // Pages have their file names by now (the router ran): a new name changes only what is shown.
  app.renderer.on(RendererEvent.BEGIN, (event) => {
    for (const [document, title] of titles) document.name = title;
    for (const module of event.project.getChildrenByKind(ReflectionKind.Module)) {
      if (Object.hasOwn(SPECIFIERS, module.name)) module.name = SPECIFIERS[module.name];
    }
  });
}
