//! The transport's rules for the JS invokers (`pkg/src/invoker.js`): which secrets an invoker
//! keeps out of its errors and the redaction itself, which redirects may be followed, when an
//! answer is JSON, what a failed attempt means and whether to try again, the defaults and
//! limits, and which model ids speak System One. The JS side only moves bytes, waits and
//! cancels; the rules are those of [`crate::provider::transport`] and
//! [`crate::provider::redact`], which the Rust face (`web`) uses too.

use serde_json::json;
use wasm_bindgen::prelude::*;

use super::convert;
use crate::provider::redact::Secrets;
use crate::provider::transport::{self, Next, RedirectTarget};
use crate::provider::ProviderFailure;

/// The secrets of an invoker (its API key, the values of its credential headers and those
/// values without their scheme), found once when it is built. `headers` is `[[name, value]]`.
#[wasm_bindgen(js_name = invokerSecrets)]
pub fn invoker_secrets(api_key: Option<String>, headers: Vec<JsValue>) -> Vec<String> {
    // The JS face checked the pairs (strings); anything else is no header.
    let headers: Vec<(String, String)> = headers
        .iter()
        .filter_map(|pair| {
            let pair = js_sys::Array::from(pair);
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect();
    Secrets::new(api_key.as_deref(), &headers).into_list()
}

/// `text` with the secrets (from `invokerSecrets`), and every run of text made of their
/// 10-unit pieces, replaced by "[redacted]". (A lone surrogate in `text` arrives here as
/// U+FFFD, as in every string that crosses into the core; the redacted text keeps it so.)
#[wasm_bindgen(js_name = redactSecrets)]
pub fn redact_secrets(text: &str, secrets: Vec<String>) -> String {
    Secrets::listed(secrets).redact(text).into_owned()
}

#[wasm_bindgen(js_name = isRedirect)]
pub fn is_redirect(status: u16) -> bool {
    transport::is_redirect(status)
}

/// Why a redirect is not followed (a message), or `undefined` when it may be. `sameOrigin`:
/// whether the target is on the request's origin, `undefined` when the runtime hid it or the
/// answer named none; `origin` is the target's origin.
#[wasm_bindgen(js_name = redirectRefusal)]
pub fn redirect_refusal(
    status: u16,
    same_origin: Option<bool>,
    origin: &str,
    hops: u32,
) -> Option<String> {
    let target = match same_origin {
        None => RedirectTarget::Hidden,
        Some(false) => RedirectTarget::OtherOrigin,
        Some(true) => RedirectTarget::SameOrigin,
    };
    transport::redirect_refusal(status, target, origin, hops)
}

#[wasm_bindgen(js_name = isJsonContentType)]
pub fn is_json_content_type(content_type: &str) -> bool {
    transport::is_json_content_type(content_type)
}

/// The failure of an attempt that got no answer: in time (`timedOut`), or at all (the
/// request to `url` failed with `message`, and the error's `cause` its `code` and message
/// where it has one). The URL is named without its credentials.
#[wasm_bindgen(js_name = attemptFailure)]
pub fn attempt_failure(
    provider: &str,
    timed_out: bool,
    timeout_ms: f64,
    url: &str,
    message: &str,
    cause_code: Option<String>,
    cause_message: Option<String>,
) -> JsValue {
    convert::to_js(&if timed_out {
        // A checked timeout: above 0 and at most 2^31 - 1 ms (a fraction is said rounded up).
        transport::timed_out(provider, timeout_ms.ceil() as u32)
    } else {
        let cause =
            transport::network_cause(message, cause_code.as_deref(), cause_message.as_deref());
        transport::network_failure(provider, url, &cause)
    })
}

/// After attempt `attempt` (from 0) failed: the ms to wait before trying again, or
/// `undefined` to give up (see `giveUp`). `retryable` and `retryAfterMs` as the core classified
/// the failure.
#[wasm_bindgen(js_name = retryInMs)]
pub fn retry_in_ms(
    retryable: bool,
    retry_after_ms: Option<f64>,
    attempt: u32,
    max_retries: f64,
    jitter: f64,
) -> Option<f64> {
    // A checked count (whole, ≥ 0): past u32, as good as endless.
    let max_retries = max_retries.min(f64::from(u32::MAX)) as u32;
    let failure = ProviderFailure {
        provider: String::new(),
        status: 0,
        code: None,
        message: String::new(),
        retryable,
        retry_after_ms: retry_after_ms.map(|ms| ms.max(0.0) as u64),
    };
    match transport::next_step(&failure, attempt, max_retries, jitter) {
        Next::RetryAfter(ms) => Some(ms as f64),
        Next::GiveUp => None,
    }
}

/// `[code, message]`: the error an invoker gives up with after a failure (status 0: the
/// transport's own code; else `PROVIDER_ERROR` and the status).
#[wasm_bindgen(js_name = giveUp)]
pub fn give_up(provider: &str, status: u16, code: Option<String>, message: &str) -> Vec<String> {
    let failure = ProviderFailure {
        provider: provider.to_owned(),
        status,
        code,
        message: message.to_owned(),
        retryable: false,
        retry_after_ms: None,
    };
    let (code, message) = transport::give_up(&failure);
    vec![code.to_owned(), message]
}

/// Checks the transport's limits (numbers; the JS face checked their type).
#[wasm_bindgen(js_name = checkTransportLimits)]
pub fn check_transport_limits(
    timeout_ms: f64,
    max_retries: f64,
    max_response_bytes: f64,
) -> Result<(), JsValue> {
    Ok(transport::check_limits(
        timeout_ms,
        max_retries,
        max_response_bytes,
    )?)
}

/// Checks an embedding invoker's batch size (a number): a whole number ≥ 1.
#[wasm_bindgen(js_name = checkBatchSize)]
pub fn check_batch_size(batch_size: f64) -> Result<(), JsValue> {
    Ok(transport::check_whole("batchSize", batch_size, 1)?)
}

/// The transport's defaults and limits, as the JS options read them.
#[wasm_bindgen(js_name = transportDefaults)]
pub fn transport_defaults() -> JsValue {
    convert::to_js(&json!({
        "timeoutMs": transport::DEFAULT_TIMEOUT_MS,
        "maxRetries": transport::DEFAULT_MAX_RETRIES,
        "maxResponseBytes": transport::DEFAULT_MAX_RESPONSE_BYTES,
        "errorBodyBytes": transport::ERROR_BODY_BYTES,
        "emBatchSize": transport::DEFAULT_EM_BATCH_SIZE,
    }))
}
