// scripts/low_memory.mjs: the build uses wasm-opt's --low-memory-unused only for a module
// that places nothing in its first 1,024 bytes (data segments and the stack's start).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { lowMemoryInUse } from "../../scripts/low_memory.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const dir = mkdtempSync(join(tmpdir(), "citeflow-low-"));

function assemble(stack, data, passive = false) {
  const file = join(dir, "m.wat");
  writeFileSync(
    file,
    `(module (memory 17)
      (global $sp (mut i32) (i32.const ${stack}))
      (data (i32.const ${data}) "abc")
      ${passive ? '(data "passive bytes")' : ""}
      (func (export "f") (result i32) (global.get $sp)))`,
  );
  execFileSync(join(root, "node_modules", ".bin", "wasm-as"), ["--enable-bulk-memory", file, "-o", `${file}.wasm`]);
  return readFileSync(`${file}.wasm`);
}

test("a module laid out stack first keeps its first KB free", () => {
  assert.equal(lowMemoryInUse(assemble(1048576, 1048576)), null);
  assert.equal(lowMemoryInUse(assemble(1048576, 1057120, true)), null);
});

test("data or a stack in the first KB is named", () => {
  assert.equal(lowMemoryInUse(assemble(1048576, 16)), "a data segment at 16");
  assert.equal(lowMemoryInUse(assemble(512, 1048576)), "the stack starting at 512");
});
