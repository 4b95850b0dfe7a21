// The core module's instance (everything but streaming and CSL). See module.js.
import * as glue from "../gen/citeflow.js";
import { moduleRuntime } from "./module.js";

const core = moduleRuntime(
  glue,
  "citeflow",
  'citeflow is not initialised: `import init from "citeflow"` and `await init()` once before using it (in a browser always; in Node, Deno or a Worker only when a bundler moved the .wasm away from the package: then `await init(wasmBytesOrUrl, streamWasmBytesOrUrl)`, see "Using a bundler" in the README)',
);

export const { attach, attachLazily, isReady, ready, memory, internals } = core;
