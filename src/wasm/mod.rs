//! The JS face. Internal classes used by the package's JS shim (`pkg/src/`), which builds
//! the public API on top of them; every conversion happens here, none in the core.

mod citations;
mod convert;
mod errors;
mod event_filter;
mod think_tag;
mod transformer;

use wasm_bindgen::prelude::*;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}
