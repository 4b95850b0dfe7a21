//! The allocator of the streaming and CSL modules: talc in place of the Rust default for
//! wasm32 (dlmalloc). Set only in the modules the npm package builds (`wasm-stream-module`,
//! `wasm-csl-module`), never in the crate a Rust app depends on, nor in the core module, which
//! is that crate's plain wasm32 build (a library must not choose its users' allocator).
//!
//! Measured (wasm-pack.toml has the figures): 2.2-4.9 KB gzip smaller modules; the pipeline
//! within 1-2% (A/B); CSL's bulk rendering 4% slower and its first render in a fresh process
//! 25% faster.

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
