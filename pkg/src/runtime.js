// Holds the instantiated wasm module. Each runtime entry (entry/*.js) initialises it in the
// way its runtime allows; every public constructor checks it is there. A broken instance is
// replaced by a fresh one (see instance.js).
import * as glue from "../gen/citeflow.js";
import { citeflowError } from "./errors.js";
import { guardInstance } from "./instance.js";

let exports = null;

const instance = guardInstance(glue, "citeflow", (fresh) => {
  exports = fresh;
});

export function attach(wasmExports) {
  exports = wasmExports;
}

export function isReady() {
  return exports !== null;
}

export function ready() {
  if (exports === null) {
    throw citeflowError(
      "NOT_INITIALIZED",
      'citeflow is not initialised: `import init from "citeflow"` and `await init()` once before using it (in a browser always; in Node, Deno or a Worker only when a bundler moved the .wasm away from the package: then `await init(wasmBytesOrUrl)`, see "Using a bundler" in the README)',
    );
  }
}

export function memory() {
  return exports.memory;
}

/** For tests and diagnostics: how many times the instance was replaced, and why last. */
export function instanceState() {
  return { ...instance };
}

/** For tests: makes the core trap (a wasm `unreachable`), as a bug would. */
export function forceTrapForTests() {
  ready();
  glue.__citeflowTrap();
}
