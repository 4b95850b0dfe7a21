//! The error a call ends with.

use crate::provider::redact::Secrets;
use crate::provider::transport::give_up;
use crate::provider::ProviderFailure;

/// Why a call failed, with a stable `code`: `PROVIDER_ERROR`, `TIMEOUT` or `NETWORK_ERROR`
/// after the retries (its `gave_up` says more), `REDIRECT_REFUSED`, `RESPONSE_TOO_LARGE` or
/// `INVALID_PROVIDER_DATA` (a stream answered without a body) for an answer refused at once, `ABORTED` when the caller cancelled.
/// No string in it holds the invoker's secrets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallError {
    pub code: &'static str,
    /// For people: names the provider, and the status or cause.
    pub message: String,
    /// The provider called (`openai`, `anthropic`, `decision-model`, …).
    pub provider: String,
    /// The status of the answer that failed (0 for a timeout or a network failure), `None`
    /// for an aborted call.
    pub status: Option<u16>,
    /// Whether the failure is of a kind that is retried.
    pub retryable: bool,
    /// The last failure, after the retries were used up or not worth it.
    pub gave_up: Option<GaveUp>,
}

/// The last failure of a call that gave up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GaveUp {
    /// The provider's own error code, or the transport's (`TIMEOUT`, `NETWORK_ERROR`).
    pub provider_code: Option<String>,
    /// The provider's error message, or the network failure's cause.
    pub provider_message: String,
    /// Attempts made, the first included.
    pub attempts: u32,
}

impl CallError {
    /// An answer refused at once, never retried (`message` names the provider).
    pub(crate) fn refused(
        code: &'static str,
        provider: &str,
        status: u16,
        message: String,
    ) -> Self {
        Self {
            code,
            message,
            provider: provider.to_owned(),
            status: Some(status),
            retryable: false,
            gave_up: None,
        }
    }

    /// Giving up after `failure`, the last of `attempts` ([`give_up`]'s code and message).
    pub(crate) fn gave_up(failure: ProviderFailure, attempts: u32) -> Self {
        let (code, message) = give_up(&failure);
        Self {
            code,
            message,
            provider: failure.provider,
            status: Some(failure.status),
            retryable: failure.retryable,
            gave_up: Some(GaveUp {
                provider_code: failure.code,
                provider_message: failure.message,
                attempts,
            }),
        }
    }

    pub(crate) fn aborted(provider: &str) -> Self {
        Self {
            code: "ABORTED",
            message: "the call was aborted".to_owned(),
            provider: provider.to_owned(),
            status: None,
            retryable: false,
            gave_up: None,
        }
    }

    /// The same error with every string redacted of `secrets`.
    pub(crate) fn scrubbed(mut self, secrets: &Secrets) -> Self {
        if secrets.is_empty() {
            return self;
        }
        let (message, code) = match &mut self.gave_up {
            Some(g) => (Some(&mut g.provider_message), g.provider_code.as_mut()),
            None => (None, None),
        };
        for text in [
            Some(&mut self.message),
            Some(&mut self.provider),
            message,
            code,
        ]
        .into_iter()
        .flatten()
        {
            if let std::borrow::Cow::Owned(redacted) = secrets.redact(text) {
                *text = redacted;
            }
        }
        self
    }
}
