// The hostile-value and forced-trap cases (tests/portable/hostile.cases.mjs) in Node; the
// browser runners run the same cases in Chromium, Firefox and WebKit.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import * as streamLib from "citeflow/stream";
import { hostileCases } from "../portable/hostile.cases.mjs";
import { internals } from "../portable/internals.mjs";
import { startFakeProvider } from "./support/fake-provider.mjs";

let server;
before(async () => (server = await startFakeProvider()));
after(() => server.close());

for (const [name, run] of Object.entries(hostileCases)) {
  test(name, () => run({ lib, streamLib, assert, base: server.base, internals }));
}
