#!/usr/bin/env bash
# Installs the runtimes the smoke tests run the package in beside the machine's Node 20, Deno
# (an npm dev dependency) and workerd (miniflare): Bun and Node 22, from the npm packages that
# carry their Linux x64 binaries (Bun's "baseline" build, which needs no AVX2), as locked in
# tests/runtimes/package-lock.json, into target/runtimes/ (about 290 MB, 10 s). Nothing is
# downloaded but those packages (no install scripts run). Idempotent: a second run skips.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/locked-install.sh runtimes-setup tests/runtimes target/runtimes --ignore-scripts
