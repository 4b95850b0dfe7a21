#!/usr/bin/env node
// The integration tests against the real local model (scripts/model-server.mjs: SmolLM2-135M
// and all-MiniLM-L6-v2 on one CPU thread): starts one server for all of them, runs the test
// files one at a time (they share its one model context), stops the server, and exits with the
// tests' status. The models must be set up first (`bash scripts/models.sh`; `make test` does).
import { spawn } from "node:child_process";
import { readdirSync } from "node:fs";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const here = fileURLToPath(new URL(".", import.meta.url));
const files = readdirSync(here).filter((f) => f.endsWith(".test.mjs")).sort().map((f) => `${here}${f}`);
const started = Date.now();

const server = spawn(process.execPath, ["scripts/model-server.mjs"], {
  cwd: root,
  env: { ...process.env, PORT: "0" },
  stdio: ["ignore", "pipe", "inherit"],
});
const stopServer = () => server.exitCode === null && server.signalCode === null && server.kill("SIGTERM");
process.on("exit", stopServer);
const base = await new Promise((resolve, reject) => {
  createInterface({ input: server.stdout }).on("line", (line) => {
    const m = /model server: (\S+)/.exec(line);
    if (m) resolve(m[1]);
  });
  server.once("exit", (code) => reject(new Error(`the model server exited (${code}) before it listened`)));
});
console.log(`integration: model server at ${base} (${((Date.now() - started) / 1000).toFixed(1)} s to load)`);

const tests = spawn(process.execPath, ["--test", "--test-concurrency=1", ...files], {
  cwd: root,
  env: { ...process.env, CITEFLOW_MODEL_BASE: base },
  stdio: "inherit",
});
const code = await new Promise((resolve) => tests.once("exit", (c) => resolve(c ?? 1)));
const running = server.exitCode === null && server.signalCode === null;
const stopped = running ? new Promise((resolve) => server.once("exit", resolve)) : Promise.resolve();
stopServer();
await stopped;
console.log(`integration: ${code === 0 ? "passed" : "FAILED"} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
process.exit(code);
