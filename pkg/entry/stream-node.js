// citeflow/stream for Node.js and Deno: the streaming module, read and compiled in the
// background right after the import and instantiated as soon as that is done, or by the first
// use if that comes first (synchronous code right after the import: it then compiles the module
// itself); or by `init(bytes)` where a server bundle moved it (see entry/node.js). The full
// streaming module (stream_full_runtime.js) only at its first use.
import initWasm, { initSync } from "../gen/stream/citeflow_stream.js";
import initFullWasm, { initSync as initFullSync } from "../gen/stream-full/citeflow_stream_full.js";
import { INTERNALS } from "../src/module.js";
import { attachStream, attachStreamLazily, isStreamReady, streamInternals, warmStream } from "../src/stream_runtime.js";
import { attachFull, attachFullLazily, fullInternals } from "../src/stream_full_runtime.js";
import { compiledInBackground, notFound, readFileSync, readWasm, wasmFile } from "./read-wasm.js";

const FILE = "citeflow_stream_bg.wasm";

const bytes = wasmFile(
  () => readFileSync(new URL("../gen/stream/citeflow_stream_bg.wasm", import.meta.url)),
  import.meta.url,
  "../gen/stream/citeflow_stream_bg.wasm",
);
const module = compiledInBackground(bytes, warmStream);
attachStreamLazily(() => initSync({ module: module() }), () => bytes() !== null);

// The full streaming module: read, compiled and instantiated at its first use, which most programs
// never make. Where a server bundle moved it, that use is NOT_INITIALIZED until `initFull(bytes)`.
const FULL_FILE = "citeflow_stream_full_bg.wasm";
attachFullLazily(() => {
  const fullBytes = readWasm(
    () => readFileSync(new URL("../gen/stream-full/citeflow_stream_full_bg.wasm", import.meta.url)),
    import.meta.url,
    "../gen/stream-full/citeflow_stream_full_bg.wasm",
  );
  if (fullBytes === null) throw notFound(FULL_FILE, 'Pass it to initFull() of "citeflow/stream" or "citeflow"');
  return initFullSync({ module: fullBytes });
});

export * from "../src/stream_api.js";
export { isStreamReady as isReady } from "../src/stream_runtime.js";
export { isFullReady } from "../src/stream_full_runtime.js";

/** Nothing to do where the module was read at import; otherwise give it: bytes, a URL or a Module. */
export default async function init(input) {
  if (isStreamReady()) return;
  if (input === undefined) {
    throw notFound(
      FILE,
      'Pass it to init() of "citeflow/stream" (or as the second argument of init() of "citeflow"): await init(bytesOfTheWasmFile)',
    );
  }
  attachStream(await initWasm({ module_or_path: input }));
}
init[INTERNALS] = { stream: streamInternals, full: fullInternals };
export { init };

/**
 * Nothing to do where the full streaming module is beside the package (it is read at its first
 * use); otherwise give it: bytes, a URL or a Module.
 */
export async function initFull(input) {
  // Given a module, it is the one: the file beside the package may be gone (a server bundle).
  if (input !== undefined) attachFull(await initFullWasm({ module_or_path: input }));
}
