// Cloudflare Workers (workerd): the bundler hands us the compiled module; instantiated on first
// use (the streaming module at import, entry/stream-workerd.js).
import wasmModule from "../gen/citeflow_bg.wasm";
import { initSync } from "../gen/citeflow.js";
import { setCslLoader } from "../src/references.js";
import { INTERNALS } from "../src/module.js";
import { attachLazily, internals } from "../src/runtime.js";
import { streamInternals } from "../src/stream_runtime.js";
import "./stream-workerd.js";

attachLazily(() => initSync({ module: wasmModule }));

setCslLoader(() => import("./csl-workerd.js"));

export * from "../src/api.js";
export { setCslWasmUrl } from "../src/references.js";

/** Nothing to do here (the modules came with the bundle); kept so code runs unchanged everywhere. */
export default async function init() {}
init[INTERNALS] = { core: internals, stream: streamInternals };
export { init };
