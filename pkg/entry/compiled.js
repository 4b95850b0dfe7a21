// The workerd and edge entries: the compiled wasm modules their bundler hands over.

/**
 * `module` as the wasm-bindgen glue's `initSync` takes it. Next.js's edge sandbox (`next build`,
 * `next start`, `next dev`) compiles the modules outside the realm the route's code runs in, so
 * they are not `instanceof` that realm's `WebAssembly.Module` and the glue would take them for
 * bytes to compile (and fail). They are compiled modules all the same (`WebAssembly.Instance`
 * takes them): given this realm's prototype, the glue instantiates them as they are. Anything
 * else is returned unchanged, for the glue to refuse.
 */
export function compiledModule(module) {
  if (module instanceof WebAssembly.Module) return module;
  if (Object.prototype.toString.call(module) !== "[object WebAssembly.Module]") return module;
  return Object.setPrototypeOf(module, WebAssembly.Module.prototype);
}
