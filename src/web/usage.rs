//! Token usage, typed.

use serde_json::Value;

/// Token usage in one shape whichever provider reported it (the core's normalised usage,
/// see [`crate::provider::usage`]): `input_tokens` counts every input token, cached ones
/// included. A count the provider did not give is `None`, never guessed.
///
/// ```no_run
/// use citeflow::web::Usage;
/// use serde_json::json;
///
/// let usage = Usage::from_normalized(&json!({"inputTokens": 12, "outputTokens": 3, "totalTokens": 15, "raw": {}}));
/// assert_eq!(usage.total_tokens, Some(15));
/// assert_eq!(usage.reasoning_tokens, None);
/// ```
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Usage {
    /// Every input token, cached ones included.
    pub input_tokens: Option<u64>,
    /// Tokens of the answer (reasoning included).
    pub output_tokens: Option<u64>,
    /// Input and output.
    pub total_tokens: Option<u64>,
    /// Input tokens read from the provider's prompt cache.
    pub cached_input_tokens: Option<u64>,
    /// Input tokens written to the provider's prompt cache (Anthropic).
    pub cache_write_tokens: Option<u64>,
    /// Output tokens spent on reasoning, when the provider says.
    pub reasoning_tokens: Option<u64>,
    /// The provider's own report, as sent (OpenRouter's cost included).
    pub raw: Value,
}

impl Usage {
    /// Reads a normalised usage value (`{inputTokens, outputTokens, …, raw}`), as the core's
    /// answers and `usage` events carry it.
    pub fn from_normalized(value: &Value) -> Self {
        let count = |key: &str| value.get(key).and_then(Value::as_u64);
        Self {
            input_tokens: count("inputTokens"),
            output_tokens: count("outputTokens"),
            total_tokens: count("totalTokens"),
            cached_input_tokens: count("cachedInputTokens"),
            cache_write_tokens: count("cacheWriteTokens"),
            reasoning_tokens: count("reasoningTokens"),
            raw: value.get("raw").cloned().unwrap_or(Value::Null),
        }
    }
}
