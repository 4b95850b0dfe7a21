// Vite: nothing to configure for `vite build`; `vite dev` (Vite 6 and 7) needs vite.config.js.
import init, * as citeflow from "citeflow";
import { mount } from "./scenario.js";

mount(citeflow, init());
