// Runs worker modules in workerd (Cloudflare's runtime) through miniflare, with "citeflow"
// resolved the way a bundler (wrangler) resolves it: the package's exports map with the
// "workerd" condition, and the .wasm files loaded as compiled modules.
import { readdirSync, readFileSync } from "node:fs";
import { basename, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { Miniflare } from "miniflare";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkgDir = join(root, "pkg");

const files = (dir) =>
  readdirSync(dir, { withFileTypes: true }).flatMap((
    d,
  ) => (d.isDirectory() ? files(join(dir, d.name)) : [join(dir, d.name)]));

/** `sources`: the worker's own files (repository paths), the first being the entry. */
export function startWorker(sources, bindings = {}) {
  const { exports } = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
  // "citeflow" and "citeflow/stream" as the exports map's "workerd" condition names them.
  const alias = (name, entry) => ({
    type: "ESModule",
    path: join(root, name),
    contents: `export * from "./${name.includes("/") ? "../" : ""}node_modules/citeflow/${
      entry.slice(2)
    }";\nexport { default } from "./${name.includes("/") ? "../" : ""}node_modules/citeflow/${entry.slice(2)}";\n`,
  });
  const pkgModules = files(pkgDir)
    .filter((f) => /\.(js|wasm)$/.test(f))
    .map((f) => ({
      type: f.endsWith(".wasm") ? "CompiledWasm" : "ESModule",
      path: join(root, "node_modules", "citeflow", relative(pkgDir, f)),
      contents: readFileSync(f),
    }));
  return new Miniflare({
    modulesRoot: root,
    modules: [
      // workerd resolves a bare specifier next to the importing module, so the worker's files
      // and the alias sit side by side at the root of the module tree.
      ...sources.map((s) => ({
        type: "ESModule",
        path: join(root, basename(s)),
        contents: readFileSync(join(root, s)),
      })),
      alias("citeflow", exports["."].workerd),
      alias("citeflow/stream", exports["./stream"].workerd),
      ...pkgModules,
    ],
    bindings,
    compatibilityDate: "2025-09-01",
  });
}
