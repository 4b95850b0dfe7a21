// Event objects pushed as handles: the portable cases (tests/portable/handles.cases.mjs, also run
// in every browser engine by tests/browser/cases.html) in Node, and the bound on the table of
// kept objects, which needs the engine's internals.
import { test } from "node:test";
import assert from "node:assert/strict";
import * as lib from "citeflow";
import "../../pkg/entry/stream-node.js";
import { Engine } from "../../pkg/src/engine.js";
import { handleCases } from "../portable/handles.cases.mjs";
import { internals } from "../portable/internals.mjs";

for (const [name, run] of Object.entries(handleCases)) {
  test(name, () => run({ lib, assert, internals }));
}

const THINK = { type: "think_tag", kwargs: {} };
const CITE = { type: "citations", kwargs: { sourceCount: 2 } };

test("the table of kept objects stays small over 100 000 events", () => {
  const engine = new Engine(null, [THINK, CITE]);
  let most = 0;
  let out = 0;
  for (let i = 0; i < 100_000; i++) {
    const event = i % 3 === 0
      ? { type: "tool_call", id: `call_${i}`, value: { i } }
      : { type: "response", id: "r", value: i % 3 === 1 ? "text [" : "1] more", meta: i };
    out += engine.pushEvent(event).length;
    most = Math.max(most, engine.keptCount());
  }
  assert.ok(out > 100_000);
  assert.ok(most <= 3, `${most} objects kept at once`);
  engine.finish();
  assert.equal(engine.keptCount(), 0);
});
