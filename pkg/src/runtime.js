// Holds the instantiated wasm module. Each runtime entry (entry/*.js) initialises it in the
// way its runtime allows; every public constructor checks it is there.
import { citeflowError } from "./errors.js";

let exports = null;

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
      'citeflow is not initialised: in a browser, `import init from "citeflow"` and `await init()` once before using it',
    );
  }
}

export function memory() {
  return exports.memory;
}
