// Patches wasm-bindgen's generated JS glue so that a wasm instance that trapped can be
// replaced by a fresh one (pkg/src/instance.js does the replacing):
// - every export goes through a guard the package installs (it notices an exception that
//   unwound through wasm frames, which leaves the instance in an unknown state);
// - a finalizer frees an object's memory only in the instance that allocated it (after a
//   replacement, an old pointer means nothing in the new memory);
// - three hooks: install the guard, read what a panic noted, and re-instantiate the same
//   compiled module.
// Each pattern must match as often as expected, so a wasm-bindgen upgrade that changes the
// glue fails the build here instead of shipping an unguarded package.

function replaceCounted(text, pattern, replacement, expected, what) {
  let count = 0;
  const out = text.replace(pattern, (...m) => {
    count++;
    return typeof replacement === "function" ? replacement(...m) : replacement;
  });
  if (expected !== undefined && count !== expected) {
    throw new Error(
      `glue patch "${what}": expected ${expected} matches, found ${count} (did the wasm-bindgen glue change?)`,
    );
  }
  return { out, count };
}

// Type checks at the top of wasm-bindgen's argument copiers: a non-string given where Rust takes
// a string (or a fake array-like with a huge length) would otherwise reach malloc and memory
// with nonsense, and trap. Thrown in JS, before anything enters wasm.
const ARGUMENT_CHECKS = {
  passStringToWasm0: "__citeflowCheckArgument(typeof arg === 'string', 'a string', arg);",
  passArrayF32ToWasm0:
    "__citeflowCheckArgument(__citeflowIsArray(arg, Float32Array), 'a Float32Array or an array of numbers, of at most 2^26 items', arg);",
  passArray8ToWasm0:
    "__citeflowCheckArgument(__citeflowIsArray(arg, Uint8Array), 'a Uint8Array of at most 2^26 bytes', arg);",
  passArrayJsValueToWasm0:
    "__citeflowCheckArgument(__citeflowIsArray(array), 'an array of at most 2^26 items', array);",
};

const HOOKS = `
// citeflow: installed by pkg/src/instance.js (see scripts/glue.mjs).
let __citeflowGuard = (exports) => exports;
export function __citeflowSetGuard(guard) { __citeflowGuard = guard; }
export function __citeflowPanicMessage() {
    // What the module's panic hook noted before it trapped (src/wasm/panic_note.rs): read from
    // its memory, to be called before it is replaced; "" when there is none.
    try {
        const at = wasm.__citeflowPanicNote() >>> 0;
        const len = new DataView(wasm.memory.buffer).getUint32(at, true);
        return len === 0 ? "" : new TextDecoder().decode(new Uint8Array(wasm.memory.buffer, at + 4, len));
    } catch {
        return "";
    }
}
export function __citeflowReinstantiate() {
    const module = wasmModule;
    wasm = undefined;
    return initSync({ module });
}
const __citeflowMaxArrayLength = 1 << 26;
function __citeflowIsArray(value, typed) {
    try {
        return (Array.isArray(value) || (typed !== undefined && value instanceof typed)) && value.length <= __citeflowMaxArrayLength;
    } catch {
        return false; // a revoked Proxy
    }
}
function __citeflowCheckArgument(ok, expected, value) {
    if (ok) return;
    let got;
    try {
        got = value === null ? "null" : Array.isArray(value) ? \`an array of \${value.length}\` : typeof value;
    } catch {
        got = "an unreadable value";
    }
    const error = new Error(\`expected \${expected}, got \${got}\`);
    error.name = "CiteflowError";
    error.code = "INVALID_ARGUMENT";
    throw error;
}
`;

// From this many UTF-16 units on, a string argument is encoded by TextEncoder.encodeInto.
const LONG_STRING = 1024;
// Up to this many bytes, an ASCII string from wasm is made by a loop (see getStringFromWasm0).
const SHORT_STRING = 16;

/** The patched glue text; throws when the glue does not have the expected shape. */
export function patchGlue(text) {
  let out = text;
  ({ out } = replaceCounted(
    out,
    "wasm = instance.exports;",
    "wasm = __citeflowGuard(instance.exports);",
    1,
    "guard the exports",
  ));
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
  for (const [copier, check] of Object.entries(ARGUMENT_CHECKS)) {
    ({ out } = replaceCounted(
      out,
      new RegExp(`^(function ${copier}\\([^)]*\\) \\{)$`, "m"),
      (_, head) => `${head}\n    ${check}`,
      undefined,
      `check the arguments of ${copier}`,
    ));
  }
  // A long string goes in by the native encoder (the glue's own loop copies it a character
  // at a time: milliseconds per megabyte of answer text): into as many bytes as it has units,
  // then, if it is not all ASCII, the rest into room for three bytes a unit, as the loop does.
  ({ out } = replaceCounted(
    out,
    /^( {4}let len = arg\.length;\n {4}let ptr = malloc\(len, 1\) >>> 0;)$/m,
    (_, loop) =>
      `    if (arg.length >= ${LONG_STRING}) {
        let len = arg.length;
        let ptr = malloc(len, 1) >>> 0;
        let { read, written } = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + len));
        if (read < arg.length) {
            const rest = arg.slice(read);
            ptr = realloc(ptr, len, len = written + rest.length * 3, 1) >>> 0;
            written += cachedTextEncoder.encodeInto(rest, getUint8ArrayMemory0().subarray(ptr + written, ptr + len)).written;
            ptr = realloc(ptr, len, written, 1) >>> 0;
        }
        WASM_VECTOR_LEN = written;
        return ptr;
    }
${loop}`,
    1,
    "encode long strings natively",
  ));
  // Imports that may throw: wasm-bindgen wraps each in `handleError(f, arguments)`, an
  // arguments object and an `apply` per call (about twice the cost of the call itself, and a
  // transformer's set-up makes some thirty such calls to read its options). Each gets its own
  // try/catch instead, storing the exception as handleError does.
  const wrapped = (out.match(/return handleError\(function/g) ?? []).length;
  ({ out } = replaceCounted(
    out,
    /function\(\) \{ return handleError\(function \(([^)]*)\) \{\n([\s\S]*?)\n {8}\}, arguments\); \}/g,
    (_, args, body) =>
      `function (${args}) { try {\n${body}\n        } catch (e) { wasm.__wbindgen_exn_store(addToExternrefTable0(e)); } }`,
    wrapped,
    "imports that may throw catch for themselves",
  ));
  // Strings from wasm: short ASCII ones (option keys, type names, ids) by a loop, not by
  // TextDecoder, whose fixed cost is two to three times the loop's for a token-sized string.
  ({ out } = replaceCounted(
    out,
    /^function getStringFromWasm0\(ptr, len\) \{\n {4}ptr = ptr >>> 0;\n {4}return decodeText\(getUint8ArrayMemory0\(\)\.subarray\(ptr, ptr \+ len\)\);\n\}$/m,
    `function getStringFromWasm0(ptr, len) {
    ptr = ptr >>> 0;
    const memory = getUint8ArrayMemory0();
    if (len <= ${SHORT_STRING}) {
        let s = "";
        for (let i = ptr; i < ptr + len; i++) {
            const c = memory[i];
            if (c >= 0x80) return decodeText(memory.subarray(ptr, ptr + len));
            s += String.fromCharCode(c);
        }
        return s;
    }
    return decodeText(memory.subarray(ptr, ptr + len));
}`,
    1,
    "short ASCII strings from wasm without TextDecoder",
  ));
  const classes = (out.match(/^export class \w+/gm) ?? []).length;
  if (registries !== classes || registers < classes) {
    throw new Error(
      `glue patch: ${classes} exported classes but ${registries} finalizers and ${registers} registrations patched (did the wasm-bindgen glue change?)`,
    );
  }
  if (!/^let wasmModule, wasmInstance, wasm;$/m.test(out) || !/^function initSync\(module\) \{$/m.test(out)) {
    throw new Error("glue patch: wasmModule/initSync not found (did the wasm-bindgen glue change?)");
  }
  return out + HOOKS;
}
