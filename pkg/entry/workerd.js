// Cloudflare Workers (workerd): the bundler hands us the compiled module; instantiated at import.
// Not on first use as in Node: Workers run a worker's top level while the connection's TLS
// handshake is still going on, off the first request's path, and the module comes compiled.
import wasmModule from "../gen/citeflow_bg.wasm";
import { initSync } from "../gen/citeflow.js";
import { setCslLoader } from "../src/references.js";
import { INTERNALS } from "../src/module.js";
import { attach, internals } from "../src/runtime.js";
import { streamInternals } from "../src/stream_runtime.js";
import { fullInternals } from "../src/stream_full_runtime.js";
import { initFull } from "./stream-workerd.js";
import { compiledModule } from "./compiled.js";

attach(initSync({ module: compiledModule(wasmModule) }));

setCslLoader(() => import("./csl-workerd.js"));

export * from "../src/api.js";
export { setCslWasmUrl } from "../src/references.js";
export { initFull };
export { isFullReady } from "../src/stream_full_runtime.js";

/** Nothing to do here (initialised at import); kept so code runs unchanged everywhere. */
export default async function init() {}
init[INTERNALS] = { core: internals, stream: streamInternals, full: fullInternals };
export { init };
