//! The streaming modules' allocator: talc in place of the Rust default for wasm32 (dlmalloc).
//! Set only in the modules the npm package builds with `wasm-stream-module`, never in the
//! crate a Rust app depends on (a library must not choose its users' allocator).
//!
//! Measured on the lean streaming module (gzip, pipeline A/B): see wasm-pack.toml.

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
