#!/usr/bin/env bash
# Installs the web toolchains that tests/bundlers/run.mjs builds its apps with (Vite 7 and 8,
# webpack, esbuild, Rollup, Next.js), as locked in tests/bundlers/package-lock.json, into
# target/bundlers/: outside the root package, whose install stays small. Idempotent: a second
# run finds the same lock installed and skips (about 450 MB; Next.js is two thirds of it).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/locked-install.sh bundlers-setup tests/bundlers target/bundlers
