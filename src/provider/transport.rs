//! The rules of an invoker's transport loop, whatever moves the bytes (the npm package's
//! `fetch` shim, or the `web` module in Rust): the defaults and limits, which redirects may be
//! followed, when an answer is read as JSON, what a failed transport attempt means, and the
//! error an invoker gives up with. The loop itself (send, wait, cancel) lives at the edge.

use super::redact::{url_credentials, url_without_credentials};
use super::{retry_delay_ms, ProviderFailure, RequestError};

/// How long an attempt may wait for an answer (not for the rest of a stream).
pub const DEFAULT_TIMEOUT_MS: u32 = 60_000;
/// `setTimeout`'s longest delay (a signed 32-bit count of ms): past it, runtimes fire at once.
pub const MAX_TIMEOUT_MS: u32 = i32::MAX as u32;
/// Retries after the first attempt, for retryable failures.
pub const DEFAULT_MAX_RETRIES: u32 = 2;
/// The largest answer read, in bytes as decoded (after gzip); a stream is bounded per event.
pub const DEFAULT_MAX_RESPONSE_BYTES: usize = 32 * 1024 * 1024;
/// How much of an error answer is read: more than any provider's error JSON.
pub const ERROR_BODY_BYTES: usize = 64 * 1024;
/// Same-origin 307/308 redirects followed per request.
pub const MAX_REDIRECTS: u32 = 5;
/// Texts per embeddings request.
pub const DEFAULT_EM_BATCH_SIZE: usize = 100;

/// The largest whole number a JS number holds exactly (2^53 - 1).
const MAX_WHOLE: f64 = 9_007_199_254_740_991.0;

/// Checks the transport's limits as a caller gives them (a JS number, or a Rust integer
/// widened): `timeoutMs` above 0 and at most [`MAX_TIMEOUT_MS`] (not necessarily whole),
/// `maxRetries` a whole number ≥ 0, `maxResponseBytes` a whole number ≥ 1.
pub fn check_limits(
    timeout_ms: f64,
    max_retries: f64,
    max_response_bytes: f64,
) -> Result<(), RequestError> {
    if !(timeout_ms > 0.0 && timeout_ms <= f64::from(MAX_TIMEOUT_MS)) {
        return Err(RequestError::InvalidOption {
            option: "timeoutMs",
            reason: format!(
                "must be a number of milliseconds above 0 and at most {MAX_TIMEOUT_MS} (setTimeout's range); got {timeout_ms}"
            ),
        });
    }
    check_whole("maxRetries", max_retries, 0)?;
    check_whole("maxResponseBytes", max_response_bytes, 1)
}

/// Checks a count (a size limit, a batch size, retries): a whole number ≥ `least`.
pub fn check_whole(option: &'static str, n: f64, least: u32) -> Result<(), RequestError> {
    if n.fract() == 0.0 && n >= f64::from(least) && n <= MAX_WHOLE {
        return Ok(());
    }
    Err(RequestError::InvalidOption {
        option,
        reason: format!("must be a whole number ≥ {least}; got {n}"),
    })
}

/// [`check_whole`] for a size or batch size given as an integer: at least 1.
pub fn check_at_least_one(option: &'static str, n: usize) -> Result<usize, RequestError> {
    check_whole(option, n as f64, 1).map(|()| n)
}

/// Whether a status is a redirect (which is never followed by the runtime: see
/// [`redirect_refusal`]).
pub fn is_redirect(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Where a redirect leads, as the edge resolved it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RedirectTarget {
    /// The runtime hid it (a browser's opaque redirect), or it named none.
    Hidden,
    /// Another origin: it must not receive the credentials.
    OtherOrigin,
    SameOrigin,
}

/// Why a redirect is not followed, or `None` when it may be (a same-origin 307 or 308, keeping
/// method, body and headers, at most [`MAX_REDIRECTS`] times). `origin` names the other
/// origin in the message.
pub fn redirect_refusal(
    status: u16,
    target: RedirectTarget,
    origin: &str,
    hops: u32,
) -> Option<String> {
    match target {
        RedirectTarget::Hidden => Some("its target is missing or hidden by the runtime (browsers hide it): give the final address as baseUrl".into()),
        RedirectTarget::OtherOrigin => Some(format!(
            "it points to another origin ({origin}), which must not receive the credentials"
        )),
        RedirectTarget::SameOrigin if status != 307 && status != 308 => {
            Some(format!("a {status} would turn the POST into a GET"))
        }
        RedirectTarget::SameOrigin if hops >= MAX_REDIRECTS => {
            Some(format!("more than {MAX_REDIRECTS} redirects"))
        }
        RedirectTarget::SameOrigin => None,
    }
}

/// Whether a content type is JSON (`application/json`, `…+json`, any case: the word `json`
/// between ASCII non-word characters): a stream request answered with JSON is read whole
/// first, to find an error in it.
pub fn is_json_content_type(content_type: &str) -> bool {
    content_type
        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .any(|word| word.eq_ignore_ascii_case("json"))
}

/// An attempt that got no answer in time.
pub fn timed_out(provider: &str, timeout_ms: u32) -> ProviderFailure {
    transport_failure(
        provider,
        "TIMEOUT",
        format!("no answer within {timeout_ms} ms"),
    )
}

/// An attempt whose connection to `url` failed, for the reason `cause` (see
/// [`network_cause`]). The message names the URL without its credentials
/// ([`url_without_credentials`]), and the cause is cleared of them too ([`url_credentials`]);
/// the caller still redacts the invoker's secrets from it.
pub fn network_failure(provider: &str, url: &str, cause: &str) -> ProviderFailure {
    // The cause may quote the URL as written (a runtime refusing one with credentials does).
    let cause = url_credentials(url).redact(cause).into_owned();
    transport_failure(
        provider,
        "NETWORK_ERROR",
        format!("could not reach {}: {cause}", url_without_credentials(url)),
    )
}

/// Why a fetch failed, from what the runtime's error says: its message, and its `cause`'s
/// `code` and `message` where it has one (Node's `fetch` rejects with "fetch failed" and the
/// socket's error as the cause, `ECONNREFUSED`; browsers give no cause). A part already said
/// by another is not said twice.
pub fn network_cause(
    message: &str,
    cause_code: Option<&str>,
    cause_message: Option<&str>,
) -> String {
    let code = cause_code.unwrap_or_default();
    let detail = cause_message.unwrap_or_default();
    // The cause in one part: its message, led by its code unless the message says it.
    let cause = if code.is_empty() || holds(detail, code) {
        detail.to_owned()
    } else if detail.is_empty() {
        code.to_owned()
    } else {
        format!("{code}: {detail}")
    };
    match (message.is_empty(), cause.is_empty()) {
        (true, true) => "the request failed without a reason".to_owned(),
        (true, false) => cause,
        (false, true) => message.to_owned(),
        (false, false) if holds(message, &cause) => message.to_owned(),
        (false, false) => format!("{message} ({cause})"),
    }
}

/// Whether `text` holds `part` (bytes compared: no substring searcher in the core module).
fn holds(text: &str, part: &str) -> bool {
    part.is_empty()
        || text
            .as_bytes()
            .windows(part.len())
            .any(|w| w == part.as_bytes())
}

fn transport_failure(provider: &str, code: &str, message: String) -> ProviderFailure {
    ProviderFailure {
        provider: provider.to_owned(),
        status: 0,
        code: Some(code.to_owned()),
        message,
        retryable: true,
        retry_after_ms: None,
    }
}

/// What to do after a failed attempt (`attempt` counts from 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Next {
    /// Wait this many ms, then try again.
    RetryAfter(u64),
    GiveUp,
}

/// Retry a retryable failure while attempts are left, after the core's delay (`jitter` in
/// [0, 1) from the edge's random source).
pub fn next_step(failure: &ProviderFailure, attempt: u32, max_retries: u32, jitter: f64) -> Next {
    if failure.retryable && attempt < max_retries {
        Next::RetryAfter(retry_delay_ms(attempt, failure.retry_after_ms, jitter))
    } else {
        Next::GiveUp
    }
}

/// The stable code and message an invoker gives up with: the transport's own code for a
/// failure without an answer (status 0), else `PROVIDER_ERROR` with the status.
pub fn give_up(failure: &ProviderFailure) -> (&'static str, String) {
    if failure.status == 0 {
        let code = match failure.code.as_deref() {
            Some("TIMEOUT") => "TIMEOUT",
            _ => "NETWORK_ERROR",
        };
        (code, format!("{} {}", failure.provider, failure.message))
    } else {
        (
            "PROVIDER_ERROR",
            format!(
                "{} answered {}: {}",
                failure.provider, failure.status, failure.message
            ),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::provider::classify_failure;

    #[test]
    fn redirects() {
        use RedirectTarget::*;
        assert_eq!(redirect_refusal(307, SameOrigin, "", 0), None);
        assert_eq!(redirect_refusal(308, SameOrigin, "", 4), None);
        assert!(redirect_refusal(308, SameOrigin, "", 5)
            .unwrap()
            .contains("more than 5"));
        assert!(redirect_refusal(302, SameOrigin, "", 0)
            .unwrap()
            .contains("GET"));
        assert!(redirect_refusal(307, OtherOrigin, "https://evil.test", 0)
            .unwrap()
            .contains("https://evil.test"));
        assert!(redirect_refusal(0, Hidden, "", 0)
            .unwrap()
            .contains("baseUrl"));
        assert!([301, 302, 303, 307, 308].into_iter().all(is_redirect));
        assert!(!is_redirect(200) && !is_redirect(304));
    }

    #[test]
    fn json_content_types() {
        for yes in [
            "application/json",
            "application/problem+json; charset=utf-8",
            "APPLICATION/JSON",
        ] {
            assert!(is_json_content_type(yes), "{yes}");
        }
        for no in ["text/event-stream", "application/jsonl", "", "text/plain"] {
            assert!(!is_json_content_type(no), "{no}");
        }
    }

    #[test]
    fn retries_and_giving_up() {
        let busy = classify_failure("openai", 503, "down", None);
        assert!(matches!(next_step(&busy, 0, 2, 0.0), Next::RetryAfter(250)));
        assert_eq!(next_step(&busy, 2, 2, 0.0), Next::GiveUp);
        let bad = classify_failure("openai", 400, r#"{"error":{"message":"no"}}"#, None);
        assert_eq!(next_step(&bad, 0, 2, 0.0), Next::GiveUp);
        assert_eq!(
            give_up(&bad),
            ("PROVIDER_ERROR", "openai answered 400: no".to_owned())
        );
        let slow = timed_out("anthropic", 10);
        assert!(slow.retryable);
        assert_eq!(
            give_up(&slow),
            ("TIMEOUT", "anthropic no answer within 10 ms".to_owned())
        );
        let failed = network_failure("x", "https://u:p@h.test/v1?key=k1&alt=sse", "reset");
        assert_eq!(
            give_up(&failed),
            (
                "NETWORK_ERROR",
                "x could not reach https://h.test/v1?key=[redacted]&alt=sse: reset".to_owned()
            )
        );
        assert!(failed.retryable);
    }

    #[test]
    fn network_causes() {
        let refused = "connect ECONNREFUSED 127.0.0.1:9";
        let cases = [
            // Node's fetch: a TypeError and the socket's error.
            (
                ("fetch failed", Some("ECONNREFUSED"), Some(refused)),
                format!("fetch failed ({refused})"),
            ),
            // Node's AggregateError (every address refused): a code, no message.
            (
                ("fetch failed", Some("ECONNREFUSED"), Some("")),
                "fetch failed (ECONNREFUSED)".to_owned(),
            ),
            (
                (
                    "fetch failed",
                    Some("ENOTFOUND"),
                    Some("getaddrinfo failed"),
                ),
                "fetch failed (ENOTFOUND: getaddrinfo failed)".to_owned(),
            ),
            (
                ("fetch failed", None, Some("other side closed")),
                "fetch failed (other side closed)".to_owned(),
            ),
            // A browser's: the message alone.
            (
                ("Failed to fetch", None, None),
                "Failed to fetch".to_owned(),
            ),
            (
                (
                    "NetworkError when attempting to fetch resource.",
                    None,
                    None,
                ),
                "NetworkError when attempting to fetch resource.".to_owned(),
            ),
            (("", Some("ECONNRESET"), None), "ECONNRESET".to_owned()),
            (
                ("", None, None),
                "the request failed without a reason".to_owned(),
            ),
            (
                (refused, Some("ECONNREFUSED"), Some(refused)),
                refused.to_owned(),
            ),
        ];
        for ((message, code, cause), said) in cases {
            assert_eq!(network_cause(message, code, cause), said, "{message}");
        }
    }

    #[test]
    fn option_checks() {
        let max = f64::from(MAX_TIMEOUT_MS);
        assert!(check_limits(0.0, 0.0, 1.0).is_err());
        assert!(check_limits(max, 0.0, 1.0).is_ok());
        assert!(check_limits(max + 1.0, 0.0, 1.0).is_err());
        assert!(check_limits(f64::NAN, 0.0, 1.0).is_err());
        assert!(
            check_limits(0.5, 0.0, 1.0).is_ok(),
            "a timeout need not be whole"
        );
        for (retries, bytes) in [
            (-1.0, 1.0),
            (1.5, 1.0),
            (0.0, 0.0),
            (0.0, 2.5),
            (0.0, 2f64.powi(53)),
        ] {
            let e = check_limits(10.0, retries, bytes).unwrap_err();
            assert_eq!(e.code(), "INVALID_OPTION", "{retries} {bytes}");
        }
        assert_eq!(
            check_limits(10.0, 1.5, 1.0).unwrap_err().to_string(),
            "invalid option `maxRetries`: must be a whole number ≥ 0; got 1.5"
        );
        assert_eq!(
            check_at_least_one("batchSize", 0).unwrap_err().code(),
            "INVALID_OPTION"
        );
    }
}
