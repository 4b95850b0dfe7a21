// The CSL module's API (entry "citeflow/csl"): styled reference lists with citeflow's own CSL engine.
// Its instance is guarded like the core's (see instance.js).
import * as csl from "../gen/csl/citeflow_csl.js";
import { citeflowError } from "./errors.js";
import { guardInstance } from "./instance.js";

let attached = false;
const instance = guardInstance(csl, "citeflow/csl", () => {});

export function attachCsl() {
  attached = true;
}

export function isCslReady() {
  return attached;
}

function ready() {
  if (!attached) {
    throw citeflowError("NOT_INITIALIZED", 'citeflow/csl is not initialised: in a browser, `import initCsl from "citeflow/csl"` and `await initCsl()` first (or use the async renderReferences of "citeflow")');
  }
}

/** Renders the reference list of the cited sources (synchronous; the module is loaded). */
export function renderReferences(sources, citations, options) {
  ready();
  return csl.renderReferences(sources, citations, options);
}

export function bundledStyleNames() {
  ready();
  return csl.bundledStyleNames();
}

/** For tests and diagnostics: how many times the CSL instance was replaced. */
export function cslInstanceState() {
  return { ...instance };
}

/** For tests: makes the CSL module trap (a wasm `unreachable`), as a bug would. */
export function forceCslTrapForTests() {
  ready();
  csl.__citeflowTrap();
}
