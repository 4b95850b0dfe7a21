// Size and start-up cost of the shipped core module: gzip size, and in fresh Node processes
// the time to compile + instantiate it and the time to import the whole package.
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { median } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const wasmPath = `${root}pkg/gen/citeflow_bg.wasm`;

const PROBE = `
const { readFileSync } = await import("node:fs");
const bytes = readFileSync(${JSON.stringify(wasmPath)});
const { initSync } = await import(${JSON.stringify(`${root}pkg/gen/citeflow.js`)});
const t0 = performance.now();
initSync({ module: bytes });
const instantiate = performance.now() - t0;
console.log(JSON.stringify({ instantiate }));
`;
const IMPORT = `
const t0 = performance.now();
await import("citeflow");
console.log(JSON.stringify({ importMs: performance.now() - t0 }));
`;


function child(code) {
  return JSON.parse(execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" }));
}

export async function run({ runs = 7 } = {}) {
  const bytes = readFileSync(wasmPath);
  const instantiate = median(Array.from({ length: runs }, () => child(PROBE).instantiate));
  const importMs = median(Array.from({ length: runs }, () => child(IMPORT).importMs));
  return { name: "startup", bytes: bytes.length, gzipBytes: gzipSync(bytes, { level: 9 }).length, instantiateMs: instantiate, importMs };
}

export function print(r) {
  console.log(`core wasm: ${r.bytes} B, ${r.gzipBytes} B gzip; Node compile+instantiate ${r.instantiateMs.toFixed(2)} ms, whole package import ${r.importMs.toFixed(2)} ms (medians of fresh processes)`);
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
