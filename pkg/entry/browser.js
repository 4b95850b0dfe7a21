// Browsers (and anything else with fetch): `await init()` once; it fetches the .wasm next
// to this package unless given a URL, Response, bytes or a compiled WebAssembly.Module.
import initWasm from "../gen/citeflow.js";
import { setCslLoader } from "../src/references.js";
import { attach, isReady } from "../src/runtime.js";

setCslLoader(() => import("./csl-browser.js").then(async (m) => {
  await m.default();
  return m;
}));

export * from "../src/api.js";

export default async function init(input) {
  if (isReady()) return;
  attach(await initWasm(input === undefined ? undefined : { module_or_path: input }));
}
export { init };
