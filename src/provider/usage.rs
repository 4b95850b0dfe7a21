//! Token usage in one shape whichever provider reported it.
//!
//! OpenAI-style APIs report `{prompt_tokens, completion_tokens, total_tokens}` with cached and
//! reasoning tokens in `*_details`; Anthropic reports `{input_tokens, output_tokens}` with cache
//! reads and writes beside them (and, streamed, splits them across `message_start` and
//! `message_delta`). [`normalize`] gives `{inputTokens, outputTokens, totalTokens,
//! cachedInputTokens?, cacheWriteTokens?, reasoningTokens?, raw}`: `inputTokens` counts every
//! input token (cached ones included, as OpenAI's `prompt_tokens` does); `raw` is the provider's
//! object as sent. A count the provider did not give (or gave as anything but a whole number
//! ≥ 0) is left out rather than guessed.

use serde_json::{Map, Value};

fn count(map: &Map<String, Value>, key: &str) -> Option<u64> {
    map.get(key).and_then(Value::as_u64)
}

fn nested(map: &Map<String, Value>, key: &str, inner: &str) -> Option<u64> {
    map.get(key)
        .and_then(Value::as_object)
        .and_then(|m| count(m, inner))
}

/// The normalised usage of a provider's usage value.
pub fn normalize(raw: Value) -> Value {
    let mut out = Map::new();
    if let Value::Object(map) = &raw {
        let mut put = |key: &str, n: Option<u64>| {
            if let Some(n) = n {
                out.insert(key.to_owned(), Value::from(n));
            }
        };
        let openai = map.contains_key("prompt_tokens") || map.contains_key("completion_tokens");
        if openai {
            let input = count(map, "prompt_tokens");
            let output = count(map, "completion_tokens");
            put("inputTokens", input);
            put("outputTokens", output);
            put(
                "totalTokens",
                count(map, "total_tokens").or_else(|| input?.checked_add(output?)),
            );
            put(
                "cachedInputTokens",
                nested(map, "prompt_tokens_details", "cached_tokens"),
            );
            put(
                "reasoningTokens",
                nested(map, "completion_tokens_details", "reasoning_tokens"),
            );
        } else {
            let read = count(map, "cache_read_input_tokens");
            let write = count(map, "cache_creation_input_tokens");
            let input = count(map, "input_tokens").and_then(|n| {
                n.checked_add(read.unwrap_or(0))?
                    .checked_add(write.unwrap_or(0))
            });
            let output = count(map, "output_tokens");
            put("inputTokens", input);
            put("outputTokens", output);
            put("totalTokens", input.and_then(|i| i.checked_add(output?)));
            put("cachedInputTokens", read);
            put("cacheWriteTokens", write);
        }
    }
    out.insert("raw".into(), raw);
    Value::Object(out)
}

/// Usage reported in parts (Anthropic streams: input tokens with `message_start`, output
/// tokens with `message_delta`), reported once per change as one normalised value.
#[derive(Debug, Clone, Default)]
pub struct UsageParts {
    merged: Option<Map<String, Value>>,
    changed: bool,
}

impl UsageParts {
    /// Adds a report: the later value of each key wins. Anything but an object is ignored.
    pub fn add(&mut self, report: Value) {
        if let Value::Object(report) = report {
            let merged = self.merged.get_or_insert_with(Map::new);
            for (key, value) in report {
                merged.insert(key, value);
            }
            self.changed = true;
        }
    }

    /// The normalised usage so far, if it changed since the last call.
    pub fn take_changed(&mut self) -> Option<Value> {
        if !std::mem::take(&mut self.changed) {
            return None;
        }
        Some(normalize(Value::Object(self.merged.clone()?)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn openai_style() {
        let raw = json!({"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13,
            "prompt_tokens_details": {"cached_tokens": 2}, "completion_tokens_details": {"reasoning_tokens": 1}, "cost": 0.5});
        assert_eq!(
            normalize(raw.clone()),
            json!({"inputTokens": 9, "outputTokens": 4, "totalTokens": 13, "cachedInputTokens": 2, "reasoningTokens": 1, "raw": raw})
        );
    }

    #[test]
    fn anthropic_counts_cached_input_as_input() {
        let raw = json!({"input_tokens": 10, "output_tokens": 5, "cache_read_input_tokens": 100, "cache_creation_input_tokens": 7});
        assert_eq!(
            normalize(raw.clone()),
            json!({"inputTokens": 117, "outputTokens": 5, "totalTokens": 122, "cachedInputTokens": 100, "cacheWriteTokens": 7, "raw": raw})
        );
    }

    #[test]
    fn odd_values_are_left_out_not_guessed() {
        let raw = json!({"prompt_tokens": -1, "completion_tokens": "4", "total_tokens": 1.5});
        assert_eq!(normalize(raw.clone()), json!({"raw": raw}));
        assert_eq!(normalize(json!(3)), json!({"raw": 3}));
        let huge =
            json!({"input_tokens": u64::MAX, "cache_read_input_tokens": 1, "output_tokens": 1});
        assert_eq!(normalize(huge.clone())["inputTokens"], Value::Null);
    }
}
