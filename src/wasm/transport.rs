//! The secrets the JS invokers (`pkg/src/invoker.js`) keep out of their errors, and the
//! redaction itself ([`crate::provider::redact`], which the Rust face, `web`, uses too). Their
//! limits are read with their options (`invokerOptions`); a call's own rules (redirects,
//! retries, failures) are the call machine's (`src/wasm/call.rs`).

use wasm_bindgen::prelude::*;

use crate::provider::redact::Secrets;

/// The secrets of an invoker (its API key, the values of its credential headers and those
/// values without their scheme), found once when it is built. `headers` is a flat
/// `[name, value, …]` list.
#[wasm_bindgen(js_name = invokerSecrets)]
pub fn invoker_secrets(api_key: Option<String>, headers: Vec<String>) -> Vec<String> {
    let mut flat = headers.into_iter();
    let headers: Vec<(String, String)> =
        std::iter::from_fn(|| Some((flat.next()?, flat.next()?))).collect();
    Secrets::new(api_key.as_deref(), &headers).into_list()
}

/// `text` with the secrets (from `invokerSecrets`), and every run of text made of their
/// 10-unit pieces, replaced by "[redacted]". (A lone surrogate in `text` arrives here as
/// U+FFFD, as in every string that crosses into the core; the redacted text keeps it so.)
#[wasm_bindgen(js_name = redactSecrets)]
pub fn redact_secrets(text: &str, secrets: Vec<String>) -> String {
    Secrets::listed(secrets).redact(text).into_owned()
}
