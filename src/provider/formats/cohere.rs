//! Cohere's v2 chat (`cohere/<model>`, stream format `cohere`): its stream decoder and its
//! whole answer, read as the same events.
//!
//! The stream is SSE with `event:` lines; each message's JSON names its `type`:
//! `message-start` (the answer's `id`), `content-start` / `content-delta` / `content-end` (a
//! content item at `index`: `delta.message.content.text` is answer text → `response`,
//! `content.thinking` reasoning → `thinking`), `tool-plan-delta` (the model's plan before it
//! calls tools, `delta.message.tool_plan`: reasoning the API sends → `thinking`), `tool-call-*`
//! (not answer text: ignored), `citation-start` (`delta.message.citations`, one citation,
//! sent after the text it cites; see [`super::cohere_citations`]), `citation-end`,
//! `message-end` (`delta.finish_reason`, `delta.usage`; the answer is complete), then
//! `data: [DONE]`. A stream that stops before `message-end` is STREAM_TRUNCATED; an `error`
//! event, or a `message-end` carrying `delta.error`, is PROVIDER_ERROR.
//!
//! The whole answer, `{id, finish_reason, message: {content[], tool_plan?, citations[]},
//! usage}`, goes through the same steps, so both give the same text, citations and sources.

use serde_json::Value;

use super::cohere_citations::{CohereCitations, ContentItems, MAX_CONTENT_ITEMS};
use crate::event::{types, Event, LmOutput};
use crate::provider::framing::DeltaFraming;
use crate::provider::offsets::{TextOffsets, Unit};
use crate::provider::sse::SseEvent;
use crate::provider::stream::{EventSink, StreamError};
use crate::provider::usage::Counted;
use crate::provider::{Provider, RequestError};

const NAME: &str = "cohere";

/// Decodes one Cohere v2 chat stream (or, fed its parts, one whole answer).
#[derive(Debug, Clone, Default)]
pub(crate) struct CohereDecoder {
    id: Option<String>,
    framing: DeltaFraming,
    /// The `response` text so far, measured for the citations' offsets.
    text: TextOffsets,
    /// Where each text content item sits in it.
    items: ContentItems,
    /// The content items that hold reasoning (their deltas' `text` is thinking too).
    thinking_items: Vec<u64>,
    citations: CohereCitations,
    /// The normalised usage's JSON text, once `message-end` gave one.
    usage: Option<String>,
    finish_reason: Option<String>,
    done: bool,
}

fn invalid(detail: impl Into<String>) -> StreamError {
    StreamError::InvalidData {
        provider: NAME,
        detail: detail.into(),
    }
}

/// A string field that may be absent (or null), but is a string when present.
fn opt_str<'a>(v: &'a Value, key: &str, what: &str) -> Result<Option<&'a str>, StreamError> {
    match v.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(invalid(format!("{what} whose `{key}` is not a string"))),
    }
}

/// A content item's `index` (0 when absent).
fn index(v: &Value) -> Result<u64, StreamError> {
    match v.get("index") {
        None | Some(Value::Null) => Ok(0),
        Some(n) => n
            .as_u64()
            .ok_or_else(|| invalid("an `index` that is not a whole number")),
    }
}

/// The provider's error as a stream error: its `message` when that is a string.
fn provider_error(v: &Value, code: Option<&str>) -> StreamError {
    let message = v
        .get("message")
        .and_then(Value::as_str)
        .map_or_else(|| v.to_string(), str::to_owned);
    StreamError::Provider {
        provider: NAME,
        message,
        code: code.map(str::to_owned),
    }
}

impl CohereDecoder {
    pub(crate) fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    pub(crate) fn push(
        &mut self,
        message: SseEvent<'_>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        let data = message.data.trim();
        if self.done || data.is_empty() || message.is_done() {
            return Ok(());
        }
        let v = super::parse(NAME, data)?;
        if !v.is_object() {
            return Err(invalid("a message that is not a JSON object"));
        }
        let kind = opt_str(&v, "type", "a message")?;
        if message.event == Some("error") || kind == Some("error") {
            return Err(provider_error(&v, None));
        }
        let Some(kind) = kind else {
            // An error body in the stream's place: `{"message": "…"}`.
            if v.get("message").is_some_and(Value::is_string) {
                return Err(provider_error(&v, None));
            }
            return Err(invalid("a message without `type`"));
        };
        let message = v.pointer("/delta/message");
        match kind {
            "message-start" => {
                self.id = opt_str(&v, "id", "message-start")?.map(str::to_owned);
            }
            "content-start" | "content-delta" => {
                let index = index(&v)?;
                let content = message.and_then(|m| m.get("content"));
                if let Some(content) = content {
                    if kind == "content-start"
                        && opt_str(content, "type", "a content item")? == Some("thinking")
                    {
                        self.thinking_item(index)?;
                    }
                    self.content(index, content, out)?;
                }
            }
            "tool-plan-delta" => {
                let plan = match message {
                    Some(m) => opt_str(m, "tool_plan", "a tool-plan-delta")?,
                    None => None,
                };
                if let Some(plan) = plan.filter(|p| !p.is_empty()) {
                    self.thinking(plan, out);
                }
            }
            "citation-start" => {
                let citation = message
                    .and_then(|m| m.get("citations"))
                    .ok_or_else(|| invalid("a citation-start without `delta.message.citations`"))?;
                self.citation(citation)?;
            }
            "message-end" => {
                let delta = v.get("delta").unwrap_or(&Value::Null);
                let reason = opt_str(delta, "finish_reason", "a message-end")?;
                if let Some(error) = opt_str(delta, "error", "a message-end")? {
                    if !error.is_empty() {
                        let body = serde_json::json!({ "message": error });
                        return Err(provider_error(&body, reason));
                    }
                }
                self.end(reason, delta.get("usage"), out)?;
            }
            // content-end, citation-end, tool-call-*, debug, and types added later.
            _ => {}
        }
        Ok(())
    }

    /// Notes that content item `index` holds reasoning.
    fn thinking_item(&mut self, index: u64) -> Result<(), StreamError> {
        if !self.thinking_items.contains(&index) {
            if self.thinking_items.len() >= MAX_CONTENT_ITEMS {
                return Err(invalid("too many content items in one answer"));
            }
            self.thinking_items.push(index);
        }
        Ok(())
    }

    /// A content item's text (`text`) or reasoning (`thinking`).
    fn content(
        &mut self,
        index: u64,
        content: &Value,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        if !content.is_object() {
            return Err(invalid("a content item that is not an object"));
        }
        if let Some(thinking) = opt_str(content, "thinking", "a content item")? {
            if !thinking.is_empty() {
                self.thinking(thinking, out);
            }
        }
        if let Some(text) = opt_str(content, "text", "a content item")? {
            if self.thinking_items.contains(&index) {
                if !text.is_empty() {
                    self.thinking(text, out);
                }
                return Ok(());
            }
            let at = self.text.len(Unit::CodePoints);
            if !self.items.grow(index, at, text.chars().count()) {
                return Err(invalid("too many content items in one answer"));
            }
            if !text.is_empty() {
                self.framing.before_text(types::RESPONSE, &self.id, out);
                self.text.push(text);
                out.text(types::RESPONSE, self.id.as_deref(), text);
            }
        }
        Ok(())
    }

    fn thinking(&mut self, text: &str, out: &mut dyn EventSink) {
        self.framing.before_text(types::THINKING, &self.id, out);
        out.text(types::THINKING, self.id.as_deref(), text);
    }

    fn citation(&mut self, citation: &Value) -> Result<(), StreamError> {
        self.citations.add(citation).map_err(invalid)
    }

    /// The answer is complete: its blocks close, then its sources, citations and usage.
    fn end(
        &mut self,
        reason: Option<&str>,
        usage: Option<&Value>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        self.finish_reason = reason.map(str::to_owned);
        if let Some(usage) = usage.filter(|u| !u.is_null()) {
            self.usage = Some(usage_json(usage)?);
        }
        self.done = true;
        self.framing.close(&self.id, out);
        let sources = self
            .citations
            .has_sources()
            .then(|| self.citations.sources_json());
        let citations = self.citations.take(&self.text, &self.items);
        super::send_tail(
            out,
            self.id.as_deref(),
            sources,
            &citations,
            self.usage.take(),
        );
        Ok(())
    }

    /// Ends the stream: an error when `message-end` never came.
    pub(crate) fn finish(&mut self, out: &mut dyn EventSink) -> Result<(), StreamError> {
        let _ = out;
        if self.done {
            Ok(())
        } else {
            Err(StreamError::Truncated { provider: NAME })
        }
    }
}

/// Cohere's usage (`tokens` counted, `billed_units` billed, `cached_tokens`) in the one usage
/// shape: the counted tokens, the billed ones when no counted ones came; the object as sent
/// under `raw`.
fn usage_json(usage: &Value) -> Result<String, StreamError> {
    if !usage.is_object() {
        return Err(invalid("a `usage` that is not an object"));
    }
    let count = |group: &str, key: &str| usage.get(group).and_then(|g| g.get(key))?.as_u64();
    let either = |key: &str| count("tokens", key).or_else(|| count("billed_units", key));
    let input = either("input_tokens");
    let output = either("output_tokens");
    let counted = Counted {
        input,
        output,
        total: input.and_then(|i| i.checked_add(output?)),
        cached_input: usage.get("cached_tokens").and_then(Value::as_u64),
        ..Counted::default()
    };
    Ok(counted.usage(usage.clone()).to_string())
}

/// A whole Cohere answer as an LMOutput: its parts fed to the stream's decoder, the events
/// folded.
pub(crate) fn whole_answer(body: &str, structured: bool) -> Result<LmOutput, RequestError> {
    let bad = |detail: String| RequestError::InvalidResponse {
        provider: Provider::Cohere.name(),
        detail,
    };
    let from_stream = |e: StreamError| match e {
        StreamError::InvalidData { detail, .. } => bad(detail),
        other => bad(other.message()),
    };
    let v: Value = serde_json::from_str(body).map_err(|e| bad(e.to_string()))?;
    let message = v
        .get("message")
        .filter(|m| m.is_object())
        .ok_or_else(|| bad("no `message` object".into()))?;
    let mut decoder = CohereDecoder {
        id: v.get("id").and_then(Value::as_str).map(str::to_owned),
        ..CohereDecoder::default()
    };
    let mut events: Vec<Event> = Vec::new();
    let plan = opt_str(message, "tool_plan", "a message").map_err(from_stream)?;
    if let Some(plan) = plan.filter(|p| !p.is_empty()) {
        decoder.thinking(plan, &mut events);
    }
    let content = match message.get("content") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(items)) => items.as_slice(),
        Some(_) => return Err(bad("`message.content` is not an array".into())),
    };
    for (i, item) in content.iter().enumerate() {
        let index = i as u64;
        match item.get("type").and_then(Value::as_str) {
            Some("text") => {}
            Some("thinking") => decoder.thinking_item(index).map_err(from_stream)?,
            // Images, documents and types added later: no answer text.
            _ => continue,
        }
        decoder
            .content(index, item, &mut events)
            .map_err(from_stream)?;
    }
    let citations = match message.get("citations") {
        None | Some(Value::Null) => &[][..],
        Some(Value::Array(list)) => list.as_slice(),
        Some(_) => return Err(bad("`message.citations` is not an array".into())),
    };
    for c in citations {
        decoder.citation(c).map_err(from_stream)?;
    }
    let reason = opt_str(&v, "finish_reason", "an answer").map_err(from_stream)?;
    decoder
        .end(reason, v.get("usage"), &mut events)
        .map_err(from_stream)?;
    super::whole_output(&events, reason, structured)
}
