// The function-options cases (tests/portable/function_options.cases.mjs) in Node;
// tests/browser/run.mjs runs the same cases in Chromium, Firefox and WebKit.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { functionOptionCases } from "../portable/function_options.cases.mjs";
import { startFakeProvider } from "./support/fake-provider.mjs";

let server;
before(async () => (server = await startFakeProvider()));
after(() => server.close());

for (const [name, run] of Object.entries(functionOptionCases)) {
  test(name, () => run({ lib, streamLib, assert, base: server.base, requests: server.log }));
}
