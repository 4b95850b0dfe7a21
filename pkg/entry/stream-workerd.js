// citeflow/stream for Cloudflare Workers (workerd): the bundler hands us the compiled modules;
// the streaming module instantiated at import, the full one at its first use.
import wasmModule from "../gen/stream/citeflow_stream_bg.wasm";
import fullModule from "../gen/stream-full/citeflow_stream_full_bg.wasm";
import { initSync } from "../gen/stream/citeflow_stream.js";
import { initSync as initFullSync } from "../gen/stream-full/citeflow_stream_full.js";
import { INTERNALS } from "../src/module.js";
import { attachStream, streamInternals } from "../src/stream_runtime.js";
import { attachFullLazily, fullInternals } from "../src/stream_full_runtime.js";
import { compiledModule } from "./compiled.js";

attachStream(initSync({ module: compiledModule(wasmModule) }));
attachFullLazily(() => initFullSync({ module: compiledModule(fullModule) }));

export * from "../src/stream_api.js";
export { isStreamReady as isReady } from "../src/stream_runtime.js";
export { isFullReady } from "../src/stream_full_runtime.js";

/** Nothing to do here (initialised at import); kept so code runs unchanged everywhere. */
export default async function init() {}
init[INTERNALS] = { stream: streamInternals, full: fullInternals };
export { init };

/** Nothing to do here (instantiated at its first use); kept so code runs unchanged everywhere. */
export async function initFull() {}
