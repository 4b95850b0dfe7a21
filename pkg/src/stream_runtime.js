// The streaming module's instance (the engine, transformers and SSE decoders), which
// `citeflow/stream` loads alone and `citeflow` beside the core. See module.js.
import * as glue from "../gen/stream/citeflow_stream.js";
import { moduleRuntime } from "./module.js";

const stream = moduleRuntime(
  glue,
  "citeflow/stream",
  'citeflow\'s streaming module is not initialised: `await init()` of "citeflow" or "citeflow/stream" once before using it (in a browser always; in Node, Deno or a Worker only when a bundler moved the .wasm away from the package: then pass citeflow_stream_bg.wasm to init, see "Using a bundler" in the README)',
);

export const {
  attach: attachStream,
  attachLazily: attachStreamLazily,
  warm: warmStream,
  isReady: isStreamReady,
  ready,
  memory,
  epoch,
  internals: streamInternals,
} = stream;
