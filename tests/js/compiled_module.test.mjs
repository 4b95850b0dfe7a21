// entry/compiled.js: the compiled modules the workerd and edge entries are handed, as the glue
// takes them. Next.js's edge sandbox compiles them in another realm (a node:vm context here).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { runInNewContext } from "node:vm";
import { compiledModule } from "../../pkg/entry/compiled.js";
import { initSync } from "../../pkg/gen/csl/citeflow_csl.js";

const bytes = readFileSync(new URL("../../pkg/gen/csl/citeflow_csl_bg.wasm", import.meta.url));
const foreignModule = () => runInNewContext("new WebAssembly.Module(bytes)", { bytes });

test("the glue refuses a module compiled in another realm as it is, and takes it through compiledModule", () => {
  const foreign = foreignModule();
  assert.equal(foreign instanceof WebAssembly.Module, false);
  assert.throws(() => initSync({ module: foreign }), /WebAssembly\.Module\(\): Argument 0 must be a buffer source/);
  const exports = initSync({ module: compiledModule(foreign) });
  assert.equal(typeof exports.memory, "object");
});

test("a module of this realm, bytes and other values come back unchanged", () => {
  const own = new WebAssembly.Module(bytes);
  assert.equal(compiledModule(own), own);
  assert.equal(compiledModule(bytes), bytes);
  const plain = { module: 1 };
  assert.equal(compiledModule(plain), plain);
  assert.equal(Object.getPrototypeOf(plain), Object.prototype);
  assert.equal(compiledModule(undefined), undefined);
});
