// The full streaming module's instance: the same engine as the streaming module, with the
// stages that need JSON trees (JSON extraction, validation, cited answers) and whole-output
// transforms. Loaded on demand: only an engine with such a stage, or `transform(output)`, uses
// it. Node and Deno read it at that first use, Workers get it from their bundle, browsers by
// `initFull()` (or `init()` of "citeflow"). See module.js.
import * as glue from "../gen/stream-full/citeflow_stream_full.js";
import { moduleRuntime } from "./module.js";

export const full = moduleRuntime(
  glue,
  "citeflow (full streaming module)",
  'citeflow\'s full streaming module is not initialised. The JSON and validation transformers, cited-answer stages and transform(output) run on it: in a browser, `await initFull()` from "citeflow/stream" (or `await init()` of "citeflow", which loads it too) before using them; in Node, Deno or a Worker only when a bundler moved citeflow_stream_full_bg.wasm away from the package: then pass it to initFull (see "Using a bundler" in the README)',
);

export const { attach: attachFull, attachLazily: attachFullLazily, isReady: isFullReady, internals: fullInternals } =
  full;
