//! What Perplexity and Mistral share: Chat Completions chunks (`choices[0].delta` in a stream,
//! `choices[0].message` in a whole answer), read here as JSON values, with each provider's
//! extras beside them (see [`super::perplexity`] and [`super::mistral`]).
//!
//! `content` is a string or an array of chunks: `{type: "text", text}` is answer text,
//! `{type: "thinking", thinking: [{type: "text", text}]}` is reasoning (a `thinking` block),
//! `{type: "reference", reference_ids: [..]}` marks the place in the answer where the ids'
//! sources are cited. A stream may switch between the forms from one chunk to the next.
//! The answer is complete when a choice has a `finish_reason` or `[DONE]` comes; the answer's
//! sources, citations and usage go out then (at `[DONE]`, or when the stream ends), as
//! later chunks may still carry usage. A whole answer is its body read as one chunk.

use serde_json::{Map, Value};

use super::{mistral, perplexity};
use crate::cite::Mechanism;
use crate::event::types;
use crate::provider::framing::DeltaFraming;
use crate::provider::offsets::TextOffsets;
use crate::provider::sse::SseEvent;
use crate::provider::stream::{EventSink, StreamError};
use crate::provider::usage::normalize;
use crate::provider::{HttpRequest, LmRequest, ModelId, RequestError};

/// Which provider's extras a [`ChatLike`] decoder reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Flavor {
    Perplexity,
    Mistral,
}

impl Flavor {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::Perplexity => "perplexity",
            Self::Mistral => "mistral",
        }
    }
}

/// A Perplexity or Mistral stream (or whole answer) as citeflow events.
#[derive(Debug, Clone)]
pub(crate) struct ChatLike {
    flavor: Flavor,
    message_id: Option<String>,
    framing: DeltaFraming,
    /// The answer text measured as it arrives (where a Mistral reference points).
    offsets: TextOffsets,
    /// The answer text itself, kept for Perplexity, whose `[N]` markers are found in it once
    /// it is complete (a marker may arrive split across chunks).
    text: String,
    finish_reason: Option<String>,
    /// `[DONE]` came: nothing after it is read.
    done: bool,
    /// The sources, citations and usage have gone out.
    ended: bool,
    /// The latest usage object (Perplexity's is running, Mistral's comes once).
    usage: Option<Value>,
    perplexity: perplexity::SearchLists,
    mistral: mistral::References,
}

impl ChatLike {
    pub(crate) fn new(flavor: Flavor) -> Self {
        Self {
            flavor,
            message_id: None,
            framing: DeltaFraming::default(),
            offsets: TextOffsets::default(),
            text: String::new(),
            finish_reason: None,
            done: false,
            ended: false,
            usage: None,
            perplexity: perplexity::SearchLists::default(),
            mistral: mistral::References::default(),
        }
    }

    pub(crate) fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    #[cold]
    #[inline(never)]
    fn invalid(&self, detail: impl Into<String>) -> StreamError {
        StreamError::InvalidData {
            provider: self.flavor.name(),
            detail: detail.into(),
        }
    }

    pub(crate) fn push(
        &mut self,
        message: SseEvent<'_>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        let data = message.data;
        if self.done || data.is_empty() {
            return Ok(());
        }
        if message.is_done() {
            self.done = true;
            self.end(out);
            return Ok(());
        }
        let value = super::parse(self.flavor.name(), data)?;
        self.read(&value, out)
    }

    /// Ends the stream: the held sources, citations and usage, or STREAM_TRUNCATED when the
    /// provider never said the answer was complete.
    pub(crate) fn finish(&mut self, out: &mut dyn EventSink) -> Result<(), StreamError> {
        if self.ended {
            return Ok(());
        }
        if self.finish_reason.is_none() {
            return Err(StreamError::Truncated {
                provider: self.flavor.name(),
            });
        }
        self.end(out);
        Ok(())
    }

    /// One chunk (or a whole answer's body).
    fn read(&mut self, value: &Value, out: &mut dyn EventSink) -> Result<(), StreamError> {
        let Some(chunk) = value.as_object() else {
            return Err(self.invalid("a message that is not a JSON object"));
        };
        if let Some(error) = provider_error(chunk, self.flavor.name()) {
            return Err(error);
        }
        if let Some(id) = chunk.get("id").and_then(Value::as_str) {
            if self.message_id.as_deref() != Some(id) {
                self.message_id = Some(id.to_owned());
            }
        }
        match chunk.get("usage") {
            None | Some(Value::Null) => {}
            Some(usage @ Value::Object(_)) => self.usage = Some(usage.clone()),
            Some(_) => return Err(self.invalid("`usage` is not an object")),
        }
        if self.flavor == Flavor::Perplexity {
            if let Err(detail) = self.perplexity.read(chunk) {
                return Err(self.invalid(detail));
            }
        }
        let choice = match chunk.get("choices") {
            None | Some(Value::Null) => None,
            Some(Value::Array(choices)) => choices.first(),
            Some(_) => return Err(self.invalid("`choices` is not an array")),
        };
        // Only the first choice is followed, as for OpenAI.
        let Some(choice) = choice else {
            return Ok(());
        };
        let Some(choice) = choice.as_object() else {
            return Err(self.invalid("a choice is not an object"));
        };
        let message = match choice.get("delta") {
            None | Some(Value::Null) => choice.get("message"),
            delta => delta,
        };
        match message {
            None | Some(Value::Null) => {}
            Some(Value::Object(message)) => self.content(message.get("content"), out)?,
            Some(_) => return Err(self.invalid("a choice's `delta` is not an object")),
        }
        match choice.get("finish_reason") {
            None | Some(Value::Null) => {}
            Some(Value::String(reason)) => {
                self.finish_reason = Some(reason.clone());
                self.framing.close(&self.message_id, out);
            }
            Some(_) => return Err(self.invalid("`finish_reason` is not a string")),
        }
        Ok(())
    }

    /// A message's `content`: a string, or an array of chunks.
    fn content(
        &mut self,
        content: Option<&Value>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        match content {
            None | Some(Value::Null) => Ok(()),
            Some(Value::String(text)) => {
                self.answer(text, out);
                Ok(())
            }
            Some(Value::Array(chunks)) => chunks.iter().try_for_each(|c| self.chunk(c, out)),
            Some(_) => Err(self.invalid("`content` is neither a string nor an array")),
        }
    }

    /// One chunk of an array `content`.
    fn chunk(&mut self, chunk: &Value, out: &mut dyn EventSink) -> Result<(), StreamError> {
        let Some(chunk) = chunk.as_object() else {
            return Err(self.invalid("a content chunk is not an object"));
        };
        match chunk.get("type").and_then(Value::as_str) {
            Some("text") | None => {
                let text = text_field(chunk, "text").map_err(|d| self.invalid(d))?;
                self.answer(text, out);
            }
            Some("thinking") => match chunk.get("thinking") {
                Some(Value::String(text)) => self.thinking(text, out),
                Some(Value::Array(parts)) => {
                    for part in parts {
                        let Some(part) = part.as_object() else {
                            return Err(self.invalid("a thinking part is not an object"));
                        };
                        let text = text_field(part, "text").map_err(|d| self.invalid(d))?;
                        self.thinking(text, out);
                    }
                }
                None | Some(Value::Null) => {}
                Some(_) => return Err(self.invalid("`thinking` is not an array")),
            },
            Some("reference") => {
                let at = self.offsets.units();
                self.mistral
                    .add(chunk.get("reference_ids"), at)
                    .map_err(|d| self.invalid(d))?;
            }
            // Kinds an answer does not carry as text (images, audio, …).
            Some(_) => {}
        }
        Ok(())
    }

    fn answer(&mut self, text: &str, out: &mut dyn EventSink) {
        if text.is_empty() {
            return;
        }
        self.framing
            .before_text(types::RESPONSE, &self.message_id, out);
        self.offsets.push(text);
        if self.flavor == Flavor::Perplexity {
            self.text.push_str(text);
        }
        out.text(types::RESPONSE, self.message_id.as_deref(), text);
    }

    fn thinking(&mut self, text: &str, out: &mut dyn EventSink) {
        if text.is_empty() {
            return;
        }
        self.framing
            .before_text(types::THINKING, &self.message_id, out);
        out.text(types::THINKING, self.message_id.as_deref(), text);
    }

    /// The answer is complete: its blocks close, then its sources, citations and usage.
    fn end(&mut self, out: &mut dyn EventSink) {
        if self.ended {
            return;
        }
        self.ended = true;
        self.framing.close(&self.message_id, out);
        let (sources, citations) = match self.flavor {
            Flavor::Perplexity => self.perplexity.cite(&self.text),
            Flavor::Mistral => self.mistral.take(),
        };
        let sources = (!sources.is_empty()).then(|| sources.json_text());
        let usage = self.usage.take().map(|u| normalize(u).to_string());
        super::send_tail(out, self.message_id.as_deref(), sources, &citations, usage);
    }
}

/// A chunk's text field: a string (or absent, or null: no text).
fn text_field<'a>(chunk: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match chunk.get(key) {
        None | Some(Value::Null) => Ok(""),
        Some(Value::String(text)) => Ok(text),
        Some(_) => Err(format!("a chunk's `{key}` is not a string")),
    }
}

/// The error a chunk carries: `{"error": {...}}` (or a string), or the chunk itself when its
/// `object` is `"error"` (Mistral's shape). Its `message` (else the value's JSON text), and
/// its `code` (else `type`).
fn provider_error(chunk: &Map<String, Value>, provider: &'static str) -> Option<StreamError> {
    let error = match chunk.get("error") {
        Some(Value::Null) | None => {
            if chunk.get("object").and_then(Value::as_str) != Some("error") {
                return None;
            }
            chunk
        }
        Some(Value::String(message)) => {
            return Some(StreamError::Provider {
                provider,
                message: message.clone(),
                code: None,
            })
        }
        Some(Value::Object(error)) => error,
        Some(other) => {
            return Some(StreamError::Provider {
                provider,
                message: other.to_string(),
                code: None,
            })
        }
    };
    let text = |v: &Value| match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let message = match error.get("message") {
        Some(Value::String(m)) => m.clone(),
        _ => Value::Object(error.clone()).to_string(),
    };
    let code = ["code", "type"]
        .into_iter()
        .find_map(|k| error.get(k).filter(|v| !v.is_null()))
        .map(text);
    Some(StreamError::Provider {
        provider,
        message,
        code,
    })
}

/// How a provider takes a JSON schema in `response_format.json_schema`: given the schema's
/// name and the schema.
pub(crate) type SchemaFormat = fn(&'static str, Value) -> Value;

/// The Chat Completions request of Perplexity or Mistral (`{base}/chat/completions`, a
/// bearer key): model, messages, temperature, max_tokens, stream, and a JSON schema in the
/// provider's `response_format` shape (`json_schema` made by `schema`) for a responseSchema
/// or a cited answer enforced by schema. Log-probabilities and grammars are not offered by
/// either provider: asking for one is an error.
pub(crate) fn request(
    id: &ModelId,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
    api_key: Option<&str>,
    base: &str,
    schema: SchemaFormat,
) -> Result<HttpRequest, RequestError> {
    let answer_schema = super::answer_schema(id.provider, req, mechanism)?;
    let mut body = Map::new();
    body.insert("model".into(), Value::from(id.model.as_str()));
    body.insert(
        "messages".into(),
        serde_json::to_value(&req.messages).unwrap_or(Value::Null),
    );
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), Value::from(t));
    }
    if let Some(m) = req.max_tokens {
        body.insert("max_tokens".into(), Value::from(m));
    }
    let json_schema = answer_schema.map(|(name, s)| schema(name, s));
    if let Some(json_schema) = json_schema {
        let mut format = Map::new();
        format.insert("type".into(), Value::from("json_schema"));
        format.insert("json_schema".into(), json_schema);
        body.insert("response_format".into(), Value::Object(format));
    }
    if req.stream {
        body.insert("stream".into(), Value::Bool(true));
    }
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key {
        headers.push(("authorization".into(), format!("Bearer {key}")));
    }
    Ok(HttpRequest {
        url: format!("{base}/chat/completions"),
        headers,
        body: Value::Object(body).to_string(),
    })
}

/// A whole answer: its body read as one chunk by the stream decoder (complete as it is),
/// the events folded.
pub(crate) fn whole(
    flavor: Flavor,
    body: &str,
    structured: bool,
) -> Result<crate::event::LmOutput, RequestError> {
    let invalid = |detail: String| RequestError::InvalidResponse {
        provider: flavor.name(),
        detail,
    };
    let value: Value = serde_json::from_str(body).map_err(|e| invalid(e.to_string()))?;
    let mut decoder = ChatLike::new(flavor);
    let mut events = Vec::new();
    decoder
        .read(&value, &mut events)
        .map_err(|e| invalid(e.message()))?;
    decoder.done = true;
    decoder.end(&mut events);
    super::whole_output(&events, decoder.finish_reason(), structured)
}
