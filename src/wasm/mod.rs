//! The JS face. Internal classes used by the package's JS shim (`pkg/src/`), which builds
//! the public API on top of them; every conversion happens here, none in the core.

// Each wasm module exports only its own functions: the core module everything but CSL,
// the CSL module (built with `wasm-csl-module`) only CSL.
#[cfg(not(feature = "wasm-csl-module"))]
mod citations;
mod convert;
#[cfg(feature = "wasm-csl-module")]
mod csl;
#[cfg(not(feature = "wasm-csl-module"))]
mod engine;
mod errors;
#[cfg(not(feature = "wasm-csl-module"))]
mod event_filter;
#[cfg(not(feature = "wasm-csl-module"))]
mod invoker;
#[cfg(not(feature = "wasm-csl-module"))]
mod relevance;
#[cfg(not(feature = "wasm-csl-module"))]
mod sse;
#[cfg(not(feature = "wasm-csl-module"))]
mod transformer;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Traps on purpose (a wasm `unreachable`), as a bug would: the package's tests use it to
/// check that a broken instance is replaced (`pkg/src/instance.js`). Not part of the API.
#[wasm_bindgen(js_name = "__citeflowTrap")]
pub fn trap() {
    core::arch::wasm32::unreachable()
}
