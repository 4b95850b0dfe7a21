#!/usr/bin/env node
// Builds the npm package in pkg/ from the crate: cargo (wasm32) → wasm-bindgen → wasm-opt,
// then checks each module against its gzip size budget in wasm-pack.toml. Each step, and why:
// docs/build.md.
//
// CITEFLOW_PLAIN_BUILD=1 builds without what depends on unstable compiler flags or rewrites the
// binaries for size: no `build-std` or unstable rustflags (so no RUSTC_BOOTSTRAP), none of
// scripts/return_slots.mjs, table_entries.mjs, short_names.mjs. The modules are larger and the
// budgets are reported, not enforced; the package behaves the same (tests/plain/run.mjs runs
// the JS suite on it). The glue patch (scripts/glue.mjs) stays: the package's trap recovery
// needs it.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { parse } from "smol-toml";
import { patchGlue } from "./glue.mjs";
import { bundle } from "./bundle.mjs";
import { writeStyleModules } from "./styles.mjs";
import { patchReturnSlots, withoutTargetFeatures } from "./return_slots.mjs";
import { withoutUncallableEntries } from "./table_entries.mjs";
import { shortenNames } from "./short_names.mjs";
import { lowMemoryInUse } from "./low_memory.mjs";

const root = fileURLToPath(new URL("..", import.meta.url));
const manifest = parse(readFileSync(join(root, "wasm-pack.toml"), "utf8"));
const target = manifest.toolchain.target;
const plain = process.env.CITEFLOW_PLAIN_BUILD === "1";
if (plain) console.log("plain build: no build-std, no unstable flags, no binary rewriters; budgets not enforced");

function run(cmd, args, env = {}) {
  console.log(`$ ${cmd} ${args.join(" ")}`);
  execFileSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });
}

// setup.sh records a linked toolchain when rustup could not add the wasm32 target itself.
const toolchainFile = join(root, "target", "wasm-toolchain");
const toolchainEnv = existsSync(toolchainFile) ? { RUSTUP_TOOLCHAIN: readFileSync(toolchainFile, "utf8").trim() } : {};

// The unstable flags (`build-std`, `-Z` rustflags) are tested with the compiler that
// rust-toolchain.toml pins; with any other, a module that uses them is built without them.
const pinned = parse(readFileSync(join(root, "rust-toolchain.toml"), "utf8")).toolchain.channel;
const compiler = execFileSync("rustc", ["--version"], {
  cwd: root,
  encoding: "utf8",
  env: { ...process.env, ...toolchainEnv },
})
  .trim();
const unstableOk = !plain && compiler.startsWith(`rustc ${pinned} `);
if (!plain && !unstableOk) {
  console.warn(`warning: ${compiler} is not the pinned Rust ${pinned}: modules are built without unstable flags`);
}

// `node scripts/build.mjs core` rebuilds only the named modules (the others stay as built).
const only = process.argv.slice(2);
const sizesFile = join(root, "pkg", "gen", "sizes.json");
const sizes = only.length && existsSync(sizesFile) ? JSON.parse(readFileSync(sizesFile, "utf8")) : {};
for (const [name, mod] of Object.entries(manifest.modules)) {
  if (only.length && !only.includes(name)) continue;
  const features = mod.features.length ? ["--features", mod.features.join(",")] : [];
  // A module may set its own opt-level (cargo keeps each variant's build cached).
  const profile = mod["opt-level"] ? { CARGO_PROFILE_RELEASE_OPT_LEVEL: mod["opt-level"] } : {};
  // And its own code generation flags: cargo's `target.<triple>.rustflags`, which cargo adds to
  // those of .cargo/config.toml (RUSTFLAGS would replace them).
  // Without the unstable flags, such a module is larger: its budget is reported, not enforced.
  const unstable = Boolean(mod.rustflags || mod["build-std"]);
  const enforced = !plain && (unstableOk || !unstable);
  const flags = mod.rustflags && unstableOk
    ? { [`CARGO_TARGET_${target.toUpperCase().replaceAll("-", "_")}_RUSTFLAGS`]: mod.rustflags.join(" ") }
    : {};
  // And its own build of the standard library (`build-std`, with `build-std-features`): cargo's
  // unstable -Zbuild-std, allowed on the stable toolchain by RUSTC_BOOTSTRAP for this build only.
  // Needs the std sources (rustup's rust-src, or the Debian toolchain's, installed by setup.sh).
  const std = mod["build-std"] && unstableOk
    ? [
      `-Zbuild-std=${mod["build-std"].join(",")}`,
      `-Zbuild-std-features=${(mod["build-std-features"] ?? []).join(",")}`,
    ]
    : [];
  run("cargo", ["build", "--lib", "--release", "--target", target, ...features, ...std], {
    ...toolchainEnv,
    ...profile,
    ...flags,
    ...(std.length ? { RUSTC_BOOTSTRAP: "1" } : {}),
  });
  const compiled = join(root, "target", target, "release", "citeflow.wasm");
  // Exports without several results: compiling them in V8 needs no wrapper per signature
  // (scripts/return_slots.mjs; measured: the streaming module's compile 3.5 -> 2.1 ms).
  const built = join(root, "target", target, "release", "citeflow.bindgen-input.wasm");
  writeFileSync(built, plain ? readFileSync(compiled) : withoutTargetFeatures(readFileSync(compiled), ["multivalue"]));
  const outDir = join(root, mod["out-dir"]);
  mkdirSync(outDir, { recursive: true });
  run("wasm-bindgen", ["--target", mod["bindgen-target"], "--out-dir", outDir, "--out-name", mod["out-name"], built]);
  const glue = join(outDir, `${mod["out-name"]}.js`);
  const patched = patchGlue(readFileSync(glue, "utf8"));
  writeFileSync(glue, plain ? patched : patchReturnSlots(patched));
  const wasm = join(outDir, `${mod["out-name"]}_bg.wasm`);
  const raw = statSync(wasm).size;
  // Table entries nothing can call (js-sys's closure shims; scripts/table_entries.mjs).
  if (!plain) {
    const { bytes: callable, replaced } = withoutUncallableEntries(readFileSync(wasm));
    if (replaced) writeFileSync(wasm, callable);
    console.log(`${name}: ${replaced} uncallable table entries pointed at one trap`);
  }
  if (mod["wasm-opt"].includes("--low-memory-unused")) {
    const why = lowMemoryInUse(readFileSync(wasm));
    if (why !== null) throw new Error(`${name}: wasm-opt's --low-memory-unused does not hold: ${why}`);
  }
  run(join(root, "node_modules", ".bin", "wasm-opt"), [...mod["wasm-opt"], wasm, "-o", wasm]);
  // Short import and export names, in the module and its glue (scripts/short_names.mjs).
  if (!plain) {
    const short = shortenNames(readFileSync(wasm), readFileSync(glue, "utf8"), mod["out-name"]);
    writeFileSync(wasm, short.bytes);
    writeFileSync(glue, short.glue);
    console.log(`${name}: ${short.imports} imports and ${short.exports} exports given short names`);
  }
  const bytes = readFileSync(wasm);
  const gzip = gzipSync(bytes, { level: 9 }).length;
  sizes[name] = { bindgenBytes: raw, bytes: bytes.length, gzipBytes: gzip, maxGzipBytes: mod["max-gzip-bytes"] };
  console.log(
    `${name}: ${raw} B after wasm-bindgen, ${bytes.length} B after wasm-opt, ${gzip} B gzip (budget ${
      mod["max-gzip-bytes"]
    } B)`,
  );
  if (gzip > mod["max-gzip-bytes"] && enforced) {
    console.error(
      `error: module ${name} is ${gzip} B gzip, over its budget of ${mod["max-gzip-bytes"]} B (wasm-pack.toml)`,
    );
    process.exit(1);
  }
}
// The CSL module's bundled styles ship beside it as small JS modules (scripts/styles.mjs).
if (!only.length || only.includes("csl")) {
  const files = writeStyleModules(root);
  console.log(`csl: ${files.length} bundled styles written to pkg/gen/styles/`);
}
writeFileSync(sizesFile, JSON.stringify(sizes, null, 2) + "\n");
// Each entry of the package as one ES module (plus the chunks a runtime's entries share).
const bundled = await bundle();
console.log(`bundle: ${bundled.length} files written to pkg/dist/`);
// The repository's LICENSE is the package's: copied, not kept twice (pkg/LICENSE is ignored by git).
copyFileSync(join(root, "LICENSE"), join(root, "pkg", "LICENSE"));
