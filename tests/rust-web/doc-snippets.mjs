// The Rust face's documentation examples, compiled: rustdoc cannot build doctests for wasm32
// here (the dev-dependencies do not build for it), so the `no_run` examples of src/web/ and
// the README's "Using citeflow from Rust" example (and docs/rust.md's examples, as modules) become items of a generated crate
// (under target/, not committed) built for wasm32 with the example app's dependencies. A doc example that no
// longer compiles fails the run.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const FENCE_OPEN = /^\s*(\/\/\/|\/\/!) ```(no_run|rust)?$/;
const FENCE_CLOSE = /^\s*(\/\/\/|\/\/!) ```$/;

/** The Rust code blocks of doc comments, hidden lines (`# …`) shown. */
function docBlocks(source) {
  const blocks = [];
  const lines = source.split("\n");
  for (let i = 0; i < lines.length; i++) {
    if (!FENCE_OPEN.test(lines[i])) continue;
    const body = [];
    for (i++; i < lines.length && !FENCE_CLOSE.test(lines[i]); i++) {
      const text = lines[i].trim().replace(/^(\/\/\/|\/\/!) ?/, "");
      body.push(text === "#" ? "" : text.startsWith("# ") ? text.slice(2) : text);
    }
    blocks.push(body.join("\n"));
  }
  return blocks;
}

/** Writes the crate and checks it; returns how many examples it compiled. */
export function checkDocSnippets({ root, targetDir, env }) {
  const crate = join(targetDir, "doc-snippets");
  mkdirSync(join(crate, "src"), { recursive: true });
  const web = join(root, "src", "web");
  const items = ["#![allow(unused)]"];
  let count = 0;
  for (const file of readdirSync(web).filter((f) => f.endsWith(".rs")).sort()) {
    for (const block of docBlocks(readFileSync(join(web, file), "utf8"))) {
      items.push(`// src/web/${file}\nfn example_${++count}() {\n${block}\n}`);
    }
  }
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const section = readme.slice(readme.indexOf("## Using citeflow from Rust"));
  const rust = /```rust\n([\s\S]*?)```/.exec(section);
  if (rust === null) throw new Error('the README\'s "Using citeflow from Rust" section has no rust example');
  items.push(`mod readme {\n${rust[1]}}`);
  count++;
  // The Rust guide's examples (docs/rust.md), each a module of items.
  const guide = readFileSync(join(root, "docs", "rust.md"), "utf8");
  for (const [i, block] of [...guide.matchAll(/^```rust\n([\s\S]*?)^```$/gm)].entries()) {
    items.push(`mod guide_rust_${i + 1} {\n${block[1]}}`);
    count++;
  }
  writeFileSync(join(crate, "src", "lib.rs"), items.join("\n\n") + "\n");
  writeFileSync(
    join(crate, "Cargo.toml"),
    `[package]
name = "citeflow-doc-snippets"
version = "0.0.0"
edition = "2021"
publish = false

[workspace]

[dependencies]
citeflow = { path = ${JSON.stringify(root)}, features = ["web"] }
futures-util = { version = "0.3", default-features = false }
js-sys = "0.3"
serde_json = "1"
wasm-bindgen = "=0.2.130"
wasm-bindgen-futures = "0.4"
web-sys = { version = "0.3", features = ["AbortController", "AbortSignal", "Document", "Element", "Node", "Window"] }

# As examples/rust-web's: its build of every dependency is reused.
[profile.release]
opt-level = 1
codegen-units = 16
debug = false
panic = "abort"
`,
  );
  // The example app's lock: the same versions, and wasm-bindgen pinned to the CLI's.
  copyFileSync(join(root, "examples", "rust-web", "Cargo.lock"), join(crate, "Cargo.lock"));
  console.log(`$ cargo build (${count} documentation examples of citeflow::web)`);
  execFileSync("cargo", ["build", "--quiet", "--release", "--target", "wasm32-unknown-unknown"], {
    cwd: crate,
    env,
    stdio: "inherit",
  });
  return count;
}
