// The re-entry table (tests/portable/reentry.cases.mjs) in Node; the browser runners run the
// same cases in Chromium, Firefox and WebKit.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { reentryCases } from "../portable/reentry.cases.mjs";
import { internals } from "../portable/internals.mjs";

for (const [name, run] of Object.entries(reentryCases)) {
  test(name, () => run({ lib, streamLib, assert, internals }));
}
