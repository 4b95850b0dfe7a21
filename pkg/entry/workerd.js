// Cloudflare Workers (workerd): the bundler hands us the compiled module; instantiated at import.
import wasmModule from "../gen/citeflow_bg.wasm";
import { initSync } from "../gen/citeflow.js";
import { setCslLoader } from "../src/references.js";
import { attach } from "../src/runtime.js";
import "./stream-workerd.js";

attach(initSync({ module: wasmModule }));

setCslLoader(() => import("./csl-workerd.js"));

export * from "../src/api.js";
export { setCslWasmUrl } from "../src/references.js";

/** Nothing to do here (initialised at import); kept so code runs unchanged everywhere. */
export default async function init() {}
export { init };
