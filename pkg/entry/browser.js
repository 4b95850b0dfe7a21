// Browsers (and anything else with fetch): `await init()` once; it fetches the .wasm next
// to this package unless given a URL, Response, bytes or a compiled WebAssembly.Module.
import initWasm from "../gen/citeflow.js";
import { setCslLoader } from "../src/references.js";
import { INTERNALS } from "../src/module.js";
import { attach, internals, isReady } from "../src/runtime.js";
import { streamInternals } from "../src/stream_runtime.js";
import { fullInternals } from "../src/stream_full_runtime.js";
import { instantiated } from "./explain.js";
import initStream, { initFull } from "./stream-browser.js";

const FILE = "citeflow_bg.wasm";
const HOW =
  'Give init() its URL: import wasmUrl from "citeflow/citeflow_bg.wasm" (and streamWasmUrl from "citeflow/citeflow_stream_bg.wasm", fullWasmUrl from "citeflow/citeflow_stream_full_bg.wasm") as files (esbuild: --loader:.wasm=file), then await init(wasmUrl, streamWasmUrl, fullWasmUrl)';

setCslLoader((source) =>
  import("./csl-browser.js").then(async (m) => {
    await m.default(source);
    return m;
  })
);

export * from "../src/api.js";
export { setCslWasmUrl } from "../src/references.js";
export { initFull };
export { isFullReady } from "../src/stream_full_runtime.js";

/**
 * Loads the modules: the core (`input`: a URL, Response, bytes or Module), the streaming one
 * (`streamInput`) and the full streaming one (`fullInput`), so that every API of "citeflow" works
 * synchronously afterwards.
 */
export default async function init(input, streamInput, fullInput) {
  await Promise.all([initCore(input), initStream(streamInput), initFull(fullInput)]);
}

async function initCore(input) {
  if (!isReady()) attach(await instantiated(initWasm, input, FILE, HOW));
}
init[INTERNALS] = { core: internals, stream: streamInternals, full: fullInternals };
export { init };
