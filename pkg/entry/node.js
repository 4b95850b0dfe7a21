// Node.js and Deno: the module is read from disk and instantiated at import time.
import { readFileSync } from "node:fs";
import { initSync } from "../gen/citeflow.js";
import { setCslLoader } from "../src/references.js";
import { attach } from "../src/runtime.js";

attach(initSync({ module: readFileSync(new URL("../gen/citeflow_bg.wasm", import.meta.url)) }));

setCslLoader(() => import("./csl-node.js"));

export * from "../src/api.js";

/** Nothing to do here (initialised at import); kept so code runs unchanged everywhere. */
export default async function init() {}
export { init };
