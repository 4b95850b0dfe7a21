// scripts/short_names.mjs: a module's import and export names shortened in the module and its
// glue alike, the originals kept for messages; a glue it cannot rewrite fails the build.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { shortenNames } from "../../scripts/short_names.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "citeflow-names-"));

const WAT = `(module
  (import "./m_bg.js" "__wbg_add_0123456789abcdef" (func $add (param i32 i32) (result i32)))
  (import "./m_bg.js" "__wbg_twice_fedcba9876543210" (func $twice (param i32) (result i32)))
  (memory (export "memory") 1)
  (func (export "engine_sum") (param i32 i32) (result i32) (call $add (local.get 0) (local.get 1)))
  (func (export "engine_quad") (param i32) (result i32) (call $twice (call $twice (local.get 0)))))`;

/** A glue in wasm-bindgen's shape: an imports object and `wasm.<export>` calls. */
const GLUE = `let wasm;
function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_add_0123456789abcdef: function(a, b) { return a + b; },
        __wbg_twice_fedcba9876543210: function(a) { return 2 * a; },
    };
    return { __proto__: null, "./m_bg.js": import0 };
}
export function engine_sum(a, b) { return wasm.engine_sum(a, b); }
export function engine_quad(a) { return wasm.engine_quad(a); }
export function bytes() { return wasm.memory.buffer.byteLength; }
export function init(module) {
    wasm = new WebAssembly.Instance(module, __wbg_get_imports()).exports;
}
`;

function assemble() {
  const file = join(dir, "m.wat");
  writeFileSync(file, WAT);
  execFileSync(join(root, "node_modules", ".bin", "wasm-as"), [file, "-o", `${file}.wasm`]);
  return readFileSync(`${file}.wasm`);
}

test("the module and its glue use the short names and still work together", async () => {
  const { bytes, glue, imports, exports } = shortenNames(assemble(), GLUE, "m");
  assert.deepEqual([imports, exports], [2, 2]);
  const module = new WebAssembly.Module(bytes);
  assert.deepEqual(WebAssembly.Module.imports(module).map((i) => `${i.module}.${i.name}`), ["a.0", "a.1"]);
  const names = WebAssembly.Module.exports(module).map((e) => e.name);
  assert.ok(names.includes("memory"));
  assert.ok(!names.some((n) => n.startsWith("engine_")), names.join());
  assert.ok(!/__wbg_add|engine_sum\(a, b\) \{ return wasm\.engine_sum/.test(glue));
  const file = join(dir, "glue.mjs");
  writeFileSync(file, glue);
  const g = await import(file);
  g.init(module);
  assert.equal(g.engine_sum(2, 3), 5);
  assert.equal(g.engine_quad(3), 12);
  assert.equal(g.bytes(), 65536);
  // Each short export's original, for messages.
  assert.deepEqual(Object.values(g.__citeflowExportNames).sort(), ["engine_quad", "engine_sum"]);
});

test("a glue that names an import twice, or reads an export by a computed name, is refused", () => {
  const twice = GLUE.replace("__proto__: null,\n", "__proto__: null,\n        __wbg_add_0123456789abcdef: null,\n");
  assert.throws(() => shortenNames(assemble(), twice, "m"), /import __wbg_add_0123456789abcdef: expected 1 matches/);
  const computed = GLUE.replace("wasm.engine_quad(a)", 'wasm["engine_quad"](a)');
  assert.throws(() => shortenNames(assemble(), computed, "m"), /computed name/);
  const missing = GLUE.replace("wasm.engine_quad(a)", "wasm.engine_gone(a)");
  assert.throws(() => shortenNames(assemble(), missing, "m"), /wasm\.engine_gone/);
});
