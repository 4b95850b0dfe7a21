#!/usr/bin/env node
// The Rust face in a real browser: builds the example Rust web app (examples/rust-web: a
// wasm-bindgen page using citeflow with the `web` feature), serves it beside the real local
// model (SmolLM2-135M through scripts/model-server.mjs), opens it in headless Chromium and
// checks what the Rust app streamed into the page: answer text in several events, citation
// events naming real sources, token usage. Exits non-zero on any failure. The models must be
// set up first (`bash scripts/models.sh`; `make test` does).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../scripts/serve.mjs";
import { start } from "../smoke/engines/chromium.mjs";
import { within } from "../smoke/engines/processes.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const app = join(root, "examples", "rust-web");
const targetDir = join(root, "target", "rust-web");
const TIMEOUT_MS = 90_000;
const started = Date.now();
const seconds = () => ((Date.now() - started) / 1000).toFixed(1);

function run(cmd, args, options = {}) {
  console.log(`$ ${cmd} ${args.join(" ")}`);
  execFileSync(cmd, args, { stdio: "inherit", ...options });
}

// The same toolchain the package build uses (setup.sh records a linked one when needed).
const toolchainFile = join(root, "target", "wasm-toolchain");
const toolchainEnv = existsSync(toolchainFile) ? { RUSTUP_TOOLCHAIN: readFileSync(toolchainFile, "utf8").trim() } : {};
run("cargo", ["build", "--quiet", "--target", "wasm32-unknown-unknown", "--release"], {
  cwd: app,
  env: { ...process.env, ...toolchainEnv, CARGO_TARGET_DIR: targetDir },
});
run("wasm-bindgen", ["--target", "web", "--out-dir", join(app, "pkg"), join(targetDir, "wasm32-unknown-unknown", "release", "citeflow_rust_web_example.wasm")]);
console.log(`rust-web: built in ${seconds()} s`);

let server;
try {
  server = await startServer({ root: app, model: "real" });
} catch (e) {
  console.error(`rust-web: the real model did not start: ${e.message}`);
  process.exit(1);
}
const origin = `http://127.0.0.1:${server.address().port}`;
let browser = null;
const checks = [];
const check = (name, ok, detail = "") => checks.push({ name, ok: Boolean(ok), detail });
try {
  browser = await within(TIMEOUT_MS, "chromium: starting", start(TIMEOUT_MS));
  const url = `${origin}/index.html?auto&base=${encodeURIComponent(`${origin}/v1`)}`;
  await within(TIMEOUT_MS, "chromium: loading the page", browser.goto(url));
  const deadline = Date.now() + TIMEOUT_MS;
  let seen = null;
  while (seen === null) {
    seen = await browser.evaluate(() =>
      window.__rustWeb
        ? {
            result: window.__rustWeb,
            answer: document.getElementById("answer").textContent,
            items: [...document.querySelectorAll("#citations li")].map((li) => li.dataset.sourceId),
            usage: document.getElementById("usage").textContent,
          }
        : null,
    );
    if (seen === null) {
      if (Date.now() > deadline) throw new Error(`the page set no result within ${TIMEOUT_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  const { result, answer, items, usage } = seen;
  console.log(`rust-web: ${browser.version}: ${JSON.stringify(result.text ?? result.error)}`);
  check("the Rust app's stream ended without an error", result.ok, result.error);
  if (result.ok) {
    check("answer text arrived in several response events", result.text.trim().length > 0 && result.chunks >= 2, `${result.chunks} events`);
    check("the page shows the streamed text", answer === result.text, answer);
    check("at least one citation event", result.citations.length >= 1, JSON.stringify(result.citations));
    check(
      "every citation names a source that exists (1 or 2), is valid, and its marker is in the text at its span",
      result.citations.every((c) => (c.sourceId === 1 || c.sourceId === 2) && c.valid === true && result.text.slice(c.span[0], c.span[1]) === c.marker),
      JSON.stringify(result.citations),
    );
    check("the page lists each citation", items.length === result.citations.length && items.every((id, i) => Number(id) === result.citations[i].sourceId), JSON.stringify(items));
    check("usage counts input and output tokens", result.usage?.inputTokens > 0 && result.usage?.outputTokens > 0 && result.usage.totalTokens === result.usage.inputTokens + result.usage.outputTokens, JSON.stringify(result.usage));
    check("the page shows the usage", /\d+ tokens in, \d+ out/.test(usage), usage);
  }
} catch (e) {
  check("the page ran", false, e.message);
} finally {
  await within(10_000, "chromium: closing", browser?.close() ?? Promise.resolve()).catch((e) => console.error(e.message));
  server.close();
}
let failed = 0;
for (const c of checks) {
  if (c.ok) console.log(`ok   ${c.name}`);
  else {
    failed++;
    console.log(`FAIL ${c.name}: ${c.detail}`);
  }
}
console.log(`rust-web: ${checks.length - failed} passed, ${failed} failed (${seconds()} s)`);
process.exit(failed ? 1 : 0);
