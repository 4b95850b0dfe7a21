// The instance of one wasm module (the core or the streaming one): each runtime entry
// (entry/*.js) attaches it in the way its runtime allows, either an instance (`attach`) or a
// way to make one on first use (`attachLazily`: Node and Deno, which have the modules' bytes at
// import and so need not make the import wait for their compilation). Every public constructor
// and function calls `ready()` before touching the glue. A broken instance is replaced by a
// fresh one (see instance.js).
import { citeflowError } from "./errors.js";
import { guardInstance, STACK_POINTER } from "./instance.js";

/**
 * Where each entry's `init` keeps the package's internal state for its tests (instances,
 * forced traps, the glue): not part of the API, may change in any release.
 */
export const INTERNALS = Symbol.for("citeflow.internals");

/** The state of the module behind `glue`; `notReady` is the error message before it is attached. */
export function moduleRuntime(glue, name, notReady) {
  let exports = null;
  let pending = null;
  // Whether `pending` can make the instance (its module's bytes were found); null: it can.
  let available = null;
  const instance = guardInstance(glue, name, (fresh) => {
    exports = fresh;
  });
  function instantiate() {
    const make = pending;
    pending = null;
    try {
      exports = make();
    } catch (e) {
      throw citeflowError(
        "NOT_INITIALIZED",
        `${name}: compiling or instantiating its wasm module failed (${String(e?.message ?? e)}). ${notReady}`,
        e,
      );
    }
  }
  const canMake = () => pending !== null && (available === null || available());
  const ready = () => {
    if (exports !== null) return;
    if (!canMake()) throw citeflowError("NOT_INITIALIZED", notReady);
    instantiate();
  };
  return {
    attach(wasmExports) {
      exports = wasmExports;
      pending = null;
      available = null;
    },
    /**
     * `make()` returns the instance's exports; called by the first `ready()`, if `found()` (asked
     * then, or by `isReady()`: whether the module's bytes are there) says it can.
     */
    attachLazily(make, found = null) {
      if (exports !== null) return;
      pending = make;
      available = found;
    },
    /**
     * Instantiates now if a first use would (a background compilation just finished); a failure
     * is left for that first use to report.
     */
    warm() {
      if (exports !== null || !canMake()) return;
      try {
        exports = pending();
        pending = null;
      } catch {
        // the first use tries again and throws NOT_INITIALIZED with the cause
      }
    },
    /** Usable without `init`: instantiated, or able to instantiate on first use. */
    isReady: () => exports !== null || canMake(),
    ready,
    memory: () => exports.memory,
    /** How many times the instance was replaced: an object made since lives in the current one. */
    epoch: () => instance.epoch,
    /**
     * Not part of the API (tests and diagnostics; may change in any release): how many times the
     * instance was replaced and why last; a forced trap (a panic, then a wasm `unreachable`, as a bug would
     * cause); the wasm memory's size; the glue module itself.
     */
    internals: {
      instanceState: () => ({ ...instance }),
      forceTrap() {
        ready();
        glue.__citeflowTrap();
      },
      memoryBytes() {
        ready();
        return exports.memory.buffer.byteLength;
      },
      /**
       * The instance's shadow stack pointer (between calls: where each call's frames start), or
       * null where the glue never moves it (no such export: a module keeping multi-value returns).
       */
      stackPointer() {
        ready();
        const names = glue.__citeflowExportNames ?? {};
        const key = Object.keys(names).find((k) => names[k] === STACK_POINTER) ?? STACK_POINTER;
        return typeof exports[key] === "function" ? exports[key](0) : null;
      },
      glue,
    },
  };
}
