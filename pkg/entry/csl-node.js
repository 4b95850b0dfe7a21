// citeflow/csl for Node.js and Deno: instantiated at import time.
import { readFileSync } from "node:fs";
import { initSync } from "../gen/csl/citeflow_csl.js";
import { attachCsl } from "../src/csl.js";

initSync({ module: readFileSync(new URL("../gen/csl/citeflow_csl_bg.wasm", import.meta.url)) });
attachCsl();

export { bundledStyleNames, renderReferences } from "../src/csl.js";
export default async function init() {}
export { init };
