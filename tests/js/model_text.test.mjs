// Model text kept exactly (tests/portable/model_text.cases.mjs) in Node; the browser runners run
// the same cases in Chromium, Firefox and WebKit.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { modelTextCases } from "../portable/model_text.cases.mjs";

for (const [name, run] of Object.entries(modelTextCases)) {
  test(name, () => run({ lib, streamLib, assert }));
}
