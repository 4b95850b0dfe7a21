// The model-output cases (tests/portable/model_output.cases.mjs) in Node; the browser runners
// run the same cases in Chromium, Firefox and WebKit.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import { modelOutputCases } from "../portable/model_output.cases.mjs";

for (const [name, run] of Object.entries(modelOutputCases)) {
  test(name, () => run({ lib, assert }));
}
