// Nothing citeflow needs: its node entry finds the wasm in the server bundle by itself.
export default {};
