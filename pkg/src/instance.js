// Defence in depth for a wasm instance. Bad input is refused by the core with an error, but if
// anything ever unwinds through wasm frames anyway (a trap, a stack overflow, an exception from
// JS code called without a catch), the instance's state can no longer be trusted: its shadow
// stack pointer, allocator or borrow flags may be off, and every later call could fail or,
// worse, compute garbage. So the first such exception replaces the instance with a fresh one
// of the same compiled module: one bad input costs that call. Objects that live in the old
// instance's memory (stream machines mid-stream) cannot move; using one afterwards throws
// `INSTANCE_RESET` instead of touching the new memory with a stale pointer.
//
// A call can be made while another runs in the same instance (a callback of the caller's, such
// as an option's getter, calls the module again). An exception in the inner call leaves the
// outer one running in the broken instance, so the instance is replaced when the outermost call
// ends, and that call throws the error too (what it computed cannot be trusted); replacing it
// earlier would let the outer call's glue read its result from, and free it in, the fresh
// instance. The glue moves the shadow stack pointer around each call that returns through a
// stack slot, and puts it back in a `finally`: a move back that belongs to a call begun in an
// instance replaced since is skipped, so the fresh instance's stack starts where it should.
//
// Works with the glue as patched by scripts/glue.mjs.
import { citeflowError } from "./errors.js";

/** The export that moves an instance's shadow stack pointer. */
export const STACK_POINTER = "__wbindgen_add_to_stack_pointer";

const PTR = Symbol("citeflow.ptr");
const EPOCH = Symbol("citeflow.epoch");

/**
 * Guards the instances of one generated glue module. `onReplace(exports)` is told about each
 * fresh instance. Returns the state tests and diagnostics read.
 */
export function guardInstance(glue, name, onReplace) {
  const state = { epoch: 0, replacements: 0, lastFatal: null };
  let replacing = false;
  // How many calls into the instance are running (nested through callbacks), and whether one of
  // them failed fatally: then the instance is replaced when the outermost one ends.
  let depth = 0;
  let broken = false;
  let brokenBy;

  function replace(error) {
    state.lastFatal = error;
    if (replacing) return;
    replacing = true;
    try {
      const exports = glue.__citeflowReinstantiate();
      state.epoch++;
      state.replacements++;
      onReplace(exports);
    } finally {
      replacing = false;
    }
  }

  // A call's fatal error (it has ended): the instance is replaced now if no other call into it
  // is running, else once the outermost one ends (see `returned`), for the first such error.
  function failed(error, key) {
    noteTrap(glue, error, key);
    if (!broken) brokenBy = error;
    broken = true;
    if (depth === 0) replaceBroken();
  }

  function replaceBroken() {
    const error = brokenBy;
    brokenBy = undefined;
    broken = false;
    replace(error);
  }

  // The outermost call returned in an instance an inner call broke: instead of returning what
  // it computed there, it throws that call's error (after the replacement).
  function returned() {
    const error = brokenBy;
    replaceBroken();
    throw error;
  }

  // Every call into wasm goes through one of these: with up to six arguments (each step's
  // export) without collecting them into an array and spreading it again.
  function guarded(f, key) {
    if (f.length > 6) {
      return function (...args) {
        depth++;
        let out;
        try {
          out = f(...args);
        } catch (error) {
          depth--;
          failed(error, key);
          throw error;
        }
        if (--depth === 0 && broken) returned();
        return out;
      };
    }
    return function (a, b, c, d, e, g) {
      depth++;
      let out;
      try {
        out = f(a, b, c, d, e, g);
      } catch (error) {
        depth--;
        failed(error, key);
        throw error;
      }
      if (--depth === 0 && broken) returned();
      return out;
    };
  }

  // The shadow stack pointer's mover: the glue moves it down before a call that returns
  // through a stack slot and back up in a `finally`. Each move down is remembered with the
  // instance's epoch; a move back up for one made in an instance replaced since is skipped.
  function stackPointer(f) {
    const epochs = [];
    return function (delta) {
      if (delta < 0) epochs.push(state.epoch);
      else if (delta > 0 && epochs.pop() !== state.epoch) return 0;
      return f(delta);
    };
  }

  // Made in one go (fromEntries): an object given this many keys one by one would keep them in a
  // hash table, looked up on every call. The module's exports have short names
  // (scripts/short_names.mjs); a trap's message names the export by its original.
  const names = glue.__citeflowExportNames ?? {};
  const guardedEntry = ([key, value]) => {
    if (typeof value !== "function") return [key, value];
    const name = names[key] ?? key;
    return [key, name === STACK_POINTER ? stackPointer(value) : guarded(value, name)];
  };
  glue.__citeflowSetGuard((exports) => Object.fromEntries(Object.entries(exports).map(guardedEntry)));

  // Every generated class keeps its pointer in `__wbg_ptr`: record which instance it belongs to.
  for (const value of Object.values(glue)) {
    if (typeof value !== "function" || !value.prototype || !("__destroy_into_raw" in value.prototype)) continue;
    Object.defineProperty(value.prototype, "__wbg_ptr", {
      configurable: true,
      get() {
        if (this[EPOCH] !== state.epoch) {
          throw citeflowError(
            "INSTANCE_RESET",
            `this ${name} object lived in a wasm instance that was replaced after a fatal error in an earlier call (${
              describeFatal(state.lastFatal)
            }); its state is gone: create a new one`,
          );
        }
        return this[PTR];
      },
      set(ptr) {
        this[PTR] = ptr;
        this[EPOCH] = state.epoch;
      },
    });
  }
  return state;
}

/**
 * A trap (a bug in the core) says where: the export it happened in, and, when a panic caused
 * it, the panic's message, which the module noted before it trapped (read here from the old
 * instance's memory before it is replaced). The lean streaming module compiles its panics as
 * plain traps (its size goal; see wasm-pack.toml): it notes none, the export still tells.
 */
function noteTrap(glue, error, key) {
  if (!(error instanceof WebAssembly.RuntimeError)) return;
  const message = glue.__citeflowPanicMessage();
  try {
    error.message = `${error.message} (in \`${key}\`)${message === "" ? "" : ` (${message})`}`;
  } catch {
    // A frozen error keeps its own message.
  }
}

function describeFatal(error) {
  try {
    return String(error?.message ?? error).slice(0, 200);
  } catch {
    return "an exception";
  }
}

/**
 * Frees a generated object's wasm memory now (nothing for null); one of an instance replaced
 * since has none left to free (its pointer throws INSTANCE_RESET, which is not an error here).
 * Returns null, for the field that held it: `this.#core = freeObject(this.#core)`.
 */
export function freeObject(object) {
  try {
    object?.free();
  } catch (e) {
    if (e?.code !== "INSTANCE_RESET") throw e;
  }
  return null;
}
