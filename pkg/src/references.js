// References from the main entry: the CSL module is loaded on first use, so a user never
// initialises two modules by hand and the core download stays small.
import { citeflowError, describe, noMoreArguments } from "./errors.js";

let loader = null;
let loaded = null;
let wasmSource;

/** Each runtime entry says how its CSL entry is loaded: `load(source)` gets `setCslWasmUrl`'s value. */
export function setCslLoader(load) {
  loader = load;
}

/**
 * Where the CSL wasm module is, for a bundler that does not emit it next to the package's code
 * (esbuild): a URL, a `Response`, bytes or a compiled `WebAssembly.Module`, as `init` takes.
 * Only the first load reads it, so call it before the first `renderReferences`.
 */
export function setCslWasmUrl(source, ...more) {
  noMoreArguments([source, ...more], 1, "setCslWasmUrl");
  if (!isWasmSource(source)) {
    throw citeflowError(
      "INVALID_ARGUMENT",
      `setCslWasmUrl: expected a URL (string or URL), Request, Response, bytes or WebAssembly.Module, got ${
        describe(source)
      }`,
    );
  }
  if (loaded !== null) {
    throw citeflowError(
      "INVALID_OPTION",
      "setCslWasmUrl: the CSL module is already loaded (or loading); call it before the first renderReferences or bundledStyleNames",
    );
  }
  wasmSource = source;
}

function isWasmSource(value) {
  const is = (type) => typeof type === "function" && value instanceof type;
  try {
    return typeof value === "string" || is(globalThis.URL) || is(globalThis.Request) || is(globalThis.Response) ||
      is(ArrayBuffer) || ArrayBuffer.isView(value) || is(WebAssembly.Module);
  } catch {
    return false; // a Proxy whose traps throw
  }
}

export function loadCsl() {
  if (loaded === null) {
    if (loader === null) return Promise.reject(citeflowError("NOT_INITIALIZED", "no CSL loader for this runtime"));
    loaded = loader(wasmSource).catch((e) => {
      loaded = null;
      throw e;
    });
  }
  return loaded;
}

/** The bundled style `options` name (undefined: the default), or null for none (XML, or not a name). */
function bundledStyleOf(csl, options) {
  try {
    const style = options === undefined || options === null ? undefined : options.style;
    if (style === undefined) return undefined;
    return typeof style === "string" && csl.bundledStyleNames().includes(style) ? style : null;
  } catch {
    return null; // a throwing getter: renderReferences reports it
  }
}

/** Renders the reference list of the cited sources; loads citeflow/csl (and the style) on first use. */
export async function renderReferences(sources, citations, options, ...more) {
  noMoreArguments([sources, citations, options, ...more], 3, "renderReferences");
  const csl = await loadCsl();
  const style = bundledStyleOf(csl, options);
  if (style !== null) await csl.loadStyle(style);
  return csl.renderReferences(sources, citations, options);
}

export async function bundledStyleNames(...more) {
  noMoreArguments(more, 0, "bundledStyleNames");
  return (await loadCsl()).bundledStyleNames();
}
