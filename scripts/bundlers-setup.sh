#!/usr/bin/env bash
# Installs the web toolchains that tests/bundlers/run.mjs builds its apps with (Vite 7 and 8,
# webpack, esbuild, Rollup, Next.js), as locked in tests/bundlers/package-lock.json, into
# target/bundlers/: outside the root package, whose install stays small. Idempotent: a second
# run finds the same lock installed and skips (about 450 MB; Next.js is two thirds of it).
set -euo pipefail
cd "$(dirname "$0")/.."

src=tests/bundlers
dir=target/bundlers
log() { echo "bundlers-setup: $*"; }

if [ -f $dir/node_modules/.package-lock.json ] &&
  cmp -s $src/package.json $dir/package.json && cmp -s $src/package-lock.json $dir/package-lock.json; then
  log "toolchains present"
  exit 0
fi
log "installing the toolchains into $dir"
mkdir -p $dir
cp $src/package.json $src/package-lock.json $dir/
(cd $dir && npm ci --no-audit --no-fund --loglevel=error)
log "done"
