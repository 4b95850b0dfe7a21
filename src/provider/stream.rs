//! Provider stream decoding: SSE messages from OpenAI-style and Anthropic streaming APIs
//! become citeflow events.
//!
//! OpenAI Chat Completions (and compatible servers: OpenRouter, vLLM, llama.cpp, Ollama):
//! `delta.content` → `response`; `delta.reasoning_content` (DeepSeek, vLLM) or
//! `delta.reasoning` (OpenRouter) → `thinking`; `usage` → a `usage` event (normalised, see
//! [`super::usage`]; the provider's object, OpenRouter's cost included, under `raw`);
//! `[DONE]` or a `finish_reason` ends the stream. Anthropic Messages: text and
//! thinking content blocks become `response_*` / `thinking_*` blocks with the block's id,
//! `citations_delta` → `citation` events when the cited block ends (see
//! [`super::native_citations`]; OpenAI-style `delta.annotations` likewise), a `tool_use`
//! block's input → `structured_delta` text as it streams and one `structured` event at its end,
//! `message_start` and `message_delta` usage → one `usage` event with both, `error` → an error.
//! A stream that stops before its end marker is an error, never a short answer.

use std::borrow::Cow;

use serde_json::Value;

#[cfg(not(feature = "lean-stream"))]
use super::fast_delta;
#[cfg(not(feature = "lean-stream"))]
use super::formats;
use super::framing::DeltaFraming;
use super::message_reader::{read_message, ReadError};
#[cfg(not(feature = "lean-stream"))]
use super::model_id::Provider;
use super::native_citations::{self, CharsToUtf16, UrlNumbers};
use super::raw_json;
use super::sse::{SseDecoder, SseError, SseEvent, SseMessage};
use super::token_shape::{Ignored, TokenShape};
use super::usage::{normalize_text, UsageParts};
use super::wire::{Choices, Message};
use crate::cite::Citation;
use crate::event::{types, Event};
use crate::text::{cat, decimal, display_by_message, quoted, Decimal};

/// Which wire format the stream speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StreamFormat {
    /// OpenAI Chat Completions chunks (also OpenRouter and OpenAI-compatible servers).
    OpenAi,
    /// Anthropic Messages events.
    Anthropic,
    /// The other providers' formats (Gemini, the Responses API, Perplexity, Cohere, Mistral,
    /// xAI), named by their provider; not in the lean streaming module.
    #[cfg(not(feature = "lean-stream"))]
    Other(Provider),
}

impl StreamFormat {
    pub fn parse(name: &str) -> Option<Self> {
        match name {
            "openai" | "openrouter" | "openai-compatible" => Some(Self::OpenAi),
            "anthropic" => Some(Self::Anthropic),
            #[cfg(not(feature = "lean-stream"))]
            other => Provider::parse(other)
                .filter(|p| !p.is_openai_chat() && *p != Provider::Anthropic)
                .map(Self::Other),
            #[cfg(feature = "lean-stream")]
            _ => None,
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "openai",
            Self::Anthropic => "anthropic",
            #[cfg(not(feature = "lean-stream"))]
            Self::Other(p) => p.name(),
        }
    }
}

/// The stream formats the lean streaming module does not read, as `format:<name>` separated by
/// commas: an engine decoding one runs in the full streaming module.
pub const FULL_MODULE_FORMATS: &str =
    "format:google,format:openai-responses,format:perplexity,format:cohere,format:mistral,format:xai";

/// The largest structured answer (an Anthropic `tool_use` input) a stream may send.
pub const MAX_TOOL_INPUT_BYTES: usize = 8 << 20;

/// The most content blocks one Anthropic message may open.
pub const MAX_CONTENT_BLOCKS: usize = 4096;

/// The event type carrying token usage (value: normalised, the provider's object under `raw`).
pub const USAGE: &str = "usage";

/// The event type carrying a structured answer's JSON text as it streams (an Anthropic
/// `tool_use` block's `partial_json`); the whole value follows as one `structured` event.
pub const STRUCTURED_DELTA: &str = "structured_delta";

/// The most citations one Anthropic text block holds back until it ends; past it they go
/// out at once, spanning the block so far.
pub const MAX_HELD_CITATIONS: usize = 1024;

#[derive(Debug, Clone, PartialEq)]
pub enum StreamError {
    Provider {
        provider: &'static str,
        message: String,
        code: Option<String>,
    },
    Truncated {
        provider: &'static str,
    },
    InvalidData {
        provider: &'static str,
        detail: String,
    },
    /// The model's structured answer (a forced tool's input) is not JSON: the model's output,
    /// not the provider's envelope, so INVALID_OUTPUT, as a stage reading it would say.
    InvalidOutput {
        provider: &'static str,
        detail: String,
    },
    Finished,
    Sse(SseError),
}

impl From<SseError> for StreamError {
    fn from(e: SseError) -> Self {
        Self::Sse(e)
    }
}

display_by_message!(StreamError);

impl StreamError {
    /// What went wrong, in words (its `Display`), composed without `core::fmt`.
    #[cold]
    #[inline(never)]
    pub fn message(&self) -> String {
        match self {
            Self::Provider {
                provider,
                message,
                code,
            } => match code {
                Some(code) => cat(&[provider, " stream error (", code, "): ", message]),
                None => cat(&[provider, " stream error: ", message]),
            },
            Self::Truncated { provider } => cat(&[
                "the ",
                provider,
                " stream ended before its end marker: the answer is incomplete",
            ]),
            Self::InvalidData { provider, detail } | Self::InvalidOutput { provider, detail } => {
                cat(&[
                    "the ",
                    provider,
                    " stream sent data that is not the expected JSON: ",
                    detail,
                ])
            }
            Self::Finished => "the stream decoder has already finished".to_owned(),
            Self::Sse(e) => e.message(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::Provider { .. } => "PROVIDER_ERROR",
            Self::Truncated { .. } => "STREAM_TRUNCATED",
            Self::InvalidData { .. } => "INVALID_PROVIDER_DATA",
            Self::InvalidOutput { .. } => "INVALID_OUTPUT",
            Self::Finished => "STREAM_FINISHED",
            Self::Sse(e) => e.code(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BlockKind {
    Text,
    Thinking,
    /// A `tool_use` block: its input (a structured answer) arrives as JSON text in pieces.
    Tool,
    Other,
}

/// Where decoded events go: a `Vec<Event>` (the event API) or the streaming engine, which
/// takes text as it is, borrowed from the message, without an event for it.
pub trait EventSink {
    /// Text of a `response` or `thinking` block.
    fn text(&mut self, kind: &'static str, id: Option<&str>, text: &str);
    /// An event of another type whose value is this text, with no fields of its own (a
    /// block's start or end, a tool input's delta).
    fn text_event(&mut self, ty: &str, id: Option<&str>, text: &str);
    /// An event whose value is this JSON text (checked, or written by the decoder): the
    /// decoder builds no JSON tree for the events it makes.
    fn json(&mut self, kind: &'static str, id: Option<&str>, json: &str);
}

impl EventSink for Vec<Event> {
    fn text(&mut self, kind: &'static str, id: Option<&str>, text: &str) {
        self.push(Event::text(kind, id.map(str::to_owned), text));
    }

    fn text_event(&mut self, ty: &str, id: Option<&str>, text: &str) {
        self.push(Event::text(ty, id.map(str::to_owned), text));
    }

    fn json(&mut self, kind: &'static str, id: Option<&str>, json: &str) {
        let value = serde_json::from_str(json).unwrap_or(Value::Null);
        self.push(Event::json(kind, id.map(str::to_owned), value));
    }
}

/// Decodes one provider stream.
#[derive(Debug, Clone)]
pub struct ProviderStreamDecoder {
    format: StreamFormat,
    done: bool,
    finished: bool,
    message_id: Option<String>,
    /// Anthropic content blocks as (index, kind), not a vector indexed by the provider's
    /// number: an index of 4 294 967 295 costs one entry, not gigabytes. At most
    /// [`MAX_CONTENT_BLOCKS`] (a message has a handful), so each lookup is a short scan.
    blocks: Vec<(u64, BlockKind)>,
    /// The answer so far, measured: UTF-16 length (where a cited block starts) and code point
    /// offsets (where an annotation points).
    answer: CharsToUtf16,
    /// The open Anthropic text block's index, where it starts, and its citations, held
    /// until it ends (they span the block).
    cited: Option<(u64, usize, Vec<Citation>)>,
    /// Cited web pages, numbered.
    urls: UrlNumbers,
    finish_reason: Option<String>,
    /// Anthropic's usage so far (`message_start`'s, updated by `message_delta`).
    usage: UsageParts,
    /// Blocks around OpenAI-style deltas.
    framing: DeltaFraming,
    /// The open Anthropic `tool_use` block's index and its input so far.
    tool_input: Option<(u64, String)>,
    /// The shape of the last OpenAI-style message if it carried only a token.
    shape: TokenShape,
    /// Whether messages are tried with `fast_delta`'s reader first (the lean streaming module
    /// has none: there `message_reader` reads every message the shape does not).
    #[cfg(not(feature = "lean-stream"))]
    fast_reader: bool,
    /// The decoder of a format of [`formats`], which reads every message in its place.
    #[cfg(not(feature = "lean-stream"))]
    other: Option<formats::Decoder>,
}

impl ProviderStreamDecoder {
    pub fn new(format: StreamFormat) -> Self {
        Self {
            format,
            done: false,
            finished: false,
            message_id: None,
            blocks: Vec::new(),
            answer: CharsToUtf16::default(),
            cited: None,
            urls: UrlNumbers::default(),
            finish_reason: None,
            usage: UsageParts::default(),
            framing: DeltaFraming::default(),
            tool_input: None,
            shape: TokenShape::default(),
            #[cfg(not(feature = "lean-stream"))]
            fast_reader: true,
            #[cfg(not(feature = "lean-stream"))]
            other: formats::Decoder::new(format),
        }
    }

    /// The decoder as the lean streaming module runs it, without `fast_delta`'s reader: for
    /// the tests that hold both ways to the same events.
    #[cfg(not(feature = "lean-stream"))]
    #[doc(hidden)]
    pub fn without_fast_reader(format: StreamFormat) -> Self {
        Self {
            fast_reader: false,
            ..Self::new(format)
        }
    }

    /// Why the model stopped, once it said so.
    pub fn finish_reason(&self) -> Option<&str> {
        #[cfg(not(feature = "lean-stream"))]
        if let Some(other) = &self.other {
            return other.finish_reason();
        }
        self.finish_reason.as_deref()
    }

    /// Data that is not what the format sends (cold: out of the decoding paths).
    #[cold]
    #[inline(never)]
    fn invalid(&self, detail: String) -> StreamError {
        StreamError::InvalidData {
            provider: self.format.name(),
            detail,
        }
    }

    /// A message that is not JSON: why, and the message quoted.
    #[cold]
    #[inline(never)]
    fn not_json(&self, e: &ReadError, data: &str) -> StreamError {
        self.invalid(cat(&[&e.message(), " in ", &quoted(truncate(data))]))
    }

    /// [`Self::invalid`] with a fixed detail.
    #[cold]
    #[inline(never)]
    fn missing(&self, detail: &'static str) -> StreamError {
        self.invalid(detail.to_owned())
    }

    pub fn push(&mut self, message: &SseMessage) -> Result<Vec<Event>, StreamError> {
        let mut out = Vec::new();
        self.push_into(message, &mut out)?;
        Ok(out)
    }

    /// [`Self::push`], the events going to `out` as they are decoded.
    pub fn push_into(
        &mut self,
        message: &SseMessage,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        self.push_sse(message.as_event(), out)
    }

    /// [`Self::push_into`] for a message as the SSE decoder hands it over (borrowed).
    pub fn push_sse(
        &mut self,
        message: SseEvent<'_>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        if self.finished {
            return Err(StreamError::Finished);
        }
        #[cfg(not(feature = "lean-stream"))]
        if let Some(other) = &mut self.other {
            return other.push(message, out);
        }
        let data = message.data;
        if self.done || data.is_empty() {
            return Ok(());
        }
        if message.is_done() {
            self.done = true;
            self.framing.close(&self.message_id, out);
            return Ok(());
        }
        // A message shaped as the last one around a new token: that token (see `token_shape`).
        if let Some(token) = self.shape.token(data) {
            match token.block {
                // As `anthropic` reads a `content_block_delta`: empty text too.
                Some(id) => Self::text(&mut self.answer, out, token.kind, Some(id), &token.text),
                None if token.text.is_empty() => {}
                None => self.delta_text(token.kind, &token.text, out),
            }
            return Ok(());
        }
        // Typed and borrowed (see `wire`): no generic JSON tree for every token; the messages
        // that carry tokens by a reader of their own (see `fast_delta`; not in the lean
        // module), the rest by `message_reader`. Either notes where the strings no reader reads
        // are, for the shape kept when the message is a plain token's.
        let ping = message.event == Some("ping");
        let mut ignored = Ignored::default();
        let parsed: Message = match self.fast_read(data, &mut ignored) {
            Some(parsed) => parsed,
            None => {
                self.shape.clear();
                read_message(data, &mut ignored).map_err(|e| self.not_json(&e, data))?
            }
        };
        let message_id = &self.message_id;
        let block_id = |index| block_id(message_id.as_deref(), index);
        self.shape
            .keep(&parsed, data, &ignored, self.format, block_id);
        match (&parsed.error.text, self.format) {
            (Some(error), _) if !ping => Err(self.provider_error(error)),
            // Borrowed: the message is dropped here, once, not on each of their ways out.
            (_, StreamFormat::OpenAi) => self.openai(&parsed, out),
            (_, StreamFormat::Anthropic) => self.anthropic(&parsed, out),
            // Read by their own decoders (`push_sse` hands them every message).
            #[cfg(not(feature = "lean-stream"))]
            (_, StreamFormat::Other(_)) => Ok(()),
        }
    }

    /// A message read by `fast_delta`'s reader, or `None` when it declines (or there is none).
    fn fast_read<'d>(&self, data: &'d str, ignored: &mut Ignored) -> Option<Message<'d>> {
        #[cfg(not(feature = "lean-stream"))]
        if self.fast_reader {
            return fast_delta::read_noting(data, ignored);
        }
        let _ = (data, ignored);
        None
    }

    /// Ends the stream: an error unless the provider said it was complete.
    pub fn finish(&mut self) -> Result<Vec<Event>, StreamError> {
        if self.finished {
            return Err(StreamError::Finished);
        }
        self.finished = true;
        #[cfg(not(feature = "lean-stream"))]
        if let Some(other) = &mut self.other {
            let mut out = Vec::new();
            other.finish(&mut out)?;
            return Ok(out);
        }
        if self.done || (self.format == StreamFormat::OpenAi && self.finish_reason.is_some()) {
            Ok(Vec::new())
        } else {
            Err(StreamError::Truncated {
                provider: self.format.name(),
            })
        }
    }

    /// The error a provider sent (its JSON text): its `message` when that is a string, else
    /// the whole error's JSON text without whitespace; its `code` (or `type`) when given: the
    /// string, or any other value's JSON text.
    fn provider_error(&self, error: &str) -> StreamError {
        let entries = raw_json::entries(error);
        let text = |raw: &str| {
            raw_json::string(raw)
                .unwrap_or_else(|| raw_json::compact(raw))
                .into_owned()
        };
        let message = raw_json::get(&entries, "message")
            .and_then(raw_json::string)
            .map_or_else(|| raw_json::compact(error).into_owned(), Cow::into_owned);
        let code = raw_json::get(&entries, "code")
            .or_else(|| raw_json::get(&entries, "type"))
            .map(text);
        StreamError::Provider {
            provider: self.format.name(),
            message,
            code,
        }
    }

    /// Text of a block, counted into the answer's length when it is answer text.
    fn text(
        answer: &mut CharsToUtf16,
        out: &mut dyn EventSink,
        kind: &'static str,
        id: Option<&str>,
        text: &str,
    ) {
        if kind == types::RESPONSE {
            answer.push(text);
        }
        out.text(kind, id, text);
    }

    /// Text of an OpenAI-style delta, in a block of its kind (opened when needed).
    #[inline(never)]
    fn delta_text(&mut self, kind: &'static str, text: &str, out: &mut dyn EventSink) {
        self.framing.before_text(kind, &self.message_id, out);
        let id = self.message_id.as_deref();
        Self::text(&mut self.answer, out, kind, id, text);
    }

    /// Answer text of an Anthropic block (its id is the block's, not borrowed from `self`).
    fn answer(&mut self, out: &mut dyn EventSink, id: Option<&str>, text: &str) {
        Self::text(&mut self.answer, out, types::RESPONSE, id, text);
    }

    fn citation_event(citation: &Citation, id: Option<&str>, out: &mut dyn EventSink) {
        out.json(types::CITATION, id, &citation.json_text());
    }

    /// The held citations of the text block that ends (or is left open), spanning it.
    fn release_citations(&mut self, out: &mut dyn EventSink) {
        if let Some((index, start, citations)) = self.cited.take() {
            let span = [start, self.answer.units()];
            let id = self.block_id(index);
            for mut c in citations {
                c.span = span;
                Self::citation_event(&c, id.as_deref(), out);
            }
        }
    }

    fn openai(&mut self, chunk: &Message, out: &mut dyn EventSink) -> Result<(), StreamError> {
        // Kept, not replaced, when it is the same (a stream sends one id with every token).
        if let Some(id) = chunk.id.str() {
            if self.message_id.as_deref() != Some(id) {
                self.message_id = Some(owned(id));
            }
        }
        let choice = match &chunk.choices {
            Choices::Absent => None,
            Choices::Array(first) => first.as_deref(),
            Choices::NotArray => return Err(self.missing("`choices` is not an array")),
        };
        // Only the first choice is followed (n > 1 is not streamed by chat UIs).
        if let Some(choice) = choice {
            if let Some(delta) = choice.delta.0.as_deref() {
                if let Some(text) = [&delta.reasoning_content, &delta.reasoning]
                    .into_iter()
                    .find_map(|r| r.str().filter(|t| !t.is_empty()))
                {
                    self.delta_text(types::THINKING, text, out);
                }
                // A string, or (some compatible servers) an array of content parts.
                if let Some(text) = delta.content.content().filter(|t| !t.is_empty()) {
                    self.delta_text(types::RESPONSE, text, out);
                }
                // Web citations (OpenAI web search, OpenRouter's web plugin).
                for a in &delta.annotations.0 {
                    if let Some(c) = native_citations::openai(a, &self.answer, &mut self.urls) {
                        Self::citation_event(&c, self.message_id.as_deref(), out);
                    }
                }
            }
            if let Some(reason) = choice.finish_reason.str() {
                self.finish_reason = Some(owned(reason));
                self.framing.close(&self.message_id, out);
            }
        }
        if let Some(usage) = &chunk.usage.text {
            out.json(USAGE, self.message_id.as_deref(), &normalize_text(usage));
        }
        Ok(())
    }

    /// A `usage` event with Anthropic's usage so far, if it changed since the last one.
    fn usage_event(&mut self, out: &mut dyn EventSink) {
        if let Some(usage) = self.usage.take_changed() {
            out.json(USAGE, self.message_id.as_deref(), &usage);
        }
    }

    fn block_id(&self, index: u64) -> Option<String> {
        block_id(self.message_id.as_deref(), index)
    }

    /// A content block's start, delta or stop (`kind`), at `index`, whose id is `id`.
    fn block_event(
        &mut self,
        kind: &str,
        index: u64,
        id: Option<&str>,
        event: &Message,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        match kind {
            "content_block_start" => {
                let block = event.content_block.0.as_deref();
                let kind = match block.and_then(|b| b.kind.str()) {
                    Some("text") => BlockKind::Text,
                    Some("thinking") | Some("redacted_thinking") => BlockKind::Thinking,
                    Some("tool_use") => BlockKind::Tool,
                    _ => BlockKind::Other,
                };
                if let Some(block) = self.blocks.iter_mut().find(|(i, _)| *i == index) {
                    block.1 = kind;
                } else if self.blocks.len() < MAX_CONTENT_BLOCKS {
                    self.blocks.push((index, kind));
                } else {
                    return Err(self.invalid(cat(&[
                        "more than ",
                        decimal(MAX_CONTENT_BLOCKS).as_str(),
                        " content blocks in one message",
                    ])));
                }
                match kind {
                    BlockKind::Text => {
                        self.release_citations(out);
                        self.cited = Some((index, self.answer.units(), Vec::new()));
                        out.text_event("response_start", id, "");
                        if let Some(text) =
                            block.and_then(|b| b.text.str()).filter(|t| !t.is_empty())
                        {
                            self.answer(out, id, text);
                        }
                    }
                    BlockKind::Thinking => out.text_event("thinking_start", id, ""),
                    BlockKind::Tool => self.tool_input = Some((index, String::new())),
                    BlockKind::Other => {}
                }
            }
            "content_block_delta" => {
                let Some(delta) = event.delta.0.as_deref() else {
                    return Ok(());
                };
                match delta.kind.str() {
                    Some("text_delta") => {
                        let text = delta
                            .text
                            .str()
                            .ok_or_else(|| self.missing("text_delta without `text`"))?;
                        self.answer(out, id, text);
                    }
                    Some("thinking_delta") => {
                        let text = delta
                            .thinking
                            .str()
                            .ok_or_else(|| self.missing("thinking_delta without `thinking`"))?;
                        out.text(types::THINKING, id, text);
                    }
                    Some("citations_delta") => {
                        let here = self.answer.units();
                        let c = native_citations::anthropic(
                            delta.citation.0.as_deref(),
                            [here, here],
                            &mut self.urls,
                        );
                        match self.cited.as_mut() {
                            Some((i, _, held))
                                if *i == index && held.len() < MAX_HELD_CITATIONS =>
                            {
                                held.push(c)
                            }
                            Some((i, start, _)) if *i == index => {
                                let c = Citation {
                                    span: [*start, here],
                                    ..c
                                };
                                Self::citation_event(&c, id, out);
                            }
                            _ => Self::citation_event(&c, id, out),
                        }
                    }
                    Some("input_json_delta") => {
                        let piece = delta.partial_json.str().unwrap_or_default();
                        if !piece.is_empty()
                            && matches!(&self.tool_input, Some((i, _)) if *i == index)
                        {
                            out.text_event(STRUCTURED_DELTA, id, piece);
                        }
                        let too_large = match self.tool_input.as_mut() {
                            Some((i, json)) if *i == index => {
                                json.push_str(piece);
                                json.len() > MAX_TOOL_INPUT_BYTES
                            }
                            _ => false,
                        };
                        if too_large {
                            return Err(self.invalid(cat(&[
                                "a tool_use input larger than ",
                                decimal(MAX_TOOL_INPUT_BYTES).as_str(),
                                " bytes",
                            ])));
                        }
                    }
                    // signature_delta: nothing to show.
                    _ => {}
                }
            }
            _ => {
                match self.blocks.iter().find(|(i, _)| *i == index).map(|b| b.1) {
                    Some(BlockKind::Text) => {
                        if matches!(&self.cited, Some((i, _, _)) if *i == index) {
                            self.release_citations(out);
                        }
                        out.text_event("response_end", id, "");
                    }
                    Some(BlockKind::Thinking) => out.text_event("thinking_end", id, ""),
                    Some(BlockKind::Tool) => {
                        // The structured answer, whole: as a whole answer's tool_use input.
                        let json = match self.tool_input.take() {
                            Some((i, json)) if i == index => json,
                            other => {
                                self.tool_input = other;
                                String::new()
                            }
                        };
                        let text = if json.trim().is_empty() { "{}" } else { &json };
                        raw_json::check(text).map_err(|e| StreamError::InvalidOutput {
                            provider: self.format.name(),
                            detail: cat(&["a tool_use input that is not JSON: ", &e.message()]),
                        })?;
                        out.json(types::STRUCTURED, id, text);
                    }
                    _ => {}
                }
            }
        }
        Ok(())
    }

    fn anthropic(&mut self, event: &Message, out: &mut dyn EventSink) -> Result<(), StreamError> {
        let kind = event
            .kind
            .str()
            .ok_or_else(|| self.missing("an event without `type`"))?;
        let index = event.index.u64();
        match kind {
            "message_start" => {
                self.message_id = None;
                if let Some(message) = event.message.0.as_deref() {
                    self.message_id = message.id.str().map(owned);
                    // Input tokens now, output tokens with `message_delta`: one event for both.
                    if let Some(usage) = &message.usage.text {
                        self.usage.add(usage);
                    }
                }
            }
            "content_block_start" | "content_block_delta" | "content_block_stop" => {
                let Some(index) = index else {
                    return Err(self.missing(match kind {
                        "content_block_start" => "content_block_start without `index`",
                        "content_block_delta" => "content_block_delta without `index`",
                        _ => "content_block_stop without `index`",
                    }));
                };
                // Made once and dropped once, not on each of the block events' ways out.
                let id = self.block_id(index);
                return self.block_event(kind, index, id.as_deref(), event, out);
            }
            "message_delta" => {
                if let Some(reason) = event.delta.0.as_deref().and_then(|d| d.stop_reason.str()) {
                    self.finish_reason = Some(owned(reason));
                }
                if let Some(usage) = &event.usage.text {
                    self.usage.add(usage);
                }
                self.usage_event(out);
            }
            "message_stop" => {
                self.done = true;
                self.release_citations(out);
                self.usage_event(out);
            }
            _ => {} // ping and event types added later
        }
        Ok(())
    }
}

/// SSE decoding and provider decoding in one: response body bytes in, events out (one trip
/// across the JS boundary per network chunk instead of one per message).
#[derive(Debug, Clone)]
pub struct ProviderByteStream {
    sse: SseDecoder,
    provider: ProviderStreamDecoder,
}

impl ProviderByteStream {
    pub fn new(format: StreamFormat) -> Self {
        Self {
            sse: SseDecoder::default(),
            provider: ProviderStreamDecoder::new(format),
        }
    }

    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<Event>, StreamError> {
        let mut out = Vec::new();
        self.push_into(bytes, &mut out)?;
        Ok(out)
    }

    /// [`Self::push`], the events going to `out` as they are decoded: no message or event is
    /// built on the way for text.
    pub fn push_into(&mut self, bytes: &[u8], out: &mut dyn EventSink) -> Result<(), StreamError> {
        let provider = &mut self.provider;
        self.sse
            .push_with(bytes, &mut |message| provider.push_sse(message, out))
    }

    /// One SSE message already framed (by the caller's own SSE decoder), its events to `out`.
    pub fn push_message_into(
        &mut self,
        message: &SseMessage,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        self.provider.push_into(message, out)
    }

    pub fn finish(&mut self) -> Result<Vec<Event>, StreamError> {
        self.sse.finish()?;
        self.provider.finish()
    }

    /// Why the model stopped, once it said so.
    pub fn finish_reason(&self) -> Option<&str> {
        self.provider.finish_reason()
    }
}

/// A copy of `s` (made in one place: a copy inlines its allocation where it is made).
#[inline(never)]
fn owned(s: &str) -> String {
    s.to_owned()
}

/// The id of an Anthropic message's content block (formatted in one place, not where asked).
#[inline(never)]
fn block_id(message_id: Option<&str>, index: u64) -> Option<String> {
    Some(cat(&[
        message_id.unwrap_or("msg"),
        "-",
        Decimal::new(index).as_str(),
    ]))
}

fn truncate(s: &str) -> &str {
    match s.char_indices().nth(80) {
        Some((i, _)) => s.get(..i).unwrap_or(s),
        None => s,
    }
}
