//! The JS face. Internal classes used by the package's JS shim (`pkg/src/`), which builds
//! the public API on top of them; every conversion happens here, none in the core.

// Each wasm module exports only its own functions: the streaming module (built with
// `wasm-stream-module`) the engine, the transformers and the SSE decoders; the CSL module
// (`wasm-csl-module`) only CSL; the core module everything else.
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod citations;
mod convert;
#[cfg(feature = "wasm-csl-module")]
mod csl;
#[cfg(feature = "wasm-stream-module")]
mod engine;
mod errors;
#[cfg(feature = "wasm-stream-module")]
mod event_filter;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod invoker;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod packed;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod relevance;
#[cfg(feature = "wasm-stream-module")]
mod sse;
#[cfg(feature = "wasm-stream-module")]
mod transformer;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
mod transport;

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
