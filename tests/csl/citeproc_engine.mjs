// citeproc-js, the oracle and the peer: one engine set up the same way for the agreement tests
// and the benchmarks. `items` are CSL-JSON; `clone` gives citeproc-js a copy of an item each
// time it asks (it adds fields to what it is given; a long-lived document needs it).
import CSL from "citeproc";

/** A citeproc-js engine for `styleXml` in the en-US `localeXml`, writing `format`. */
export function citeprocEngine({ styleXml, localeXml, items, format = "text", clone = false }) {
  const byId = Object.fromEntries(items.map((item) => [item.id, item]));
  const retrieveItem = clone ? (id) => structuredClone(byId[id]) : (id) => byId[id];
  const engine = new CSL.Engine({ retrieveLocale: () => localeXml, retrieveItem }, styleXml, "en-US", true);
  engine.setOutputFormat(format);
  return engine;
}
