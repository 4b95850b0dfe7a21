#!/usr/bin/env node
// The package as a user installs it: packs pkg/ (`npm pack`, into a temporary folder) and
// checks the tarball. It holds README.md, LICENSE (the repository's, byte for byte),
// package.json, every `exports` target and every `.d.ts` file, and nothing but those and the
// files they load (the bundles' shared chunks in dist/, the CSL styles in gen/styles/): no
// sources, no entry points, no wasm-bindgen glue. Then `publint` and `attw` (Are the Types
// Wrong?) read the same tarball, and pkg/README.md's example runs against it, installed in a
// new folder. Run by `make test-js`, after the build.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const pkgDir = join(root, "pkg");
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
const bin = (name) => join(root, "node_modules", ".bin", name);
const run = (cmd, args, options = {}) =>
  execFileSync(cmd, args, { cwd: root, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"], ...options });

const dir = mkdtempSync(join(tmpdir(), "citeflow-pack-"));
try {
  const [packed] = JSON.parse(run("npm", ["pack", pkgDir, "--pack-destination", dir, "--json", "--loglevel=error"]));
  const tarball = join(dir, packed.filename);
  const files = new Set(packed.files.map((f) => f.path));

  // Every path `exports` names (each condition's target), and the types.
  const targets = new Set();
  const walk = (value) => {
    if (typeof value === "string") targets.add(value.replace(/^\.\//, ""));
    else for (const v of Object.values(value)) walk(v);
  };
  walk(manifest.exports);
  for (const field of ["main", "types", "browser"]) if (manifest[field]) walk(manifest[field]);
  const required = new Set([...targets, "README.md", "LICENSE", "package.json"]);
  for (const name of readdirSync(pkgDir)) if (name.endsWith(".d.ts")) required.add(name);
  for (const path of required) assert.ok(files.has(path), `the tarball lacks ${path}`);

  // What else may ship: the chunks the dist/ entries share and the CSL styles. Nothing else.
  const loaded = [/^dist\/[\w-]+\.js$/, /^gen\/styles\/[\w-]+\.js$/];
  const unexpected = [...files].filter((path) => !required.has(path) && !loaded.some((re) => re.test(path)));
  assert.deepEqual(unexpected, [], "files in the tarball that nothing needs");
  for (const path of files) assert.ok(!/^(src|entry)\//.test(path), `sources in the tarball: ${path}`);

  // The shipped LICENSE is the repository's (the build copies it: one source).
  const unpacked = join(dir, "unpacked");
  run("mkdir", ["-p", unpacked]);
  run("tar", ["-xzf", tarball, "-C", unpacked]);
  assert.equal(
    readFileSync(join(unpacked, "package", "LICENSE"), "utf8"),
    readFileSync(join(root, "LICENSE"), "utf8"),
    "pkg/LICENSE differs from LICENSE: run node scripts/build.mjs",
  );
  assert.match(readFileSync(join(unpacked, "package", "LICENSE"), "utf8"), /^MIT License/);
  assert.equal(manifest.license, "MIT");

  // The shipped README's example runs against the shipped package, installed in a new folder.
  const app = join(dir, "app");
  mkdirSync(join(app, "node_modules"), { recursive: true });
  renameSync(join(unpacked, "package"), join(app, "node_modules", "citeflow"));
  const example = readFileSync(join(pkgDir, "README.md"), "utf8").match(/```js\n([\s\S]*?)```/)?.[1];
  assert.ok(example, "pkg/README.md has a js example");
  writeFileSync(join(app, "example.mjs"), example);
  const printed = run(process.execPath, [join(app, "example.mjs")], { cwd: app });
  assert.match(printed, /^1 \[ 21, 24 \]$/m, "the README's example prints what it says");

  // publint: errors and warnings fail (--strict); its suggestions are printed, not failed on.
  run(bin("publint"), ["run", tarball, "--strict"], { stdio: "inherit" });
  // attw with the esm-only profile: the package is ESM-only (no CommonJS build), so the rules
  // that expect a CommonJS `require` to resolve (node10 resolution, and node16 from CJS, where
  // TypeScript sees an ES module) report that by design; this profile leaves out exactly those
  // two resolution modes and checks the rest (node16 from ESM, bundler) for every entry point.
  run(bin("attw"), [tarball, "--profile", "esm-only", "--format", "table-flipped", "--no-emoji", "--no-color"], {
    stdio: "inherit",
  });
  console.log(
    `pack: ${packed.filename}, ${files.size} files, ${packed.size} B packed; README example, publint, attw pass`,
  );
} finally {
  rmSync(dir, { recursive: true, force: true });
}
