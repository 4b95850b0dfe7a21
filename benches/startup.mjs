// Size and start-up cost of the shipped wasm modules: gzip size and, in fresh Node processes,
// the time to compile + instantiate each; the time to import the whole package ("citeflow",
// both modules) and the streaming entry alone ("citeflow/stream", what a streaming chat UI loads).
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
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
const importing = (specifier) => `
const t0 = performance.now();
await import(${JSON.stringify(specifier)});
console.log(JSON.stringify({ ms: performance.now() - t0 }));
`;

function child(code) {
  return JSON.parse(
    execFileSync(process.execPath, ["--input-type=module", "-e", code], { cwd: root, encoding: "utf8" }),
  ).ms;
}

const medianOf = (runs, code) => median(Array.from({ length: runs }, () => child(code)));

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
  return {
    name: "startup",
    modules,
    importMs: medianOf(runs, importing("citeflow")),
    streamImportMs: medianOf(runs, importing("citeflow/stream")),
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
  const s = r.modules.stream;
  console.log(
    `goals for the streaming module: ≤ ${r.goals.streamGzipBytes} B gzip (${s.gzipBytes}), ≤ ${r.goals.streamInstantiateMs} ms compile+instantiate (${
      s.instantiateMs.toFixed(2)
    }), whole-package import ≤ ${r.goals.importMs} ms (${r.importMs.toFixed(2)})`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) print(await run());
