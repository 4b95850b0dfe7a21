// Errors thrown by the JS shim. Errors from the wasm core have the same shape: an `Error`
// named "CiteflowError" with a stable `code`. Values from callers are read through the helpers
// here, so that a throwing getter, a `Proxy` trap or a revoked proxy becomes a CiteflowError
// (with the caller's exception as `cause`) instead of a stray TypeError.

export function citeflowError(code, message, cause) {
  const error = new Error(message);
  error.name = "CiteflowError";
  error.code = code;
  if (cause !== undefined) error.cause = cause;
  return error;
}

export function describe(value) {
  try {
    if (value === null || value === undefined) return String(value);
    if (Array.isArray(value)) return "an array";
    if (typeof value === "string") {
      return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
    }
    if (typeof value === "object") return "an object";
    if (typeof value === "function") return "a function";
    return `${typeof value} ${String(value)}`;
  } catch {
    return "a value that cannot be inspected (a revoked Proxy?)";
  }
}

/** `Array.isArray`, false for a revoked Proxy instead of a TypeError. */
export function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

/** `value[key]`; an exception from a getter or Proxy trap becomes a CiteflowError with `code`. */
export function prop(value, key, code, what) {
  try {
    return value[key];
  } catch (e) {
    throw citeflowError(code, `reading \`${key}\` of ${what} threw an exception (see \`cause\`)`, e);
  }
}

/**
 * An argument object (`{ prompt, sources }`, options) as a plain snapshot of its own enumerable
 * properties: `undefined` gives `{}`; anything but an object is a CiteflowError with `code`.
 */
export function fields(value, code, what) {
  if (value === undefined) return {};
  if (value === null || typeof value !== "object" || isArray(value)) {
    throw citeflowError(code, `${what} must be an object; got ${describe(value)}`);
  }
  let keys;
  try {
    keys = Object.keys(value);
  } catch (e) {
    throw citeflowError(code, `the keys of ${what} could not be read (see \`cause\`)`, e);
  }
  // Own keys whatever their names: assigning `out["__proto__"]` would set the copy's
  // prototype and lose the field (a decision question may be named so).
  return Object.fromEntries(keys.map((key) => [key, prop(value, key, code, what)]));
}

/** `fields`, refusing any key not in `allowed` (a misspelt option is an error, not ignored). */
export function knownFields(value, allowed, code, what) {
  const out = fields(value, code, what);
  for (const key of Object.keys(out)) {
    if (!allowed.includes(key)) {
      throw citeflowError(code, `${what} has no option \`${key}\` (it takes ${allowed.join(", ")})`);
    }
  }
  return out;
}

/** Refuses arguments given to something that takes none (or fewer). */
export function noMoreArguments(args, from, what) {
  for (let i = from; i < args.length; i++) {
    if (args[i] !== undefined) {
      throw citeflowError(
        "INVALID_OPTION",
        `${what} takes ${from === 0 ? "no arguments" : `${from} argument${from === 1 ? "" : "s"}`}; got ${
          describe(args[i])
        } as argument ${i + 1}`,
      );
    }
  }
}

/** The most items a list argument may have (a sparse array's `length` can claim billions). */
export const MAX_LIST_ITEMS = 1 << 20;

/** An array argument copied item by item with `prop`, its length bounded. */
export function list(value, code, what, max = MAX_LIST_ITEMS) {
  if (!isArray(value)) throw citeflowError(code, `${what} must be an array; got ${describe(value)}`);
  const length = prop(value, "length", code, what);
  if (!(length <= max)) throw citeflowError(code, `${what} has ${length} items, more than ${max}`);
  const out = new Array(length);
  for (let i = 0; i < length; i++) out[i] = prop(value, i, code, what);
  return out;
}

/** `value instanceof type`, false instead of a TypeError for a revoked Proxy. */
export function isInstance(value, type) {
  try {
    return value instanceof type;
  } catch {
    return false;
  }
}

/**
 * What a push or finish says once the stream has ended: its engine or core was released at
 * `finish()` (or when the stream was given up on), so nothing is left in wasm to ask.
 */
export function streamFinished() {
  return citeflowError(
    "STREAM_FINISHED",
    "the stream has already finished; create a new transformer or decoder for a new stream",
  );
}

/**
 * What a call on a stream object throws while another call on that object is running: a
 * callback of the caller's that the running call made (a getter, `Proxy` trap or `toJSON` of
 * the value pushed) called the same object again. The object's state is left as it was, and the
 * running call goes on; `what` names the object ("this JSONOutputTransformer").
 */
export function reentrantCall(what) {
  return citeflowError(
    "REENTRANT_CALL",
    `${what} is in the middle of a call: a callback of yours that the call ran (a getter, Proxy trap or toJSON of the value given) called it again; call it once that call has returned`,
  );
}
