// The CSL module's API (entry "citeflow/csl"): styled reference lists with citeflow's own CSL engine.
// Its instance is guarded like the core's (see instance.js).
//
// Styles are data: the wasm module carries no style. Each bundled style is a small JS module of
// the package (gen/styles/<file>.js, written by scripts/build.mjs from src/csl/styles/), loaded on
// demand by `loadStyle` (a dynamic import, so bundlers emit one chunk per style) or, in Node and
// Deno, read from disk on first use by the synchronous `renderReferences`.
import * as csl from "../gen/csl/citeflow_csl.js";
import { citeflowError, describe, reentrantCall } from "./errors.js";
import { moduleRuntime } from "./module.js";

// Attached by each runtime entry: an instance, or (Node and Deno) a way to make one on first use.
export const {
  attach: attachCsl,
  attachLazily: attachCslLazily,
  warm: warmCsl,
  isReady: isCslReady,
  ready,
  internals: cslInternals,
} = moduleRuntime(
  csl,
  "citeflow/csl",
  'citeflow/csl is not initialised: in a browser, `import initCsl from "citeflow/csl"` and `await initCsl()` first (or use the async renderReferences of "citeflow")',
);

/** The XML of each bundled style file loaded so far. */
const styles = new Map();
/** Where the runtime can read a style file synchronously (Node, Deno): `(file) => xml | null`. */
let readStyleSync = null;

/** Set by entry/csl-node.js. */
export function setStyleReader(read) {
  readStyleSync = read;
}

/** What the wasm module asks for when it needs a bundled style it has not parsed yet. */
function styleXml(file) {
  let xml = styles.get(file);
  if (xml === undefined && readStyleSync !== null) {
    xml = readStyleSync(file) ?? undefined;
    if (xml !== undefined) styles.set(file, xml);
  }
  return xml;
}

/** One `Intl.Collator` per language, made when first sorted with. */
const collators = new Map();

/**
 * The host's collation for the engine's sorting: the rank of each of `texts` in `Intl.Collator`
 * order for `lang`, equal texts sharing a rank. Sort rules stay in the engine.
 */
function collate(lang, texts) {
  let collator = collators.get(lang);
  if (collator === undefined) {
    try {
      collator = new Intl.Collator(lang);
    } catch {
      collator = new Intl.Collator("en-US"); // a language tag Intl does not take
    }
    collators.set(lang, collator);
  }
  const order = texts.map((_, i) => i).sort((a, b) => collator.compare(texts[a], texts[b]));
  const ranks = new Uint32Array(texts.length);
  for (let k = 1, rank = 0; k < order.length; k++) {
    if (collator.compare(texts[order[k - 1]], texts[order[k]]) !== 0) rank = k;
    ranks[order[k]] = rank;
  }
  return ranks;
}

/** Renders the reference list of the cited sources (synchronous; the module is loaded). */
export function renderReferences(sources, citations, options) {
  ready();
  const packed = pack(sources);
  return csl.renderReferences(sources, packed?.tape, packed?.numbers, citations, options, styleXml, collate);
}

/** As the module reads them: containers nested at most this deep, at most this many values. */
const MAX_DEPTH = 128;
const MAX_VALUES = 1 << 22;

/**
 * A `JSON.stringify` replacer that refuses what the module would refuse before the walk reaches
 * it: a number that is not finite, more than MAX_VALUES values, and an array longer than the
 * values left (a sparse array of length 2**32 - 1 would otherwise be walked index by index).
 */
function bounded() {
  let left = MAX_VALUES;
  return (_key, value) => {
    if (--left < 0) throw new RangeError("too many values");
    if (typeof value === "number" && !Number.isFinite(value)) throw new RangeError("not finite");
    if (Array.isArray(value) && value.length > left) throw new RangeError("too many values");
    return value;
  };
}

/**
 * The sources' JSON form in one piece for the module (read by `unpack_sources` in
 * src/reference/csl.rs): one crossing instead of several per value. `undefined` when the sources
 * are not an array of plain data within the limits (a cycle, a BigInt, a number that is not
 * finite, a getter that throws, too deep or too large): the module then reads them value by value
 * and names the problem.
 */
function pack(sources) {
  let plain;
  try {
    if (!Array.isArray(sources)) return undefined; // throws on a revoked Proxy
    plain = JSON.parse(JSON.stringify(sources, bounded()));
  } catch {
    return undefined;
  }
  const tape = [];
  const numbers = [];
  let values = 0;
  const put = (value, depth) => {
    if (++values > MAX_VALUES) return false;
    switch (typeof value) {
      case "string":
        tape.push("s", String(value.length), ":", value);
        return true;
      case "number":
        tape.push("n");
        numbers.push(value);
        return true;
      case "boolean":
        tape.push(value ? "t" : "f");
        return true;
    }
    if (value === null) {
      tape.push("z");
      return true;
    }
    if (depth >= MAX_DEPTH) return false;
    if (Array.isArray(value)) {
      tape.push("[");
      for (const item of value) if (!put(item, depth + 1)) return false;
      tape.push("]");
      return true;
    }
    tape.push("{");
    for (const key of Object.keys(value)) {
      tape.push("s", String(key.length), ":", key);
      if (!put(value[key], depth + 1)) return false;
    }
    tape.push("}");
    return true;
  };
  return put(plain, 0) ? { tape: tape.join(""), numbers: new Float64Array(numbers) } : undefined;
}

export function bundledStyleNames() {
  ready();
  return csl.bundledStyleNames();
}

/** Loads a bundled style (default: the default style) for the synchronous renderReferences. */
export async function loadStyle(name) {
  ready();
  if (name !== undefined && typeof name !== "string") {
    throw citeflowError("INVALID_ARGUMENT", `loadStyle: expected a bundled style name, got ${describe(name)}`);
  }
  const file = csl.bundledStyleFile(name); // UNKNOWN_STYLE for a name that is not bundled
  if (styles.has(file)) return;
  // The index of style loaders is itself loaded on demand (Node and Deno read styles from disk).
  const { styleModules } = await import("../gen/styles/index.js");
  let xml;
  try {
    xml = (await styleModules[file]()).default;
  } catch (e) {
    throw citeflowError(
      "STYLE_NOT_LOADED",
      `the bundled style ${JSON.stringify(name)} could not be loaded (gen/styles/${file}.js of the package): ${
        e?.message ?? e
      }`,
      e,
    );
  }
  styles.set(file, xml);
}

/**
 * A document of citation clusters in one style (parsed once), edited one cluster at a time: each
 * edit returns the clusters whose text changed, `[{ id, text }]`, so an editor re-renders just
 * those. Its wasm memory is freed when it is garbage-collected.
 * The rules (positions, disambiguation, refusals) are the engine's (src/csl/document.rs).
 */
export class CslDocument {
  #doc;
  // A call is running: a getter or Proxy trap of the value given, read during it, called this
  // document again (the engine holds the document for the whole call).
  #busy = false;

  /** `options`: `{ style, locale, format, items }`; `style` and `locale` as renderReferences takes them. */
  constructor(options) {
    ready();
    this.#doc = new csl.CslDocumentHandle(options, styleXml, collate);
  }

  #call(run) {
    if (this.#busy) throw reentrantCall("this CslDocument");
    this.#busy = true;
    try {
      return run(this.#doc);
    } finally {
      this.#busy = false;
    }
  }

  /** Inserts `cluster` at `index` (default: the end), or replaces the one with its id (default: in its place). */
  setCluster(cluster, index) {
    return this.#call((doc) => doc.setCluster(cluster, index));
  }

  removeCluster(id) {
    return this.#call((doc) => doc.removeCluster(id));
  }

  clusters() {
    return this.#call((doc) => doc.clusters());
  }

  bibliography(options) {
    return this.#call((doc) => doc.bibliography(options));
  }

  setItems(items) {
    return this.#call((doc) => doc.setItems(items));
  }
}
