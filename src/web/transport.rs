//! The fetch loop every web invoker shares: one request with its retries, backoff, timeout,
//! cancellation and same-origin redirects, as the npm package's `fetchWithRetries` does it.
//! What to send, how answers are read, what failures mean and how long to wait between
//! attempts all come from the core ([`crate::provider`]); this file only moves bytes, waits
//! and cancels.

use std::cell::Cell;
use std::rc::Rc;

use gloo_net::http::{Headers, Method, RequestBuilder, Response};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, ReadableStream, RequestRedirect, ResponseType, Url};

use super::body::{read_limited, Limited};
use super::error::{Error, ErrorCode};
use super::options::Options;
use super::timer::{check_aborted, sleep, AbortListener, Timeout};
use crate::provider::redact::Secrets;
use crate::provider::transport::{
    is_json_content_type, is_redirect, network_cause, network_failure, next_step, redirect_refusal,
    timed_out, Next, RedirectTarget, ERROR_BODY_BYTES,
};
use crate::provider::{
    answer_failure, classify_failure, HttpRequest, ProviderFailure, RequestError,
};

/// Builds a request from an invoker's API key and base URL.
pub(crate) trait Build:
    FnOnce(Option<&str>, Option<&str>) -> Result<HttpRequest, RequestError>
{
}

impl<F: FnOnce(Option<&str>, Option<&str>) -> Result<HttpRequest, RequestError>> Build for F {}

/// An invoker's options and the secrets to keep out of its errors.
#[derive(Debug, Clone)]
pub(crate) struct Transport {
    pub(crate) options: Options,
    pub(crate) secrets: Secrets,
}

/// A successful answer.
pub(crate) enum Answer {
    /// A whole answer's text.
    Text(String),
    /// A stream's body, with the attempt that keeps the caller's abort signal wired to it.
    Body(ReadableStream, Attempt),
}

/// One attempt's cancellation: the caller's signal and the timeout both abort its fetch.
/// Dropping it clears the timer and unhooks the signal.
pub(crate) struct Attempt {
    controller: AbortController,
    timed_out: Rc<Cell<bool>>,
    timer: Option<Timeout>,
    _listener: Option<AbortListener>,
}

impl Attempt {
    fn start(signal: Option<&AbortSignal>, timeout_ms: u32) -> Result<Self, Error> {
        let controller = AbortController::new()
            .map_err(|e| Error::new(ErrorCode::NetworkError, js_message(&e)))?;
        let timed_out = Rc::new(Cell::new(false));
        let timer = {
            let (controller, timed_out) = (controller.clone(), timed_out.clone());
            Timeout::new(u64::from(timeout_ms), move || {
                timed_out.set(true);
                controller.abort();
            })
        };
        // Aborted without a reason: the fetch then rejects with an AbortError (an `Error`),
        // and the caller's own reason is reported from the caller's signal.
        let listener = signal.map(|s| {
            let controller = controller.clone();
            AbortListener::new(s, move || controller.abort())
        });
        Ok(Self {
            controller,
            timed_out,
            timer: Some(timer),
            _listener: listener,
        })
    }

    /// The timeout covers the wait for an answer, not a long stream.
    fn answered(&mut self) {
        self.timer = None;
    }
}

/// What one attempt got.
enum Got {
    Text(String),
    Body(ReadableStream),
}

/// Why an attempt ended without an answer to return.
enum Failed {
    /// An answer that is refused, not retried (a redirect, an oversized answer).
    Refused(Error),
    /// A failure to classify and maybe retry.
    Failure(ProviderFailure),
    /// The fetch or a body read threw.
    Threw(JsValue),
}

impl Transport {
    /// The transport of a new invoker: the options checked, and `probe` (a request the
    /// invoker will send) built once, so a bad id or base URL fails now, not at the first call.
    pub(crate) fn checked(options: Options, probe: impl Build) -> Result<Rc<Self>, Error> {
        let options = options.checked()?;
        let secrets = Secrets::new(options.api_key.as_deref(), &options.headers);
        let transport = Self { options, secrets };
        transport.build(probe)?;
        Ok(Rc::new(transport))
    }

    /// A request built with the invoker's key and base URL; its error (which may quote the
    /// base URL) redacted.
    pub(crate) fn build(&self, build: impl Build) -> Result<HttpRequest, Error> {
        build(
            self.options.api_key.as_deref(),
            self.options.base_url.as_deref(),
        )
        .map_err(|e| Error::from(e).scrub(&self.secrets))
    }

    /// Sends `http` to `provider` until it answers, the failures are not worth retrying, or
    /// the retries are used up.
    pub(crate) async fn send(
        &self,
        http: &HttpRequest,
        provider: &str,
        signal: Option<&AbortSignal>,
        stream: bool,
    ) -> Result<Answer, Error> {
        let mut attempt = 0u32;
        loop {
            check_aborted(signal)?;
            let mut current = Attempt::start(signal, self.options.timeout_ms)?;
            let failed = match self.once(http, provider, &mut current, stream).await {
                Ok(Got::Body(body)) => return Ok(Answer::Body(body, current)),
                Ok(Got::Text(text)) => return Ok(Answer::Text(text)),
                Err(failed) => failed,
            };
            let timed_out_now = current.timed_out.get();
            drop(current);
            check_aborted(signal)?;
            let failure = match failed {
                Failed::Refused(error) => return Err(error.scrub(&self.secrets)),
                Failed::Failure(failure) => failure,
                Failed::Threw(_) if timed_out_now => timed_out(provider, self.options.timeout_ms),
                Failed::Threw(e) => network_failure(provider, &http.url, &network_cause_of(&e)),
            };
            match next_step(
                &failure,
                attempt,
                self.options.max_retries,
                js_sys::Math::random(),
            ) {
                Next::RetryAfter(ms) => sleep(ms, signal).await?,
                Next::GiveUp => {
                    return Err(
                        Error::gave_up(&failure, attempt.saturating_add(1)).scrub(&self.secrets)
                    )
                }
            }
            attempt = attempt.saturating_add(1);
        }
    }

    async fn once(
        &self,
        http: &HttpRequest,
        provider: &str,
        attempt: &mut Attempt,
        stream: bool,
    ) -> Result<Got, Failed> {
        let limit = self.options.max_response_bytes;
        let refused = |code: ErrorCode, status: u16, message: String| {
            Failed::Refused(
                Error::new(code, format!("{provider} {message}"))
                    .with_provider(provider, Some(status)),
            )
        };
        let res = self
            .fetch_following_same_origin(http, provider, attempt)
            .await?;
        let status = res.status();
        if res.ok() {
            let json = res
                .headers()
                .get("content-type")
                .is_some_and(|t| is_json_content_type(&t));
            if stream && !json {
                attempt.answered();
                return match res.body() {
                    Some(body) => Ok(Got::Body(body)),
                    None => Err(refused(
                        ErrorCode::InvalidProviderData,
                        status,
                        "answered a stream request without a body".into(),
                    )),
                };
            }
            let text = match read_limited(res.body(), limit).await.map_err(Failed::Threw)? {
                Limited::Whole(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
                Limited::Cut(_) => {
                    return Err(refused(
                        ErrorCode::ResponseTooLarge,
                        status,
                        format!("sent an answer larger than {limit} bytes (maxResponseBytes); it was not read"),
                    ))
                }
            };
            return match answer_failure(provider, status, &text) {
                Some(failure) => Err(Failed::Failure(failure)),
                None => Ok(Got::Text(text)),
            };
        }
        let body = match read_limited(res.body(), ERROR_BODY_BYTES)
            .await
            .map_err(Failed::Threw)?
        {
            Limited::Whole(bytes) | Limited::Cut(bytes) => {
                String::from_utf8_lossy(&bytes).into_owned()
            }
        };
        // Secrets are removed before the core cuts the message, so no part survives at the cut.
        let body = self.secrets.redact(&body);
        let retry_after = res.headers().get("retry-after");
        Err(Failed::Failure(classify_failure(
            provider,
            status,
            &body,
            retry_after.as_deref(),
        )))
    }

    /// One request and its redirects: none is followed by the runtime (credentials must not
    /// follow a redirect to another origin); a same-origin 307/308 is followed here, anything
    /// else is `REDIRECT_REFUSED` (the core says which).
    async fn fetch_following_same_origin(
        &self,
        http: &HttpRequest,
        provider: &str,
        attempt: &Attempt,
    ) -> Result<Response, Failed> {
        let mut url = http.url.clone();
        let mut hops = 0u32;
        loop {
            let request = self
                .fetch_request(http, &url, &attempt.controller.signal())
                .map_err(Failed::Refused)?;
            // The runtime's own `fetch`, not `Request::send`: its error keeps the `cause` (Node
            // says there why the connection failed).
            let request: web_sys::Request = request.into();
            let res: Response = JsFuture::from(fetch(&request))
                .await
                .map_err(Failed::Threw)?
                .dyn_into::<web_sys::Response>()
                .map_err(Failed::Threw)?
                .into();
            let opaque = res.type_() == ResponseType::Opaqueredirect;
            if !opaque && !is_redirect(res.status()) {
                return Ok(res);
            }
            if let Some(body) = res.body() {
                let _ = body.cancel();
            }
            let status = if opaque { 0 } else { res.status() };
            let from = absolute_url(&url, None);
            let target = match (opaque, res.headers().get("location"), &from) {
                (false, Some(location), Some(from)) => absolute_url(&location, Some(&from.href())),
                _ => None,
            };
            let (kind, origin) = match (&from, &target) {
                (Some(from), Some(to)) if from.origin() == to.origin() => {
                    (RedirectTarget::SameOrigin, to.origin())
                }
                (_, Some(to)) => (RedirectTarget::OtherOrigin, to.origin()),
                (_, None) => (RedirectTarget::Hidden, String::new()),
            };
            if let Some(why) = redirect_refusal(status, kind, &origin, hops) {
                return Err(Failed::Refused(
                    Error::new(
                        ErrorCode::RedirectRefused,
                        format!("{provider} answered with a redirect that was not followed: {why}"),
                    )
                    .with_provider(provider, Some(status)),
                ));
            }
            url = target.map(|t| t.href()).unwrap_or(url);
            hops = hops.saturating_add(1);
        }
    }

    fn fetch_request(
        &self,
        http: &HttpRequest,
        url: &str,
        signal: &AbortSignal,
    ) -> Result<gloo_net::http::Request, Error> {
        let invalid = |e: JsValue| {
            Error::new(
                ErrorCode::InvalidOption,
                format!(
                    "a request header or the URL is not valid: {}",
                    js_message(&e)
                ),
            )
            .scrub(&self.secrets)
        };
        let headers = web_sys::Headers::new().map_err(invalid)?;
        for (name, value) in http.headers.iter().chain(&self.options.headers) {
            headers.set(name, value).map_err(invalid)?;
        }
        RequestBuilder::new(url)
            .method(Method::POST)
            .headers(Headers::from_raw(headers))
            .redirect(RequestRedirect::Manual)
            .abort_signal(Some(signal))
            .body(http.body.as_str())
            .map_err(|e| invalid(JsValue::from_str(&e.to_string())))
    }
}

/// A URL made absolute against `base`, or the page's (or worker's) own address.
fn absolute_url(url: &str, base: Option<&str>) -> Option<Url> {
    let base = base.map(str::to_owned).or_else(location_href);
    match base {
        Some(base) => Url::new_with_base(url, &base).ok(),
        None => Url::new(url).ok(),
    }
}

fn location_href() -> Option<String> {
    let location = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("location")).ok()?;
    js_sys::Reflect::get(&location, &JsValue::from_str("href"))
        .ok()?
        .as_string()
}

#[wasm_bindgen]
extern "C" {
    /// The global `fetch` (a window's or a worker's, or a server runtime's).
    #[wasm_bindgen(js_name = fetch)]
    fn fetch(request: &web_sys::Request) -> js_sys::Promise;
}

/// Why a fetch failed: its message, and its `cause`'s `code` and `message` (the core says it).
fn network_cause_of(error: &JsValue) -> String {
    let cause = js_sys::Reflect::get(error, &JsValue::from_str("cause")).unwrap_or_default();
    let field = |name: &str| {
        if !cause.is_object() {
            return None;
        }
        js_sys::Reflect::get(&cause, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
    };
    network_cause(
        &js_message(error),
        field("code").as_deref(),
        field("message").as_deref(),
    )
}

/// What a thrown value says: an error's message, or the value as a string.
pub(crate) fn js_message(value: &JsValue) -> String {
    if let Some(text) = value.as_string() {
        return text;
    }
    js_sys::Reflect::get(value, &JsValue::from_str("message"))
        .ok()
        .and_then(|m| m.as_string())
        .unwrap_or_else(|| "an exception without a message".to_owned())
}
