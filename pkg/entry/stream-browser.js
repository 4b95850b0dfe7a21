// citeflow/stream in browsers: the streaming module alone. `await init()` once; it fetches
// citeflow_stream_bg.wasm next to this package unless given a URL, Response, bytes or a Module.
import initWasm from "../gen/stream/citeflow_stream.js";
import { INTERNALS } from "../src/module.js";
import { attachStream, isStreamReady, streamInternals } from "../src/stream_runtime.js";
import { instantiated } from "./explain.js";

const FILE = "citeflow_stream_bg.wasm";
const HOW =
  'Give init() its URL: import streamWasmUrl from "citeflow/citeflow_stream_bg.wasm" as a file (esbuild: --loader:.wasm=file), then await init(streamWasmUrl) of "citeflow/stream", or init(wasmUrl, streamWasmUrl) of "citeflow"';

export * from "../src/stream_api.js";
export { isStreamReady as isReady } from "../src/stream_runtime.js";

export default async function init(input) {
  if (!isStreamReady()) attachStream(await instantiated(initWasm, input, FILE, HOW));
}
init[INTERNALS] = { stream: streamInternals };
export { init };
