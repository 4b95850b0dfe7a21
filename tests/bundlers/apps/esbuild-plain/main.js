// esbuild without the recipe: init() cannot find the wasm and must say what to do.
import init, * as citeflow from "citeflow";
import { mount } from "./scenario.js";

mount(citeflow, init());
