// Size and start-up cost of the shipped wasm modules: gzip size and, in fresh Node processes,
// the time to compile + instantiate each; the time to import the whole package ("citeflow") and
// the streaming entry alone ("citeflow/stream", what a streaming chat UI loads); and, since
// neither import waits for its modules' compilation (they compile in the background after it),
// the cost of the first call into each module right after the import (where that compilation
// went when the call comes first).
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
// The issue's goals for the module a streaming chat UI loads.
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
// linking and evaluating the JS files. Then `first` (a call into the core), timed the same way,
// right away or after `pauseMs` idle (the package compiles the core in the background meanwhile).
const importing = (specifier, first, pauseMs = 0) => `
const { Module, Instance } = WebAssembly;
let wasm = 0;
const timed = (C) => new Proxy(C, { construct(t, a) { const t0 = performance.now(); const r = new t(...a); wasm += performance.now() - t0; return r; } });
WebAssembly.Module = timed(Module);
WebAssembly.Instance = timed(Instance);
const t0 = performance.now();
const lib = await import(${JSON.stringify(specifier)});
const ms = performance.now() - t0;
const importWasm = wasm;
${pauseMs ? `await new Promise((r) => setTimeout(r, ${pauseMs}));` : ""}
const t1 = performance.now();
${first ?? ""}
console.log(JSON.stringify({ ms, wasm: importWasm, firstMs: performance.now() - t1, firstWasm: wasm - importWasm }));
`;
// The first call into the core module ("citeflow" compiles and instantiates it then).
const FIRST_CORE_CALL = 'lib.checkPolicy("a [1].", { sourceCount: 1 });';
const IDLE_MS = 50;
// The first streaming object ("citeflow/stream" instantiates its module once compiled in the
// background, or at this first use if that comes first, as here).
const FIRST_STREAM_CALL = 'new lib.CitationParser({ sourceCount: 1 }).push("a [1] b");';

function child(code) {
  return JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" }),
  );
}

const medianOf = (runs, code) => median(Array.from({ length: runs }, () => child(code).ms));

const range = (xs) => [Math.min(...xs), Math.max(...xs)];

function importOf(runs, specifier, first, pauseMs) {
  const rows = Array.from({ length: runs }, () => child(importing(specifier, first, pauseMs)));
  const of = (key) => median(rows.map((r) => r[key]));
  return {
    ms: of("ms"),
    range: range(rows.map((r) => r.ms)),
    wasmMs: of("wasm"),
    firstMs: of("firstMs"),
    firstRange: range(rows.map((r) => r.firstMs)),
    firstWasmMs: of("firstWasm"),
  };
}

/** The JS files an entry imports statically (relative specifiers, followed), and their bytes. */
function jsFiles(entry, seen = new Map()) {
  if (seen.has(entry)) return seen;
  const source = readFileSync(entry, "utf8");
  seen.set(entry, source.length);
  for (
    const m of source.matchAll(
      // Statements start a line, or follow a `;` in the bundles (minified for whitespace).
      /(?:^|[\n;])\s*(?:import|export)\s*[\w*{][^;]*?from\s*"(\.[^"]+)"|(?:^|[\n;])\s*import\s*"(\.[^"]+)"/g,
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
  const whole = importOf(runs, "citeflow", FIRST_CORE_CALL);
  const idle = importOf(runs, "citeflow", FIRST_CORE_CALL, IDLE_MS);
  const stream = importOf(runs, "citeflow/stream", FIRST_STREAM_CALL);
  // What any import costs in this harness (a fresh process's first `import()`, from `-e`):
  // the pipeline's JS peer, a 6 KB package of plain JS.
  const peer = importOf(runs, "eventsource-parser");
  return {
    name: "startup",
    modules,
    importMs: whole.ms,
    importRangeMs: whole.range,
    importWasmMs: whole.wasmMs,
    importJs: jsOf("citeflow"),
    firstCoreCallMs: whole.firstMs,
    firstCoreCallRangeMs: whole.firstRange,
    firstCoreCallWasmMs: whole.firstWasmMs,
    firstCoreCallAfterIdleMs: idle.firstMs,
    firstCoreCallAfterIdleRangeMs: idle.firstRange,
    idleMs: IDLE_MS,
    streamImportMs: stream.ms,
    streamImportRangeMs: stream.range,
    streamImportWasmMs: stream.wasmMs,
    firstStreamCallMs: stream.firstMs,
    firstStreamCallRangeMs: stream.firstRange,
    firstStreamCallWasmMs: stream.firstWasmMs,
    streamImportJs: jsOf("citeflow/stream"),
    peerImportMs: peer.ms,
    peerImportRangeMs: peer.range,
    peerImportJs: jsOf("eventsource-parser"),
    runs,
    goals: GOALS,
  };
}

const ms = (x) => x.toFixed(2);
const msRange = ([lo, hi]) => `${lo.toFixed(1)}-${hi.toFixed(1)}`;

export function print(r) {
  for (const [name, m] of Object.entries(r.modules)) {
    console.log(
      `${name} wasm: ${m.bytes} B, ${m.gzipBytes} B gzip; Node compile+instantiate ${ms(m.instantiateMs)} ms`,
    );
  }
  console.log(
    `import "citeflow" ${ms(r.importMs)} ms (${msRange(r.importRangeMs)}); import "citeflow/stream" ${
      ms(r.streamImportMs)
    } ms (${msRange(r.streamImportRangeMs)}) (medians and ranges of ${r.runs} fresh processes)`,
  );
  for (
    const [what, total, wasmMs, js] of [
      ['"citeflow"', r.importMs, r.importWasmMs, r.importJs],
      ['"citeflow/stream"', r.streamImportMs, r.streamImportWasmMs, r.streamImportJs],
    ]
  ) {
    console.log(
      `  import ${what}: wasm compile+instantiate ${ms(wasmMs)} ms; the other ${
        ms(total - wasmMs)
      } ms load, link and run ${js.files} JS files (${js.bytes} B)`,
    );
  }
  console.log(
    `  import "eventsource-parser" (the pipeline's JS peer: ${r.peerImportJs.files} JS file, ${r.peerImportJs.bytes} B) ${
      ms(r.peerImportMs)
    } ms (${msRange(r.peerImportRangeMs)}): what any first import costs in this harness`,
  );
  console.log(
    `  then the first call into the core (${FIRST_CORE_CALL}) ${ms(r.firstCoreCallMs)} ms (${
      msRange(r.firstCoreCallRangeMs)
    }), of which compile+instantiate ${ms(r.firstCoreCallWasmMs)} ms (moved there from the import); ${
      ms(r.firstCoreCallAfterIdleMs)
    } ms (${
      msRange(r.firstCoreCallAfterIdleRangeMs)
    }) when made ${r.idleMs} ms after the import (the background compilation had that long)`,
  );
  console.log(
    `  the first streaming object right after import "citeflow/stream" (${FIRST_STREAM_CALL}) ${
      ms(r.firstStreamCallMs)
    } ms (${msRange(r.firstStreamCallRangeMs)}), of which compile+instantiate ${ms(r.firstStreamCallWasmMs)} ms`,
  );
  const s = r.modules.stream;
  console.log(
    `goals: streaming module ≤ ${r.goals.streamGzipBytes} B gzip (${s.gzipBytes}), ≤ ${r.goals.streamInstantiateMs} ms compile+instantiate (${
      ms(s.instantiateMs)
    }); whole-package import ≤ ${r.goals.importMs} ms (${ms(r.importMs)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
