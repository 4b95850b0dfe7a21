//! Events and whole outputs read from JSON values by hand: the same rules as their derived
//! `Deserialize` (tested equal below), without serde's buffering of a `flatten`ed or
//! adjacently tagged value, which the streaming module would otherwise carry (about 15 KB).

use serde_json::{Map, Value};

use super::{Event, LmOutput, OutputItem, ValueType};
use crate::transform::json_kind;

fn expected(what: &str, got: &Value) -> String {
    expected_kind(what, json_kind(got))
}

/// `invalid type: {got}, expected {what}`, `got` the kind of value found ("a number", …).
pub(crate) fn expected_kind(what: &str, got: &str) -> String {
    let mut out = String::from("invalid type: ");
    out.push_str(got);
    out.push_str(", expected ");
    out.push_str(what);
    out
}

/// The [`ValueType`] a `valueType` string names, or the message for an unknown one.
pub(crate) fn value_type_named(name: &str) -> Result<ValueType, String> {
    match name {
        "text" => Ok(ValueType::Text),
        "json" => Ok(ValueType::Json),
        _ => {
            let mut m = String::from("unknown variant `");
            m.push_str(name);
            m.push_str("`, expected `text` or `json`");
            Err(named("valueType", m))
        }
    }
}

/// What an event's `valueType` must be, for a message.
pub(crate) const VALUE_TYPES: &str = "`text` or `json`";

fn string(field: &str, value: Value) -> Result<String, String> {
    match value {
        Value::String(s) => Ok(s),
        other => Err(named(field, expected("a string", &other))),
    }
}

pub(crate) fn named(field: &str, message: String) -> String {
    let mut out = String::from("`");
    out.push_str(field);
    out.push_str("`: ");
    out.push_str(&message);
    out
}

impl Event {
    /// An event from a JSON object: `id` (string or null), `type` (default `response`), `value`
    /// (default `""`), `valueType` (`text` or `json`); other keys kept in `extra`, in order.
    pub fn from_json(value: Value) -> Result<Self, String> {
        let Value::Object(map) = value else {
            return Err(expected("struct Event", &value));
        };
        let mut event = Event::text(super::types::RESPONSE, None, "");
        for (key, value) in map {
            match key.as_str() {
                "id" => {
                    event.id = match value {
                        Value::Null => None,
                        v => Some(string("id", v)?),
                    }
                }
                "type" => event.kind = string("type", value)?,
                "value" => event.value = value,
                "valueType" => {
                    event.value_type = match value {
                        Value::String(s) => value_type_named(&s)?,
                        other => return Err(named("valueType", expected(VALUE_TYPES, &other))),
                    }
                }
                _ => {
                    event.extra.insert(key, value);
                }
            }
        }
        Ok(event)
    }
}

impl OutputItem {
    /// `{type, output}` (or `[type, output]`): `text` and `thinking` carry a string,
    /// `structured` any value.
    fn from_json(value: Value) -> Result<Self, String> {
        let (tag, content) = match value {
            Value::Object(mut map) => (map.remove("type"), map.remove("output")),
            Value::Array(items) if items.len() == 2 => {
                let mut items = items.into_iter();
                (items.next(), items.next())
            }
            other => return Err(expected("adjacently tagged enum OutputItem", &other)),
        };
        let tag = match tag {
            Some(Value::String(tag)) => tag,
            Some(other) => return Err(named("type", expected("a string", &other))),
            None => return Err("missing field `type`".to_owned()),
        };
        let Some(content) = content else {
            return Err("missing field `output`".to_owned());
        };
        match tag.as_str() {
            "text" => Ok(OutputItem::Text(string("output", content)?)),
            "thinking" => Ok(OutputItem::Thinking(string("output", content)?)),
            "structured" => Ok(OutputItem::Structured(content)),
            _ => {
                let mut m = String::from("unknown variant `");
                m.push_str(&tag);
                m.push_str("`, expected one of `text`, `thinking`, `structured`");
                Err(m)
            }
        }
    }
}

impl LmOutput {
    /// A whole output from a JSON object: `outputs` (required, a list of items); other keys
    /// kept in `extra`, in order.
    pub fn from_json(value: Value) -> Result<Self, String> {
        let Value::Object(map) = value else {
            return Err(expected("struct LmOutput", &value));
        };
        let mut outputs = None;
        let mut extra = Map::new();
        for (key, value) in map {
            if key == "outputs" {
                let Value::Array(items) = value else {
                    return Err(named("outputs", expected("a sequence", &value)));
                };
                let items: Result<Vec<_>, _> =
                    items.into_iter().map(OutputItem::from_json).collect();
                outputs = Some(items.map_err(|e| named("outputs", e))?);
            } else {
                extra.insert(key, value);
            }
        }
        match outputs {
            Some(outputs) => Ok(LmOutput { outputs, extra }),
            None => Err("missing field `outputs`".to_owned()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// The hand reader and the derived `Deserialize` agree: same value, or both refuse.
    fn same_event(v: Value) {
        let derived = serde_json::from_value::<Event>(v.clone()).ok();
        let by_hand = Event::from_json(v.clone()).ok();
        assert_eq!(by_hand, derived, "{v}");
        if let Some(e) = by_hand {
            let order: Vec<_> = e.extra.keys().collect();
            let derived_order: Vec<_> = derived
                .as_ref()
                .map(|d| d.extra.keys().collect())
                .unwrap_or_default();
            assert_eq!(order, derived_order, "{v}");
        }
    }

    fn same_output(v: Value) {
        let derived = serde_json::from_value::<LmOutput>(v.clone()).ok();
        let by_hand = LmOutput::from_json(v.clone()).ok();
        assert_eq!(by_hand, derived, "{v}");
    }

    #[test]
    fn events_read_as_derived() {
        for v in [
            json!({}),
            json!({"type": "response", "value": "hi"}),
            json!({"type": "thinking_start", "id": "t1"}),
            json!({"id": null, "value": 3, "valueType": "json"}),
            json!({"value": {"a": [1, 2.5, -3]}, "valueType": "json", "z": 1, "a": 2, "m": null}),
            json!({"type": "status", "level": "info", "timestamp": 12, "value": "x"}),
            json!({"type": null}),
            json!({"type": 5}),
            json!({"id": 5}),
            json!({"id": ["a"]}),
            json!({"valueType": "xml"}),
            json!({"valueType": null}),
            json!({"valueType": 1}),
            json!({"value_type": "json", "value": null}),
            json!("response"),
            json!(null),
            json!([{"type": "response"}]),
            json!(1),
        ] {
            same_event(v);
        }
    }

    #[test]
    fn outputs_read_as_derived() {
        for v in [
            json!({"outputs": []}),
            json!({"outputs": [{"type": "text", "output": "a"}], "usage": {"n": 1}, "finish": "stop"}),
            json!({"outputs": [{"type": "thinking", "output": "t"}, {"type": "structured", "output": {"k": [1]}}]}),
            json!({"outputs": [{"type": "structured", "output": null}]}),
            json!({"outputs": [["text", "a"], ["structured", 1]]}),
            json!({"outputs": [["text"]]}),
            json!({"outputs": [{"type": "text"}]}),
            json!({"outputs": [{"output": "a"}]}),
            json!({"outputs": [{"type": "image", "output": ""}]}),
            json!({"outputs": [{"type": "text", "output": 1}]}),
            json!({"outputs": [{"type": 1, "output": "a"}]}),
            json!({"outputs": [{"type": "text", "output": "a", "extra": true}]}),
            json!({"outputs": [1]}),
            json!({"outputs": null}),
            json!({"outputs": {}}),
            json!({"other": 1}),
            json!("not an output"),
            json!([]),
        ] {
            same_output(v);
        }
    }
}
