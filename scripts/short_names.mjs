// Short import and export names for a wasm module and its wasm-bindgen glue, after wasm-opt.
//
// wasm-bindgen names each import `__wbg_<name>_<16 hex digits>` under the module
// "./<out-name>_bg.js" and each export after its Rust item (`enginecore_pushBytes`); in the lean
// streaming module those names were 2 KB of the binary and ~1 KB of it gzipped (measured:
// 64,534 -> 63,555 B). Here each import becomes `a.<n>` and each export but `memory`
// `e<n>` (base 36), in the module and in the glue alike. The glue then exports
// `__citeflowExportNames`, each short export name's original, which the instance guard uses
// to say which export trapped (pkg/src/instance.js).
//
// The glue must name each import once, as a key of its imports object, and read exports only
// as `wasm.<name>`; a glue that does otherwise (a wasm-bindgen upgrade) fails the build here.

const IMPORT_MODULE = "a";

class Reader {
  constructor(bytes, at) {
    this.b = bytes;
    this.p = at;
  }
  u32() {
    let result = 0, shift = 0, byte;
    do {
      byte = this.b[this.p++];
      result += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return result;
  }
  name() {
    const n = this.u32();
    const s = Buffer.from(this.b.subarray(this.p, this.p + n)).toString("utf8");
    this.p += n;
    return s;
  }
  /** Skips an import's description (function, table, memory or global). */
  importDesc() {
    const kind = this.b[this.p++];
    if (kind === 0) this.u32();
    else if (kind === 1) {
      this.p++;
      if (this.b[this.p++] & 1) this.u32();
      this.u32();
    } else if (kind === 2) {
      if (this.b[this.p++] & 1) this.u32();
      this.u32();
    } else if (kind === 3) this.p += 2;
    else throw new Error(`short names: unknown import kind ${kind}`);
  }
}

function leb(n) {
  const out = [];
  do {
    let byte = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
  return Buffer.from(out);
}

function name(s) {
  const bytes = Buffer.from(s, "utf8");
  return Buffer.concat([leb(bytes.length), bytes]);
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/** Replaces `pattern` in `text`, which must match exactly `expected` times. */
function replaceCounted(text, pattern, replacement, expected, what) {
  let count = 0;
  const out = text.replace(pattern, (...match) => {
    count++;
    return typeof replacement === "function" ? replacement(...match) : replacement;
  });
  if (count !== expected) {
    throw new Error(`short names: ${what}: expected ${expected} matches, found ${count} (did the glue change?)`);
  }
  return out;
}

/**
 * The module `bytes` and its glue `glue` (text) with short import and export names; `outName`
 * is the module's wasm-bindgen out-name (its imports' module is "./<outName>_bg.js").
 */
export function shortenNames(bytes, glue, outName) {
  const importModule = `./${outName}_bg.js`;
  const imports = [], exports = [];
  const out = [bytes.subarray(0, 8)];
  const r = new Reader(bytes, 8);
  while (r.p < bytes.length) {
    const id = bytes[r.p++];
    const size = r.u32();
    const end = r.p + size;
    let body = bytes.subarray(r.p, end);
    if (id === 2) {
      const n = r.u32();
      const parts = [leb(n)];
      for (let i = 0; i < n; i++) {
        const module = r.name(), field = r.name();
        const desc = r.p;
        r.importDesc();
        let short = [module, field];
        if (module === importModule) {
          short = [IMPORT_MODULE, imports.length.toString(36)];
          imports.push([field, short[1]]);
        }
        parts.push(name(short[0]), name(short[1]), bytes.subarray(desc, r.p));
      }
      body = Buffer.concat(parts);
    } else if (id === 7) {
      const n = r.u32();
      const parts = [leb(n)];
      for (let i = 0; i < n; i++) {
        const field = r.name();
        const desc = r.p;
        r.p++;
        r.u32();
        const short = field === "memory" ? field : `e${i.toString(36)}`;
        if (short !== field) exports.push([field, short]);
        parts.push(name(short), bytes.subarray(desc, r.p));
      }
      body = Buffer.concat(parts);
    }
    out.push(Buffer.from([id]), leb(body.length), body);
    r.p = end;
  }

  let text = replaceCounted(
    glue,
    new RegExp(`"${escapeRegExp(importModule)}": import0`, "g"),
    `${IMPORT_MODULE}: import0`,
    1,
    "the imports' module",
  );
  for (const [field, short] of imports) {
    // Keys of the imports object, one per line at its indentation.
    text = replaceCounted(
      text,
      new RegExp(`^(\\s+)${escapeRegExp(field)}:`, "gm"),
      (_, indent) => `${indent}${short}:`,
      1,
      `import ${field}`,
    );
  }
  for (const [field, short] of exports) {
    text = text.replace(new RegExp(`\\bwasm\\.${escapeRegExp(field)}(?![\\w$])`, "g"), `wasm.${short}`);
  }
  // Every export the glue reads must be one the module now has (its JS functions keep their
  // names: `export function fullModuleStages` calls `wasm.e5`).
  const kept = new Set(["memory", ...exports.map(([, short]) => short)]);
  for (const [, used] of text.matchAll(/\bwasm\.([\w$]+)/g)) {
    if (!kept.has(used)) throw new Error(`short names: the glue reads wasm.${used}, which the module does not export`);
  }
  if (/\bwasm\[/.test(text)) throw new Error("short names: the glue reads an export by a computed name");
  const names = exports.map(([field, short]) => `${short}: ${JSON.stringify(field)}`).join(", ");
  text += `\n// citeflow: each short export name's original (scripts/short_names.mjs).\n` +
    `export const __citeflowExportNames = Object.freeze({ ${names} });\n`;
  return { bytes: Buffer.concat(out), glue: text, imports: imports.length, exports: exports.length };
}
