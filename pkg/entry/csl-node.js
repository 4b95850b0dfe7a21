// citeflow/csl for Node.js and Deno: instantiated at import time, or by `init(bytes)` where a
// server bundle moved the module (see entry/node.js).
import { readFileSync } from "node:fs";
import initWasm, { initSync } from "../gen/csl/citeflow_csl.js";
import { INTERNALS } from "../src/module.js";
import { attachCsl, cslInstanceState, forceCslTrapForTests, isCslReady, setStyleReader } from "../src/csl.js";
import { readWasm } from "./read-wasm.js";

const FILE = "citeflow_csl_bg.wasm";

const bytes = readWasm(
  () => readFileSync(new URL("../gen/csl/citeflow_csl_bg.wasm", import.meta.url)),
  import.meta.url,
  "../gen/csl/citeflow_csl_bg.wasm",
);
if (bytes !== null) {
  initSync({ module: bytes });
  attachCsl();
}

// The bundled styles are read from disk on first use, so the synchronous renderReferences takes
// their names as it is. A style module (scripts/styles.mjs) is `export default <JSON string>;`.
// Where a server bundle moved the package (no file there), `await loadStyle(name)` first.
const PREFIX = "export default ";
const SUFFIX = ";\n";
const here = import.meta.url;
setStyleReader((file) => {
  try {
    const text = readFileSync(new URL(`../gen/styles/${file}.js`, here), "utf8");
    if (!text.startsWith(PREFIX) || !text.endsWith(SUFFIX)) return null;
    const xml = JSON.parse(text.slice(PREFIX.length, -SUFFIX.length));
    return typeof xml === "string" ? xml : null;
  } catch {
    return null; // not there (a server bundle moved the package): loadStyle imports it
  }
});

export { bundledStyleNames, loadStyle, renderReferences } from "../src/csl.js";

/** Nothing to do where the module was read at import; otherwise give it: bytes, a URL or a Module. */
export default async function init(input) {
  if (isCslReady()) return;
  if (input === undefined) {
    // Loaded only here: an import less on the way to the first rendered list.
    const { notFound } = await import("./explain.js");
    throw notFound(
      FILE,
      'Pass it to init() of "citeflow/csl", or to setCslWasmUrl() of "citeflow" before the first renderReferences',
    );
  }
  await initWasm({ module_or_path: input });
  attachCsl();
}
init[INTERNALS] = { csl: { instanceState: cslInstanceState, forceTrap: forceCslTrapForTests } };
export { init };
