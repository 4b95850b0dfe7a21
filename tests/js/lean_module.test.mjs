// What the lean streaming module (what `citeflow/stream` loads) must not link, because of its
// size goal: Rust's Debug formatting of strings (`{:?}`, which brings Unicode's printable
// tables: 4.6 KB gzip) and serde_json. Each leaves data that tells: the printable tables
// themselves (the first 12 entries of core's `SINGLETONS0U`, as bytes) and serde_json's error
// messages. (Source paths of panic locations told before; the lean module's panics are plain
// traps now and carry none.) The full streaming module, which links both, holds that data, so
// this check can fail.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

const module = (path) => readFileSync(new URL(`../../pkg/gen/${path}`, import.meta.url));
const LINKED = {
  "Debug formatting of strings (Unicode's printable tables)": Buffer.from(
    "00010305050606020706080709110a1c0b190c190d100e0c",
    "hex",
  ),
  "serde_json (its error messages)": Buffer.from("EOF while parsing"),
};

test("the lean streaming module links no Debug formatting of strings and no serde_json", () => {
  const lean = module("stream/citeflow_stream_bg.wasm");
  const full = module("stream-full/citeflow_stream_full_bg.wasm");
  for (const [what, data] of Object.entries(LINKED)) {
    assert.ok(full.includes(data), `the full module holds ${what}: the check can see it`);
    assert.ok(!lean.includes(data), `the lean module links ${what}; quote strings with json_escape::Quoted`);
  }
});

test("the lean streaming module has no panic machinery: its panics are plain traps", {
  skip: process.env.CITEFLOW_PLAIN_BUILD === "1" && "the plain build keeps std's panic code (docs/build.md)",
}, () => {
  // Panic locations hold source paths (`src/…rs`); a module built with std's panic code has
  // them, the lean one (panic=immediate-abort, wasm-pack.toml) has none.
  const lean = module("stream/citeflow_stream_bg.wasm").toString("latin1");
  const full = module("stream-full/citeflow_stream_full_bg.wasm").toString("latin1");
  assert.match(full, /src\/[a-z_/]+\.rs/, "the full module holds panic locations: the check can see them");
  assert.doesNotMatch(lean, /src\/[a-z_/]+\.rs/);
});
