// Patches wasm-bindgen's generated JS glue so that a wasm instance that trapped can be
// replaced by a fresh one (pkg/src/instance.js does the replacing):
// - every export goes through a guard the package installs (it notices an exception that
//   unwound through wasm frames, which leaves the instance in an unknown state);
// - a finalizer frees an object's memory only in the instance that allocated it (after a
//   replacement, an old pointer means nothing in the new memory);
// - two hooks: install the guard, and re-instantiate the same compiled module.
// Each pattern must match as often as expected, so a wasm-bindgen upgrade that changes the
// glue fails the build here instead of shipping an unguarded package.

function replaceCounted(text, pattern, replacement, expected, what) {
  let count = 0;
  const out = text.replace(pattern, (...m) => {
    count++;
    return typeof replacement === "function" ? replacement(...m) : replacement;
  });
  if (expected !== undefined && count !== expected) {
    throw new Error(`glue patch "${what}": expected ${expected} matches, found ${count} (did the wasm-bindgen glue change?)`);
  }
  return { out, count };
}

const HOOKS = `
// citeflow: installed by pkg/src/instance.js (see scripts/glue.mjs).
let __citeflowGuard = (exports) => exports;
export function __citeflowSetGuard(guard) { __citeflowGuard = guard; }
export function __citeflowReinstantiate() {
    const module = wasmModule;
    wasm = undefined;
    return initSync({ module });
}
`;

/** The patched glue text; throws when the glue does not have the expected shape. */
export function patchGlue(text) {
  let out = text;
  ({ out } = replaceCounted(out, "wasm = instance.exports;", "wasm = __citeflowGuard(instance.exports);", 1, "guard the exports"));
  const { out: withRegistries, count: registries } = replaceCounted(
    out,
    /new FinalizationRegistry\(ptr => wasm\.(\w+)\(ptr(?: >>> 0)?, 1\)\)/g,
    (_, free) => `new FinalizationRegistry(held => held.instance === wasm && wasm.${free}(held.ptr, 1))`,
    undefined,
    "finalizers free in their own instance",
  );
  out = withRegistries;
  const { out: withRegisters, count: registers } = replaceCounted(
    out,
    /(\w+Finalization)\.register\((\w+), \2\.__wbg_ptr, \2\)/g,
    (_, registry, obj) => `${registry}.register(${obj}, { ptr: ${obj}.__wbg_ptr, instance: wasm }, ${obj})`,
    undefined,
    "finalizers remember their instance",
  );
  out = withRegisters;
  const classes = (out.match(/^export class \w+/gm) ?? []).length;
  if (registries !== classes || registers < classes) {
    throw new Error(`glue patch: ${classes} exported classes but ${registries} finalizers and ${registers} registrations patched (did the wasm-bindgen glue change?)`);
  }
  if (!/^let wasmModule, wasmInstance, wasm;$/m.test(out) || !/^function initSync\(module\) \{$/m.test(out)) {
    throw new Error("glue patch: wasmModule/initSync not found (did the wasm-bindgen glue change?)");
  }
  return out + HOOKS;
}
