//! The providers beyond OpenAI's Chat Completions and Anthropic's Messages, one module each:
//! its request, its stream decoder and its whole answer (read by the same decoder, so that a
//! streamed answer and the same answer whole give the same text and citations).
//!
//! Every decoder here follows one event order: blocks (`*_start`, deltas, `*_end`), then the
//! answer's `sources` (once), the citations not yet sent, `usage` last. A `structured` answer
//! comes as `response` text, as OpenAI's does, which the caller's `json` stage reads. Spans are
//! UTF-16 offsets into the `response` text (see [`super::offsets`]). Not in the lean streaming
//! module: an engine decoding these formats runs in the full one.

use serde_json::{Map, Value};

mod chat_like;
mod cohere;
mod cohere_citations;
mod cohere_request;
mod gemini;
mod mistral;
mod perplexity;
mod responses;

// For the full streaming module's `groundingCitations` (src/wasm/grounding.rs).
#[cfg(all(
    target_arch = "wasm32",
    not(feature = "web"),
    feature = "wasm-stream-module"
))]
pub(crate) use gemini::grounding_citations;

use super::sse::SseEvent;
use super::stream::{EventSink, StreamError, StreamFormat};
use super::{HttpRequest, LmRequest, ModelId, Provider, RequestError};
use crate::cite::{Citation, Mechanism};
use crate::event::{items_from_events, types, Event, LmOutput, OutputItem};
use crate::text::{cat, quoted};

/// A stream decoder of one of these formats.
#[derive(Debug, Clone)]
pub(crate) enum Decoder {
    Cohere(cohere::CohereDecoder),
    /// OpenAI's and xAI's Responses API.
    Responses(responses::ResponsesDecoder),
    Google(gemini::GeminiDecoder),
    /// Perplexity's and Mistral's Chat Completions chunks.
    ChatLike(chat_like::ChatLike),
}

impl Decoder {
    /// The decoder of `format`, when it is one of these.
    pub(crate) fn new(format: StreamFormat) -> Option<Self> {
        match format {
            StreamFormat::Other(Provider::Cohere) => Some(Self::Cohere(Default::default())),
            StreamFormat::Other(p @ (Provider::OpenaiResponses | Provider::Xai)) => {
                Some(Self::Responses(responses::ResponsesDecoder::new(p)))
            }
            StreamFormat::Other(Provider::Google) => Some(Self::Google(Default::default())),
            StreamFormat::Other(Provider::Perplexity) => Some(Self::ChatLike(
                chat_like::ChatLike::new(chat_like::Flavor::Perplexity),
            )),
            StreamFormat::Other(Provider::Mistral) => Some(Self::ChatLike(
                chat_like::ChatLike::new(chat_like::Flavor::Mistral),
            )),
            _ => None,
        }
    }

    pub(crate) fn push(
        &mut self,
        message: SseEvent<'_>,
        out: &mut dyn EventSink,
    ) -> Result<(), StreamError> {
        match self {
            Self::Cohere(d) => d.push(message, out),
            Self::Responses(d) => d.push(message, out),
            Self::Google(d) => d.push(message, out),
            Self::ChatLike(d) => d.push(message, out),
        }
    }

    /// Ends the stream: what was held back (the answer's sources and citations, usage), or
    /// an error when the provider never said the answer was complete.
    pub(crate) fn finish(&mut self, out: &mut dyn EventSink) -> Result<(), StreamError> {
        match self {
            Self::Cohere(d) => d.finish(out),
            Self::Responses(d) => d.finish(out),
            Self::Google(d) => d.finish(out),
            Self::ChatLike(d) => d.finish(out),
        }
    }

    pub(crate) fn finish_reason(&self) -> Option<&str> {
        match self {
            Self::Cohere(d) => d.finish_reason(),
            Self::Responses(d) => d.finish_reason(),
            Self::Google(d) => d.finish_reason(),
            Self::ChatLike(d) => d.finish_reason(),
        }
    }
}

/// A stream message as JSON, or INVALID_PROVIDER_DATA saying why it is not (see [`bad_message`]).
pub(super) fn parse(provider: &'static str, data: &str) -> Result<Value, StreamError> {
    serde_json::from_str(data).map_err(|e| bad_message(provider, &e.to_string(), data))
}

/// A message that is not what `provider` sends: why, and the message's start quoted.
#[cold]
#[inline(never)]
pub(super) fn bad_message(provider: &'static str, why: &str, data: &str) -> StreamError {
    StreamError::InvalidData {
        provider,
        detail: cat(&[why, " in ", &quoted(head(data))]),
    }
}

/// The start of a message (its first 80 characters), for an error that quotes it.
pub(super) fn head(data: &str) -> &str {
    match data.char_indices().nth(80) {
        Some((i, _)) => data.get(..i).unwrap_or(data),
        None => data,
    }
}

/// The answer's tail, after its last block closed, as every decoder here sends it: its
/// sources (JSON text, when it has any), its citations, its usage (JSON text).
#[inline(never)]
pub(super) fn send_tail(
    out: &mut dyn EventSink,
    id: Option<&str>,
    sources: Option<String>,
    citations: &[Citation],
    usage: Option<String>,
) {
    if let Some(sources) = sources {
        out.json(super::sources::SOURCES, id, &sources);
    }
    for citation in citations {
        out.json(types::CITATION, id, &citation.json_text());
    }
    if let Some(usage) = usage {
        out.json(super::stream::USAGE, id, &usage);
    }
}

/// The request to one of these providers (`None`: the provider is not one of them).
/// `mechanism`: how its citations are enforced; `req`'s messages already carry the note a
/// structured cited answer needs; `base`: the API's base URL without a trailing slash.
pub(crate) fn request(
    id: &ModelId,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
    api_key: Option<&str>,
    base: &str,
) -> Option<Result<HttpRequest, RequestError>> {
    match id.provider {
        Provider::Cohere => Some(cohere_request::request(id, req, mechanism, api_key, base)),
        Provider::OpenaiResponses | Provider::Xai => {
            Some(responses::request(id, req, mechanism, api_key, base))
        }
        Provider::Google => Some(gemini::request(id, req, mechanism, api_key, base)),
        Provider::Perplexity => Some(perplexity::request(id, req, mechanism, api_key, base)),
        Provider::Mistral => Some(mistral::request(id, req, mechanism, api_key, base)),
        _ => None,
    }
}

/// What a request to one of these providers asks its answer to follow: `(name, schema)`, the
/// citation schema (`cited_answer`) when a schema enforces the citations, else the caller's
/// `responseSchema` (`response`). What none of them takes is refused, never dropped:
/// log-probabilities, a grammar, a citation mechanism other than a schema or the prompt's rule.
pub(crate) fn answer_schema(
    provider: Provider,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
) -> Result<Option<(&'static str, Value)>, RequestError> {
    let refused = |option: &'static str, what: &str| RequestError::InvalidOption {
        option,
        reason: cat(&[what, " is not available for ", provider.name(), " models"]),
    };
    if req.logprobs == Some(true) {
        return Err(refused("logprobs", "it"));
    }
    if req.top_logprobs.is_some() {
        return Err(refused("topLogprobs", "it"));
    }
    if req.grammar.is_some() {
        return Err(refused("grammar", "it"));
    }
    match (mechanism, &req.citations) {
        (Some(Mechanism::Schema), Some(cite)) => Ok(Some((
            crate::cite::enforce::CITED_ANSWER,
            super::request::cite_schema(cite)?,
        ))),
        (Some(other @ (Mechanism::Grammar | Mechanism::Tool)), _) => Err(refused(
            "citations",
            &cat(&["enforce \"", other.name(), "\""]),
        )),
        _ => Ok(req.response_schema.clone().map(|s| ("response", s))),
    }
}

/// A whole (non-streamed) answer of one of these providers (`None`: not one of them).
pub(crate) fn whole_answer(
    provider: Provider,
    body: &str,
    structured: bool,
) -> Option<Result<LmOutput, RequestError>> {
    match provider {
        Provider::Cohere => Some(cohere::whole_answer(body, structured)),
        Provider::OpenaiResponses | Provider::Xai => {
            Some(responses::whole_answer(provider, body, structured))
        }
        Provider::Google => Some(gemini::whole_answer(body, structured)),
        Provider::Perplexity => Some(perplexity::whole_answer(body, structured)),
        Provider::Mistral => Some(mistral::whole_answer(body, structured)),
        _ => None,
    }
}

/// A whole answer of one of these providers as an LMOutput: the events its decoder made of
/// it, folded (`structured`: the request asked for a structured answer, whose JSON text
/// becomes a structured item).
pub(crate) fn whole_output(
    events: &[Event],
    finish_reason: Option<&str>,
    structured: bool,
) -> Result<LmOutput, RequestError> {
    let mut outputs = items_from_events(events);
    if structured {
        for item in &mut outputs {
            if let OutputItem::Text(text) = item {
                let value = serde_json::from_str(text).map_err(|e| {
                    RequestError::InvalidOutput(format!(
                        "the answer to a responseSchema request is not JSON ({e}); a cut answer needs a larger maxTokens"
                    ))
                })?;
                *item = OutputItem::Structured(value);
            }
        }
    }
    let mut extra = Map::new();
    let mut citations = Vec::new();
    for event in events {
        match event.kind.as_str() {
            types::CITATION => citations.push(event.value.clone()),
            super::sources::SOURCES => {
                extra.insert(super::sources::SOURCES.into(), event.value.clone());
            }
            super::stream::USAGE => {
                extra.insert("usage".into(), event.value.clone());
            }
            _ => {}
        }
    }
    if let Some(reason) = finish_reason {
        extra.insert("finishReason".into(), Value::from(reason));
    }
    if !citations.is_empty() {
        extra.insert("citations".into(), Value::Array(citations));
    }
    Ok(LmOutput { outputs, extra })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_whole_answer_is_its_events_folded() {
        let events = vec![
            Event::text("thinking", None, "hm"),
            Event::text("response", None, "{\"a\":"),
            Event::text("response", None, "1}"),
            Event::json("sources", None, json!([{"sourceId": 1, "kind": "web"}])),
            Event::json("citation", None, json!({"sourceId": 1, "span": [0, 1]})),
            Event::json("usage", None, json!({"inputTokens": 3})),
        ];
        let text = whole_output(&events, Some("stop"), false).unwrap();
        assert_eq!(
            serde_json::to_value(&text).unwrap(),
            json!({
                "outputs": [{"type": "thinking", "output": "hm"}, {"type": "text", "output": "{\"a\":1}"}],
                "sources": [{"sourceId": 1, "kind": "web"}],
                "citations": [{"sourceId": 1, "span": [0, 1]}],
                "usage": {"inputTokens": 3},
                "finishReason": "stop",
            })
        );
        let structured = whole_output(&events, None, true).unwrap();
        assert_eq!(
            structured.outputs[1],
            OutputItem::Structured(json!({"a": 1}))
        );
        let cut = [Event::text("response", None, "{\"a\":")];
        assert_eq!(
            whole_output(&cut, None, true).unwrap_err().code(),
            "INVALID_OUTPUT"
        );
    }
}
