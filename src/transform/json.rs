//! [`JsonOutputTransformer`]: pulls one JSON object out of model text.

use serde_json::{Map, Value};

use super::{unique_prefix, Lifecycle, OutputTransformer};
use crate::error::Result;
use crate::event::{types, Event, LmOutput, OutputItem};

/// Takes the text from its first `{` to its last `}` and parses it strictly; returns the
/// object when that is one JSON object. Prose around it and a ```json fence are fine; two
/// objects, an array, trailing commas or single quotes are not (the text stays text).
///
/// ```
/// use citeflow::transform::extract_json_object;
/// let obj = extract_json_object("Here you go: {\"key\": \"value\"} Done.").unwrap();
/// assert_eq!(obj["key"], "value");
/// assert!(extract_json_object("{\"a\": 1} {\"b\": 2}").is_none());
/// ```
pub fn extract_json_object(text: &str) -> Option<Map<String, Value>> {
    let start = text.find('{')?;
    let end = text.rfind('}')?;
    // `None` when the last `}` comes before the first `{`. (serde_json refuses nesting
    // deeper than 128 levels with an error, so hostile text cannot exhaust the stack.)
    match serde_json::from_str::<Value>(text.get(start..=end)?) {
        Ok(Value::Object(map)) => Some(map),
        _ => None,
    }
}

/// Turns text items holding a JSON object into structured items. In a stream, events pass
/// through untouched and, when the stream ends, the answer text (`response` events only, so
/// braces inside reasoning never count) yields one `structured` event if it holds an object.
#[derive(Debug, Clone)]
pub struct JsonOutputTransformer {
    answer: String,
    prefix: String,
    lifecycle: Lifecycle,
}

impl Default for JsonOutputTransformer {
    fn default() -> Self {
        Self {
            answer: String::new(),
            prefix: unique_prefix("json"),
            lifecycle: Lifecycle::new("JSONOutputTransformer"),
        }
    }
}

impl JsonOutputTransformer {
    /// Adds answer text seen in the stream.
    pub fn observe_text(&mut self, text: &str) -> Result<()> {
        self.lifecycle.check()?;
        self.answer.push_str(text);
        Ok(())
    }

    /// Ends the stream; returns the object found in the answer, if any.
    pub fn finish_object(&mut self) -> Result<Option<Map<String, Value>>> {
        self.lifecycle.finish()?;
        Ok(extract_json_object(&std::mem::take(&mut self.answer)))
    }
}

impl OutputTransformer for JsonOutputTransformer {
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput> {
        let items = output
            .outputs
            .iter()
            .map(|item| match item {
                OutputItem::Text(text) => match extract_json_object(text) {
                    Some(map) => OutputItem::Structured(Value::Object(map)),
                    None => item.clone(),
                },
                other => other.clone(),
            })
            .collect();
        Ok(output.with_outputs(items))
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        if event.kind == types::RESPONSE {
            if let Some(text) = event.text_value() {
                self.observe_text(text)?;
            }
        } else {
            self.lifecycle.check()?;
        }
        Ok(vec![event])
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        Ok(self
            .finish_object()?
            .map(|map| {
                Event::json(
                    types::STRUCTURED,
                    Some(format!("{}-1", self.prefix)),
                    Value::Object(map),
                )
            })
            .into_iter()
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn follows_the_reference_rules() {
        let cases: [(&str, bool); 10] = [
            ("prose {\"a\": 1} more", true),
            ("```json\n{\"a\": [1, 2]}\n```", true),
            ("text {} text", true),
            ("{\"a\":1} {\"b\":2}", false),
            ("[1, 2]", false),
            ("{\"a\": 1,}", false),
            ("{'a': 1}", false),
            ("{\"a\":1}}", false),
            ("} backwards {", false),
            ("é{\"é\": \"😀\"}é", true),
        ];
        for (text, parses) in cases {
            assert_eq!(extract_json_object(text).is_some(), parses, "{text}");
        }
    }
}
