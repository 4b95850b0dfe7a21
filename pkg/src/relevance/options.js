// Option checks shared by the relevance components: every bad option is an INVALID_OPTION
// error that names it, and unknown option names are errors too.
import { citeflowError, describe, fields, knownFields, prop } from "../errors.js";

export const DEFAULT_THRESHOLD = 0.5;
export const DEFAULT_BATCH_SIZE = 5;
export const DEFAULT_MAX_CONCURRENCY = 10;
// What fromPreset / fromConfig pass on to the invoker they build.
export const INVOKER_OPTIONS = ["apiKey", "baseUrl", "headers", "fetch", "timeoutMs", "maxRetries"];

export function checkOptions(options, allowed, owner) {
  if (options === undefined) throw citeflowError("INVALID_OPTION", `${owner} options must be an object; got undefined`);
  knownFields(options, allowed, "INVALID_OPTION", `${owner} options`);
  return options;
}

export function threshold(value, owner) {
  if (typeof value !== "number" || !(value >= 0 && value <= 1)) {
    throw citeflowError("INVALID_OPTION", `${owner}: threshold must be a number from 0 to 1; got ${describe(value)}`);
  }
  return value;
}

export function atLeastOne(value, name, owner) {
  if (!Number.isInteger(value) || value < 1) {
    throw citeflowError("INVALID_OPTION", `${owner}: ${name} must be a whole number ≥ 1; got ${describe(value)}`);
  }
  return value;
}

export function flag(value, name, owner) {
  if (typeof value !== "boolean") {
    throw citeflowError("INVALID_OPTION", `${owner}: ${name} must be true or false; got ${describe(value)}`);
  }
  return value;
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

/** `fromConfig`'s single argument `{modelId, ...}` split into the id and the rest. */
export function modelIdAndRest(args) {
  if (args === null || typeof args !== "object") {
    throw citeflowError("INVALID_OPTION", `fromConfig takes {modelId, ...}; got ${describe(args)}`);
  }
  const { modelId, ...rest } = fields(args, "INVALID_OPTION", "fromConfig's argument");
  return [modelId, rest];
}

/** What fromPreset / fromConfig share: `build` the invoker from the model id, pass the rest on. */
export function fromModel(Component, build, modelId, options) {
  const [invokerOptions, rest] = splitInvokerOptions(options);
  return new Component(build(modelId, invokerOptions), rest);
}

/** `{modelId, ...}` or `(modelId, options)` split into the invoker's options and the rest. */
export function splitInvokerOptions(options) {
  const invokerOptions = {};
  const rest = {};
  for (const [k, v] of Object.entries(fields(options, "INVALID_OPTION", "the options"))) {
    (INVOKER_OPTIONS.includes(k) ? invokerOptions : rest)[k] = v;
  }
  return [invokerOptions, rest];
}

const warned = new Set();
/** One console warning per deprecated name per process. */
export function deprecated(oldName, newName) {
  if (warned.has(oldName)) return;
  warned.add(oldName);
  console.warn(`citeflow: ${oldName} is deprecated; use ${newName} (same options).`);
}
