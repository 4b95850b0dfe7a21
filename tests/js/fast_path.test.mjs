// The fast-path property cases (tests/portable/fast_path.cases.mjs) in Node; the browser
// runners, the Deno and the workerd smoke tests run the same cases.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import { fastPathCases } from "../portable/fast_path.cases.mjs";
import { internals } from "../portable/internals.mjs";

for (const [name, run] of Object.entries(fastPathCases)) {
  test(name, () => run({ lib, assert, internals }));
}
