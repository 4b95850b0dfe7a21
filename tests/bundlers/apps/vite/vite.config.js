// Vite 6 and 7's dev server pre-bundles dependencies into node_modules/.vite/deps/, where the
// package's `new URL("citeflow_bg.wasm", import.meta.url)` finds no file. Keep it out.
export default {
  optimizeDeps: { exclude: ["citeflow"] },
};
