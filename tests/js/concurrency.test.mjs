// The concurrency cases (tests/portable/concurrency.cases.mjs) in Node; tests/browser/run.mjs
// runs the same cases in Chromium, Firefox and WebKit.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import { concurrencyCases } from "../portable/concurrency.cases.mjs";
import { startFakeProvider } from "./support/fake-provider.mjs";

let server;
before(async () => (server = await startFakeProvider()));
after(() => server.close());

for (const [name, run] of Object.entries(concurrencyCases)) {
  test(name, () => run({ lib, assert, base: server.base, requests: server.log, maxInFlight: server.maxInFlight }));
}
