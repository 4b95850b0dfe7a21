//! The Responses API (OpenAI's `/v1/responses`; xAI's, which speaks it too): one decoder for
//! both, streamed and whole.
//!
//! A stream is SSE whose messages carry their type in the JSON's `type` (the `event:` line is
//! read when `type` is missing): `response.output_text.delta` → `response` text,
//! `response.reasoning_summary_text.delta` and `response.reasoning_text.delta` → `thinking`
//! (parts of it separated by a blank line), `response.output_text.annotation.added` → held
//! until the answer is complete, then the answer's `sources` and its `citation`s (see
//! [`annotations`]), `response.completed` / `response.incomplete` → the end (finish reason:
//! the response's `status`, or `incomplete_details.reason`), with `usage` from the response;
//! `response.failed` and `error` → PROVIDER_ERROR. Other event types (tool call progress,
//! part and item boundaries) carry nothing citeflow shows and are skipped. A stream that ends
//! before `response.completed` or `response.incomplete` is STREAM_TRUNCATED.
//!
//! A whole answer is the Response object (the one `response.completed` carries): its `output`
//! items are read into the same calls the stream's deltas make (`reasoning` summaries and
//! texts → thinking, a `message`'s `output_text` parts → text with their annotations), so both
//! give the same events.
//!
//! An answer of several `output_text` parts (several message items) is their texts joined in
//! order; an annotation's offsets count code points of its own part, so they are moved by the
//! part's start in the joined text.

mod annotations;
mod request;

use serde_json::Value;

use self::annotations::{Annotation, PartRange};
use super::whole_output;
use crate::event::{types, Event, LmOutput};
use crate::provider::framing::DeltaFraming;
use crate::provider::offsets::{TextOffsets, Unit};
use crate::provider::sse::SseEvent;
use crate::provider::stream::{EventSink, StreamError};
use crate::provider::usage::Counted;
use crate::provider::wire::MAX_LIST_ITEMS;
use crate::provider::{Provider, RequestError};

pub(crate) use self::request::request;

/// The most `output_text` parts one answer is measured in (later ones are still text, but
/// their annotations are dropped).
const MAX_PARTS: usize = MAX_LIST_ITEMS;

/// What separates two parts of the model's reasoning (two summaries) in the `thinking` text.
const THINKING_SEPARATOR: &str = "\n\n";

/// A text part of the answer or of its reasoning: its item (its id, or `#` and its place in
/// the output when it has none), which of the item's lists, and its place there.
#[derive(Debug, Clone, PartialEq, Eq)]
struct PartKey {
    item: String,
    list: List,
    index: u64,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    /// A message's `content`.
    Content,
    /// A reasoning item's `summary`.
    Summary,
    /// A reasoning item's `content` (full reasoning text).
    Reasoning,
}

/// Where the last text went.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Last {
    Nothing,
    Response,
    Thinking(PartKey),
}

/// The decoder of one Responses answer, streamed or whole.
#[derive(Debug, Clone)]
pub(crate) struct ResponsesDecoder {
    provider: Provider,
    /// The response's id: the id of its events.
    id: Option<String>,
    framing: DeltaFraming,
    last: Last,
    /// The answer text so far, measured.
    offsets: TextOffsets,
    /// The answer's `output_text` parts, in order, with where each sits in the answer.
    parts: Vec<(PartKey, PartRange)>,
    /// Annotations held until the answer is complete (at most [`MAX_LIST_ITEMS`]).
    annotations: Vec<Annotation>,
    finish_reason: Option<String>,
    done: bool,
}

/// Bad data, as the detail of the caller's error.
type Bad = String;

impl ResponsesDecoder {
    pub(crate) fn new(provider: Provider) -> Self {
        Self {
            provider,
            id: None,
            framing: DeltaFraming::default(),
            last: Last::Nothing,
            offsets: TextOffsets::default(),
            parts: Vec::new(),
            annotations: Vec::new(),
            finish_reason: None,
            done: false,
        }
    }

    pub(crate) fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    fn invalid(&self, detail: Bad) -> StreamError {
        StreamError::InvalidData {
            provider: self.provider.name(),
            detail,
        }
    }

    /// One SSE message of the stream.
    pub(crate) fn push(
        &mut self,
        message: SseEvent<'_>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        let data = message.data.trim();
        if self.done || data.is_empty() || data == "[DONE]" {
            return Ok(());
        }
        let v = super::parse(self.provider.name(), data)?;
        if !v.is_object() {
            return Err(self.invalid("a stream message that is not an object".into()));
        }
        let ty = match v.get("type") {
            Some(Value::String(t)) => t.as_str(),
            None | Some(Value::Null) => message
                .event
                .ok_or_else(|| self.invalid("a stream message without `type`".into()))?,
            Some(_) => {
                return Err(self.invalid("a stream message whose `type` is not a string".into()))
            }
        };
        self.event(ty, &v, out).map_err(|e| match e {
            Failure::Bad(detail) => self.invalid(detail),
            Failure::Provider(e) => e,
        })
    }

    fn event(&mut self, ty: &str, v: &Value, out: &mut dyn EventSink) -> Result<(), Failure> {
        match ty {
            "response.created" | "response.in_progress" => {
                if let Some(id) = v.pointer("/response/id").and_then(Value::as_str) {
                    self.id = Some(id.to_owned());
                }
            }
            "response.output_text.delta" | "response.refusal.delta" => {
                let key = stream_key(v, List::Content, "content_index");
                self.response_text(key, delta(v)?, out);
            }
            "response.output_text.done" => {
                // The part's whole text: read only when no delta brought it.
                let key = stream_key(v, List::Content, "content_index");
                let empty = self
                    .parts
                    .iter()
                    .find(|(k, _)| *k == key)
                    .is_none_or(|(_, r)| r.end == r.start);
                if empty {
                    if let Some(text) = v.get("text").and_then(Value::as_str) {
                        self.response_text(key, text, out);
                    }
                }
            }
            "response.output_text.annotation.added" => {
                let key = stream_key(v, List::Content, "content_index");
                let index = v.get("annotation_index").and_then(Value::as_u64);
                let annotation = v
                    .get("annotation")
                    .ok_or_else(|| bad("an annotation.added event without `annotation`"))?;
                let index = index.unwrap_or_else(|| self.next_index(&key));
                self.annotation(key, index, annotation)?;
            }
            "response.reasoning_summary_text.delta" => {
                let key = stream_key(v, List::Summary, "summary_index");
                self.thinking(key, delta(v)?, out);
            }
            "response.reasoning_text.delta" => {
                let key = stream_key(v, List::Reasoning, "content_index");
                self.thinking(key, delta(v)?, out);
            }
            "response.completed" | "response.incomplete" => {
                let response = v
                    .get("response")
                    .filter(|r| r.is_object())
                    .ok_or_else(|| bad("a response.completed event without its `response`"))?;
                self.complete(response, out)?;
            }
            "response.failed" => {
                let error = v.pointer("/response/error").unwrap_or(&Value::Null);
                return Err(Failure::Provider(
                    self.provider_error(error, "the response failed"),
                ));
            }
            "error" => {
                let error = v.get("error").filter(|e| e.is_object()).unwrap_or(v);
                return Err(Failure::Provider(self.provider_error(error, "an error")));
            }
            _ => {}
        }
        Ok(())
    }

    /// The error a provider sent: its `message` and `code` (or `type`), when strings.
    fn provider_error(&self, error: &Value, fallback: &str) -> StreamError {
        let message = match error.get("message") {
            Some(Value::String(m)) => m.clone(),
            _ if error.is_null() => fallback.to_owned(),
            _ => error.to_string(),
        };
        let code = error
            .get("code")
            .filter(|c| !c.is_null())
            .map(|c| c.as_str().map_or_else(|| c.to_string(), str::to_owned));
        StreamError::Provider {
            provider: self.provider.name(),
            message,
            code,
        }
    }

    /// Ends the stream: an error unless the provider said the answer was complete (all was
    /// sent then).
    pub(crate) fn finish(&mut self, out: &mut dyn EventSink) -> Result<(), StreamError> {
        let _ = out;
        if self.done {
            Ok(())
        } else {
            Err(StreamError::Truncated {
                provider: self.provider.name(),
            })
        }
    }

    /// Text of the answer, in its part.
    fn response_text(&mut self, key: PartKey, text: &str, out: &mut dyn EventSink) {
        if text.is_empty() {
            return;
        }
        let part = self.part(key);
        self.framing.before_text(types::RESPONSE, &self.id, out);
        self.offsets.push(text);
        if let Some((_, range)) = part.and_then(|i| self.parts.get_mut(i)) {
            range.end = self.offsets.len(Unit::CodePoints);
        }
        self.last = Last::Response;
        out.text(types::RESPONSE, self.id.as_deref(), text);
    }

    /// Text of the model's reasoning: parts of it (summaries) a blank line apart.
    fn thinking(&mut self, key: PartKey, text: &str, out: &mut dyn EventSink) {
        if text.is_empty() {
            return;
        }
        self.framing.before_text(types::THINKING, &self.id, out);
        let id = self.id.as_deref();
        if matches!(&self.last, Last::Thinking(k) if *k != key) {
            out.text(types::THINKING, id, THINKING_SEPARATOR);
        }
        out.text(types::THINKING, id, text);
        self.last = Last::Thinking(key);
    }

    /// The number of the part `key`, added (starting here) when new; `None` past
    /// [`MAX_PARTS`].
    fn part(&mut self, key: PartKey) -> Option<usize> {
        if let Some(i) = self.parts.iter().position(|(k, _)| *k == key) {
            return Some(i);
        }
        if self.parts.len() >= MAX_PARTS {
            return None;
        }
        let here = self.offsets.len(Unit::CodePoints);
        self.parts.push((
            key,
            PartRange {
                start: here,
                end: here,
            },
        ));
        Some(self.parts.len() - 1)
    }

    /// The number an annotation that came without one gets: after its part's last.
    fn next_index(&self, key: &PartKey) -> u64 {
        let part = self.parts.iter().position(|(k, _)| k == key);
        self.annotations
            .iter()
            .filter(|a| Some(a.part) == part)
            .map(|a| a.index.saturating_add(1))
            .max()
            .unwrap_or(0)
    }

    /// An annotation of part `key`, held (once: a repeated one is dropped).
    fn annotation(&mut self, key: PartKey, index: u64, a: &Value) -> Result<(), Failure> {
        let Some(part) = self.part(key) else {
            return Ok(());
        };
        let Some(a) = Annotation::read(a, part, index).map_err(Failure::Bad)? else {
            return Ok(());
        };
        let seen = self
            .annotations
            .iter()
            .any(|h| h.part == part && h.index == index);
        if !seen && self.annotations.len() < MAX_LIST_ITEMS {
            self.annotations.push(a);
        }
        Ok(())
    }

    /// The end of the answer (the Response object, complete or incomplete): its finish
    /// reason, then the blocks closed, the sources, the citations and the usage.
    fn complete(&mut self, response: &Value, out: &mut dyn EventSink) -> Result<(), Failure> {
        if self.id.is_none() {
            self.id = response
                .get("id")
                .and_then(Value::as_str)
                .map(str::to_owned);
        }
        let status = response.get("status").and_then(Value::as_str);
        let reason = response
            .pointer("/incomplete_details/reason")
            .and_then(Value::as_str)
            .filter(|_| status == Some("incomplete"));
        self.finish_reason = reason.or(status).map(str::to_owned);
        let usage = match response.get("usage") {
            None | Some(Value::Null) => None,
            Some(u @ Value::Object(_)) => Some(usage(u)),
            Some(_) => return Err(bad("the response's `usage` is not an object")),
        };
        let id = self.id.clone();
        self.framing.close(&id, out);
        let ranges: Vec<PartRange> = self.parts.iter().map(|(_, r)| *r).collect();
        let (sources, citations) =
            annotations::resolve(&mut self.annotations, &ranges, &self.offsets);
        let sources = (!sources.is_empty()).then(|| sources.json_text());
        let usage = usage.map(|u| u.to_string());
        super::send_tail(out, id.as_deref(), sources, &citations, usage);
        self.done = true;
        Ok(())
    }

    /// A whole Response object's output, through the calls a stream's deltas make.
    fn output(&mut self, response: &Value, out: &mut dyn EventSink) -> Result<(), Failure> {
        let items = match response.get("output") {
            Some(Value::Array(items)) => items,
            None | Some(Value::Null) => return Ok(()),
            Some(_) => return Err(bad("the response's `output` is not an array")),
        };
        for (place, item) in items.iter().enumerate() {
            if !item.is_object() {
                return Err(bad("an output item that is not an object"));
            }
            let item_key = match item.get("id").and_then(Value::as_str) {
                Some(id) => id.to_owned(),
                None => format!("#{place}"),
            };
            let key = |list, index: usize| PartKey {
                item: item_key.clone(),
                list,
                index: index as u64,
            };
            match item.get("type").and_then(Value::as_str) {
                Some("reasoning") => {
                    for (list, field, kind) in [
                        (List::Summary, "summary", "summary_text"),
                        (List::Reasoning, "content", "reasoning_text"),
                    ] {
                        for (i, part) in parts(item, field)?.iter().enumerate() {
                            if part.get("type").and_then(Value::as_str) == Some(kind) {
                                self.thinking(key(list, i), text(part, "text")?, out);
                            }
                        }
                    }
                }
                Some("message") => {
                    for (i, part) in parts(item, "content")?.iter().enumerate() {
                        match part.get("type").and_then(Value::as_str) {
                            Some("output_text") => {
                                self.response_text(key(List::Content, i), text(part, "text")?, out);
                                let notes = match part.get("annotations") {
                                    Some(Value::Array(a)) => a.as_slice(),
                                    None | Some(Value::Null) => &[],
                                    Some(_) => return Err(bad("`annotations` is not an array")),
                                };
                                for (n, a) in notes.iter().take(MAX_LIST_ITEMS).enumerate() {
                                    self.annotation(key(List::Content, i), n as u64, a)?;
                                }
                            }
                            Some("refusal") => {
                                self.response_text(
                                    key(List::Content, i),
                                    text(part, "refusal")?,
                                    out,
                                );
                            }
                            _ => {}
                        }
                    }
                }
                _ => {}
            }
        }
        Ok(())
    }
}

/// Why a message could not be read: bad data, or the provider's own error.
enum Failure {
    Bad(Bad),
    Provider(StreamError),
}

fn bad(detail: &str) -> Failure {
    Failure::Bad(detail.to_owned())
}

/// A delta event's `delta` text.
fn delta(v: &Value) -> Result<&str, Failure> {
    v.get("delta")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("a delta event whose `delta` is not a string"))
}

/// The part a stream event is about: its `item_id` (or `#` and its `output_index`) and its
/// place in `list` (`index_field`).
fn stream_key(v: &Value, list: List, index_field: &str) -> PartKey {
    let item = match v.get("item_id").and_then(Value::as_str) {
        Some(id) => id.to_owned(),
        None => format!(
            "#{}",
            v.get("output_index").and_then(Value::as_u64).unwrap_or(0)
        ),
    };
    PartKey {
        item,
        list,
        index: v.get(index_field).and_then(Value::as_u64).unwrap_or(0),
    }
}

/// An output item's list `field` (absent or `null`: empty).
fn parts<'v>(item: &'v Value, field: &str) -> Result<&'v [Value], Failure> {
    match item.get(field) {
        Some(Value::Array(a)) => Ok(a.as_slice()),
        None | Some(Value::Null) => Ok(&[]),
        Some(_) => Err(Failure::Bad(format!(
            "an output item's `{field}` is not an array"
        ))),
    }
}

/// A part's text `field`.
fn text<'v>(part: &'v Value, field: &str) -> Result<&'v str, Failure> {
    part.get(field)
        .and_then(Value::as_str)
        .ok_or_else(|| Failure::Bad(format!("a {field} part whose `{field}` is not a string")))
}

/// The `usage` value of a Responses usage object: `input_tokens` (cached ones included),
/// `output_tokens` (reasoning ones included), `total_tokens`,
/// `input_tokens_details.cached_tokens`, `output_tokens_details.reasoning_tokens`.
fn usage(raw: &Value) -> Value {
    let count = |pointer: &str| raw.pointer(pointer).and_then(Value::as_u64);
    let input = count("/input_tokens");
    let output = count("/output_tokens");
    Counted {
        input,
        output,
        total: count("/total_tokens").or_else(|| input?.checked_add(output?)),
        cached_input: count("/input_tokens_details/cached_tokens"),
        cache_write: None,
        reasoning: count("/output_tokens_details/reasoning_tokens"),
    }
    .usage(raw.clone())
}

/// A whole Responses answer (the Response object) as the events its stream gives, folded.
pub(crate) fn whole_answer(
    provider: Provider,
    body: &str,
    structured: bool,
) -> Result<LmOutput, RequestError> {
    let invalid = |detail: String| RequestError::InvalidResponse {
        provider: provider.name(),
        detail,
    };
    let response: Value = serde_json::from_str(body).map_err(|e| invalid(e.to_string()))?;
    if !response.is_object() {
        return Err(invalid("the answer is not a Response object".into()));
    }
    if response.get("status").and_then(Value::as_str) == Some("failed") {
        let message = response
            .pointer("/error/message")
            .and_then(Value::as_str)
            .unwrap_or("no message");
        return Err(invalid(format!("the response failed: {message}")));
    }
    let mut decoder = ResponsesDecoder::new(provider);
    decoder.id = response
        .get("id")
        .and_then(Value::as_str)
        .map(str::to_owned);
    let mut events: Vec<Event> = Vec::new();
    let read = decoder
        .output(&response, &mut events)
        .and_then(|()| decoder.complete(&response, &mut events));
    read.map_err(|e| match e {
        Failure::Bad(detail) => invalid(detail),
        Failure::Provider(e) => invalid(e.message()),
    })?;
    whole_output(&events, decoder.finish_reason(), structured)
}
