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

use std::borrow::Cow;

use serde_json::{Map, Value};

use super::raw_json;
use crate::json_escape::write_string;
use crate::text::push_decimal;

/// An object whose counts [`Counted::of`] reads: parsed, or as its entries' text (a stream's
/// usage, read without building a tree).
trait Counts {
    fn has(&self, key: &str) -> bool;
    /// A whole number ≥ 0 (what `Value::as_u64` gives).
    fn count(&self, key: &str) -> Option<u64>;
    /// `count` of `inner` in the object under `key`.
    fn nested(&self, key: &str, inner: &str) -> Option<u64>;
}

impl Counts for Map<String, Value> {
    fn has(&self, key: &str) -> bool {
        self.contains_key(key)
    }

    fn count(&self, key: &str) -> Option<u64> {
        self.get(key).and_then(Value::as_u64)
    }

    fn nested(&self, key: &str, inner: &str) -> Option<u64> {
        self.get(key)
            .and_then(Value::as_object)
            .and_then(|m| m.count(inner))
    }
}

// Out of line: `Counted::of` asks a dozen times.
impl Counts for [(Cow<'_, str>, &str)] {
    #[inline(never)]
    fn has(&self, key: &str) -> bool {
        self.iter().any(|(k, _)| k == key)
    }

    #[inline(never)]
    fn count(&self, key: &str) -> Option<u64> {
        raw_json::get(self, key).and_then(raw_json::whole_number)
    }

    #[inline(never)]
    fn nested(&self, key: &str, inner: &str) -> Option<u64> {
        let raw = raw_json::get(self, key)?;
        raw_json::entries(raw).as_slice().count(inner)
    }
}

/// The normalised counts, each left out (`None`) when not given as a whole number.
/// Token counts in the one `TokenUsage` shape (a count not reported is `None`, never
/// guessed): what each provider's own usage report is read into.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Counted {
    /// Every input token, cached ones included.
    pub input: Option<u64>,
    pub output: Option<u64>,
    pub total: Option<u64>,
    pub cached_input: Option<u64>,
    pub cache_write: Option<u64>,
    pub reasoning: Option<u64>,
}

impl Counted {
    /// The one rule for both providers' shapes.
    fn of(map: &(impl Counts + ?Sized)) -> Self {
        if map.has("prompt_tokens") || map.has("completion_tokens") {
            let input = map.count("prompt_tokens");
            let output = map.count("completion_tokens");
            Self {
                input,
                output,
                total: map
                    .count("total_tokens")
                    .or_else(|| input?.checked_add(output?)),
                cached_input: map.nested("prompt_tokens_details", "cached_tokens"),
                reasoning: map.nested("completion_tokens_details", "reasoning_tokens"),
                cache_write: None,
            }
        } else {
            let read = map.count("cache_read_input_tokens");
            let write = map.count("cache_creation_input_tokens");
            let input = map.count("input_tokens").and_then(|n| {
                n.checked_add(read.unwrap_or(0))?
                    .checked_add(write.unwrap_or(0))
            });
            let output = map.count("output_tokens");
            Self {
                input,
                output,
                total: input.and_then(|i| i.checked_add(output?)),
                cached_input: read,
                cache_write: write,
                reasoning: None,
            }
        }
    }

    /// The normalised keys with their counts, in the normalised object's order.
    fn fields(self) -> [(&'static str, Option<u64>); 6] {
        [
            ("inputTokens", self.input),
            ("outputTokens", self.output),
            ("totalTokens", self.total),
            ("cachedInputTokens", self.cached_input),
            ("cacheWriteTokens", self.cache_write),
            ("reasoningTokens", self.reasoning),
        ]
    }
}

/// The normalised usage of a provider's usage value.
pub fn normalize(raw: Value) -> Value {
    let counted = raw.as_object().map(Counted::of).unwrap_or_default();
    counted.usage(raw)
}

impl Counted {
    /// The `usage` value: these counts, and the provider's report as sent under `raw`.
    pub(crate) fn usage(self, raw: Value) -> Value {
        let mut out = Map::new();
        for (key, n) in self.fields() {
            if let Some(n) = n {
                out.insert(key.to_owned(), Value::from(n));
            }
        }
        out.insert("raw".into(), raw);
        Value::Object(out)
    }
}

/// [`normalize`] of a usage value's JSON text, as JSON text (the value under `raw` is the text
/// as given).
pub fn normalize_text(raw: &str) -> String {
    let counted = Counted::of(raw_json::entries(raw).as_slice());
    let mut out = String::from("{");
    for (key, n) in counted.fields() {
        if let Some(n) = n {
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            push_decimal(&mut out, n);
            out.push(',');
        }
    }
    out.push_str("\"raw\":");
    out.push_str(raw);
    out.push('}');
    out
}

/// Usage reported in parts (Anthropic streams: input tokens with `message_start`, output
/// tokens with `message_delta`), reported once per change as one normalised value. The parts
/// are kept as their entries' text.
#[derive(Debug, Clone, Default)]
pub struct UsageParts {
    /// Each key once, with its latest value's text, in the order keys first came.
    merged: Option<Vec<(String, String)>>,
    changed: bool,
}

impl UsageParts {
    /// Adds a report (an object's JSON text): the later value of each key wins, in the place
    /// the key first had. Anything but an object is ignored.
    pub fn add(&mut self, report: &str) {
        if !report.trim_start().starts_with('{') {
            return;
        }
        let merged = self.merged.get_or_insert_with(Vec::new);
        for (key, value) in raw_json::entries(report) {
            match merged.iter_mut().find(|(k, _)| *k == key) {
                Some((_, slot)) => value.clone_into(slot),
                None => merged.push((key.into_owned(), value.to_owned())),
            }
        }
        self.changed = true;
    }

    /// The normalised usage so far as JSON text, if it changed since the last call.
    pub fn take_changed(&mut self) -> Option<String> {
        if !std::mem::take(&mut self.changed) {
            return None;
        }
        let mut raw = String::from("{");
        for (i, (key, value)) in self.merged.as_ref()?.iter().enumerate() {
            if i > 0 {
                raw.push(',');
            }
            write_string(key, &mut raw);
            raw.push(':');
            raw.push_str(value);
        }
        raw.push('}');
        Some(normalize_text(&raw))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn counts_are_written_as_to_string_writes_them() {
        for n in [
            0,
            7,
            10,
            99,
            1_000_000,
            u64::MAX / 10,
            u64::MAX - 1,
            u64::MAX,
        ] {
            let mut out = String::from("x");
            push_decimal(&mut out, n);
            assert_eq!(out, format!("x{n}"));
        }
    }

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

    /// The text face reads what the parsed one reads: same counts, the raw value as given.
    fn same_both_ways(raw: &str) {
        let parsed: Value = serde_json::from_str(raw).unwrap();
        let text: Value = serde_json::from_str(&normalize_text(raw)).unwrap();
        assert_eq!(text, normalize(parsed), "{raw}");
    }

    #[test]
    fn the_text_face_counts_as_the_parsed_one() {
        for raw in [
            r#"{"prompt_tokens": 9, "completion_tokens": 4, "total_tokens": 13, "prompt_tokens_details": {"cached_tokens": 2}, "completion_tokens_details": {"reasoning_tokens": 1}, "cost": 0.5}"#,
            r#"{"input_tokens":10,"output_tokens":5,"cache_read_input_tokens":100,"cache_creation_input_tokens":7}"#,
            r#"{"prompt_tokens": -1, "completion_tokens": "4", "total_tokens": 1.5}"#,
            r#"{"prompt_tokens": 1, "prompt_tokens": 2, "completion_tokens": 1e2, "prompt_tokens_details": 3}"#,
            r#"{"\u0069nput_tokens": 18446744073709551615, "cache_read_input_tokens": 1, "output_tokens": 1}"#,
            r#"{"prompt_tokens_details": {"cached_tokens": 1, "cached_tokens": 4}, "completion_tokens": 0}"#,
            r#"{"__proto__": {"x": 1}, "total_tokens": 3}"#,
            "{}",
            "3",
            "[1]",
        ] {
            same_both_ways(raw);
        }
    }

    proptest::proptest! {
        #[test]
        fn any_count_is_written_as_to_string_writes_it(n in proptest::num::u64::ANY) {
            let mut out = String::new();
            push_decimal(&mut out, n);
            proptest::prop_assert_eq!(out, n.to_string());
        }

        /// Any object of counts, nested details and odd values, keys repeated or escaped.
        #[test]
        fn any_usage_object_reads_the_same(entries in proptest::collection::vec((
            proptest::sample::select(vec!["prompt_tokens", "completion_tokens", "total_tokens",
                "input_tokens", "output_tokens", "cache_read_input_tokens",
                "cache_creation_input_tokens", "\\u0074otal_tokens", "cost"]),
            proptest::sample::select(vec!["0", "7", "-3", "2.0", "1e3", "\"5\"", "null",
                "18446744073709551615", "18446744073709551616", "{\"cached_tokens\": 3}",
                "{\"reasoning_tokens\": 2, \"reasoning_tokens\": 9}", "[4]"]),
            proptest::sample::select(vec!["", "prompt_tokens_details", "completion_tokens_details"]),
        ), 0..8)) {
            let body: Vec<String> = entries.iter().map(|(key, value, nest)| {
                let key = if nest.is_empty() { key } else { nest };
                format!("\"{key}\": {value}")
            }).collect();
            same_both_ways(&format!("{{{}}}", body.join(", ")));
        }
    }

    #[test]
    fn parts_merge_in_place_with_the_later_value() {
        let mut parts = UsageParts::default();
        assert_eq!(parts.take_changed(), None);
        parts.add("7");
        assert_eq!(parts.take_changed(), None);
        parts.add(r#"{"input_tokens": 5, "output_tokens": 1, "a\"b": [1, 2]}"#);
        parts.add(r#"{"output_tokens": 9, "\u0069nput_tokens": 6}"#);
        let got: Value = serde_json::from_str(&parts.take_changed().unwrap()).unwrap();
        let raw = json!({"input_tokens": 6, "output_tokens": 9, "a\"b": [1, 2]});
        assert_eq!(got, normalize(raw.clone()));
        assert_eq!(
            got["raw"].as_object().unwrap().keys().collect::<Vec<_>>(),
            ["input_tokens", "output_tokens", "a\"b"]
        );
        assert_eq!(parts.take_changed(), None);
        parts.add("{}");
        assert!(parts.take_changed().is_some());
    }
}
