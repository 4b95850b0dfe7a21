// References from the main entry: the CSL module is loaded on first use, so a user never
// initialises two modules by hand and the core download stays small.
import { citeflowError } from "./errors.js";

let loader = null;
let loaded = null;

/** Each runtime entry says how its CSL entry is loaded. */
export function setCslLoader(load) {
  loader = load;
}

export function loadCsl() {
  if (loaded === null) {
    if (loader === null) return Promise.reject(citeflowError("NOT_INITIALIZED", "no CSL loader for this runtime"));
    loaded = loader().catch((e) => {
      loaded = null;
      throw e;
    });
  }
  return loaded;
}

/** Renders the reference list of the cited sources; loads citeflow/csl on first use. */
export async function renderReferences(sources, citations, options) {
  const csl = await loadCsl();
  return csl.renderReferences(sources, citations, options);
}

export async function bundledStyleNames() {
  return (await loadCsl()).bundledStyleNames();
}
