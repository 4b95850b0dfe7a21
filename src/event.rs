//! The event model shared by every stage: stream [`Event`]s and whole [`LmOutput`]s.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub(crate) mod read;

/// Base event types with a meaning of their own; each also has `_start` and `_end` variants.
pub mod types {
    pub const ACTIVITY: &str = "activity";
    pub const CODE: &str = "code";
    pub const REFERENCE: &str = "reference";
    pub const RESPONSE: &str = "response";
    pub const STATUS: &str = "status";
    pub const THINKING: &str = "thinking";
    /// Emitted by the JSON transformer at the end of a stream whose answer held a JSON object.
    pub const STRUCTURED: &str = "structured";
    /// Emitted by the citation parser when a marker completes; the value is a Citation.
    pub const CITATION: &str = "citation";
}

/// Where an event sits in its block.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Start,
    Content,
    End,
}

/// A value's compact JSON text, as its `Display` writes it, but through `serde_json::to_string`:
/// the streaming module carries that serializer anyway, and `Display` would add its own copy.
pub fn json_text(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Splits `thinking_start` into (`thinking`, Start); a type without suffix is Content.
pub fn split_event_type(kind: &str) -> (&str, Phase) {
    if let Some(base) = kind.strip_suffix("_start") {
        (base, Phase::Start)
    } else if let Some(base) = kind.strip_suffix("_end") {
        (base, Phase::End)
    } else {
        (kind, Phase::Content)
    }
}

/// How an event's value is to be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum ValueType {
    #[default]
    Text,
    Json,
}

/// One event of a model's output stream.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Event {
    /// Shared by the start, content and end events of one block.
    #[serde(default)]
    pub id: Option<String>,
    /// `response`, `thinking_start`, … (any string; see [`types`]).
    #[serde(rename = "type", default = "default_type")]
    pub kind: String,
    /// Text for text events, any JSON value for JSON events.
    #[serde(default = "empty_value")]
    pub value: Value,
    #[serde(default)]
    pub value_type: ValueType,
    /// Fields this crate does not interpret (level, timestamp, metadata, …), kept as given.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

fn default_type() -> String {
    types::RESPONSE.to_owned()
}

fn empty_value() -> Value {
    Value::String(String::new())
}

impl Event {
    /// A text event of the given type.
    pub fn text(kind: &str, id: Option<String>, value: impl Into<String>) -> Self {
        Self {
            id,
            kind: kind.to_owned(),
            value: Value::String(value.into()),
            value_type: ValueType::Text,
            extra: Map::new(),
        }
    }

    /// A bare `response` chunk, as a provider stream delivers it.
    pub fn response(value: impl Into<String>) -> Self {
        Self::text(types::RESPONSE, None, value)
    }

    /// A JSON event of the given type.
    pub fn json(kind: &str, id: Option<String>, value: Value) -> Self {
        Self {
            id,
            kind: kind.to_owned(),
            value,
            value_type: ValueType::Json,
            extra: Map::new(),
        }
    }

    /// The text value, if this event carries text.
    pub fn text_value(&self) -> Option<&str> {
        self.value.as_str()
    }
}

/// The kind of an [`OutputItem`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    Text,
    Thinking,
    Structured,
}

impl ItemKind {
    pub const ALL: [ItemKind; 3] = [ItemKind::Text, ItemKind::Thinking, ItemKind::Structured];

    pub fn name(self) -> &'static str {
        match self {
            ItemKind::Text => "text",
            ItemKind::Thinking => "thinking",
            ItemKind::Structured => "structured",
        }
    }

    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|k| k.name() == name)
    }

    /// The stream event base type that carries items of this kind.
    pub fn event_type(self) -> &'static str {
        match self {
            ItemKind::Text => types::RESPONSE,
            ItemKind::Thinking => types::THINKING,
            ItemKind::Structured => types::STRUCTURED,
        }
    }
}

/// One item of a whole model output.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", content = "output", rename_all = "lowercase")]
pub enum OutputItem {
    Text(String),
    Thinking(String),
    Structured(Value),
}

impl OutputItem {
    pub fn kind(&self) -> ItemKind {
        match self {
            OutputItem::Text(_) => ItemKind::Text,
            OutputItem::Thinking(_) => ItemKind::Thinking,
            OutputItem::Structured(_) => ItemKind::Structured,
        }
    }
}

/// A whole model output: its items in order, plus whatever else the producer attached
/// (usage, finish reason, …), which transformers carry through untouched.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
pub struct LmOutput {
    pub outputs: Vec<OutputItem>,
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl LmOutput {
    /// An output with a single text item.
    pub fn from_text(text: impl Into<String>) -> Self {
        Self {
            outputs: vec![OutputItem::Text(text.into())],
            extra: Map::new(),
        }
    }

    /// Same extra fields, new items.
    pub fn with_outputs(&self, outputs: Vec<OutputItem>) -> Self {
        Self {
            outputs,
            extra: self.extra.clone(),
        }
    }
}

/// Turns a stream of events into output items, merging adjacent content events of the same
/// block: the bridge that lets whole outputs and streams be compared.
pub fn items_from_events(events: &[Event]) -> Vec<OutputItem> {
    let mut items: Vec<OutputItem> = Vec::new();
    for event in events {
        let (base, phase) = split_event_type(&event.kind);
        match (base, phase) {
            // A start opens a new item even right after another thinking block.
            (types::THINKING, Phase::Start) => items.push(OutputItem::Thinking(String::new())),
            (types::THINKING, Phase::Content) => {
                let text = event.text_value().unwrap_or_default();
                match items.last_mut() {
                    Some(OutputItem::Thinking(t)) => t.push_str(text),
                    _ => items.push(OutputItem::Thinking(text.to_owned())),
                }
            }
            (types::RESPONSE, Phase::Content) => {
                let text = event.text_value().unwrap_or_default();
                match items.last_mut() {
                    Some(OutputItem::Text(t)) => t.push_str(text),
                    _ => items.push(OutputItem::Text(text.to_owned())),
                }
            }
            (types::STRUCTURED, Phase::Content) => {
                items.push(OutputItem::Structured(event.value.clone()))
            }
            _ => {}
        }
    }
    items
}
