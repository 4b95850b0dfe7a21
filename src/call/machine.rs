//! The call machine: one request, its redirects, retries, limits and failures.

use super::{CallError, CallSettings, Head, Outcome, Step};
use crate::provider::transport::{
    is_json_content_type, is_redirect, network_cause, network_failure, next_step, redirect_refusal,
    timed_out, Next, RedirectTarget, ERROR_BODY_BYTES,
};
use crate::provider::{answer_failure, classify_failure, ProviderFailure};

/// One call of a provider (see [`super`]): create it from the request and the settings, then
/// do what [`CallMachine::next`] says and [`CallMachine::report`] what happened, until the step
/// is final. It always ends: at most `max_retries + 1` attempts of at most
/// [`crate::provider::transport::MAX_REDIRECTS`] redirects each, waits of at most
/// [`crate::provider::RETRY_MAX_MS`].
pub struct CallMachine {
    provider: String,
    /// The request's address (a network failure names it).
    url: String,
    settings: CallSettings,
    /// The backoff's jitter, in [0, 1): the driver's random source.
    random: Box<dyn FnMut() -> f64>,
    /// Attempts failed so far.
    attempt: u32,
    /// Redirects followed in this attempt, and where the last one led.
    hops: u32,
    target: Option<String>,
    state: State,
}

/// What the machine waits for: the step it asked for, or the end.
#[derive(Debug)]
enum State {
    Send {
        starts_attempt: bool,
    },
    ReadAnswer {
        status: u16,
    },
    ReadError {
        status: u16,
        retry_after: Option<String>,
    },
    Wait {
        ms: u64,
    },
    Stream,
    Done,
    Failed(CallError),
}

impl CallMachine {
    /// A call of `provider` (its name, as errors say it) sending a request to `url`; `random`
    /// gives the backoff's jitter, a number in [0, 1) (`Math.random`).
    pub fn new(
        provider: &str,
        url: &str,
        settings: CallSettings,
        random: impl FnMut() -> f64 + 'static,
    ) -> Self {
        Self {
            provider: provider.to_owned(),
            url: url.to_owned(),
            settings,
            random: Box::new(random),
            attempt: 0,
            hops: 0,
            target: None,
            state: State::Send {
                starts_attempt: true,
            },
        }
    }

    /// Attempts made so far, the current one included.
    pub fn attempts(&self) -> u32 {
        self.attempt.saturating_add(1)
    }

    /// What to do now.
    pub fn next(&self) -> Step<'_> {
        match &self.state {
            State::Send { starts_attempt } => Step::Send {
                url: self.target.as_deref().unwrap_or(&self.url),
                timeout_ms: starts_attempt.then_some(self.settings.timeout_ms),
            },
            State::ReadAnswer { .. } => Step::Read {
                limit: self.settings.max_response_bytes,
            },
            State::ReadError { .. } => Step::Read {
                limit: ERROR_BODY_BYTES,
            },
            State::Wait { ms } => Step::Wait { ms: *ms },
            State::Stream => Step::Stream,
            State::Done => Step::Done,
            State::Failed(error) => Step::Failed(error),
        }
    }

    /// What happened to the step asked for. `false` when the outcome does not answer it (a
    /// body when a send was asked for, anything once the call is over): nothing changed.
    pub fn report(&mut self, outcome: Outcome<'_>) -> bool {
        use State::{ReadAnswer, ReadError, Send, Wait};
        let state = std::mem::replace(&mut self.state, State::Done);
        self.state = match (state, outcome) {
            (state @ (State::Stream | State::Done | State::Failed(_)), _) => {
                self.state = state;
                return false;
            }
            (_, Outcome::Aborted) => self.failed(CallError::aborted(&self.provider)),
            (Send { .. }, Outcome::Answered(head)) => self.answered(&head),
            (
                Send { .. } | ReadAnswer { .. } | ReadError { .. },
                Outcome::NetworkFailed {
                    message,
                    cause_code,
                    cause_message,
                },
            ) => {
                let cause = network_cause(message, cause_code, cause_message);
                let failure = network_failure(&self.provider, &self.url, &cause);
                self.attempt_failed(failure)
            }
            (Send { .. } | ReadAnswer { .. } | ReadError { .. }, Outcome::TimedOut) => {
                self.attempt_failed(timed_out(&self.provider, self.settings.timeout_ms))
            }
            (ReadAnswer { status }, Outcome::Body { text, complete }) => {
                self.answer_read(status, text, complete)
            }
            (
                ReadError {
                    status,
                    retry_after,
                },
                Outcome::Body { text, .. },
            ) => {
                // Secrets are removed before the message is cut, so no part survives at the cut.
                let body = self.settings.secrets.redact(text);
                let failure =
                    classify_failure(&self.provider, status, &body, retry_after.as_deref());
                self.attempt_failed(failure)
            }
            (Wait { .. }, Outcome::Waited) => {
                self.attempt = self.attempt.saturating_add(1);
                self.hops = 0;
                self.target = None;
                Send {
                    starts_attempt: true,
                }
            }
            // Not an answer to the step asked for: it still stands.
            (state, _) => {
                self.state = state;
                return false;
            }
        };
        true
    }

    /// An answer's head: a redirect followed or refused, a body to read, or a stream.
    fn answered(&mut self, head: &Head<'_>) -> State {
        if head.opaque_redirect || is_redirect(head.status) {
            return self.redirected(head);
        }
        if (200..300).contains(&head.status) {
            let json = head.content_type.is_some_and(is_json_content_type);
            // A stream request answered with JSON is read whole, to find an error in it.
            if self.settings.stream && !json {
                if head.without_body {
                    let provider = &self.provider;
                    let message = format!("{provider} answered a stream request without a body");
                    let error =
                        CallError::refused("INVALID_PROVIDER_DATA", provider, head.status, message);
                    return self.failed(error);
                }
                return State::Stream;
            }
            return State::ReadAnswer {
                status: head.status,
            };
        }
        State::ReadError {
            status: head.status,
            retry_after: head.retry_after.map(str::to_owned),
        }
    }

    /// Credentials must not follow a redirect to another origin: the runtime follows none,
    /// and only a same-origin 307/308 is followed here ([`redirect_refusal`]).
    fn redirected(&mut self, head: &Head<'_>) -> State {
        let status = if head.opaque_redirect { 0 } else { head.status };
        let location = head.location.filter(|_| !head.opaque_redirect);
        let (kind, origin) = match location {
            None => (RedirectTarget::Hidden, ""),
            Some(t) if t.same_origin => (RedirectTarget::SameOrigin, t.origin),
            Some(t) => (RedirectTarget::OtherOrigin, t.origin),
        };
        match (redirect_refusal(status, kind, origin, self.hops), location) {
            (None, Some(target)) => {
                self.hops = self.hops.saturating_add(1);
                self.target = Some(target.href.to_owned());
                State::Send {
                    starts_attempt: false,
                }
            }
            (why, _) => {
                let provider = &self.provider;
                let why = why.unwrap_or_default();
                let message =
                    format!("{provider} answered with a redirect that was not followed: {why}");
                self.failed(CallError::refused(
                    "REDIRECT_REFUSED",
                    provider,
                    status,
                    message,
                ))
            }
        }
    }

    /// A success answer read: too large, an error sent with a success status, or the answer.
    fn answer_read(&mut self, status: u16, text: &str, complete: bool) -> State {
        if !complete {
            let (provider, limit) = (&self.provider, self.settings.max_response_bytes);
            let message = format!(
                "{provider} sent an answer larger than {limit} bytes (maxResponseBytes); it was not read"
            );
            let error = CallError::refused("RESPONSE_TOO_LARGE", provider, status, message);
            return self.failed(error);
        }
        match answer_failure(&self.provider, status, text) {
            Some(failure) => self.attempt_failed(failure),
            None => State::Done,
        }
    }

    /// A failed attempt: another after a wait, or the end ([`next_step`]).
    fn attempt_failed(&mut self, failure: ProviderFailure) -> State {
        let jitter = (self.random)();
        match next_step(&failure, self.attempt, self.settings.max_retries, jitter) {
            Next::RetryAfter(ms) => State::Wait { ms },
            Next::GiveUp => self.failed(CallError::gave_up(failure, self.attempts())),
        }
    }

    fn failed(&self, error: CallError) -> State {
        State::Failed(error.scrubbed(&self.settings.secrets))
    }
}

impl std::fmt::Debug for CallMachine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CallMachine")
            .field("provider", &self.provider)
            .field("attempt", &self.attempt)
            .field("hops", &self.hops)
            .field("state", &self.state)
            .finish_non_exhaustive()
    }
}
