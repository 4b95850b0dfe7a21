//! The transport's rules for the JS invokers (`pkg/src/invoker.js`): which secrets an invoker
//! keeps out of its errors and the redaction itself, which redirects may be followed, when an
//! answer is JSON, what a failed attempt means and whether to try again, the defaults and
//! limits, and which model ids speak System One. The JS side only moves bytes, waits and
//! cancels; the rules are those of [`crate::provider::transport`] and
//! [`crate::provider::redact`], which the Rust face (`web`) uses too.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::provider::redact::Secrets;
use crate::provider::transport::{self, Next, RedirectTarget};
use crate::provider::{is_system_one, ProviderFailure};

/// The secrets of an invoker (its API key, the values of its credential headers and those
/// values without their scheme), found once when it is built. `headers` is `[[name, value]]`.
#[wasm_bindgen(js_name = invokerSecrets)]
pub fn invoker_secrets(api_key: Option<String>, headers: JsValue) -> Result<Vec<String>, JsValue> {
    let headers: Vec<(String, String)> = convert::from_js(headers, "INVALID_OPTION", "headers")?;
    Ok(Secrets::new(api_key.as_deref(), &headers).into_list())
}

/// `text` with the secrets (from `invokerSecrets`), and every run of text made of their
/// 10-unit pieces, replaced by "[redacted]".
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
/// connection failed with `message`).
#[wasm_bindgen(js_name = attemptFailure)]
pub fn attempt_failure(provider: &str, timed_out: bool, timeout_ms: u32, message: &str) -> JsValue {
    convert::to_js(&if timed_out {
        transport::timed_out(provider, timeout_ms)
    } else {
        transport::network_failure(provider, message)
    })
}

/// What follows a failure (`{provider, status, code, message, retryable, retryAfterMs}` as the
/// core classified it) after attempt `attempt` (from 0): `{retryInMs}`, or `{code, message}`,
/// the error the invoker gives up with.
#[wasm_bindgen(js_name = afterFailure)]
pub fn after_failure(
    failure: JsValue,
    attempt: u32,
    max_retries: u32,
    jitter: f64,
) -> Result<JsValue, JsValue> {
    let v = convert::js_to_json(&failure, "INTERNAL", "a failure")?;
    let text = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_owned);
    let failure = ProviderFailure {
        provider: text("provider").unwrap_or_default(),
        status: v
            .get("status")
            .and_then(Value::as_u64)
            .and_then(|s| u16::try_from(s).ok())
            .ok_or_else(|| js_error("INTERNAL", "a failure without a status"))?,
        code: text("code"),
        message: text("message").unwrap_or_default(),
        retryable: v.get("retryable").and_then(Value::as_bool).unwrap_or(false),
        retry_after_ms: v.get("retryAfterMs").and_then(Value::as_u64),
    };
    Ok(convert::to_js(
        &match transport::next_step(&failure, attempt, max_retries, jitter) {
            Next::RetryAfter(ms) => json!({ "retryInMs": ms }),
            Next::GiveUp => {
                let (code, message) = transport::give_up(&failure);
                json!({ "code": code, "message": message })
            }
        },
    ))
}

/// The transport's defaults and limits, as the JS options read them.
#[wasm_bindgen(js_name = transportDefaults)]
pub fn transport_defaults() -> JsValue {
    convert::to_js(&json!({
        "timeoutMs": transport::DEFAULT_TIMEOUT_MS,
        "maxTimeoutMs": transport::MAX_TIMEOUT_MS,
        "maxRetries": transport::DEFAULT_MAX_RETRIES,
        "maxResponseBytes": transport::DEFAULT_MAX_RESPONSE_BYTES,
        "errorBodyBytes": transport::ERROR_BODY_BYTES,
        "emBatchSize": transport::DEFAULT_EM_BATCH_SIZE,
    }))
}

/// Whether a decision model id speaks System One (`typesafe/…`, `openrouter/typesafe/…`).
#[wasm_bindgen(js_name = isSystemOneModel)]
pub fn is_system_one_model(model_id: &str) -> bool {
    is_system_one(model_id)
}
