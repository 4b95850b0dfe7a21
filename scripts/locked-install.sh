#!/usr/bin/env bash
# Installs the npm lock of a test's own package (its package.json and package-lock.json in
# SOURCE) into TARGET/node_modules, outside the root package, whose install stays small.
# Idempotent: a second run finds the same lock installed and skips.
# Usage: bash scripts/locked-install.sh NAME SOURCE TARGET [npm ci options]
set -euo pipefail
cd "$(dirname "$0")/.."

name=$1 src=$2 dir=$3
shift 3
log() { echo "$name: $*"; }

if [ -f "$dir/node_modules/.package-lock.json" ] &&
  cmp -s "$src/package.json" "$dir/package.json" && cmp -s "$src/package-lock.json" "$dir/package-lock.json"; then
  log "present"
  exit 0
fi
log "installing $src/package-lock.json into $dir"
mkdir -p "$dir"
cp "$src/package.json" "$src/package-lock.json" "$dir/"
(cd "$dir" && npm ci --no-audit --no-fund --loglevel=error "$@")
log "done"
