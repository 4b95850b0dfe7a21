// Errors thrown by the JS shim. Errors from the wasm core have the same shape: an `Error`
// named "CiteflowError" with a stable `code`.

export function citeflowError(code, message) {
  const error = new Error(message);
  error.name = "CiteflowError";
  error.code = code;
  return error;
}

export function describe(value) {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "string") return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + "…" : value)}`;
  return typeof value === "object" ? "an object" : `${typeof value} ${String(value)}`;
}
