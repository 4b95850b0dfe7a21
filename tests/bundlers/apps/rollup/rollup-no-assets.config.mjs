// Rollup without @web/rollup-plugin-import-meta-assets: the wasm files are not emitted, and
// init() must say so (tests/bundlers/run.mjs, row "rollup-plain").
import { nodeResolve } from "@rollup/plugin-node-resolve";

export default {
  input: "main.js",
  output: { dir: "dist", format: "es" },
  plugins: [nodeResolve({ browser: true })],
};
