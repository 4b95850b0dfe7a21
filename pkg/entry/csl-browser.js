// citeflow/csl in browsers: `await init()` once (fetches citeflow_csl_bg.wasm next to it).
import initWasm from "../gen/csl/citeflow_csl.js";
import { INTERNALS } from "../src/module.js";
import { attachCsl, cslInternals, isCslReady } from "../src/csl.js";
import { fetchedOrExplained, noModuleUrl } from "./explain.js";

const FILE = "citeflow_csl_bg.wasm";
const HOW =
  'Give its URL (import it from "citeflow/citeflow_csl_bg.wasm" as a file) to setCslWasmUrl() of "citeflow" before the first renderReferences, or to init() of "citeflow/csl"';

export { bundledStyleNames, CslDocument, loadStyle, renderReferences } from "../src/csl.js";

export default async function init(input) {
  if (isCslReady()) return;
  if (input !== undefined) {
    attachCsl(await initWasm({ module_or_path: input }));
  } else {
    if (typeof import.meta.url !== "string") throw noModuleUrl(FILE, HOW);
    attachCsl(await fetchedOrExplained(() => initWasm(), FILE, HOW));
  }
}
init[INTERNALS] = { csl: cslInternals };
export { init };
