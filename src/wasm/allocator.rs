//! The allocator of the npm package's wasm modules: talc in place of the Rust default for
//! wasm32 (dlmalloc). Set by the build-only `wasm-allocator` feature (the modules' builds in
//! wasm-pack.toml), never for a Rust app depending on the crate: a library must not choose its
//! users' allocator.
//!
//! Why: against dlmalloc, each module 2.2-4.9 KB gzip smaller; the
//! pipeline within 1-2% (A/B); the policy check of a 1 MB answer 18-22% faster; CSL's bulk
//! rendering 4% slower and its first render in a fresh process 25% faster.

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();
