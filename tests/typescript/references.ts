// `cslItemOf` gives what `renderReferences` and Citeformer's `toCslItem` take.
import { Citeformer, type CslItem, cslItemOf, renderReferences } from "citeflow";
import { renderReferences as renderNow } from "citeflow/csl";

const retrieved: Record<string, unknown> = { file_name: "a.pdf", file_url: "https://example.org/a.pdf" };
const item: CslItem = cslItemOf(retrieved);
const refs = await renderReferences([cslItemOf({ title: "Water", url: "https://example.org/w" }), item], [1, 2]);
const now = renderNow([{ content: "c", metadata: cslItemOf(retrieved) }], null, { style: "ieee" });
console.log(refs[0].entry, now[0].inlineMarker);
new Citeformer({
  lmInvoker: { invoke: () => "x" },
  toCslItem: (source) => cslItemOf(source.metadata),
});
// @ts-expect-error: a CSL `type`, when given, is a string
cslItemOf({ type: 5 });
