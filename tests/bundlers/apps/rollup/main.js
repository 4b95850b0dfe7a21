// Rollup: the package's wasm files are emitted by @web/rollup-plugin-import-meta-assets.
import init, * as citeflow from "citeflow";
import { mount } from "./scenario.js";

mount(citeflow, init());
