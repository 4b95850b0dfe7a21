// Size and start-up cost of the shipped wasm modules: gzip size and, in fresh Node processes,
// the time to compile + instantiate each; the time to import the whole package ("citeflow",
// both modules) and the streaming entry alone ("citeflow/stream", what a streaming chat UI loads).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { median } from "./timing.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const MODULES = {
  core: { wasm: "pkg/gen/citeflow_bg.wasm", glue: "pkg/gen/citeflow.js" },
  stream: { wasm: "pkg/gen/stream/citeflow_stream_bg.wasm", glue: "pkg/gen/stream/citeflow_stream.js" },
};
// The goals for the module a streaming chat UI loads.
const GOALS = { streamGzipBytes: 60_000, streamInstantiateMs: 3, importMs: 15 };

const probe = ({ wasm, glue }) => `
const { readFileSync } = await import("node:fs");
const bytes = readFileSync(${JSON.stringify(root + wasm)});
const { initSync } = await import(${JSON.stringify(root + glue)});
const t0 = performance.now();
initSync({ module: bytes });
console.log(JSON.stringify({ ms: performance.now() - t0 }));
`;
// An import, and the part of it spent compiling and instantiating wasm (the entries call
// `initSync`, so the module and instance constructors see all of it); the rest is loading,
// linking and evaluating the JS files.
const importing = (specifier) => `
const { Module, Instance } = WebAssembly;
let wasm = 0;
const timed = (C) => new Proxy(C, { construct(t, a) { const t0 = performance.now(); const r = new t(...a); wasm += performance.now() - t0; return r; } });
WebAssembly.Module = timed(Module);
WebAssembly.Instance = timed(Instance);
const t0 = performance.now();
await import(${JSON.stringify(specifier)});
console.log(JSON.stringify({ ms: performance.now() - t0, wasm }));
`;

function child(code) {
  return JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" }),
  );
}

const medianOf = (runs, code) => median(Array.from({ length: runs }, () => child(code).ms));

function importOf(runs, specifier) {
  const rows = Array.from({ length: runs }, () => child(importing(specifier)));
  return { ms: median(rows.map((r) => r.ms)), wasmMs: median(rows.map((r) => r.wasm)) };
}

/** The JS files an entry imports statically (relative specifiers, followed), and their bytes. */
function jsFiles(entry, seen = new Map()) {
  if (seen.has(entry)) return seen;
  const source = readFileSync(entry, "utf8");
  seen.set(entry, source.length);
  for (
    const m of source.matchAll(
      /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*"(\.[^"]+)"|(?:^|\n)\s*import\s*"(\.[^"]+)"/g,
    )
  ) {
    jsFiles(resolve(dirname(entry), m[1] ?? m[2]), seen);
  }
  return seen;
}

/** The JS files importing `specifier` loads before it runs (the package as Node resolves it). */
function jsOf(specifier) {
  const files = jsFiles(fileURLToPath(import.meta.resolve(specifier)));
  return { files: files.size, bytes: [...files.values()].reduce((a, b) => a + b, 0) };
}

export async function run({ runs = 7 } = {}) {
  const modules = {};
  for (const [name, files] of Object.entries(MODULES)) {
    const bytes = readFileSync(root + files.wasm);
    modules[name] = {
      bytes: bytes.length,
      gzipBytes: gzipSync(bytes, { level: 9 }).length,
      instantiateMs: medianOf(runs, probe(files)),
    };
  }
  const whole = importOf(runs, "citeflow");
  const stream = importOf(runs, "citeflow/stream");
  return {
    name: "startup",
    modules,
    importMs: whole.ms,
    importWasmMs: whole.wasmMs,
    importJs: jsOf("citeflow"),
    streamImportMs: stream.ms,
    streamImportWasmMs: stream.wasmMs,
    streamImportJs: jsOf("citeflow/stream"),
    goals: GOALS,
  };
}

export function print(r) {
  for (const [name, m] of Object.entries(r.modules)) {
    console.log(
      `${name} wasm: ${m.bytes} B, ${m.gzipBytes} B gzip; Node compile+instantiate ${m.instantiateMs.toFixed(2)} ms`,
    );
  }
  console.log(
    `import "citeflow" (both modules) ${r.importMs.toFixed(2)} ms; import "citeflow/stream" (streaming module only) ${
      r.streamImportMs.toFixed(2)
    } ms (medians of fresh processes)`,
  );
  for (
    const [what, ms, wasmMs, js] of [
      ['"citeflow"', r.importMs, r.importWasmMs, r.importJs],
      ['"citeflow/stream"', r.streamImportMs, r.streamImportWasmMs, r.streamImportJs],
    ]
  ) {
    console.log(
      `  import ${what}: wasm compile+instantiate ${wasmMs.toFixed(2)} ms; the other ${
        (ms - wasmMs).toFixed(2)
      } ms load, link and run ${js.files} JS files (${js.bytes} B)`,
    );
  }
  const s = r.modules.stream;
  console.log(
    `goals for the streaming module: ≤ ${r.goals.streamGzipBytes} B gzip (${s.gzipBytes}), ≤ ${r.goals.streamInstantiateMs} ms compile+instantiate (${
      s.instantiateMs.toFixed(2)
    }), whole-package import ≤ ${r.goals.importMs} ms (${r.importMs.toFixed(2)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
