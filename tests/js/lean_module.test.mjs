// What the lean streaming module (what `citeflow/stream` loads) must not link, because of its
// size goal: Rust's Debug formatting of strings (`{:?}`, which brings Unicode's printable
// tables: 4.6 KB gzip) and serde_json. Linked code brings the source paths of its panic
// locations into the module's data, so those paths tell: the full streaming module, which has
// both, holds them (and so this check can fail).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const module = (path) => readFileSync(new URL(`../../pkg/gen/${path}`, import.meta.url)).toString("latin1");
const LINKED = {
  "Debug formatting of strings (Unicode's printable tables)": "core/src/unicode/printable.rs",
  serde_json: "/serde_json-",
};

test("the lean streaming module links no Debug formatting of strings and no serde_json", () => {
  const lean = module("stream/citeflow_stream_bg.wasm");
  const full = module("stream-full/citeflow_stream_full_bg.wasm");
  for (const [what, path] of Object.entries(LINKED)) {
    assert.ok(full.includes(path), `the full module holds ${what} (${path}): the check can see it`);
    assert.ok(!lean.includes(path), `the lean module links ${what} (${path}); quote strings with json_escape::Quoted`);
  }
});
