#!/usr/bin/env node
// The plain build still makes a working package: builds pkg/ with CITEFLOW_PLAIN_BUILD=1 (no
// build-std, no unstable compiler flags, no binary rewriters; docs/build.md) and runs the JS
// suite on it, so that a compiler release that breaks the size tricks costs bytes, never a
// broken build. The shipped build in pkg/gen and pkg/dist is moved aside first and put back
// afterwards, pass or fail. Run by `make test`, last.
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../..", import.meta.url));
const saved = join(root, "target", "plain-saved");
const built = ["gen", "dist"];
const run = (cmd, args, env = {}) =>
  execFileSync(cmd, args, { cwd: root, stdio: "inherit", env: { ...process.env, ...env } });

// A run stopped half-way left the shipped build aside: put it back before anything else.
const restore = () => {
  for (const dir of built) {
    if (!existsSync(join(saved, dir))) continue;
    rmSync(join(root, "pkg", dir), { recursive: true, force: true });
    renameSync(join(saved, dir), join(root, "pkg", dir));
  }
};
restore();
rmSync(saved, { recursive: true, force: true });
mkdirSync(saved, { recursive: true });
for (const dir of built) renameSync(join(root, "pkg", dir), join(saved, dir));
try {
  run("node", ["scripts/build.mjs"], { CITEFLOW_PLAIN_BUILD: "1" });
  run("node", ["--test", "tests/js/"], { CITEFLOW_PLAIN_BUILD: "1" });
  console.log("plain build: the JS suite passes");
} finally {
  restore();
  rmSync(saved, { recursive: true, force: true });
}
