// citeflow/csl in browsers: `await init()` once (fetches citeflow_csl_bg.wasm next to it).
import initWasm from "../gen/csl/citeflow_csl.js";
import { attachCsl, isCslReady } from "../src/csl.js";

export { bundledStyleNames, renderReferences } from "../src/csl.js";

export default async function init(input) {
  if (isCslReady()) return;
  await initWasm(input === undefined ? undefined : { module_or_path: input });
  attachCsl();
}
export { init };
