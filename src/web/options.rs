//! What every web invoker is built with.

use std::fmt;

use crate::provider::transport::{
    check_limits, DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS,
};
use crate::provider::RequestError;

/// The options every invoker shares: credentials, where to send, and the transport's limits.
/// The same options, with the same defaults, as the npm package's `buildLMInvoker(modelId,
/// options)`.
///
/// ```no_run
/// use citeflow::web::Options;
///
/// let options = Options::new()
///     .base_url("http://127.0.0.1:8080/v1")
///     .api_key("sk-local")
///     .header("x-team", "docs")
///     .timeout_ms(30_000)
///     .max_retries(1);
/// // The key never shows in Debug output.
/// assert!(!format!("{options:?}").contains("sk-local"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Options {
    pub(crate) api_key: Option<String>,
    pub(crate) base_url: Option<String>,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) timeout_ms: u32,
    pub(crate) max_retries: u32,
    pub(crate) max_response_bytes: usize,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            api_key: None,
            base_url: None,
            headers: Vec::new(),
            timeout_ms: DEFAULT_TIMEOUT_MS,
            max_retries: DEFAULT_MAX_RETRIES,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
        }
    }
}

impl Options {
    /// The defaults: no key, the provider's own address, a 60 s timeout, 2 retries, answers
    /// up to 32 MiB.
    pub fn new() -> Self {
        Self::default()
    }

    /// The provider's API key (sent as `Authorization: Bearer …`, or `x-api-key` to
    /// Anthropic). Kept out of every error.
    pub fn api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// The API's base address as the providers' SDKs mean it (OpenAI-style bases end in
    /// `/v1`); required for `openai-compatible/` models.
    pub fn base_url(mut self, url: impl Into<String>) -> Self {
        self.base_url = Some(url.into());
        self
    }

    /// A header sent with every request (after the provider's own, so it may replace one).
    /// The values of credential headers (`authorization`, `x-api-key`, `cookie`, …) are kept
    /// out of errors as the key is.
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// How long each attempt may wait for an answer, in ms (a stream's answer only until it
    /// starts); 1 to 2³¹ − 1.
    pub fn timeout_ms(mut self, ms: u32) -> Self {
        self.timeout_ms = ms;
        self
    }

    /// Retries after the first attempt for retryable failures (408, 409, 429, 5xx, timeouts,
    /// network errors), with the core's backoff (or the server's `Retry-After`).
    pub fn max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// The largest whole answer read, in bytes; a larger one is a `RESPONSE_TOO_LARGE` error.
    pub fn max_response_bytes(mut self, bytes: usize) -> Self {
        self.max_response_bytes = bytes;
        self
    }

    /// Checks the limits (an invoker's constructor calls this).
    pub(crate) fn checked(self) -> Result<Self, RequestError> {
        check_limits(
            f64::from(self.timeout_ms),
            f64::from(self.max_retries),
            self.max_response_bytes as f64,
        )?;
        Ok(self)
    }
}

impl fmt::Debug for Options {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.headers.iter().map(|(n, _)| n.as_str()).collect();
        f.debug_struct("Options")
            .field("api_key", &self.api_key.as_ref().map(|_| "[redacted]"))
            .field("base_url", &self.base_url)
            .field("headers", &names)
            .field("timeout_ms", &self.timeout_ms)
            .field("max_retries", &self.max_retries)
            .field("max_response_bytes", &self.max_response_bytes)
            .finish()
    }
}
