//! Google Gemini (`generateContent`, `streamGenerateContent?alt=sse`): its request, its stream
//! decoder and its whole answer.
//!
//! A stream is a series of `data:` messages, each one `GenerateContentResponse`; a whole
//! answer is one of them. Read from the first candidate: its text parts → `response`, parts
//! marked `thought: true` (thought summaries) → `thinking`. There is no `[DONE]`: the answer
//! is complete at the chunk with a `finishReason` (sent as Gemini names it: `STOP`,
//! `MAX_TOKENS`, `SAFETY`, …), and a stream that ends before one is STREAM_TRUNCATED. A
//! prompt Gemini blocks has no candidate but `promptFeedback.blockReason`: that reason is the
//! answer's finish reason (an empty answer, complete, whose reason says why), for streams and
//! whole answers alike. A chunk `{"error": {…}}` is PROVIDER_ERROR, its code the error's
//! `status` (`INVALID_ARGUMENT`, …).
//!
//! Grounding (Google Search, file search, Maps): the `groundingMetadata` of the chunk that
//! ends the answer (earlier chunks carry `{}`; the last non-empty one is read). Every
//! `groundingChunks[i]` is a source numbered `i + 1` (kind `web`, `retrievedContext` or
//! `maps`), listed whether cited or not. Every `groundingSupports[]` entry cites each chunk of
//! its `groundingChunkIndices`: one citation per (segment, chunk), `covers: "claim"`, its span
//! the segment, whose `startIndex`/`endIndex` count UTF-8 bytes of the answer text (all the
//! answer's text parts joined, thought summaries excluded; the recordings agree by bytes and
//! not by characters), an absent `startIndex` being 0. The segment's `partIndex` is not read:
//! the recorded offsets count from the start of the whole answer whatever part they fall in.
//! `segment.text` is the answer's own text, not the source's, so no `citedText`.
//!
//! Usage (`usageMetadata`, cumulative: the last one is the answer's): `inputTokens` =
//! `promptTokenCount` + `toolUsePromptTokenCount` (the search results or retrieved passages
//! fed to the model), `outputTokens` = `candidatesTokenCount` + `thoughtsTokenCount` (Gemini
//! counts the answer and the thinking apart and bills both as output; citeflow's
//! `outputTokens` includes reasoning, as OpenAI's does), `reasoningTokens` =
//! `thoughtsTokenCount`, `cachedInputTokens` = `cachedContentTokenCount` (part of
//! `promptTokenCount`), `totalTokens` = `totalTokenCount` as sent (which is the sum of the four
//! counts). A count Gemini leaves out is left out.

mod request;
mod wire;

#[cfg(test)]
mod tests;

pub(crate) use request::request;

use serde_json::Value;

use super::super::framing::DeltaFraming;
use super::super::native_citations::split_url;
use super::super::offsets::{TextOffsets, Unit};
use super::super::sources::{ProviderSource, SourceList};
use super::super::sse::SseEvent;
use super::super::stream::{EventSink, StreamError};
use super::super::usage::Counted;
use super::{bad_message, parse, send_tail, whole_output, LmOutput, RequestError};
use crate::cite::{Citation, Covers};
use crate::event::{types, Event};
use wire::{Chunk, ErrorBody, Grounding, GroundingChunk, SourceRef};

/// The provider's name in errors.
const PROVIDER: &str = "google";

/// The most citations one answer gives (supports × their chunk indices); past it the rest
/// are dropped.
pub(crate) const MAX_CITATIONS: usize = 4096;

/// Decodes one Gemini stream (or a whole answer, as one message).
#[derive(Debug, Clone, Default)]
pub(crate) struct GeminiDecoder {
    framing: DeltaFraming,
    /// The answer's `responseId`: the id of its events.
    id: Option<String>,
    /// The answer text so far, for the byte offsets of its supports.
    text: TextOffsets,
    /// The last non-empty grounding, read when the answer ends.
    grounding: Option<Grounding>,
    /// The last `usageMetadata`, as sent.
    usage: Option<Value>,
    finish_reason: Option<String>,
    /// The provider said the answer is complete (and its tail was sent).
    done: bool,
}

impl GeminiDecoder {
    pub(crate) fn push(
        &mut self,
        message: SseEvent<'_>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        let data = message.data;
        // Nothing follows the answer's end; blank keep-alives carry nothing.
        if self.done || data.trim().is_empty() {
            return Ok(());
        }
        let value = parse(PROVIDER, data)?;
        let chunk = Chunk::read(value).map_err(|e| bad_message(PROVIDER, &e, data))?;
        if let Some(error) = &chunk.error {
            return Err(provider_error(error));
        }
        if self.id.is_none() {
            self.id = chunk.response_id.filter(|id| !id.is_empty());
        }
        if let Some(usage) = chunk.usage_metadata {
            if !usage.is_object() {
                return Err(invalid("`usageMetadata` is not an object".into()));
            }
            self.usage = Some(usage);
        }
        match chunk.candidate {
            Some(candidate) => {
                for part in candidate.parts {
                    let Some(text) = part.text.filter(|t| !t.is_empty()) else {
                        continue;
                    };
                    let kind = if part.thought {
                        types::THINKING
                    } else {
                        self.text.push(&text);
                        types::RESPONSE
                    };
                    self.framing.before_text(kind, &self.id, out);
                    out.text(kind, self.id.as_deref(), &text);
                }
                if let Some(grounding) = candidate.grounding_metadata.filter(|g| !g.is_empty()) {
                    self.grounding = Some(grounding);
                }
                self.finish_reason = candidate.finish_reason.filter(|r| !r.is_empty());
            }
            // A blocked prompt: no candidate, the reason in `promptFeedback`.
            None => {
                self.finish_reason = chunk.block_reason.filter(|r| !r.is_empty());
            }
        }
        if self.finish_reason.is_some() {
            self.done = true;
            self.end(out);
        }
        Ok(())
    }

    /// The stream ended: complete only if the provider said so.
    pub(crate) fn finish(&mut self, out: &mut dyn EventSink) -> Result<(), StreamError> {
        let _ = out;
        if self.done {
            Ok(())
        } else {
            Err(StreamError::Truncated { provider: PROVIDER })
        }
    }

    pub(crate) fn finish_reason(&self) -> Option<&str> {
        self.finish_reason.as_deref()
    }

    /// The answer's tail: its last block closed, its sources, its citations, its usage.
    fn end(&mut self, out: &mut dyn EventSink) {
        self.framing.close(&self.id, out);
        let (sources, citations) = match self.grounding.take() {
            Some(grounding) => cite(&grounding, &self.text),
            None => Default::default(),
        };
        let sources = (!sources.is_empty()).then(|| sources.json_text());
        let usage = self
            .usage
            .take()
            .map(|raw| counted(&raw).usage(raw).to_string());
        send_tail(out, self.id.as_deref(), sources, &citations, usage);
    }
}

/// A grounding chunk's kind name and its fields.
fn kind_of(chunk: &GroundingChunk) -> Option<(&'static str, &SourceRef)> {
    [
        ("web", &chunk.web),
        ("retrievedContext", &chunk.retrieved_context),
        ("maps", &chunk.maps),
    ]
    .into_iter()
    .find_map(|(kind, r)| Some((kind, r.as_ref()?)))
}

/// The answer's sources (every grounding chunk, numbered by its index + 1) and citations
/// (one per support and chunk index), spans through `text`.
fn cite(grounding: &Grounding, text: &TextOffsets) -> (SourceList, Vec<Citation>) {
    let chunks = &grounding.grounding_chunks[..];
    let mut sources = SourceList::default();
    let empty = SourceRef::default();
    for (i, chunk) in chunks.iter().enumerate() {
        // A chunk of a kind not known here is listed by the number its index gives it.
        let (kind, r) = kind_of(chunk).unwrap_or(("unknown", &empty));
        sources.number(&i.to_string(), || {
            let mut source = ProviderSource::new(kind, r.uri.as_deref());
            source.title = r.title.clone().or_else(|| r.domain.clone());
            source.provider_id = r.document_name.clone().or_else(|| r.place_id.clone());
            source.snippet = r.text.clone();
            source
        });
    }
    let mut citations = Vec::new();
    let supports = &grounding.grounding_supports;
    'supports: for support in supports {
        let start = text.utf16(support.start_index.unwrap_or(0), Unit::Utf8Bytes);
        let end = text
            .utf16(support.end_index.unwrap_or(0), Unit::Utf8Bytes)
            .max(start);
        for &index in &support.grounding_chunk_indices {
            if citations.len() >= MAX_CITATIONS {
                break 'supports;
            }
            citations.push(citation(chunks, index, [start, end]));
        }
    }
    (sources, citations)
}

/// The citation of grounding chunk `index` at `span`: of no known source (`sourceId` 0,
/// `valid` false) when there is no such chunk.
fn citation(chunks: &[GroundingChunk], index: u64, span: [usize; 2]) -> Citation {
    let found = usize::try_from(index)
        .ok()
        .and_then(|i| Some((i, chunks.get(i)?)));
    let Some((i, chunk)) = found else {
        return Citation {
            covers: Some(Covers::Claim),
            ..Citation::at_marker(0, String::new(), span, false)
        };
    };
    let source_id = u32::try_from(i + 1).unwrap_or(u32::MAX);
    let (kind, r) = match kind_of(chunk) {
        Some((kind, r)) => (kind, Some(r)),
        None => ("unknown", None),
    };
    let (url, raw_url) = split_url(r.and_then(|r| r.uri.as_deref()));
    Citation {
        document_title: r.and_then(|r| r.title.clone().or_else(|| r.domain.clone())),
        url,
        raw_url,
        location: Some(kind.to_owned()),
        covers: Some(Covers::Claim),
        ..Citation::at_marker(source_id, String::new(), span, true)
    }
}

/// The sources and citations of a `groundingMetadata` value as Gemini sent it, for the
/// answer `text` (its text parts joined, thought summaries excluded): what the stream decoder
/// gives at the answer's end, for callers that hold the grounding apart from the stream (the
/// AI SDK's `providerMetadata.google.groundingMetadata`). Spans in UTF-16 code units.
/// Metadata that is not Gemini's shape is INVALID_PROVIDER_DATA.
#[cfg_attr(
    not(all(
        target_arch = "wasm32",
        not(feature = "web"),
        feature = "wasm-stream-module"
    )),
    allow(dead_code)
)]
pub(crate) fn grounding_citations(
    text: &str,
    grounding: &Value,
) -> Result<(SourceList, Vec<Citation>), StreamError> {
    let object = grounding
        .as_object()
        .ok_or_else(|| invalid("`groundingMetadata` is not an object".into()))?;
    let grounding = Grounding::read(object).map_err(invalid)?;
    let mut offsets = TextOffsets::default();
    offsets.push(text);
    Ok(cite(&grounding, &offsets))
}

/// Gemini's usage counts in the one shape (see the module's notes).
fn counted(raw: &Value) -> Counted {
    let count = |key: &str| raw.get(key).and_then(Value::as_u64);
    let prompt = count("promptTokenCount");
    let tool_prompt = count("toolUsePromptTokenCount");
    let candidates = count("candidatesTokenCount");
    let thoughts = count("thoughtsTokenCount");
    let input = prompt.and_then(|p| p.checked_add(tool_prompt.unwrap_or(0)));
    let output = match (candidates, thoughts) {
        (None, None) => None,
        (c, t) => c.unwrap_or(0).checked_add(t.unwrap_or(0)),
    };
    Counted {
        input,
        output,
        total: count("totalTokenCount"),
        cached_input: count("cachedContentTokenCount"),
        cache_write: None,
        reasoning: thoughts,
    }
}

/// An in-stream `{"error": …}`: its `status` as the code (`INVALID_ARGUMENT`), else its
/// numeric `code`.
#[cold]
fn provider_error(error: &ErrorBody) -> StreamError {
    let code = error.status.clone().filter(|s| !s.is_empty()).or_else(|| {
        error
            .code
            .as_ref()
            .filter(|c| !c.is_null())
            .map(|c| match c {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            })
    });
    StreamError::Provider {
        provider: PROVIDER,
        message: error
            .message
            .clone()
            .unwrap_or_else(|| "the stream sent an error".to_owned()),
        code,
    }
}

#[cold]
fn invalid(detail: String) -> StreamError {
    StreamError::InvalidData {
        provider: PROVIDER,
        detail,
    }
}

/// A whole answer: the body read by the stream decoder as one message, its events folded.
pub(crate) fn whole_answer(body: &str, structured: bool) -> Result<LmOutput, RequestError> {
    let mut decoder = GeminiDecoder::default();
    let mut events: Vec<Event> = Vec::new();
    let message = SseEvent {
        event: None,
        data: body,
        id: None,
        retry: None,
    };
    decoder
        .push(message, &mut events)
        .and_then(|()| decoder.finish(&mut events))
        .map_err(|e| match e {
            StreamError::Truncated { .. } => RequestError::InvalidResponse {
                provider: PROVIDER,
                detail: "the answer has no `finishReason`: it is incomplete".into(),
            },
            other => RequestError::InvalidResponse {
                provider: PROVIDER,
                detail: other.message(),
            },
        })?;
    whole_output(&events, decoder.finish_reason(), structured)
}
