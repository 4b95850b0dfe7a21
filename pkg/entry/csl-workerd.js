// citeflow/csl for Cloudflare Workers: the bundler hands us the compiled module.
import wasmModule from "../gen/csl/citeflow_csl_bg.wasm";
import { initSync } from "../gen/csl/citeflow_csl.js";
import { INTERNALS } from "../src/module.js";
import { attachCsl, cslInternals } from "../src/csl.js";
import { compiledModule } from "./compiled.js";

attachCsl(initSync({ module: compiledModule(wasmModule) }));

export { bundledStyleNames, CslDocument, loadStyle, renderReferences } from "../src/csl.js";
export default async function init() {}
init[INTERNALS] = { csl: cslInternals };
export { init };
