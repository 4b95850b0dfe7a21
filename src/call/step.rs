//! What a call machine asks its driver to do next.

use super::CallError;

/// The next thing to do. A step stays the same until an [`super::Outcome`] that answers it is
/// reported: asking again is free.
///
/// An attempt's timer runs from a [`Step::Send`] that starts one (`timeout_ms: Some`) through
/// the redirects it follows and the reading of its body; any other step stops it. An answer
/// whose body is not asked for (a redirect, a failure given up on) is cancelled by the driver.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Step<'a> {
    /// Send the request to `url` (POST, its headers then the invoker's own, see
    /// [`super::merge_headers`], its body; redirects not followed by the runtime) and report its head, a network failure, a
    /// timeout or an abort. `timeout_ms`: start a new attempt's timer of this length (the
    /// previous one stopped); `None`: a redirect followed under the running timer.
    Send {
        url: &'a str,
        timeout_ms: Option<u32>,
    },
    /// Read the answer's body, at most `limit` bytes, and report it as text (decoded as UTF-8,
    /// invalid bytes replaced), saying whether it ended within the limit.
    Read { limit: usize },
    /// Wait `ms` before the next attempt, then report [`super::Outcome::Waited`].
    Wait { ms: u64 },
    /// Done: the answer's body is a stream to decode (not read: the timer stops here, as it
    /// covers the wait for an answer, not a long stream).
    Stream,
    /// Done: the body just read is the answer.
    Done,
    /// Done: the call failed with this error (which holds none of the invoker's secrets).
    Failed(&'a CallError),
}

impl Step<'_> {
    /// Whether the call is over (nothing more is read from the machine).
    pub fn is_final(&self) -> bool {
        matches!(self, Self::Stream | Self::Done | Self::Failed(_))
    }
}
