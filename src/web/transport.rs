//! The driver every web invoker shares: one request through the core's call machine
//! ([`crate::call`]), which holds every rule (redirects, limits, retries, what a failure means,
//! the error given up with); this file only fetches, reads bodies, runs the attempt's timer,
//! waits and cancels, as the npm package's driver (`pkg/src/call.js`) does.

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
use crate::call::{merge_headers, CallMachine, CallSettings, Head, Outcome, Step, Target};
use crate::provider::redact::Secrets;
use crate::provider::{HttpRequest, RequestError};

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
    /// the retries are used up: what the call machine says, done.
    pub(crate) async fn send(
        &self,
        http: &HttpRequest,
        provider: &str,
        signal: Option<&AbortSignal>,
        stream: bool,
    ) -> Result<Answer, Error> {
        let settings = CallSettings {
            timeout_ms: self.options.timeout_ms,
            max_retries: self.options.max_retries,
            max_response_bytes: self.options.max_response_bytes,
            stream,
            secrets: self.secrets.clone(),
        };
        let mut call = CallMachine::new(provider, &http.url, settings, js_sys::Math::random);
        let mut attempt: Option<Attempt> = None;
        let mut answer: Option<Response> = None;
        let mut text = String::new();
        loop {
            check_aborted(signal)?;
            let step = Next::of(call.next());
            if !matches!(step, Next::Read(_) | Next::Stream) {
                if let Some(body) = answer.take().and_then(|res| res.body()) {
                    let _ = body.cancel(); // an answer not read (a redirect): let go
                }
            }
            match step {
                Next::Send(url, timeout_ms) => {
                    if let Some(ms) = timeout_ms {
                        attempt = Some(Attempt::start(signal, ms)?);
                    }
                    let Some(current) = &attempt else {
                        continue; // a redirect always follows an attempt's first send
                    };
                    match self.fetch_once(http, &url, current).await? {
                        Ok(res) => {
                            let head = HeadOf::new(&res, &url);
                            call.report(Outcome::Answered(head.head()));
                            answer = Some(res);
                        }
                        Err(thrown) => {
                            check_aborted(signal)?;
                            threw(&mut call, current, &thrown);
                        }
                    }
                }
                Next::Read(limit) => {
                    let body = answer.take().and_then(|res| res.body());
                    match read_limited(body, limit).await {
                        Ok(Limited::Whole(bytes)) => {
                            text = String::from_utf8_lossy(&bytes).into_owned();
                            call.report(Outcome::Body {
                                text: &text,
                                complete: true,
                            });
                        }
                        Ok(Limited::Cut(bytes)) => {
                            let cut = String::from_utf8_lossy(&bytes);
                            call.report(Outcome::Body {
                                text: &cut,
                                complete: false,
                            });
                        }
                        Err(thrown) => {
                            check_aborted(signal)?;
                            if let Some(current) = &attempt {
                                threw(&mut call, current, &thrown);
                            }
                        }
                    }
                }
                Next::Wait(ms) => {
                    attempt = None;
                    sleep(ms, signal).await?;
                    call.report(Outcome::Waited);
                }
                Next::Stream => {
                    // The machine saw the body (`without_body`), and the attempt that asked.
                    let body = answer.take().and_then(|res| res.body());
                    if let (Some(body), Some(mut current)) = (body, attempt.take()) {
                        current.answered();
                        return Ok(Answer::Body(body, current));
                    }
                    return Err(Error::new(
                        ErrorCode::InvalidProviderData,
                        "no body to stream",
                    ));
                }
                Next::Done => return Ok(Answer::Text(text)),
                Next::Failed(error) => return Err(error),
            }
        }
    }

    /// One fetch under `attempt`: the answer, or what the fetch threw (`Err` outside: a request
    /// that could not be built).
    async fn fetch_once(
        &self,
        http: &HttpRequest,
        url: &str,
        attempt: &Attempt,
    ) -> Result<Result<Response, JsValue>, Error> {
        let request = self.fetch_request(http, url, &attempt.controller.signal())?;
        // The runtime's own `fetch`, not `Request::send`: its error keeps the `cause` (Node
        // says there why the connection failed).
        let request: web_sys::Request = request.into();
        Ok(JsFuture::from(fetch(&request))
            .await
            .and_then(|res| res.dyn_into::<web_sys::Response>())
            .map(Response::from))
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
        for (name, value) in merge_headers(&http.headers, &self.options.headers) {
            headers.set(&name, &value).map_err(invalid)?;
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

/// The step asked for, owned (the machine is reported to while it is done).
enum Next {
    Send(String, Option<u32>),
    Read(usize),
    Wait(u64),
    Stream,
    Done,
    Failed(Error),
}

impl Next {
    fn of(step: Step<'_>) -> Self {
        match step {
            Step::Send { url, timeout_ms } => Self::Send(url.to_owned(), timeout_ms),
            Step::Read { limit } => Self::Read(limit),
            Step::Wait { ms } => Self::Wait(ms),
            Step::Stream => Self::Stream,
            Step::Done => Self::Done,
            Step::Failed(e) => Self::Failed(Error::of_call(e)),
        }
    }
}

/// An answer's head as the machine reads it: status, headers, the Location resolved.
struct HeadOf {
    status: u16,
    without_body: bool,
    opaque: bool,
    content_type: Option<String>,
    retry_after: Option<String>,
    /// The Location's address and origin, and whether that is the origin sent to.
    location: Option<(String, String, bool)>,
}

impl HeadOf {
    fn new(res: &Response, url: &str) -> Self {
        let opaque = res.type_() == ResponseType::Opaqueredirect;
        let from = absolute_url(url, None);
        let location = match (opaque, res.headers().get("location"), &from) {
            (false, Some(location), Some(from)) => absolute_url(&location, Some(&from.href())),
            _ => None,
        }
        .map(|to| {
            let same = from
                .as_ref()
                .is_some_and(|from| from.origin() == to.origin());
            (to.href(), to.origin(), same)
        });
        Self {
            status: res.status(),
            without_body: res.body().is_none(),
            opaque,
            content_type: res.headers().get("content-type"),
            retry_after: res.headers().get("retry-after"),
            location,
        }
    }

    fn head(&self) -> Head<'_> {
        Head {
            status: self.status,
            without_body: self.without_body,
            opaque_redirect: self.opaque,
            content_type: self.content_type.as_deref(),
            retry_after: self.retry_after.as_deref(),
            location: self
                .location
                .as_ref()
                .map(|(href, origin, same_origin)| Target {
                    href,
                    origin,
                    same_origin: *same_origin,
                }),
        }
    }
}

/// What a fetch or a body read that threw means: the attempt's timeout, or a network failure
/// (its message, and its `cause`'s `code` and `message`: Node says there why).
fn threw(call: &mut CallMachine, attempt: &Attempt, error: &JsValue) {
    if attempt.timed_out.get() {
        call.report(Outcome::TimedOut);
        return;
    }
    let cause = js_sys::Reflect::get(error, &JsValue::from_str("cause")).unwrap_or_default();
    let field = |name: &str| {
        if !cause.is_object() {
            return None;
        }
        js_sys::Reflect::get(&cause, &JsValue::from_str(name))
            .ok()
            .and_then(|v| v.as_string())
    };
    let (code, message) = (field("code"), field("message"));
    call.report(Outcome::NetworkFailed {
        message: &js_message(error),
        cause_code: code.as_deref(),
        cause_message: message.as_deref(),
    });
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
