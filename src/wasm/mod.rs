//! The JS face. Internal classes used by the package's JS shim (`pkg/src/`), which builds
//! the public API on top of them; every conversion happens here, none in the core.

// Each wasm module exports only its own functions: the streaming module (built with
// `wasm-stream-module`) the engine, the transformers and the SSE decoders; the CSL module
// (`wasm-csl-module`) only CSL; the core module everything else.
#[cfg(feature = "wasm-allocator")]
mod allocator;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod call;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod citations;
mod convert;
#[cfg(feature = "wasm-csl-module")]
mod csl;
#[cfg(feature = "wasm-stream-module")]
mod engine;
mod errors;
#[cfg(all(feature = "wasm-stream-module", not(feature = "lean-stream")))]
mod grounding;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod invoker;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod packed;
mod panic_note;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod relevance;
#[cfg(feature = "wasm-stream-module")]
mod sse;
#[cfg(feature = "wasm-stream-module")]
mod transformer;
#[cfg(all(feature = "wasm-stream-module", not(feature = "lean-stream")))]
mod transformer_core;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod transport;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    // A module whose panics are plain traps (the lean streaming module, see wasm-pack.toml)
    // never runs a hook: its note stays empty, and the JS face names the export that trapped.
    #[cfg(not(panic = "immediate-abort"))]
    panic_note::install();
}

/// Panics on purpose, as a bug would (the panic hook notes the message, then the module
/// traps): the package's tests use it to check that a broken instance is replaced and the
/// error names the panic (`pkg/src/instance.js`). Not part of the API.
#[wasm_bindgen(js_name = "__citeflowTrap")]
#[allow(clippy::panic)] // a panic is what this export is for
pub fn trap() {
    panic!("a panic forced by the package's tests")
}
