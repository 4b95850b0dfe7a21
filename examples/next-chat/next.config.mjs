// The app's own directory is its root (a parent directory may hold another lockfile). Nothing
// citeflow needs: its node entry finds its wasm in the server bundle by itself.
export default { turbopack: { root: import.meta.dirname } };
