// Runs worker modules in workerd (Cloudflare's runtime) through miniflare, with "citeflow"
// resolved the way a bundler (wrangler) resolves it: the package's exports map with the
// "workerd" condition, and the .wasm files loaded as compiled modules.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
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
  // "citeflow" and "citeflow/stream" as the exports map's "workerd" condition names them, as
  // modules in `dir` (workerd resolves a bare specifier next to the importing module).
  const alias = (dir, name, entry) => {
    const path = join(root, dir, name);
    const target = relative(dirname(path), join(root, "node_modules", "citeflow", entry));
    const from = JSON.stringify(target.startsWith(".") ? target : `./${target}`);
    return { type: "ESModule", path, contents: `export * from ${from};\nexport { default } from ${from};\n` };
  };
  const dirs = [...new Set(sources.map((s) => dirname(s)))];
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
      // The worker's files at their repository paths (so their relative imports hold as on
      // disk), and beside them the aliases.
      ...sources.map((s) => ({ type: "ESModule", path: join(root, s), contents: readFileSync(join(root, s)) })),
      ...dirs.flatMap((dir) => [
        alias(dir, "citeflow", exports["."].workerd),
        alias(dir, "citeflow/stream", exports["./stream"].workerd),
      ]),
      ...pkgModules,
    ],
    bindings,
    compatibilityDate: "2025-09-01",
  });
}
