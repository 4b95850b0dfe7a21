#!/usr/bin/env node
// Bundles the package's entries (pkg/entry/) into pkg/dist/: one ES module per entry, plus the
// chunks the entries of one runtime share (so "citeflow" and "citeflow/stream" keep one
// streaming instance). The wasm-bindgen glue and the modules holding an instance's state
// (src/runtime.js, src/stream_runtime.js, src/csl.js; tests read it) stay files of their own.
// pkg/dist/ sits at the depth of pkg/entry/, so every `new URL("../gen/…", import.meta.url)` and
// relative dynamic import resolves as before. Kept as they are: the wasm URL patterns (bundlers
// find the wasm by them), the lazily loaded CSL entry and bundled styles (dynamic imports, left
// as separate files), `node:` builtins and the workerd wasm imports. Usage: node scripts/bundle.mjs
import { rmSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = join(root, "pkg");
const out = join(pkg, "dist");

// The entries of each runtime, bundled together so they share chunks.
const RUNTIMES = {
  browser: ["browser", "stream-browser", "csl-browser"],
  node: ["node", "stream-node", "csl-node"],
  workerd: ["workerd", "stream-workerd", "csl-workerd"],
};

// Left as files, shared with anything else importing them (imported by path from pkg/dist/).
const SHARED = /^(gen\/.*|src\/(runtime|stream_runtime|csl))\.js$/;

const keep = {
  name: "citeflow-keep",
  setup(b) {
    b.onResolve({ filter: /^node:/ }, (a) => ({ path: a.path, external: true }));
    // The workerd entries import the wasm itself; the worker's bundler compiles it.
    b.onResolve({ filter: /\.wasm$/ }, (a) => ({ path: a.path, external: true }));
    // Lazily loaded: the CSL entry (dist/csl-*.js, beside the entry) and the bundled styles.
    b.onResolve(
      { filter: /^\.\/csl-|\/gen\/styles\// },
      (a) => a.kind === "dynamic-import" ? { path: a.path, external: true } : undefined,
    );
    b.onResolve({ filter: /^\.\.?\// }, (a) => {
      const rel = relative(pkg, resolve(a.resolveDir, a.path)).replaceAll("\\", "/");
      return SHARED.test(rel) ? { path: `../${rel}`, external: true } : undefined;
    });
  },
};

export async function bundle() {
  rmSync(out, { recursive: true, force: true });
  const files = [];
  for (const [runtime, entries] of Object.entries(RUNTIMES)) {
    const result = await build({
      absWorkingDir: root,
      entryPoints: entries.map((e) => join(pkg, "entry", `${e}.js`)),
      outdir: out,
      bundle: true,
      splitting: true,
      format: "esm",
      platform: "neutral",
      target: "es2022",
      chunkNames: `${runtime}-[hash]`,
      legalComments: "none",
      charset: "utf8",
      metafile: true,
      // The entries run code at import (instantiation); pkg/package.json's sideEffects names the bundles.
      ignoreAnnotations: true,
      logLevel: "warning",
      plugins: [keep],
    });
    files.push(...Object.keys(result.metafile.outputs));
  }
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = await bundle();
  console.log(`bundled ${files.length} files into pkg/dist/: ${files.map((f) => f.slice(9)).join(", ")}`);
}
