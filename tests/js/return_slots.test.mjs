// Results that cross through return slots (scripts/return_slots.mjs: one per call, from the
// shadow stack) stay right when the call runs user code that makes other calls into the same
// instance first: an option's `toJSON` that streams citations and hits an error of its own
// before returning.
import { test } from "node:test";
import assert from "node:assert/strict";
import { CitationParser, ThinkTagOutputTransformer } from "citeflow";

/** Calls that write the slot (results and an error) while the outer call is still running. */
function innerCalls() {
  const parser = new CitationParser({ sourceCount: 5 });
  const types = [...parser.push("see [1] and [2]."), ...parser.finish()].map((e) => e.type);
  assert.equal(types.filter((t) => t === "citation").length, 2);
  assert.throws(() => new ThinkTagOutputTransformer({ tags: 5 }), { code: "INVALID_OPTION" });
}

test("a call whose options run other calls returns its own result", () => {
  const tags = {
    toJSON() {
      innerCalls();
      return [["<r>", "</r>"]];
    },
  };
  const t = new ThinkTagOutputTransformer({ tags });
  const out = [...t.push("a<r>b</r>c"), ...t.finish()].filter((e) => e.type === "thinking" || e.type === "response");
  assert.deepEqual(out.map((e) => [e.type, e.value]), [["response", "a"], ["thinking", "b"], ["response", "c"]]);
});

test("a call whose options run other calls returns its own error", () => {
  const tags = {
    toJSON() {
      innerCalls();
      return 7;
    },
  };
  assert.throws(
    () => new ThinkTagOutputTransformer({ tags }),
    (e) => e.code === "INVALID_OPTION" && /tags/.test(e.message),
  );
});
