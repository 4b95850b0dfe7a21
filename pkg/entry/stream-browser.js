// citeflow/stream in browsers: the streaming module alone. `await init()` once; it fetches
// citeflow_stream_bg.wasm next to this package unless given a URL, Response, bytes or a Module.
import initWasm from "../gen/stream/citeflow_stream.js";
import initFullWasm from "../gen/stream-full/citeflow_stream_full.js";
import { INTERNALS } from "../src/module.js";
import { attachStream, isStreamReady, streamInternals } from "../src/stream_runtime.js";
import { attachFull, fullInternals, isFullReady } from "../src/stream_full_runtime.js";
import { instantiated } from "./explain.js";

const FILE = "citeflow_stream_bg.wasm";
const HOW =
  'Give init() its URL: import streamWasmUrl from "citeflow/citeflow_stream_bg.wasm" as a file (esbuild: --loader:.wasm=file), then await init(streamWasmUrl) of "citeflow/stream", or init(wasmUrl, streamWasmUrl) of "citeflow"';

const FULL_FILE = "citeflow_stream_full_bg.wasm";
const FULL_HOW =
  'Give initFull() its URL: import fullWasmUrl from "citeflow/citeflow_stream_full_bg.wasm" as a file (esbuild: --loader:.wasm=file), then await initFull(fullWasmUrl), or pass it as the third argument of init() of "citeflow"';

export * from "../src/stream_api.js";
export { isStreamReady as isReady } from "../src/stream_runtime.js";
export { isFullReady } from "../src/stream_full_runtime.js";

export default async function init(input) {
  if (!isStreamReady()) attachStream(await instantiated(initWasm, input, FILE, HOW));
}
init[INTERNALS] = { stream: streamInternals, full: fullInternals };
export { init };

/**
 * Loads the full streaming module (`input`: a URL, Response, bytes or Module; by default the
 * file beside the package), which the JSON and validation transformers, cited-answer stages and
 * `transform(output)` need.
 */
export async function initFull(input) {
  if (!isFullReady()) attachFull(await instantiated(initFullWasm, input, FULL_FILE, FULL_HOW));
}
