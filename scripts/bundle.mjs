#!/usr/bin/env node
// Bundles the package's entries (pkg/entry/) into pkg/dist/, as few files as an import loads
// (Node's loader costs about a millisecond a file): per runtime, "citeflow" and "citeflow/stream"
// together, so that the streaming module's instance lives in the one chunk both load (two files
// for either import), and "citeflow/csl" apart, in one file. The wasm-bindgen glue and the
// modules holding the instances' state are bundled too; tests reach that state through the
// entries (`init[Symbol.for("citeflow.internals")]`, pkg/src/module.js).
// pkg/dist/ sits at the depth of pkg/entry/, so every `new URL("../gen/…", import.meta.url)` and
// relative dynamic import resolves as before; the glue's own default wasm URL (next to the glue)
// is rewritten to the same form. Kept as they are: the wasm URL patterns (bundlers find the wasm
// by them), the lazily loaded CSL entry and bundled styles (dynamic imports, left as separate
// files), `node:` builtins and the workerd and edge entries' wasm imports. Usage: node scripts/bundle.mjs
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));
const pkg = join(root, "pkg");
const out = join(pkg, "dist");

// Per runtime: the entries bundled together (sharing chunks), then the CSL entry alone.
// `wasmImported`: the entries import the wasm as compiled modules, so the glue keeps no default
// URL (which bundlers would ship as a second copy of each file). `from` builds a runtime from
// another's entries and options: "edge" is the workerd entries with each wasm imported as
// `<file>.wasm?module`, the form Next.js (Turbopack and webpack) and Vercel's Edge Functions
// compile to a WebAssembly.Module at build time (wrangler takes both forms; the `workerd`
// files keep the plain one, which workerd's own module loaders expect).
const RUNTIMES = {
  browser: { groups: [["browser", "stream-browser"], ["csl-browser"]] },
  node: { groups: [["node", "stream-node"], ["csl-node"]] },
  workerd: { groups: [["workerd", "stream-workerd"], ["csl-workerd"]], wasmImported: true },
  edge: { from: "workerd", wasmQuery: "?module" },
};

// The glue fetches its module from `new URL("<name>_bg.wasm", import.meta.url)` (the default
// of `init()` in browsers): once bundled into pkg/dist/, the same file is "../gen/…/<name>_bg.wasm".
const GLUE = /[\\/]gen[\\/](?:stream[\\/]|stream-full[\\/]|csl[\\/])?citeflow\w*\.js$/;
const DEFAULT_URL = /new URL\('(\w+_bg\.wasm)', import\.meta\.url\)/g;

function glueFromDist(path, wasmImported) {
  const text = readFileSync(path, "utf8");
  const dir = relative(out, dirname(path)).replaceAll("\\", "/");
  let count = 0;
  const contents = text.replace(DEFAULT_URL, (_, file) => {
    count++;
    // Where the entries hand the glue its compiled module, its init() is never called without one.
    return wasmImported ? "undefined" : `new URL("${dir}/${file}", import.meta.url)`;
  });
  if (count !== 1) throw new Error(`bundle: ${path} names its wasm URL ${count} times, expected once`);
  return { contents, loader: "js" };
}

/** Keeps imports as they are (see the header); for a runtime built `from` another, renamed to its files. */
function keep(runtime, { from, wasmQuery = "", wasmImported = false }) {
  const renamed = (path) => from ? path.replace(`-${from}.js`, `-${runtime}.js`) : path;
  return {
    name: "citeflow-keep",
    setup(b) {
      b.onResolve({ filter: /^node:/ }, (a) => ({ path: a.path, external: true }));
      // The workerd and edge entries import the wasm itself; the worker's bundler compiles it.
      b.onResolve({ filter: /\.wasm$/ }, (a) => ({ path: a.path + wasmQuery, external: true }));
      // Lazily loaded: the CSL entry (dist/csl-*.js, beside the entry) and the bundled styles.
      b.onResolve(
        { filter: /^\.\/csl-|\/gen\/styles\// },
        (a) => a.kind === "dynamic-import" ? { path: renamed(a.path), external: true } : undefined,
      );
      b.onLoad({ filter: GLUE }, (a) => glueFromDist(a.path, wasmImported));
    },
  };
}

/** The output name of entry `e` (pkg/entry/e.js) for `runtime`: "workerd" becomes "edge". */
const outName = (e, runtime, from) => from ? e.replace(from, runtime) : e;

// esbuild bundles a class whose body names itself (`fresh() { return new X(…) }`) as
// `var X = class _X { … new _X(…) … }`, so `X.name`, what consoles and `constructor.name` show,
// would be "_X". Each such class gets its own name back when the module has run its body (its
// name is configurable; the inner binding stays as esbuild made it). (esbuild's keepNames does
// it with a call per function at import: 2-3 ms more for `import "citeflow"`.)
function withClassNames(code) {
  const named = [...code.matchAll(/\bvar (\w+) = class _(\w+)\b/g)]
    .map(([, binding, name]) => `Object.defineProperty(${binding}, "name", { value: "${name}" });`);
  return named.length === 0 ? code : `${code.trimEnd()}\n${named.join("\n")}\n`;
}

export async function bundle() {
  rmSync(out, { recursive: true, force: true });
  const files = [];
  for (const [runtime, own] of Object.entries(RUNTIMES)) {
    const options = own.from ? { ...RUNTIMES[own.from], ...own } : own;
    for (const entries of options.groups) {
      const result = await build({
        absWorkingDir: root,
        entryPoints: entries.map((e) => ({
          in: join(pkg, "entry", `${e}.js`),
          out: outName(e, runtime, options.from),
        })),
        outdir: out,
        bundle: true,
        splitting: entries.length > 1,
        format: "esm",
        platform: "neutral",
        target: "es2022",
        chunkNames: `${runtime}-[hash]`,
        legalComments: "none",
        charset: "utf8",
        metafile: true,
        // The entries run code at import; pkg/package.json's sideEffects names the bundles.
        ignoreAnnotations: true,
        // Not minified: whitespace minification took `import "citeflow"` from 11.1-11.3 to
        // 10.7-10.9 ms, but Node prints the source line of an uncaught error's throw (a whole
        // minified file), and esbuild's line limit splits `import.meta.url`, which bundlers
        // look for to emit the wasm files.
        logLevel: "warning",
        plugins: [keep(runtime, options)],
      });
      for (const file of Object.keys(result.metafile.outputs)) {
        const path = join(root, file);
        writeFileSync(path, withClassNames(readFileSync(path, "utf8")));
        files.push(file);
      }
    }
  }
  // "citeflow/ai-sdk": one file for every runtime, importing citeflow's entries by the package's
  // own name, so each runtime's export condition picks the module (and its one wasm instance).
  const aiSdk = await build({
    absWorkingDir: root,
    entryPoints: { "ai-sdk": join(pkg, "src", "ai_sdk.js") },
    outdir: out,
    bundle: true,
    format: "esm",
    platform: "neutral",
    target: "es2022",
    legalComments: "none",
    charset: "utf8",
    metafile: true,
    logLevel: "warning",
    external: ["citeflow", "citeflow/*"],
  });
  files.push(...Object.keys(aiSdk.metafile.outputs));
  return files;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const files = await bundle();
  console.log(`bundled ${files.length} files into pkg/dist/: ${files.map((f) => f.slice(9)).join(", ")}`);
}
