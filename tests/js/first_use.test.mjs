// Node and Deno instantiate the wasm modules lazily (the core at its first use, the streaming
// module then or once compiled in the background). So every entry point must bring its module
// up itself: here each export, class, static and method of the hostile table's entry points
// (tests/portable/hostile.cases.mjs) is the very first thing a fresh process does right after
// the import, with valid arguments. It works or throws a CiteflowError; never a TypeError from
// glue used before its module was there.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { entryPoints } from "../portable/hostile.cases.mjs";
import * as lib from "citeflow";

const root = fileURLToPath(new URL("../..", import.meta.url));
const table = fileURLToPath(new URL("../portable/hostile.cases.mjs", import.meta.url));
// Never fetched: calls that would reach a provider are started, not awaited to the network.
const BASE = "http://127.0.0.1:9";

/** The calls to try, as [label, path] with path = [group, name, method?]. */
function calls() {
  const t = entryPoints({ lib, base: BASE });
  const out = [];
  for (const name of Object.keys(t.functions)) out.push([`${name}()`, ["functions", name]]);
  for (const [name, spec] of Object.entries(t.classes)) {
    out.push([`new ${name}()`, ["classes", name]]);
    for (const method of Object.keys(spec.methods ?? {})) out.push([`${name}.${method}()`, ["methods", name, method]]);
    for (const method of Object.keys(spec.statics ?? {})) out.push([`${name}.${method}()`, ["statics", name, method]]);
  }
  for (const [name, fns] of Object.entries(t.objects)) {
    for (const method of Object.keys(fns)) out.push([`${name}.${method}()`, ["objects", name, method]]);
  }
  return out;
}

const child = (path) => `
const lib = await import("citeflow");
const { entryPoints } = await import(${JSON.stringify(table)});
const t = entryPoints({ lib, base: ${JSON.stringify(BASE)} });
const [group, name, method] = ${JSON.stringify(path)};
let result;
try {
  let value;
  if (group === "functions") value = lib[name](...t.functions[name]());
  else if (group === "classes") value = new lib[name](...t.classes[name].args());
  else if (group === "methods") value = t.classes[name].make()[method](...t.classes[name].methods[method]);
  else if (group === "statics") value = lib[name][method](...t.classes[name].statics[method]());
  else value = lib[name][method](...t.objects[name][method]());
  if (value && typeof value.then === "function") await value;
  result = { ok: true };
} catch (e) {
  result = e?.name === "CiteflowError" && typeof e.code === "string" ? { ok: true } : { ok: false, error: String(e?.stack ?? e) };
}
console.log(JSON.stringify(result));
process.exit(0);
`;

function run(path) {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ["--input-type=module", "-e", child(path)], { cwd: root }, (error, stdout) => {
      if (error) reject(error);
      else resolve(JSON.parse(stdout.trim().split("\n").pop()));
    });
  });
}

test("every entry point, called first thing after the import, brings its wasm module up itself", async () => {
  const todo = calls();
  assert.ok(todo.length > 60, `the table lists ${todo.length} calls`);
  const problems = [];
  // Two at a time (two cores).
  let next = 0;
  const worker = async () => {
    while (next < todo.length) {
      const [label, path] = todo[next++];
      const r = await run(path);
      if (!r.ok) problems.push(`${label}: ${r.error}`);
    }
  };
  await Promise.all([worker(), worker()]);
  assert.deepEqual(problems, []);
});
