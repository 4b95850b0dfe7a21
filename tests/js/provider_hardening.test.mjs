// The provider hardening cases (tests/portable/provider_hardening.cases.mjs) in Node; the
// browser runner runs the same cases in Chromium, Firefox and WebKit.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import { providerHardeningCases } from "../portable/provider_hardening.cases.mjs";
import { startFakeProvider } from "./support/fake-provider.mjs";

let server;
before(async () => (server = await startFakeProvider()));
after(() => server.close());

for (const [name, run] of Object.entries(providerHardeningCases)) {
  test(name, () => run({ lib, assert, base: server.base }));
}
