// Runs the smoke scenario inside workerd (Cloudflare's runtime) through miniflare. A bundler
// (wrangler) would resolve "citeflow" through the package's exports map with the "workerd"
// condition and load the .wasm as a compiled module; this does the same by hand.
import { readFileSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";
import { startFakeProvider } from "../js/support/fake-provider.mjs";
import { check } from "./scenario.mjs";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkgDir = join(root, "pkg");
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const entry = manifest.exports["."].workerd;

const files = (dir) => readdirSync(dir, { withFileTypes: true }).flatMap((d) => (d.isDirectory() ? files(join(dir, d.name)) : [join(dir, d.name)]));
const pkgModules = files(pkgDir)
  .filter((f) => /\.(js|wasm)$/.test(f))
  .map((f) => ({
    type: f.endsWith(".wasm") ? "CompiledWasm" : "ESModule",
    path: join(root, "node_modules", "citeflow", relative(pkgDir, f)),
    contents: readFileSync(f),
  }));

const mf = new Miniflare({
  modulesRoot: root,
  modules: [
    // workerd resolves a bare specifier next to the importing module, so the worker and the
    // alias sit side by side at the root of the module tree.
    { type: "ESModule", path: join(root, "worker.mjs"), contents: readFileSync(join(root, "tests/smoke/worker.mjs")) },
    { type: "ESModule", path: join(root, "scenario.mjs"), contents: readFileSync(join(root, "tests/smoke/scenario.mjs")) },
    // What the bundler's resolution of the bare specifier amounts to.
    { type: "ESModule", path: join(root, "citeflow"), contents: `export * from "./node_modules/citeflow/${entry.slice(2)}";\nexport { default } from "./node_modules/citeflow/${entry.slice(2)}";\n` },
    ...pkgModules,
  ],
  compatibilityDate: "2025-09-01",
});
const provider = await startFakeProvider();
try {
  const res = await mf.dispatchFetch(`http://smoke.test/?provider=${encodeURIComponent(provider.base)}`);
  const body = await res.text();
  if (!res.ok) throw new Error(`workerd answered ${res.status}: ${body}`);
  check(JSON.parse(body), "workerd (miniflare)");
} finally {
  provider.close();
  await mf.dispose();
}
