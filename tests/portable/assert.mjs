// The part of node:assert/strict the portable cases use, for runtimes without it (browsers).
// Failures throw with a message that says what differed.
const show = (v) => {
  try {
    return JSON.stringify(v, (_, x) => (ArrayBuffer.isView(x) ? [...x] : x));
  } catch {
    return String(v);
  }
};

function fail(message, detail) {
  throw new Error(message ? `${message} (${detail})` : detail);
}

function same(a, b) {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  if (ArrayBuffer.isView(a)) return a.length === b.length && a.every((x, i) => Object.is(x, b[i]));
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  return ka.length === kb.length && ka.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
}

function validate(error, expected, message) {
  if (expected === undefined) return;
  if (expected instanceof RegExp) {
    if (!expected.test(String(error?.message ?? error))) {
      fail(message, `error ${show(String(error))} does not match ${expected}`);
    }
  } else if (typeof expected === "function" && expected(error) !== true) {
    fail(message, `error did not pass the check: ${String(error)} (code ${error?.code})\n${error?.stack ?? ""}`);
  }
}

export const assert = {
  ok: (v, message) => v || fail(message, `expected a truthy value, got ${show(v)}`),
  equal: (a, b, message) => Object.is(a, b) || fail(message, `${show(a)} !== ${show(b)}`),
  notEqual: (a, b, message) => !Object.is(a, b) || fail(message, `both are ${show(a)}`),
  deepEqual: (a, b, message) => same(a, b) || fail(message, `${show(a)} differs from ${show(b)}`),
  match: (s, re, message) => re.test(s) || fail(message, `${show(s)} does not match ${re}`),
  doesNotMatch: (s, re, message) => !re.test(s) || fail(message, `${show(s)} matches ${re}`),
  throws(fn, expected, message) {
    try {
      fn();
    } catch (e) {
      return validate(e, expected, message);
    }
    fail(message, "expected an exception");
  },
  async rejects(promiseOrFn, expected, message) {
    try {
      await (typeof promiseOrFn === "function" ? promiseOrFn() : promiseOrFn);
    } catch (e) {
      return validate(e, expected, message);
    }
    fail(message, "expected a rejection");
  },
};
