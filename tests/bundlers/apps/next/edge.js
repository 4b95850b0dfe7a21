// The scenario as an Edge runtime handler's JSON answer, for the two kinds of edge route:
// app/api/edge/route.js (App Router; the Turbopack row) and pages/api/edge-pages.js (Pages
// Router; the webpack row, whose Next.js 16.4 cannot build an App Router edge route).
// tests/bundlers/run.mjs fetches them and compares the JSON with what the package gives in Node.
import init, * as citeflow from "citeflow";
import { coreResults, referenceText } from "./scenario.js";

export async function scenarioResponse() {
  // `EdgeRuntime` is the global the edge runtime defines: proof that this ran there.
  const runtime = typeof EdgeRuntime === "string" ? EdgeRuntime : null;
  try {
    await init();
    const { core, citation } = coreResults(citeflow);
    const references = await referenceText(citeflow);
    return Response.json({ runtime, core, citation, references });
  } catch (e) {
    return Response.json({ runtime, error: `${e?.code ?? ""} ${e?.message ?? e}` }, { status: 500 });
  }
}
