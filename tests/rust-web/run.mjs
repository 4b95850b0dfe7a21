#!/usr/bin/env node
// The Rust face in a real browser (headless Chromium). Builds two wasm-bindgen crates that use
// citeflow with the `web` feature:
// - tests/rust-web/cases: the web invokers' behaviour against the fake provider
//   (tests/js/support/fake-provider.mjs) and the cited-answer provider (cited-provider.mjs):
//   citations enforced by a schema or a forced tool, retries, timeouts, abort, redirects, size limits, cut
//   streams, error codes, keys kept out of errors, embeddings and decisions;
// - the documentation examples of citeflow::web and the README (./doc-snippets.mjs);
// - examples/rust-web: the example app, served beside the real local model (SmolLM2-135M
//   through scripts/model-server.mjs), checked for what it streamed into the page: answer text
//   in several events, citation events naming real sources, token usage.
// Exits non-zero on any failure. The models must be set up first (`bash scripts/models.sh`;
// `make test` does).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { startServer } from "../../scripts/serve.mjs";
import { startCitedProvider } from "../js/support/cited-provider.mjs";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { start } from "../smoke/engines/chromium.mjs";
import { checkDocSnippets } from "./doc-snippets.mjs";
import { within } from "../smoke/engines/processes.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const app = join(root, "examples", "rust-web");
const cases = join(root, "tests", "rust-web", "cases");
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
// One target directory for both: they share every dependency's build.
const cargoEnv = { ...process.env, ...toolchainEnv, CARGO_TARGET_DIR: targetDir };
for (const [dir, name] of [[cases, "citeflow_rust_web_cases"], [app, "citeflow_rust_web_example"]]) {
  run("cargo", ["build", "--quiet", "--target", "wasm32-unknown-unknown", "--release"], { cwd: dir, env: cargoEnv });
  run("wasm-bindgen", [
    "--target",
    "web",
    "--out-dir",
    join(dir, "pkg"),
    join(targetDir, "wasm32-unknown-unknown", "release", `${name}.wasm`),
  ]);
}
const examples = checkDocSnippets({ root, targetDir, env: cargoEnv });
console.log(`rust-web: built in ${seconds()} s`);

/** Polls the page until `read` (run in the page) gives something other than null. */
async function waitFor(read, what) {
  const deadline = Date.now() + TIMEOUT_MS;
  for (;;) {
    const value = await within(TIMEOUT_MS, `chromium: reading ${what}`, browser.evaluate(read));
    if (value !== null) return value;
    if (Date.now() > deadline) throw new Error(`${what}: no result within ${TIMEOUT_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

let server;
try {
  server = await startServer({ model: "real" });
} catch (e) {
  console.error(`rust-web: the real model did not start: ${e.message}`);
  process.exit(1);
}
const origin = `http://127.0.0.1:${server.address().port}`;
const provider = await startFakeProvider();
const citedProvider = await startCitedProvider();
let browser = null;
const checks = [];
const check = (name, ok, detail = "") => checks.push({ name, ok: Boolean(ok), detail });
// Not vacuous: every public type's page has one; checkDocSnippets threw if one did not compile.
check(`docs: the ${examples} documentation examples compile for wasm32`, examples >= 12, `${examples}`);
try {
  browser = await within(TIMEOUT_MS, "chromium: starting", start(TIMEOUT_MS));
  await within(
    TIMEOUT_MS,
    "chromium: loading the cases",
    browser.goto(
      `${origin}/tests/rust-web/cases/index.html?provider=${encodeURIComponent(provider.base)}&cited=${
        encodeURIComponent(citedProvider.base)
      }`,
    ),
  );
  const results = await waitFor(() => window.__rustWebCases ?? null, "the cases");
  for (const r of results) check(`cases: ${r.name}`, r.ok, r.error);
  const reached = provider.requests.filter((r) => r.server === "elsewhere");
  check("cases: a refused redirect never reached the other origin", reached.length === 0, JSON.stringify(reached));

  const url = `${origin}/examples/rust-web/index.html?auto&base=${encodeURIComponent(`${origin}/v1`)}`;
  await within(TIMEOUT_MS, "chromium: loading the example", browser.goto(url));
  const seen = await waitFor(
    () =>
      window.__rustWeb
        ? {
          result: window.__rustWeb,
          answer: document.getElementById("answer").textContent,
          items: [...document.querySelectorAll("#citations li")].map((li) => li.dataset.sourceId),
          usage: document.getElementById("usage").textContent,
        }
        : null,
    "the example",
  );
  const { result, answer, items, usage } = seen;
  console.log(`rust-web: ${browser.version}: ${JSON.stringify(result.text ?? result.error)}`);
  check("example: the Rust app's stream ended without an error", result.ok, result.error);
  if (result.ok) {
    check(
      "example: answer text arrived in several response events",
      result.text.trim().length > 0 && result.chunks >= 2,
      `${result.chunks} events`,
    );
    check("example: the page shows the streamed text", answer === result.text, answer);
    check("example: at least one citation event", result.citations.length >= 1, JSON.stringify(result.citations));
    check(
      "example: every citation names a source that exists (1 or 2), is valid, and its marker is in the text at its span",
      result.citations.every((c) =>
        (c.sourceId === 1 || c.sourceId === 2) && c.valid === true &&
        result.text.slice(c.span[0], c.span[1]) === c.marker
      ),
      JSON.stringify(result.citations),
    );
    check(
      "example: the page lists each citation",
      items.length === result.citations.length && items.every((id, i) => Number(id) === result.citations[i].sourceId),
      JSON.stringify(items),
    );
    check(
      "example: usage counts input and output tokens",
      result.usage?.inputTokens > 0 && result.usage?.outputTokens > 0 &&
        result.usage.totalTokens === result.usage.inputTokens + result.usage.outputTokens,
      JSON.stringify(result.usage),
    );
    check("example: the page shows the usage", /\d+ tokens in, \d+ out/.test(usage), usage);
  }
} catch (e) {
  check("the page ran", false, e.message);
} finally {
  await within(10_000, "chromium: closing", browser?.close() ?? Promise.resolve()).catch((e) =>
    console.error(e.message)
  );
  server.close();
  provider.close();
  citedProvider.close();
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
