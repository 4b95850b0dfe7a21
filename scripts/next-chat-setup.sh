#!/usr/bin/env bash
# Installs the example chat app's dependencies (examples/next-chat: Next.js, React, the AI SDK),
# as locked in its package-lock.json, into target/next-chat/, where tests/examples/next-chat.mjs
# builds it: outside the root package and outside the example, which stays a clean copy for
# users. Idempotent: a second run finds the same lock installed and skips. citeflow itself is
# installed packed from pkg/ (the example's .npmrc sets install-links); the test replaces it
# with a fresh `npm pack` of pkg/ on every run.
set -euo pipefail
cd "$(dirname "$0")/.."

src=examples/next-chat
dir=target/next-chat
log() { echo "next-chat-setup: $*"; }

if [ -f $dir/node_modules/.package-lock.json ] &&
  cmp -s $src/package.json $dir/package.json && cmp -s $src/package-lock.json $dir/package-lock.json; then
  log "dependencies present"
  exit 0
fi
log "installing the example's dependencies into $dir"
mkdir -p $dir
cp $src/package.json $src/package-lock.json $src/.npmrc $dir/
(cd $dir && npm ci --no-audit --no-fund --loglevel=error)
log "done"
