// The instance of one wasm module (the core or the streaming one): each runtime entry
// (entry/*.js) attaches it in the way its runtime allows; every public constructor checks it is
// there. A broken instance is replaced by a fresh one (see instance.js).
import { citeflowError } from "./errors.js";
import { guardInstance } from "./instance.js";

/** The state of the module behind `glue`; `notReady` is the error message before it is attached. */
export function moduleRuntime(glue, name, notReady) {
  let exports = null;
  const instance = guardInstance(glue, name, (fresh) => {
    exports = fresh;
  });
  const ready = () => {
    if (exports === null) throw citeflowError("NOT_INITIALIZED", notReady);
  };
  return {
    attach(wasmExports) {
      exports = wasmExports;
    },
    isReady: () => exports !== null,
    ready,
    memory: () => exports.memory,
    /** For tests and diagnostics: how many times the instance was replaced, and why last. */
    instanceState: () => ({ ...instance }),
    /** For tests: makes the module trap (a wasm `unreachable`), as a bug would. */
    forceTrap() {
      ready();
      glue.__citeflowTrap();
    },
  };
}
