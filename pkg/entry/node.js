// Node.js and Deno: the core module is read from disk and compiled in the background right
// after the import (a 0 ms timer), and instantiated on first use (compiled then if the background
// compilation has not finished): the import does not wait for it, and a first call after any
// idle moment (a server's first request) pays only the instantiation. The streaming module is
// instantiated as soon as its background compilation is done (entry/stream-node.js). A server
// bundle that moved them (and kept no file URL to them) leaves the package waiting for
// `init(bytes)`.
import initWasm, { initSync } from "../gen/citeflow.js";
import { setCslLoader } from "../src/references.js";
import { INTERNALS } from "../src/module.js";
import { attach, attachLazily, internals, isReady } from "../src/runtime.js";
import { streamInternals } from "../src/stream_runtime.js";
import { fullInternals } from "../src/stream_full_runtime.js";
import { compiledInBackground, notFound, readFileSync, wasmFile } from "./read-wasm.js";
import initStream, { initFull } from "./stream-node.js";

const FILE = "citeflow_bg.wasm";

const bytes = wasmFile(
  () => readFileSync(new URL("../gen/citeflow_bg.wasm", import.meta.url)),
  import.meta.url,
  "../gen/citeflow_bg.wasm",
);
const module = compiledInBackground(bytes);
attachLazily(() => initSync({ module: module() }), () => bytes() !== null);

setCslLoader((source) =>
  import("./csl-node.js").then(async (m) => {
    await m.default(source);
    return m;
  })
);

export * from "../src/api.js";
export { setCslWasmUrl } from "../src/references.js";
export { initFull };
export { isFullReady } from "../src/stream_full_runtime.js";

/**
 * Nothing to do where the modules were read at import (Node and Deno with the package as
 * installed); kept so code runs unchanged everywhere. Otherwise pass the modules: their bytes, a
 * fetchable URL or a compiled `WebAssembly.Module` (the core's, the streaming module's, and the
 * full streaming module's, which only JSON, validation and cited-answer stages need).
 */
export default async function init(input, streamInput, fullInput) {
  if (!isReady()) {
    if (input === undefined) {
      throw notFound(
        FILE,
        `Pass it to init(): import init from "citeflow"; await init(bytesOfTheWasmFile, bytesOfTheStreamWasmFile)`,
      );
    }
    attach(await initWasm({ module_or_path: input }));
  }
  await initStream(streamInput);
  if (fullInput !== undefined) await initFull(fullInput);
}
init[INTERNALS] = { core: internals, stream: streamInternals, full: fullInternals };
export { init };
