//! What a failed answer means (retryable or not, the provider's code and message) and the
//! retry schedule.

use serde::Serialize;
use serde_json::Value;

/// First retry delay, doubled per attempt, and the cap.
pub const RETRY_BASE_MS: u64 = 500;
pub const RETRY_MAX_MS: u64 = 30_000;

/// What a failed HTTP answer means.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderFailure {
    /// Who answered (a provider name, or "decision-model").
    pub provider: String,
    pub status: u16,
    /// The provider's own error code or type, when it gives one.
    pub code: Option<String>,
    /// The provider's own error message (or the start of the body).
    pub message: String,
    pub retryable: bool,
    /// How long to wait before the next attempt, when retryable.
    pub retry_after_ms: Option<u64>,
}

/// How much of a non-JSON error body becomes the message, in characters.
pub const ERROR_BODY_CHARS: usize = 300;

fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// Classifies an error answer. 408, 409, 429 and 5xx are worth retrying; other 4xx are not.
/// A body that is not a JSON error is cut to [`ERROR_BODY_CHARS`]: callers remove secrets
/// from it before, so that no part of one survives at the cut.
pub fn classify_failure(
    provider: &str,
    status: u16,
    body: &str,
    retry_after: Option<&str>,
) -> ProviderFailure {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed
        .as_ref()
        .and_then(|v| v.get("error").or_else(|| google_array_error(provider, v)));
    let message = error
        .and_then(error_message)
        .or_else(|| top_level_message(provider, parsed.as_ref()))
        .unwrap_or_else(|| {
            body.chars()
                .take(ERROR_BODY_CHARS)
                .collect::<String>()
                .trim()
                .to_owned()
        });
    let code = google_status(provider, error).or_else(|| error_code(error));
    let retry_after_ms = retry_after
        .and_then(|h| h.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| (s * 1000.0) as u64);
    ProviderFailure {
        provider: provider.to_owned(),
        status,
        code,
        message,
        retryable: retryable_status(status),
        retry_after_ms,
    }
}

/// An error sent with a success status: a JSON body whose top level is `{"error": …}` and
/// carries no answer (OpenRouter and some proxies do this). `None` for anything else; the
/// body is parsed only when it mentions `"error"`. Retryable when the error's numeric code is
/// a retryable HTTP status (OpenRouter passes the upstream status there).
pub fn answer_failure(provider: &str, status: u16, body: &str) -> Option<ProviderFailure> {
    if provider == "cohere" {
        return cohere_answer_failure(status, body);
    }
    if !body.contains("\"error\"") {
        return None;
    }
    let v: Value = serde_json::from_str(body).ok()?;
    let answered = ["choices", "content", "data", "answers"]
        .iter()
        .any(|k| v.get(k).is_some_and(|x| !x.is_null()));
    let error = v.get("error").filter(|e| !e.is_null() && !answered)?;
    let code = google_status(provider, Some(error)).or_else(|| error_code(Some(error)));
    let upstream = error
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok());
    Some(ProviderFailure {
        provider: provider.to_owned(),
        status,
        code,
        message: error_message(error).unwrap_or_else(|| error.to_string()),
        retryable: upstream.is_some_and(retryable_status),
        retry_after_ms: None,
    })
}

/// Cohere's error body is `{"message": "…"}`, with no `error` object: its message.
fn top_level_message(provider: &str, body: Option<&Value>) -> Option<String> {
    if provider != "cohere" {
        return None;
    }
    body?.get("message")?.as_str().map(str::to_owned)
}

/// A Cohere error sent with a success status: `{"message": "…"}` (an answer's `message` is an
/// object, never a string).
fn cohere_answer_failure(status: u16, body: &str) -> Option<ProviderFailure> {
    if !body.contains("\"message\"") {
        return None;
    }
    let v: Value = serde_json::from_str(body).ok()?;
    let message = top_level_message("cohere", Some(&v))?;
    Some(ProviderFailure {
        provider: "cohere".to_owned(),
        status,
        code: None,
        message,
        retryable: false,
        retry_after_ms: None,
    })
}

/// `error.message`, or the error itself when it is a string.
fn error_message(error: &Value) -> Option<String> {
    error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .map(str::to_owned)
}

/// Gemini's error code: its `status` (`INVALID_ARGUMENT`, `RESOURCE_EXHAUSTED`), the name
/// its docs use, rather than its numeric `code` (the HTTP status again).
fn google_status(provider: &str, error: Option<&Value>) -> Option<String> {
    if provider != "google" {
        return None;
    }
    let status = error?.get("status")?.as_str()?;
    (!status.is_empty()).then(|| status.to_owned())
}

/// Gemini's error as the one item of an array (`[{"error": …}]`), as some of its failures
/// come.
fn google_array_error<'a>(provider: &str, body: &'a Value) -> Option<&'a Value> {
    if provider != "google" {
        return None;
    }
    body.as_array()?.first()?.get("error")
}

fn error_code(error: Option<&Value>) -> Option<String> {
    error
        .and_then(|e| {
            e.get("code")
                .filter(|c| !c.is_null())
                .or_else(|| e.get("type"))
        })
        .map(|c| {
            c.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| c.to_string())
        })
}

/// The wait before retry `attempt` (0 = first retry): the server's Retry-After when it gave
/// one (capped), else exponential backoff with jitter (`jitter` in [0, 1), from the caller's
/// random source).
pub fn retry_delay_ms(attempt: u32, retry_after_ms: Option<u64>, jitter: f64) -> u64 {
    if let Some(ms) = retry_after_ms {
        return ms.min(RETRY_MAX_MS);
    }
    let backoff = RETRY_BASE_MS
        .saturating_mul(1u64 << attempt.min(16))
        .min(RETRY_MAX_MS);
    // Full jitter between half and all of the backoff.
    (backoff as f64 * (0.5 + 0.5 * jitter.clamp(0.0, 1.0))) as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn errors_sent_with_a_success_status() {
        let f = answer_failure(
            "openrouter",
            200,
            r#"{"error":{"message":"Upstream overloaded","code":502}}"#,
        )
        .unwrap();
        assert_eq!(
            (f.status, f.code.as_deref(), f.message.as_str(), f.retryable),
            (200, Some("502"), "Upstream overloaded", true)
        );
        let f = answer_failure("openai", 200, r#"{"error":"quota"}"#).unwrap();
        assert_eq!((f.message.as_str(), f.retryable), ("quota", false));
        for fine in [
            r#"{"choices":[{"message":{"content":"the word \"error\""}}]}"#,
            r#"{"choices":[],"error":{"message":"x"}}"#,
            r#"{"error":null,"choices":[]}"#,
            "not json \"error\"",
            r#"{"id":1}"#,
        ] {
            assert_eq!(answer_failure("openai", 200, fine), None, "{fine}");
        }
    }

    #[test]
    fn cohere_errors_carry_a_top_level_message() {
        let f = classify_failure("cohere", 401, r#"{"message":"invalid api token"}"#, None);
        assert_eq!(
            (f.message.as_str(), f.code, f.retryable),
            ("invalid api token", None, false)
        );
        let f = classify_failure("cohere", 429, r#"{"message":"too many"}"#, None);
        assert!(f.retryable && f.message == "too many");
        // Other providers keep the body as it was sent.
        let f = classify_failure("openai", 400, r#"{"message":"x"}"#, None);
        assert_eq!(f.message, r#"{"message":"x"}"#);
        let f = answer_failure("cohere", 200, r#"{"message":"internal error"}"#).unwrap();
        assert_eq!((f.status, f.message.as_str()), (200, "internal error"));
        for fine in [
            r#"{"id":"a","message":{"role":"assistant","content":[]},"finish_reason":"COMPLETE"}"#,
            r#"{"id":"a"}"#,
            "not json \"message\"",
        ] {
            assert_eq!(answer_failure("cohere", 200, fine), None, "{fine}");
        }
    }

    #[test]
    fn failures_and_delays() {
        let f = classify_failure(
            "openai",
            429,
            r#"{"error":{"message":"Slow down","type":"requests","code":"rate_limit_exceeded"}}"#,
            Some("2"),
        );
        assert_eq!(
            (
                f.retryable,
                f.retry_after_ms,
                f.code.as_deref(),
                f.message.as_str()
            ),
            (true, Some(2000), Some("rate_limit_exceeded"), "Slow down")
        );
        let f = classify_failure(
            "anthropic",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
            None,
        );
        assert_eq!(
            (f.retryable, f.code.as_deref()),
            (false, Some("invalid_request_error"))
        );
        assert!(classify_failure("openai", 503, "<html>down</html>", None).retryable);
        let long = format!("{}{}", "x".repeat(290), "y".repeat(50));
        assert_eq!(
            classify_failure("openai", 500, &long, None).message.len(),
            ERROR_BODY_CHARS
        );
        assert_eq!(retry_delay_ms(0, Some(1500), 0.9), 1500);
        assert_eq!(retry_delay_ms(1, None, 0.0), 500);
        assert_eq!(retry_delay_ms(30, None, 1.0), RETRY_MAX_MS);
    }
}
