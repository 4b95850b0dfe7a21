// webpack 5: nothing to configure; it emits both wasm files and loads the CSL chunk on demand.
import init, * as citeflow from "citeflow";
import { mount } from "./scenario.js";

mount(citeflow, init());
