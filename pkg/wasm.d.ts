/**
 * The types of the four `.wasm` subpaths (`citeflow/citeflow_bg.wasm`,
 * `citeflow/citeflow_stream_bg.wasm`, `citeflow/citeflow_stream_full_bg.wasm`,
 * `citeflow/citeflow_csl_bg.wasm`), for a bundler that turns a `.wasm` import into a value:
 * the file's URL (esbuild's `file` loader, Vite's `?url`-style asset handling) or its bytes
 * (esbuild's `binary` loader). Either one is what `init()` and `setCslWasmUrl()` take.
 *
 * ```ts
 * import init from "citeflow";
 * import wasm from "citeflow/citeflow_bg.wasm";
 * await init(wasm);
 * ```
 *
 * Which of the two it is depends on your bundler's settings, not on this package. (The
 * `Uint8Array<ArrayBuffer>` form needs TypeScript 5.7 or later.)
 */
declare const wasm: string | Uint8Array<ArrayBuffer>;
export default wasm;
