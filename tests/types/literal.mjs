// A JS value as TypeScript literal source, for checking real outputs against declared types.
// Plain data prints as object/array literals; instances of classes print as their data (own
// enumerable fields plus the getters on their prototype chain); errors keep name and message.
// `undefined` and non-finite numbers stay what they are (JSON would drop or change them).

const isGetterOwner = (proto) => proto && proto !== Object.prototype && proto !== Error.prototype;

/** The data fields of `value`: what a literal of its type holds. */
function fields(value) {
  const entries = new Map(Object.entries(value));
  if (value instanceof Error) {
    entries.set("name", value.name);
    entries.set("message", value.message);
    if (Object.hasOwn(value, "cause")) entries.set("cause", value.cause);
  }
  for (let proto = Object.getPrototypeOf(value); isGetterOwner(proto); proto = Object.getPrototypeOf(proto)) {
    for (const [key, descriptor] of Object.entries(Object.getOwnPropertyDescriptors(proto))) {
      if (descriptor.get && !entries.has(key)) entries.set(key, value[key]);
    }
  }
  return entries;
}

export function typeLiteral(value, depth = 0) {
  if (depth > 64) throw new Error("typeLiteral: value nested deeper than 64 levels (a cycle?)");
  if (value === undefined) return "undefined";
  if (value === null || typeof value === "boolean" || typeof value === "string") return JSON.stringify(value);
  if (typeof value === "number") {
    return Number.isFinite(value) ? String(value) : Number.isNaN(value) ? "NaN" : value > 0 ? "Infinity" : "-Infinity";
  }
  if (typeof value === "bigint") return `${value}n`;
  if (typeof value === "function") return "(() => {})";
  if (value instanceof Float32Array) return `new Float32Array([${Array.from(value).join(", ")}])`;
  if (ArrayBuffer.isView(value)) return `new ${value.constructor.name}([${Array.from(value).join(", ")}])`;
  if (Array.isArray(value)) return `[${value.map((v) => typeLiteral(v, depth + 1)).join(", ")}]`;
  const pad = "  ".repeat(depth + 1);
  const body = [...fields(value)].map(([key, v]) => `${pad}${JSON.stringify(key)}: ${typeLiteral(v, depth + 1)},`);
  return body.length ? `{\n${body.join("\n")}\n${"  ".repeat(depth)}}` : "{}";
}
