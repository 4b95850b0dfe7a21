// citeflow/csl for Node.js and Deno: the module read and compiled in the background right
// after the import and instantiated as soon as that is done, or by the first use if that comes first; or
// by `init(bytes)` where a server bundle moved the module (see entry/node.js).
import initWasm, { initSync } from "../gen/csl/citeflow_csl.js";
import { INTERNALS } from "../src/module.js";
import { attachCsl, attachCslLazily, cslInternals, isCslReady, setStyleReader, warmCsl } from "../src/csl.js";
import { compiledInBackground, notFound, readFileSync, wasmFile } from "./read-wasm.js";

const FILE = "citeflow_csl_bg.wasm";

const bytes = wasmFile(
  () => readFileSync(new URL("../gen/csl/citeflow_csl_bg.wasm", import.meta.url)),
  import.meta.url,
  "../gen/csl/citeflow_csl_bg.wasm",
);
const module = compiledInBackground(bytes, warmCsl);
attachCslLazily(() => initSync({ module: module() }), () => bytes() !== null);

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

export { bundledStyleNames, CslDocument, loadStyle, renderReferences } from "../src/csl.js";

/** Nothing to do where the module was read at import; otherwise give it: bytes, a URL or a Module. */
export default async function init(input) {
  if (isCslReady()) return;
  if (input === undefined) {
    // Loaded only here: an import less on the way to the first rendered list.
    throw notFound(
      FILE,
      'Pass it to init() of "citeflow/csl", or to setCslWasmUrl() of "citeflow" before the first renderReferences',
    );
  }
  attachCsl(await initWasm({ module_or_path: input }));
}
init[INTERNALS] = { csl: cslInternals };
export { init };
