// The invoker cases (tests/portable/invoker.cases.mjs) in Node; tests/browser/run.mjs runs the
// same cases in Chromium, Firefox and WebKit.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import { invokerCases } from "../portable/invoker.cases.mjs";
import { startFakeProvider } from "./support/fake-provider.mjs";

let server;
before(async () => (server = await startFakeProvider()));
after(() => server.close());

for (const [name, run] of Object.entries(invokerCases)) {
  test(name, () => run({ lib, assert, base: server.base, requests: server.log, maxInFlight: server.maxInFlight }));
}
