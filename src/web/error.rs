//! The one error type of the web invokers.

use std::fmt;

use wasm_bindgen::JsValue;

use crate::call::CallError;
use crate::engine::EngineError;
use crate::error::TransformError;
use crate::provider::redact::Secrets;
use crate::provider::RequestError;

/// What kind of failure an [`Error`] is: the same stable codes the npm package's invokers put
/// on `error.code`, so Rust and JS code branch on the same names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A model id that is not `provider/model`, or a provider that cannot do this.
    InvalidModelId,
    /// An option or call argument out of range or missing (e.g. no `base_url` for
    /// `openai-compatible/`).
    InvalidOption,
    /// An output transformer config the core rejects.
    InvalidConfig,
    /// The provider answered with an error status (after the retries).
    ProviderError,
    /// No answer within the timeout (after the retries).
    Timeout,
    /// The connection failed (after the retries).
    NetworkError,
    /// A redirect that was not followed (another origin, a method-changing status, too many).
    RedirectRefused,
    /// An answer larger than the invoker's `max_response_bytes`.
    ResponseTooLarge,
    /// An answer or stream that is not what the provider's format says.
    InvalidProviderData,
    /// The stream broke off (connection reset, chunked encoding cut).
    StreamInterrupted,
    /// The stream ended before the provider's end marker.
    StreamTruncated,
    /// Cancelled through the call's `AbortSignal` (the signal's reason is in
    /// [`Error::abort_reason`]). The npm package rejects with the reason itself instead.
    Aborted,
    /// Any other code of the core (an SSE limit, a transformer's validation, …), by name.
    Other(&'static str),
}

impl ErrorCode {
    /// The stable name, as the npm package spells it (`"PROVIDER_ERROR"`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::InvalidModelId => "INVALID_MODEL_ID",
            Self::InvalidOption => "INVALID_OPTION",
            Self::InvalidConfig => "INVALID_CONFIG",
            Self::ProviderError => "PROVIDER_ERROR",
            Self::Timeout => "TIMEOUT",
            Self::NetworkError => "NETWORK_ERROR",
            Self::RedirectRefused => "REDIRECT_REFUSED",
            Self::ResponseTooLarge => "RESPONSE_TOO_LARGE",
            Self::InvalidProviderData => "INVALID_PROVIDER_DATA",
            Self::StreamInterrupted => "STREAM_INTERRUPTED",
            Self::StreamTruncated => "STREAM_TRUNCATED",
            Self::Aborted => "ABORTED",
            Self::Other(code) => code,
        }
    }

    /// The code named `name` (a core error's `code()`).
    pub fn from_name(name: &'static str) -> Self {
        [
            Self::InvalidModelId,
            Self::InvalidOption,
            Self::InvalidConfig,
            Self::ProviderError,
            Self::Timeout,
            Self::NetworkError,
            Self::RedirectRefused,
            Self::ResponseTooLarge,
            Self::InvalidProviderData,
            Self::StreamInterrupted,
            Self::StreamTruncated,
            Self::Aborted,
        ]
        .into_iter()
        .find(|c| c.as_str() == name)
        .unwrap_or(Self::Other(name))
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A failed call of a web invoker. Its text never contains the invoker's API key or the
/// values of its credential headers, not even in part: every string in it went through the
/// invoker's redaction (see [`crate::provider::redact`]).
///
/// ```no_run
/// use citeflow::web::{Error, ErrorCode};
///
/// fn explain(error: &Error) -> String {
///     match error.code() {
///         ErrorCode::ProviderError if error.status() == Some(401) => "check the API key".into(),
///         ErrorCode::Timeout | ErrorCode::NetworkError => "try again later".into(),
///         _ => error.to_string(),
///     }
/// }
/// ```
#[derive(Clone)]
pub struct Error {
    code: ErrorCode,
    message: String,
    provider: Option<String>,
    status: Option<u16>,
    provider_code: Option<String>,
    provider_message: Option<String>,
    retryable: bool,
    attempts: Option<u32>,
    abort_reason: Option<JsValue>,
}

impl Error {
    pub(crate) fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            provider: None,
            status: None,
            provider_code: None,
            provider_message: None,
            retryable: false,
            attempts: None,
            abort_reason: None,
        }
    }

    pub(crate) fn aborted(reason: JsValue) -> Self {
        let mut error = Self::new(ErrorCode::Aborted, "the call was aborted");
        error.abort_reason = Some(reason);
        error
    }

    /// The error a call machine ended with (already clear of the invoker's secrets).
    pub(crate) fn of_call(e: &CallError) -> Self {
        let mut error = Self::new(ErrorCode::from_name(e.code), e.message.clone());
        error.provider = Some(e.provider.clone());
        error.status = e.status;
        error.retryable = e.retryable;
        if let Some(g) = &e.gave_up {
            error.provider_code = g.provider_code.clone();
            error.provider_message = Some(g.provider_message.clone());
            error.attempts = Some(g.attempts);
        }
        error
    }

    pub(crate) fn retryable(mut self, retryable: bool) -> Self {
        self.retryable = retryable;
        self
    }

    /// The same error with every string redacted of `secrets`.
    pub(crate) fn scrub(mut self, secrets: &Secrets) -> Self {
        if secrets.is_empty() {
            return self;
        }
        let clean = |s: &mut String| *s = secrets.redact(s).into_owned();
        clean(&mut self.message);
        for field in [
            &mut self.provider,
            &mut self.provider_code,
            &mut self.provider_message,
        ]
        .into_iter()
        .flatten()
        {
            clean(field);
        }
        self
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// What happened, for people.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Who answered (`"openai"`, `"anthropic"`, `"decision-model"`, …), when a provider was
    /// involved.
    pub fn provider(&self) -> Option<&str> {
        self.provider.as_deref()
    }

    /// The HTTP status of the last answer (0: no answer), when there was an attempt.
    pub fn status(&self) -> Option<u16> {
        self.status
    }

    /// The provider's own error code or type (`"rate_limit_exceeded"`), or the transport's
    /// (`"TIMEOUT"`).
    pub fn provider_code(&self) -> Option<&str> {
        self.provider_code.as_deref()
    }

    /// The provider's own error message.
    pub fn provider_message(&self) -> Option<&str> {
        self.provider_message.as_deref()
    }

    /// Whether trying again later may succeed.
    pub fn is_retryable(&self) -> bool {
        self.retryable
    }

    /// How many attempts were made, for errors of the transport loop.
    pub fn attempts(&self) -> Option<u32> {
        self.attempts
    }

    /// The abort signal's reason, for [`ErrorCode::Aborted`].
    pub fn abort_reason(&self) -> Option<&JsValue> {
        self.abort_reason.as_ref()
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Error")
            .field("code", &self.code)
            .field("message", &self.message)
            .field("provider", &self.provider)
            .field("status", &self.status)
            .field("provider_code", &self.provider_code)
            .field("retryable", &self.retryable)
            .field("attempts", &self.attempts)
            .finish_non_exhaustive()
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.message, self.code)
    }
}

impl std::error::Error for Error {}

/// Every core error has a stable `code()`; each becomes an [`Error`] the same way.
macro_rules! errors_from {
    ($($error:ty),+ $(,)?) => {
        $(impl From<$error> for Error {
            fn from(err: $error) -> Self {
                Self::new(ErrorCode::from_name(err.code()), err.to_string())
            }
        })+
    };
}

errors_from!(RequestError, EngineError, TransformError);
