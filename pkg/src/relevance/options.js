// Options shared by the relevance components: the core reads the plain ones (every bad or
// unknown option an INVALID_OPTION error naming it); the JS-only ones are checked here.
import * as core from "../../gen/citeflow.js";
import { citeflowError, describe, fields, knownFields, noMoreArguments, prop } from "../errors.js";
import { ready } from "../runtime.js";

// What fromPreset / fromConfig pass on to the invoker they build.
export const INVOKER_OPTIONS = ["apiKey", "baseUrl", "headers", "fetch", "timeoutMs", "maxRetries"];

/**
 * A component's options: the plain ones read by the core (unknown keys, wrong types and ranges
 * refused there, defaults filled in) as `settings`; the JS-only ones (`jsOnly`: invokers,
 * callbacks, a ContextConfig; `callbacks`: keys that are JS-only when they hold a function) as
 * `own`, for the caller to check. A function anywhere else is refused (it cannot cross).
 */
export function componentOptions(kind, owner, options, jsOnly, callbacks = []) {
  ready();
  const plain = fields(options, "INVALID_OPTION", `${owner} options`);
  const own = {};
  for (const [key, value] of Object.entries(plain)) {
    const fn = typeof value === "function";
    if (jsOnly.includes(key) || (fn && callbacks.includes(key))) {
      own[key] = value;
      delete plain[key];
    } else if (fn) {
      throw citeflowError("INVALID_OPTION", `${owner}: ${key} is data, not a function; got ${describe(value)}`);
    }
  }
  return { settings: core.relevanceOptions(kind, owner, plain), own };
}

/** What a filter's `filter` and `evaluate` take. */
export const FILTER_ARGS = ["chunks", "query", "signal"];
/** What a formatter's `evaluate` takes (its `format` takes an `eventEmitter` too). */
export const EVALUATE_ARGS = ["response", "chunks", "signal"];

/**
 * A component call's one argument object (`args`: the arguments given), read as options are:
 * a key it does not take is refused, as is a second argument.
 */
export function callArgs(args, keys, what) {
  noMoreArguments(args, 1, what);
  return knownFields(args[0], keys, "INVALID_OPTION", `the arguments of ${what}`);
}

export function optionalFunction(value, name, owner) {
  if (value != null && typeof value !== "function") {
    throw citeflowError("INVALID_OPTION", `${owner}: ${name} must be a function; got ${describe(value)}`);
  }
  return value ?? null;
}

export function invoker(value, method, name, owner) {
  if (
    value === null || typeof value !== "object" || typeof prop(value, method, "INVALID_OPTION", name) !== "function"
  ) {
    throw citeflowError(
      "INVALID_OPTION",
      `${owner} needs ${name} (an object with ${method}()); got ${describe(value)}`,
    );
  }
  return value;
}

export function invokers(value, owner) {
  if (value == null) return [];
  if (!Array.isArray(value) || !value.every((f) => f && typeof f.invoke === "function")) {
    throw citeflowError("INVALID_OPTION", `${owner}: fallbackLms must be an array of LM invokers`);
  }
  return value;
}

/** A string argument of a call (`query`, `response`), checked. */
export function requireText(value, name, owner) {
  if (typeof value !== "string") {
    throw citeflowError("INVALID_OPTION", `${owner} needs \`${name}\`, a string; got ${describe(value)}`);
  }
  return value;
}

/** `fromConfig`'s single argument `{modelId, ...}` (`args`: the arguments given) split into the id and the rest. */
export function modelIdAndRest(args, what) {
  noMoreArguments(args, 1, what);
  const [config] = args;
  if (config === null || typeof config !== "object") {
    throw citeflowError("INVALID_OPTION", `fromConfig takes {modelId, ...}; got ${describe(config)}`);
  }
  const { modelId, ...rest } = fields(config, "INVALID_OPTION", "fromConfig's argument");
  return [modelId, rest];
}

/** What fromPreset / fromConfig share: `build` the invoker from the model id, pass the rest on. */
export function fromModel(Component, build, modelId, options) {
  const [invokerOptions, rest] = splitInvokerOptions(options);
  return new Component(build(modelId, invokerOptions), rest);
}

/** `{modelId, ...}` or `(modelId, options)` split into the invoker's options and the rest. */
export function splitInvokerOptions(options) {
  const entries = Object.entries(fields(options, "INVALID_OPTION", "the options"));
  // As own keys (fromEntries): an option named "__proto__" reaches the reader that refuses it.
  const part = (invoker) => Object.fromEntries(entries.filter(([k]) => INVOKER_OPTIONS.includes(k) === invoker));
  return [part(true), part(false)];
}

const warned = new Set();
/** One console warning per deprecated name per process. */
export function deprecated(oldName, newName) {
  if (warned.has(oldName)) return;
  warned.add(oldName);
  console.warn(`citeflow: ${oldName} is deprecated; use ${newName} (same options).`);
}
