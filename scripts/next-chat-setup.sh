#!/usr/bin/env bash
# Installs the example chat app's dependencies (examples/next-chat: Next.js, React, the AI SDK),
# as locked in its package-lock.json, into target/next-chat/, where tests/examples/next-chat.mjs
# builds it: outside the root package and outside the example, which stays a clean copy for
# users. Idempotent: a second run skips. citeflow itself is installed packed from pkg/
# (`--install-links`, as the example's .npmrc says); the test replaces it with a fresh
# `npm pack` of pkg/ on every run.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/locked-install.sh next-chat-setup examples/next-chat target/next-chat --install-links
