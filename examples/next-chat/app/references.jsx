// The reference list of the sources an answer cites (its source parts), in APA, rendered by
// citeflow's CSL module in the browser.
import { useEffect, useState } from "react";
import initCsl, { loadStyle, renderReferences } from "citeflow/csl";
import { sourceNumber, sources } from "./sources.js";

const ready = typeof window === "undefined" ? null : initCsl().then(() => loadStyle("apa-7"));

export function References({ parts }) {
  const cited = parts.filter((p) => p.type === "source-url" || p.type === "source-document").map(sourceNumber);
  const key = cited.join();
  const [references, setReferences] = useState([]);
  useEffect(() => {
    let current = true;
    ready?.then(() => {
      if (current) setReferences(renderReferences(sources, cited, { style: "apa-7", format: "html" }));
    });
    return () => {
      current = false;
    };
  }, [key]);
  if (references.length === 0) return null;
  return (
    <section className="references">
      <h2>References</h2>
      <ul>
        {references.map((r) => (
          <li key={r.sourceId} id={`ref-${r.sourceId}`} dangerouslySetInnerHTML={{ __html: r.entry }} />
        ))}
      </ul>
    </section>
  );
}
