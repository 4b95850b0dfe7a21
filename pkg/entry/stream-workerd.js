// citeflow/stream for Cloudflare Workers (workerd): the bundler hands us the compiled module;
// instantiated at import.
import wasmModule from "../gen/stream/citeflow_stream_bg.wasm";
import { initSync } from "../gen/stream/citeflow_stream.js";
import { INTERNALS } from "../src/module.js";
import { attachStream, streamInternals } from "../src/stream_runtime.js";

attachStream(initSync({ module: wasmModule }));

export * from "../src/stream_api.js";
export { isStreamReady as isReady } from "../src/stream_runtime.js";

/** Nothing to do here (initialised at import); kept so code runs unchanged everywhere. */
export default async function init() {}
init[INTERNALS] = { stream: streamInternals };
export { init };
