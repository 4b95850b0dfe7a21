// The CSL module's API (entry "citeflow/csl"): styled reference lists with hayagriva.
import * as csl from "../gen/csl/citeflow_csl.js";
import { citeflowError } from "./errors.js";

let attached = false;

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
