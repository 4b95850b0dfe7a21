// scripts/table_entries.mjs: the table entries only describe functions made (js-sys's closure
// shims) and the JSPI waker's point at one trapping function, and only where that is safe
// (the funcref table not exported; no other futures code beside the waker).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { withoutUncallableEntries } from "../../scripts/table_entries.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "citeflow-table-"));

/** A module assembled by binaryen's wasm-as from `wat`, with its name section. */
function assemble(wat) {
  const file = join(dir, "m.wat");
  writeFileSync(file, wat);
  execFileSync(join(root, "node_modules", ".bin", "wasm-as"), [
    "--debuginfo",
    "--all-features",
    file,
    "-o",
    `${file}.wasm`,
  ]);
  return readFileSync(`${file}.wasm`);
}

const INVOKE = "$wasm_bindgen::convert::closures::_::invoke::h0123456789abcdef";
const WAKE = "$js_sys::futures::jspi::task_waker::raw_wake::h0123456789abcdef";

/** Three entries: a vtable method, a closure shim, the waker's wake; `call` calls entry `i`. */
function module({ exportTable = false, moreFutures = false } = {}) {
  return assemble(`(module
    (type $t (func (param i32) (result i32)))
    (table $tab 4 4 funcref)
    (elem (table $tab) (i32.const 1) func $method ${INVOKE} ${WAKE})
    (func $method (type $t) (i32.add (local.get 0) (i32.const 1)))
    (func ${INVOKE} (type $t) (i32.mul (local.get 0) (i32.const 7)))
    (func ${WAKE} (type $t) (i32.sub (local.get 0) (i32.const 3)))
    ${moreFutures ? '(func $wasm_bindgen_futures::queue::Queue::poll (export "p") (result i32) (i32.const 0))' : ""}
    (func $call (export "call") (param $i i32) (param $x i32) (result i32)
      (call_indirect (type $t) (local.get $x) (local.get $i)))
    ${exportTable ? '(export "__wbindgen_export_0" (table $tab))' : ""})`);
}

async function instantiate(bytes) {
  const { instance } = await WebAssembly.instantiate(bytes);
  return instance.exports;
}

test("the shims and the waker trap; the other entries still call what they called", async () => {
  const before = await instantiate(module());
  assert.deepEqual([before.call(1, 5), before.call(2, 5), before.call(3, 5)], [6, 35, 2]);
  const { bytes, replaced } = withoutUncallableEntries(module());
  assert.equal(replaced, 2);
  assert.ok(WebAssembly.validate(bytes));
  const after = await instantiate(bytes);
  assert.equal(after.call(1, 5), 6);
  // The new function has another signature: a call through the old entry traps either way.
  assert.throws(() => after.call(2, 5), WebAssembly.RuntimeError);
  assert.throws(() => after.call(3, 5), WebAssembly.RuntimeError);
});

test("nothing is replaced when JS can reach the table", () => {
  const original = module({ exportTable: true });
  const { bytes, replaced } = withoutUncallableEntries(original);
  assert.equal(replaced, 0);
  assert.equal(bytes, original);
});

test("the waker stays where other futures code could wake it", () => {
  const { bytes, replaced } = withoutUncallableEntries(module({ moreFutures: true }));
  assert.equal(replaced, 1);
  assert.ok(WebAssembly.validate(bytes));
});

test("a module without names is left as it is", () => {
  const stripped = join(dir, "stripped.wasm");
  writeFileSync(join(dir, "named.wasm"), module());
  execFileSync(join(root, "node_modules", ".bin", "wasm-opt"), [
    "--strip-debug",
    "--all-features",
    join(dir, "named.wasm"),
    "-o",
    stripped,
  ]);
  const original = readFileSync(stripped);
  assert.equal(withoutUncallableEntries(original).replaced, 0);
});
