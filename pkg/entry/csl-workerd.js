// citeflow/csl for Cloudflare Workers: the bundler hands us the compiled module.
import wasmModule from "../gen/csl/citeflow_csl_bg.wasm";
import { initSync } from "../gen/csl/citeflow_csl.js";
import { INTERNALS } from "../src/module.js";
import { attachCsl, cslInstanceState, forceCslTrapForTests } from "../src/csl.js";

initSync({ module: wasmModule });
attachCsl();

export { bundledStyleNames, loadStyle, renderReferences } from "../src/csl.js";
export default async function init() {}
init[INTERNALS] = { csl: { instanceState: cslInstanceState, forceTrap: forceCslTrapForTests } };
export { init };
