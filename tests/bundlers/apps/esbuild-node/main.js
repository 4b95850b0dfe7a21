// esbuild bundling a Node program: the package's code moves into one file, away from its wasm
// files, so the package waits for them; hand them over as bytes.
// Build: esbuild main.js --bundle --platform=node --target=node20 --format=esm --loader:.wasm=binary \
//          --outfile=dist/main.mjs   (a --target without Uint8Array.fromBase64, which Node 20 lacks)
// (or keep the package out of the bundle: --packages=external, and nothing is needed).
import init, * as citeflow from "citeflow";
import wasm from "citeflow/citeflow_bg.wasm";
import streamWasm from "citeflow/citeflow_stream_bg.wasm";
import fullWasm from "citeflow/citeflow_stream_full_bg.wasm";
import cslWasm from "citeflow/citeflow_csl_bg.wasm";
import { coreResults, referenceText } from "./scenario.js";

const code = (e) => `${e.code}: ${e.message}`;
let beforeInit = "initialised at import";
try {
  citeflow.parseCitations("a [1]");
} catch (e) {
  beforeInit = code(e);
}
const initWithout = await init().then(() => "ok", code);
citeflow.setCslWasmUrl(cslWasm);
await init(wasm, streamWasm, fullWasm);
console.log(
  JSON.stringify({ beforeInit, initWithout, ...coreResults(citeflow), references: await referenceText(citeflow) }),
);
