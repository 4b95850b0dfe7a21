//! Token usage, typed.

use serde_json::Value;

/// Token usage in one shape whichever provider reported it (the core's normalised usage,
/// see [`crate::provider::usage`]): `input_tokens` counts every input token, cached ones
/// included. A count the provider did not give is `None`, never guessed.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub total_tokens: Option<u64>,
    pub cached_input_tokens: Option<u64>,
    pub cache_write_tokens: Option<u64>,
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
