//! The call machine ([`crate::call`]) for the JS invokers' driver (`pkg/src/call.js`), which
//! only fetches, reads bodies, runs timers and cancels.

use wasm_bindgen::prelude::*;

use super::errors::{js_error, set};
use crate::call::{CallError, CallMachine, CallSettings, Head, Outcome, Step, Target};
use crate::provider::redact::Secrets;

/// One call: `new CallMachine(provider, url, timeoutMs, maxRetries, maxResponseBytes, stream,
/// secrets)`, the limits as `invokerOptions` read them, `secrets` from `invokerSecrets`. The
/// backoff's jitter is `Math.random()`.
#[wasm_bindgen(js_name = CallMachine)]
pub struct CallHandle(CallMachine);

#[wasm_bindgen(js_class = CallMachine)]
impl CallHandle {
    #[wasm_bindgen(constructor)]
    #[allow(clippy::too_many_arguments)] // one per setting, as the JS face holds them
    pub fn new(
        provider: &str,
        url: &str,
        timeout_ms: f64,
        max_retries: f64,
        max_response_bytes: f64,
        stream: bool,
        secrets: Vec<String>,
    ) -> Self {
        // Checked numbers: a fraction of a ms is waited rounded up; past u32 or usize, as good
        // as endless.
        let settings = CallSettings {
            timeout_ms: timeout_ms.ceil() as u32,
            max_retries: max_retries as u32,
            max_response_bytes: max_response_bytes as usize,
            stream,
            secrets: Secrets::listed(secrets),
        };
        Self(CallMachine::new(
            provider,
            url,
            settings,
            js_sys::Math::random,
        ))
    }

    /// What to do now, `[step, …]`: `["send", url, timeoutMs]` (`timeoutMs` undefined: a
    /// redirect followed under the running timer), `["read", , limit]`, `["wait", , ms]`,
    /// `["stream"]`, `["done"]` or `["failed", error]` (a CiteflowError with the call's fields:
    /// `provider`, `status`, `retryable`; after retries `providerCode`, `providerMessage`,
    /// `attempts`).
    pub fn next(&self) -> js_sys::Array {
        let number = |n: f64| JsValue::from_f64(n);
        let (step, value, amount) = match self.0.next() {
            Step::Send { url, timeout_ms } => (
                "send",
                JsValue::from_str(url),
                timeout_ms.map_or(JsValue::UNDEFINED, |ms| number(f64::from(ms))),
            ),
            Step::Read { limit } => ("read", JsValue::UNDEFINED, number(limit as f64)),
            Step::Wait { ms } => ("wait", JsValue::UNDEFINED, number(ms as f64)),
            Step::Stream => ("stream", JsValue::UNDEFINED, JsValue::UNDEFINED),
            Step::Done => ("done", JsValue::UNDEFINED, JsValue::UNDEFINED),
            Step::Failed(e) => ("failed", error_of(e), JsValue::UNDEFINED),
        };
        js_sys::Array::of3(&JsValue::from_str(step), &value, &amount)
    }

    /// A send's answer: its status, whether it has no body stream, whether it is a hidden
    /// (opaque) redirect, its content type
    /// and Retry-After (`""`: none), and its Location resolved (`href`, `""` for none;
    /// `origin`; whether on the origin sent to).
    #[allow(clippy::too_many_arguments)] // the head's parts, as fetch gives them
    pub fn answered(
        &mut self,
        status: u16,
        without_body: bool,
        opaque_redirect: bool,
        content_type: &str,
        retry_after: &str,
        href: &str,
        origin: &str,
        same_origin: bool,
    ) -> bool {
        let given = |s: &str| !s.is_empty();
        let location = given(href).then_some(Target {
            href,
            origin,
            same_origin,
        });
        self.0.report(Outcome::Answered(Head {
            status,
            without_body,
            opaque_redirect,
            content_type: given(content_type).then_some(content_type),
            retry_after: given(retry_after).then_some(retry_after),
            location,
        }))
    }

    /// A read's body: the text, and whether it ended within the limit.
    pub fn body(&mut self, text: &str, complete: bool) -> bool {
        self.0.report(Outcome::Body { text, complete })
    }

    /// The fetch or the body read threw: its message, and its `cause`'s code and message
    /// (`""`: none).
    #[wasm_bindgen(js_name = networkFailed)]
    pub fn network_failed(&mut self, message: &str, cause_code: &str, cause_message: &str) -> bool {
        self.0.report(Outcome::NetworkFailed {
            message,
            cause_code: Some(cause_code),
            cause_message: Some(cause_message),
        })
    }

    #[wasm_bindgen(js_name = timedOut)]
    pub fn timed_out(&mut self) -> bool {
        self.0.report(Outcome::TimedOut)
    }

    pub fn waited(&mut self) -> bool {
        self.0.report(Outcome::Waited)
    }
}

fn error_of(e: &CallError) -> JsValue {
    let error = js_error(e.code, &e.message);
    set(&error, "provider", &JsValue::from_str(&e.provider));
    if let Some(status) = e.status {
        set(&error, "status", &JsValue::from(status));
    }
    if let Some(g) = &e.gave_up {
        let code = g
            .provider_code
            .as_deref()
            .map_or(JsValue::NULL, JsValue::from_str);
        set(&error, "providerCode", &code);
        set(
            &error,
            "providerMessage",
            &JsValue::from_str(&g.provider_message),
        );
        set(&error, "attempts", &JsValue::from(g.attempts));
    }
    set(&error, "retryable", &JsValue::from_bool(e.retryable));
    error
}
