//! A call's transport settings.

use crate::provider::redact::Secrets;
use crate::provider::transport::{
    DEFAULT_MAX_RESPONSE_BYTES, DEFAULT_MAX_RETRIES, DEFAULT_TIMEOUT_MS,
};

/// How one call is sent: the invoker's limits (checked when it was built, see
/// [`crate::provider::transport::check_limits`]) and its secrets. (The headers sent are the
/// driver's: the request's, then the invoker's own, see [`merge_headers`].)
#[derive(Debug, Clone)]
pub struct CallSettings {
    /// How long an attempt may wait for its answer, in ms.
    pub timeout_ms: u32,
    /// Retries after the first attempt, for retryable failures.
    pub max_retries: u32,
    /// The largest answer read, in bytes.
    pub max_response_bytes: usize,
    /// Whether the answer is wanted as a stream ([`super::Step::Stream`]).
    pub stream: bool,
    /// What no error may carry: the API key and the credential headers' values.
    pub secrets: Secrets,
}

impl Default for CallSettings {
    fn default() -> Self {
        Self {
            timeout_ms: DEFAULT_TIMEOUT_MS,
            max_retries: DEFAULT_MAX_RETRIES,
            max_response_bytes: DEFAULT_MAX_RESPONSE_BYTES,
            stream: false,
            secrets: Secrets::default(),
        }
    }
}

/// The headers sent: the request's, then `yours`, each name once (in lower case, as names are
/// case-blind), a later value replacing an earlier one in its place.
pub fn merge_headers(
    request: &[(String, String)],
    yours: &[(String, String)],
) -> Vec<(String, String)> {
    let mut merged: Vec<(String, String)> = Vec::new();
    for (name, value) in request.iter().chain(yours) {
        let name = name.to_ascii_lowercase();
        match merged.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1.clone_from(value),
            None => merged.push((name, value.clone())),
        }
    }
    merged
}
