//! Model ids, request building, response decoding, error classification and the retry
//! schedule for the LM invokers. The transport (the runtime's `fetch`) lives at the edge; all
//! of what is sent and how answers are read is here.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use thiserror::Error;

use crate::cite::enforce::{citation_schema, CITED_ANSWER};
use crate::cite::{
    citation_grammar, CiteOptions, CitedAnswer, Enforce, GrammarFormat, GrammarOptions, Mechanism,
    ParseOptions, Policy,
};
use crate::event::{LmOutput, OutputItem};
use crate::transform::OutputTransformer;

use super::native_citations::{self, CharsToUtf16, UrlNumbers};
use super::wire::{CitationPart, MAX_LIST_ITEMS};

/// Anthropic requires `max_tokens`; this is used when the caller gives none.
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u64 = 4096;
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
pub const OPENAI_BASE: &str = "https://api.openai.com/v1";
pub const OPENROUTER_BASE: &str = "https://openrouter.ai/api/v1";
pub const ANTHROPIC_BASE: &str = "https://api.anthropic.com";
/// First retry delay, doubled per attempt, and the cap.
pub const RETRY_BASE_MS: u64 = 500;
pub const RETRY_MAX_MS: u64 = 30_000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    Openai,
    Openrouter,
    OpenaiCompatible,
    Anthropic,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Openrouter => "openrouter",
            Self::OpenaiCompatible => "openai-compatible",
            Self::Anthropic => "anthropic",
        }
    }

    /// The wire format of its streams (see `StreamFormat::parse`).
    pub fn stream_format(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            _ => "openai",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Error)]
pub enum RequestError {
    #[error("invalid model id {id:?}: {reason}")]
    InvalidModelId { id: String, reason: String },
    #[error("invalid option `{option}`: {reason}")]
    InvalidOption {
        option: &'static str,
        reason: String,
    },
    #[error("{provider} answered with something that is not the expected JSON: {detail}")]
    InvalidResponse {
        provider: &'static str,
        detail: String,
    },
}

impl RequestError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidModelId { .. } => "INVALID_MODEL_ID",
            Self::InvalidOption { .. } => "INVALID_OPTION",
            Self::InvalidResponse { .. } => "INVALID_PROVIDER_DATA",
        }
    }
}

/// `openai/<model>`, `anthropic/<model>`, `openrouter/<vendor>/<model>`, `openai-compatible/<model>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelId {
    pub provider: Provider,
    /// The model name sent to the provider (without the provider prefix).
    pub model: String,
}

impl ModelId {
    pub fn parse(id: &str) -> Result<Self, RequestError> {
        let bad = |reason: &str| RequestError::InvalidModelId {
            id: id.to_owned(),
            reason: reason.to_owned(),
        };
        let (prefix, model) = id
            .split_once('/')
            .ok_or_else(|| bad("expected provider/model, e.g. \"openai/gpt-4o-mini\""))?;
        let provider = match prefix {
            "openai" => Provider::Openai,
            "openrouter" => Provider::Openrouter,
            "openai-compatible" => Provider::OpenaiCompatible,
            "anthropic" => Provider::Anthropic,
            _ => {
                return Err(bad(
                    "the provider must be openai, anthropic, openrouter or openai-compatible",
                ))
            }
        };
        if model.trim().is_empty() {
            return Err(bad("the model name is empty"));
        }
        if provider == Provider::Openrouter && !model.contains('/') {
            return Err(bad("OpenRouter models are vendor/model, e.g. \"openrouter/anthropic/claude-sonnet-4.5\""));
        }
        Ok(Self {
            provider,
            model: model.to_owned(),
        })
    }
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Message {
    pub role: String,
    pub content: String,
}

/// What the caller asks for.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LmRequest {
    pub messages: Vec<Message>,
    #[serde(default)]
    pub temperature: Option<f64>,
    #[serde(default)]
    pub max_tokens: Option<u64>,
    /// A JSON schema the answer must follow (structured output).
    #[serde(default)]
    pub response_schema: Option<Value>,
    #[serde(default)]
    pub logprobs: Option<bool>,
    /// How many alternatives to return for each token (OpenAI-style `top_logprobs`, 0–20);
    /// implies `logprobs`.
    #[serde(default)]
    pub top_logprobs: Option<u8>,
    /// A GBNF grammar (from Citeformer); sent only to OpenAI-compatible servers, which
    /// (llama.cpp) can constrain decoding with it.
    #[serde(default)]
    pub grammar: Option<String>,
    /// A cited answer over numbered sources: how its citations are enforced (see
    /// [`crate::cite::enforce`]).
    #[serde(default)]
    pub citations: Option<CiteRequest>,
    #[serde(default)]
    pub stream: bool,
}

/// The citations a request asks for: `enforce` and Citeformer's citation options, read as
/// `citationGrammar` reads them (`policy`, `markerStyle`, `sourceCount`, and the grammar's
/// bounds such as `maxSentences`), unknown keys refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CiteRequest {
    pub options: CiteOptions,
    pub enforce: Enforce,
}

impl CiteRequest {
    /// Reads `{enforce, ...citation options}`.
    pub fn from_value(value: &Value) -> Result<Self, RequestError> {
        let Value::Object(map) = value else {
            return Err(RequestError::InvalidOption {
                option: "citations",
                reason: "expected an object {enforce, policy, markerStyle, sourceCount}".into(),
            });
        };
        let mut map = map.clone();
        let enforce = match map.remove("enforce") {
            None | Some(Value::Null) => Enforce::default(),
            Some(Value::String(name)) => Enforce::parse(&name).map_err(cite_error)?,
            Some(other) => {
                return Err(RequestError::InvalidOption {
                    option: "enforce",
                    reason: format!("expected a string, got {other}"),
                })
            }
        };
        let options = CiteOptions::from_map(&map).map_err(cite_error)?;
        Ok(Self { options, enforce })
    }

    /// How the answer's markers are read.
    pub fn parse_options(&self) -> ParseOptions {
        self.options.parse_options()
    }
}

// Read through the options reader citationGrammar uses (one reader for citation options; a
// derived reader would cost the module a copy of its own).
impl<'de> Deserialize<'de> for CiteRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Self::from_value(&value).map_err(serde::de::Error::custom)
    }
}

impl Serialize for CiteRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = &self.options;
        let value = json!({
            "enforce": self.enforce.name(),
            "policy": o.policy.map(Policy::name),
            "markerStyle": o.marker_style.name(),
            "sourceCount": o.source_count,
            "maxContentChars": o.max_content_chars,
            "maxSentences": o.max_sentences,
            "maxCitesPerSentence": o.max_cites_per_sentence,
        });
        value.serialize(s)
    }
}

fn cite_error(e: crate::cite::CiteError) -> RequestError {
    RequestError::InvalidOption {
        option: "citations",
        reason: e.to_string(),
    }
}

/// How a request's citations are enforced on its provider (`None`: it asks for none).
pub fn enforcement(id: &ModelId, req: &LmRequest) -> Result<Option<Mechanism>, RequestError> {
    let Some(cite) = &req.citations else {
        return Ok(None);
    };
    let mechanism = cite.enforce.mechanism(id.provider).map_err(cite_error)?;
    if mechanism.is_structured() && req.response_schema.is_some() {
        return Err(RequestError::InvalidOption {
            option: "responseSchema",
            reason: format!(
                "citations enforced by {} use the structured answer themselves; pass enforce \"grammar\" or \"prompt\", or no responseSchema",
                mechanism.name()
            ),
        });
    }
    Ok(Some(mechanism))
}

/// What a model answering in the cited-answer shape is told, after the prompt's rule.
pub const STRUCTURED_NOTE: &str = "Give the answer as `segments`, one per sentence: `text` is the sentence without any citation marker, `citations` the numbers of the sources that support it.";

/// The messages with [`STRUCTURED_NOTE`] at the end of the system message (a system message
/// of its own first when there is none).
fn with_structured_note(messages: &[Message]) -> Vec<Message> {
    let mut out = messages.to_vec();
    match out.iter_mut().rev().find(|m| m.role == "system") {
        Some(system) => {
            system.content.push_str("\n\n");
            system.content.push_str(STRUCTURED_NOTE);
        }
        None => out.insert(
            0,
            Message {
                role: "system".into(),
                content: STRUCTURED_NOTE.into(),
            },
        ),
    }
    out
}

/// The schema a cited answer follows (structured outputs and the forced tool).
fn cite_schema(cite: &CiteRequest) -> Result<Value, RequestError> {
    // The grammar's checks (sources given, within bounds) hold for the schema too.
    let options = cite.options.grammar_options().map_err(cite_error)?;
    citation_grammar(GrammarOptions {
        format: GrammarFormat::JsonSchema,
        ..options
    })
    .map_err(cite_error)?;
    Ok(citation_schema(options.policy, options.source_count))
}

/// What to send.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HttpRequest {
    pub url: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

/// Builds the provider's request. `base_url` as the providers' SDKs mean it (OpenAI-style bases
/// end in `/v1`); required for `openai-compatible`.
pub fn build_request(
    id: &ModelId,
    req: &LmRequest,
    api_key: Option<&str>,
    base_url: Option<&str>,
) -> Result<HttpRequest, RequestError> {
    if req.messages.is_empty() {
        return Err(RequestError::InvalidOption {
            option: "messages",
            reason: "at least one message is required".into(),
        });
    }
    if let Some(t) = req.temperature {
        if !(0.0..=2.0).contains(&t) {
            return Err(RequestError::InvalidOption {
                option: "temperature",
                reason: format!("{t} is outside [0, 2]"),
            });
        }
    }
    let base = match (id.provider, base_url) {
        (_, Some(b)) => b.trim_end_matches('/').to_owned(),
        (Provider::Openai, None) => OPENAI_BASE.into(),
        (Provider::Openrouter, None) => OPENROUTER_BASE.into(),
        (Provider::Anthropic, None) => ANTHROPIC_BASE.into(),
        (Provider::OpenaiCompatible, None) => {
            return Err(RequestError::InvalidOption {
                option: "baseUrl",
                reason: "openai-compatible models need a baseUrl (e.g. http://localhost:11434/v1)"
                    .into(),
            })
        }
    };
    let mechanism = enforcement(id, req)?;
    // A structured answer carries its ids beside the text: the model is told so, or it
    // writes markers into the text as the prompt's rule says.
    let noted;
    let req = if mechanism.is_some_and(Mechanism::is_structured) {
        noted = LmRequest {
            messages: with_structured_note(&req.messages),
            ..req.clone()
        };
        &noted
    } else {
        req
    };
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if id.provider == Provider::Anthropic {
        return anthropic_request(id, req, mechanism, api_key, &base, headers);
    }
    if let Some(key) = api_key {
        headers.push(("authorization".into(), format!("Bearer {key}")));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(id.model));
    body.insert(
        "messages".into(),
        serde_json::to_value(&req.messages).unwrap_or(Value::Null),
    );
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(m) = req.max_tokens {
        body.insert("max_tokens".into(), json!(m));
    }
    let cited = match (mechanism, &req.citations) {
        (Some(Mechanism::Schema), Some(cite)) => Some(cite_schema(cite)?),
        _ => None,
    };
    if let Some(schema) = &cited {
        body.insert("response_format".into(), json!({ "type": "json_schema", "json_schema": { "name": CITED_ANSWER, "strict": true, "schema": schema } }));
    } else if let Some(schema) = &req.response_schema {
        body.insert("response_format".into(), json!({ "type": "json_schema", "json_schema": { "name": "response", "strict": true, "schema": schema } }));
    }
    if let Some(l) = req.logprobs {
        body.insert("logprobs".into(), json!(l));
    }
    if let Some(n) = req.top_logprobs {
        if n > 20 {
            return Err(RequestError::InvalidOption {
                option: "topLogprobs",
                reason: format!("is at most 20; got {n}"),
            });
        }
        body.insert("logprobs".into(), json!(true));
        body.insert("top_logprobs".into(), json!(n));
    }
    match (mechanism, &req.citations, &req.grammar) {
        // The policy's grammar, or the caller's own in its place.
        (Some(Mechanism::Grammar), _, Some(g)) => {
            body.insert("grammar".into(), json!(g));
        }
        (Some(Mechanism::Grammar), Some(cite), None) => {
            let options = cite.options.grammar_options().map_err(cite_error)?;
            let g = citation_grammar(GrammarOptions {
                format: GrammarFormat::Gbnf,
                ..options
            })
            .map_err(cite_error)?;
            body.insert("grammar".into(), json!(g));
        }
        (None, _, Some(g)) if id.provider == Provider::OpenaiCompatible => {
            body.insert("grammar".into(), json!(g));
        }
        _ => {}
    }
    if req.stream {
        body.insert("stream".into(), json!(true));
        body.insert("stream_options".into(), json!({ "include_usage": true }));
    }
    Ok(HttpRequest {
        url: format!("{base}/chat/completions"),
        headers,
        body: Value::Object(body).to_string(),
    })
}

fn anthropic_request(
    id: &ModelId,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
    api_key: Option<&str>,
    base: &str,
    mut headers: Vec<(String, String)>,
) -> Result<HttpRequest, RequestError> {
    if let Some(key) = api_key {
        headers.push(("x-api-key".into(), key.to_owned()));
    }
    headers.push(("anthropic-version".into(), ANTHROPIC_VERSION.into()));
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter(|m| m.role == "system")
        .map(|m| m.content.as_str())
        .collect();
    let messages: Vec<&Message> = req.messages.iter().filter(|m| m.role != "system").collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(id.model));
    body.insert(
        "max_tokens".into(),
        json!(req.max_tokens.unwrap_or(DEFAULT_ANTHROPIC_MAX_TOKENS)),
    );
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    body.insert(
        "messages".into(),
        serde_json::to_value(messages).unwrap_or(Value::Null),
    );
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t.min(1.0)));
    }
    // Structured output through a tool the model must call.
    let tool = match (mechanism, &req.citations) {
        (Some(Mechanism::Tool), Some(cite)) => Some((
            CITED_ANSWER,
            "Give the answer as sentences, each with the numbers of the sources it rests on.",
            cite_schema(cite)?,
        )),
        _ => req
            .response_schema
            .clone()
            .map(|schema| ("respond", "Give the answer.", schema)),
    };
    if let Some((name, description, schema)) = tool {
        body.insert(
            "tools".into(),
            json!([{ "name": name, "description": description, "input_schema": schema }]),
        );
        body.insert(
            "tool_choice".into(),
            json!({ "type": "tool", "name": name }),
        );
    }
    if req.stream {
        body.insert("stream".into(), json!(true));
    }
    let base = base.trim_end_matches("/v1");
    Ok(HttpRequest {
        url: format!("{base}/v1/messages"),
        headers,
        body: Value::Object(body).to_string(),
    })
}

/// A whole (non-streamed) answer as an LMOutput, with `usage` (and `finishReason`).
/// `structured`: the request asked for a structured answer (`responseSchema`); an
/// OpenAI-style answer's JSON text becomes a structured item then, as Anthropic's forced tool
/// input does, so both providers answer in one shape.
pub fn parse_response(
    provider: Provider,
    body: &str,
    structured: bool,
) -> Result<LmOutput, RequestError> {
    let invalid = |detail: String| RequestError::InvalidResponse {
        provider: provider.name(),
        detail,
    };
    let v: Value = serde_json::from_str(body).map_err(|e| invalid(e.to_string()))?;
    let mut outputs = Vec::new();
    let mut extra = Map::new();
    // The provider's own citations, spans in the answer text (the text items joined).
    let mut citations = Vec::new();
    let mut answer = CharsToUtf16::default();
    let mut urls = UrlNumbers::default();
    if provider == Provider::Anthropic {
        let content = v
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("no `content` array".into()))?;
        for block in content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let start = answer.units();
                    answer.push(text);
                    let cited = block.get("citations").and_then(Value::as_array);
                    for c in cited.into_iter().flatten().take(MAX_LIST_ITEMS) {
                        let span = [start, answer.units()];
                        citations.push(with_citation_part(c, |c| {
                            native_citations::anthropic(c, span, &mut urls)
                        }));
                    }
                    outputs.push(OutputItem::Text(text.to_owned()));
                }
                Some("thinking") => outputs.push(OutputItem::Thinking(
                    block
                        .get("thinking")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                )),
                Some("tool_use") => outputs.push(OutputItem::Structured(
                    block.get("input").cloned().unwrap_or(Value::Null),
                )),
                _ => {}
            }
        }
        if let Some(r) = v.get("stop_reason") {
            extra.insert("finishReason".into(), r.clone());
        }
    } else {
        let message = v
            .pointer("/choices/0/message")
            .ok_or_else(|| invalid("no `choices[0].message`".into()))?;
        for key in ["reasoning_content", "reasoning"] {
            if let Some(t) = message
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                outputs.push(OutputItem::Thinking(t.to_owned()));
                break;
            }
        }
        if let Some(t) = message.get("content").and_then(content_text) {
            answer.push(&t);
            let annotations = message.get("annotations").and_then(Value::as_array);
            for a in annotations.into_iter().flatten().take(MAX_LIST_ITEMS) {
                citations.extend(with_citation_part(a, |a| {
                    native_citations::openai(a, &answer, &mut urls)
                }));
            }
            if structured {
                let value = serde_json::from_str(&t).map_err(|e| {
                    invalid(format!(
                        "the answer to a responseSchema request is not JSON ({e}); a cut answer (finish reason \"length\") needs a larger maxTokens"
                    ))
                })?;
                outputs.push(OutputItem::Structured(value));
            } else {
                outputs.push(OutputItem::Text(t.into_owned()));
            }
        }
        if let Some(r) = v.pointer("/choices/0/finish_reason") {
            extra.insert("finishReason".into(), r.clone());
        }
        if let Some(lp) = v.pointer("/choices/0/logprobs").filter(|l| !l.is_null()) {
            extra.insert("logprobs".into(), lp.clone());
        }
    }
    if let Some(u) = v.get("usage") {
        extra.insert("usage".into(), super::usage::normalize(u.clone()));
    }
    if !citations.is_empty() {
        let citations = serde_json::to_value(citations).unwrap_or(Value::Null);
        extra.insert("citations".into(), citations);
    }
    Ok(LmOutput { outputs, extra })
}

/// A citation object of a whole answer read as a stream's are: through its JSON text, so one
/// reader serves both (a reader from a `Value` costs the module a second copy).
fn with_citation_part<T>(value: &Value, f: impl FnOnce(&CitationPart) -> T) -> T {
    let text = value.to_string();
    f(&serde_json::from_str::<CitationPart>(&text).unwrap_or_default())
}

/// A whole cited answer given as JSON (structured outputs, a forced tool) as marked text and
/// `citations`: the streaming reader fed once (see [`CitedAnswer`]).
pub fn cited_output(output: LmOutput, cite: &CiteRequest) -> Result<LmOutput, RequestError> {
    CitedAnswer::new(cite.parse_options())
        .transform(output)
        .map_err(|e| RequestError::InvalidResponse {
            provider: "cited answer",
            detail: e.to_string(),
        })
}

/// The text of an OpenAI-style `content`: a string, or the text parts of an array of content
/// parts (`[{"type": "text", "text": "…"}]`) joined; `None` when there is no text.
pub(crate) fn content_text(content: &Value) -> Option<Cow<'_, str>> {
    match content {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| {
                    p.get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "text" || t == "output_text")
                })
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| Cow::Owned(texts.concat()))
        }
        _ => None,
    }
}

/// What a failed HTTP answer means.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderFailure {
    /// Who answered (a provider name, or "decision-model").
    pub provider: String,
    pub status: u16,
    /// The provider's own error code or type, when it gives one.
    pub code: Option<String>,
    /// The provider's own error message (or the start of the body).
    pub message: String,
    pub retryable: bool,
    /// How long to wait before the next attempt, when retryable.
    pub retry_after_ms: Option<u64>,
}

/// How much of a non-JSON error body becomes the message, in characters.
pub const ERROR_BODY_CHARS: usize = 300;

fn retryable_status(status: u16) -> bool {
    matches!(status, 408 | 409 | 429) || status >= 500
}

/// Classifies an error answer. 408, 409, 429 and 5xx are worth retrying; other 4xx are not.
/// A body that is not a JSON error is cut to [`ERROR_BODY_CHARS`]: callers remove secrets
/// from it before, so that no part of one survives at the cut.
pub fn classify_failure(
    provider: &str,
    status: u16,
    body: &str,
    retry_after: Option<&str>,
) -> ProviderFailure {
    let parsed: Option<Value> = serde_json::from_str(body).ok();
    let error = parsed.as_ref().and_then(|v| v.get("error"));
    let message = error.and_then(error_message).unwrap_or_else(|| {
        body.chars()
            .take(ERROR_BODY_CHARS)
            .collect::<String>()
            .trim()
            .to_owned()
    });
    let code = error_code(error);
    let retry_after_ms = retry_after
        .and_then(|h| h.trim().parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(|s| (s * 1000.0) as u64);
    ProviderFailure {
        provider: provider.to_owned(),
        status,
        code,
        message,
        retryable: retryable_status(status),
        retry_after_ms,
    }
}

/// An error sent with a success status: a JSON body whose top level is `{"error": …}` and
/// carries no answer (OpenRouter and some proxies do this). `None` for anything else; the
/// body is parsed only when it mentions `"error"`. Retryable when the error's numeric code is
/// a retryable HTTP status (OpenRouter passes the upstream status there).
pub fn answer_failure(provider: &str, status: u16, body: &str) -> Option<ProviderFailure> {
    if !body.contains("\"error\"") {
        return None;
    }
    let v: Value = serde_json::from_str(body).ok()?;
    let answered = ["choices", "content", "data", "answers"]
        .iter()
        .any(|k| v.get(k).is_some_and(|x| !x.is_null()));
    let error = v.get("error").filter(|e| !e.is_null() && !answered)?;
    let code = error_code(Some(error));
    let upstream = error
        .get("code")
        .and_then(Value::as_u64)
        .and_then(|c| u16::try_from(c).ok());
    Some(ProviderFailure {
        provider: provider.to_owned(),
        status,
        code,
        message: error_message(error).unwrap_or_else(|| error.to_string()),
        retryable: upstream.is_some_and(retryable_status),
        retry_after_ms: None,
    })
}

/// `error.message`, or the error itself when it is a string.
fn error_message(error: &Value) -> Option<String> {
    error
        .get("message")
        .and_then(Value::as_str)
        .or_else(|| error.as_str())
        .map(str::to_owned)
}

fn error_code(error: Option<&Value>) -> Option<String> {
    error
        .and_then(|e| {
            e.get("code")
                .filter(|c| !c.is_null())
                .or_else(|| e.get("type"))
        })
        .map(|c| {
            c.as_str()
                .map(str::to_owned)
                .unwrap_or_else(|| c.to_string())
        })
}

/// The wait before retry `attempt` (0 = first retry): the server's Retry-After when it gave
/// one (capped), else exponential backoff with jitter (`jitter` in [0, 1), from the caller's
/// random source).
pub fn retry_delay_ms(attempt: u32, retry_after_ms: Option<u64>, jitter: f64) -> u64 {
    if let Some(ms) = retry_after_ms {
        return ms.min(RETRY_MAX_MS);
    }
    let backoff = RETRY_BASE_MS
        .saturating_mul(1u64 << attempt.min(16))
        .min(RETRY_MAX_MS);
    // Full jitter between half and all of the backoff.
    (backoff as f64 * (0.5 + 0.5 * jitter.clamp(0.0, 1.0))) as u64
}

/// A request to an OpenAI-style `/embeddings` endpoint for one batch of texts.
pub fn build_embeddings_request(
    id: &ModelId,
    inputs: &[String],
    api_key: Option<&str>,
    base_url: Option<&str>,
) -> Result<HttpRequest, RequestError> {
    let base = match (id.provider, base_url) {
        (Provider::Anthropic, _) => {
            return Err(RequestError::InvalidModelId {
                id: format!("anthropic/{}", id.model),
                reason: "Anthropic has no embeddings API; use an OpenAI-compatible embedding model"
                    .into(),
            })
        }
        (_, Some(b)) => b.trim_end_matches('/').to_owned(),
        (Provider::Openai, None) => OPENAI_BASE.into(),
        (Provider::Openrouter, None) => OPENROUTER_BASE.into(),
        (Provider::OpenaiCompatible, None) => {
            return Err(RequestError::InvalidOption {
                option: "baseUrl",
                reason: "openai-compatible models need a baseUrl".into(),
            })
        }
    };
    if inputs.is_empty() {
        return Err(RequestError::InvalidOption {
            option: "texts",
            reason: "at least one text is required".into(),
        });
    }
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key {
        headers.push(("authorization".into(), format!("Bearer {key}")));
    }
    let body = json!({ "model": id.model, "input": inputs, "encoding_format": "float" });
    Ok(HttpRequest {
        url: format!("{base}/embeddings"),
        headers,
        body: body.to_string(),
    })
}

/// The vectors of an `/embeddings` answer, flattened in input order (by each item's `index`,
/// whatever order the server sent them in); all must have the same dimension.
pub fn parse_embeddings(
    provider: Provider,
    body: &str,
    expected: usize,
) -> Result<Vec<f32>, RequestError> {
    let invalid = |detail: String| RequestError::InvalidResponse {
        provider: provider.name(),
        detail,
    };
    let v: Value = serde_json::from_str(body).map_err(|e| invalid(e.to_string()))?;
    let data = v
        .get("data")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("no `data` array".into()))?;
    if data.len() != expected {
        return Err(invalid(format!(
            "{} embeddings for {expected} texts",
            data.len()
        )));
    }
    let mut rows: Vec<Option<Vec<f32>>> = vec![None; data.len()];
    for (position, item) in data.iter().enumerate() {
        // An index past usize (wasm32: 2^32) is out of range, never truncated onto another.
        let index = match item.get("index").and_then(Value::as_u64) {
            None => position,
            Some(i) => usize::try_from(i).unwrap_or(usize::MAX),
        };
        let vector = item
            .get("embedding")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid(format!("item {position} has no `embedding` array")))?
            .iter()
            .map(|x| x.as_f64().map(|f| f as f32))
            .collect::<Option<Vec<f32>>>()
            .ok_or_else(|| invalid(format!("item {position} has a non-number in its embedding")))?;
        match rows.get_mut(index) {
            Some(slot @ None) => *slot = Some(vector),
            _ => {
                return Err(invalid(format!(
                    "index {index} is out of range or repeated"
                )))
            }
        }
    }
    let rows: Vec<Vec<f32>> = rows.into_iter().map(|r| r.unwrap_or_default()).collect();
    let dims = rows.first().map_or(0, Vec::len);
    if dims == 0 || rows.iter().any(|r| r.len() != dims) {
        return Err(invalid(
            "embeddings of different (or zero) dimensions".into(),
        ));
    }
    Ok(rows.concat())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids() {
        assert_eq!(
            ModelId::parse("openai/gpt-4o-mini").unwrap(),
            ModelId {
                provider: Provider::Openai,
                model: "gpt-4o-mini".into()
            }
        );
        assert_eq!(
            ModelId::parse("openrouter/anthropic/claude-sonnet-4.5")
                .unwrap()
                .model,
            "anthropic/claude-sonnet-4.5"
        );
        for bad in ["gpt-4o", "cohere/command", "openai/", "openrouter/gpt-4o"] {
            assert_eq!(
                ModelId::parse(bad).unwrap_err().code(),
                "INVALID_MODEL_ID",
                "{bad}"
            );
        }
    }

    fn req(stream: bool) -> LmRequest {
        LmRequest {
            messages: vec![
                Message {
                    role: "system".into(),
                    content: "Be brief.".into(),
                },
                Message {
                    role: "user".into(),
                    content: "Hi".into(),
                },
            ],
            stream,
            ..Default::default()
        }
    }

    #[test]
    fn requests_per_provider() {
        let openai = build_request(
            &ModelId::parse("openai/gpt-4o-mini").unwrap(),
            &req(true),
            Some("sk-test"),
            None,
        )
        .unwrap();
        assert_eq!(openai.url, "https://api.openai.com/v1/chat/completions");
        assert!(openai
            .headers
            .contains(&("authorization".into(), "Bearer sk-test".into())));
        let body: Value = serde_json::from_str(&openai.body).unwrap();
        assert_eq!(
            (body["model"].as_str(), body["stream"].as_bool()),
            (Some("gpt-4o-mini"), Some(true))
        );

        let anthropic = build_request(
            &ModelId::parse("anthropic/claude-sonnet-4-5").unwrap(),
            &req(false),
            Some("k"),
            Some("http://localhost:9/v1"),
        )
        .unwrap();
        assert_eq!(anthropic.url, "http://localhost:9/v1/messages");
        assert!(anthropic
            .headers
            .contains(&("anthropic-version".into(), ANTHROPIC_VERSION.into())));
        let body: Value = serde_json::from_str(&anthropic.body).unwrap();
        assert_eq!(body["system"], "Be brief.");
        assert_eq!(body["messages"].as_array().unwrap().len(), 1);
        assert_eq!(body["max_tokens"], DEFAULT_ANTHROPIC_MAX_TOKENS);

        let missing = build_request(
            &ModelId::parse("openai-compatible/llama").unwrap(),
            &req(false),
            None,
            None,
        )
        .unwrap_err();
        assert_eq!(missing.code(), "INVALID_OPTION");
    }

    #[test]
    fn citations_are_enforced_with_each_providers_mechanism() {
        let cited = |enforce: Enforce| LmRequest {
            citations: Some(
                CiteRequest::from_value(&json!({"enforce": enforce.name(), "sourceCount": 2}))
                    .unwrap(),
            ),
            ..req(true)
        };
        let body = |model: &str, enforce| {
            let id = ModelId::parse(model).unwrap();
            let http = build_request(&id, &cited(enforce), None, Some("http://x/v1")).unwrap();
            serde_json::from_str::<Value>(&http.body).unwrap()
        };
        for model in ["openai/m", "openrouter/v/m"] {
            let b = body(model, Enforce::Auto);
            assert_eq!(b["response_format"]["json_schema"]["name"], CITED_ANSWER);
            assert_eq!(b["response_format"]["json_schema"]["strict"], true);
            assert!(b["messages"][0]["content"]
                .as_str()
                .unwrap()
                .ends_with(STRUCTURED_NOTE));
            assert!(b.get("grammar").is_none() && b.get("tools").is_none());
        }
        let b = body("anthropic/m", Enforce::Auto);
        assert_eq!(
            b["tool_choice"],
            json!({"type": "tool", "name": CITED_ANSWER})
        );
        assert_eq!(
            b["tools"][0]["input_schema"],
            citation_schema(Policy::Required, 2)
        );
        assert!(b["system"].as_str().unwrap().ends_with(STRUCTURED_NOTE));
        let b = body("openai-compatible/m", Enforce::Auto);
        assert!(b["grammar"].as_str().unwrap().contains("cite-id"));
        assert!(b.get("response_format").is_none());
        assert_eq!(b["messages"][0]["content"], "Be brief.");
        for model in ["openai/m", "anthropic/m", "openai-compatible/m"] {
            let b = body(model, Enforce::Prompt);
            for key in ["grammar", "response_format", "tools", "tool_choice"] {
                assert!(b.get(key).is_none(), "{model} {key}");
            }
        }
        let id = ModelId::parse("openai/m").unwrap();
        let e = build_request(&id, &cited(Enforce::Tool), None, None).unwrap_err();
        assert_eq!(e.code(), "INVALID_OPTION");
        let mut both = cited(Enforce::Schema);
        both.response_schema = Some(json!({"type": "object"}));
        assert_eq!(
            build_request(&id, &both, None, None).unwrap_err().code(),
            "INVALID_OPTION"
        );
        let mut none = cited(Enforce::Schema);
        if let Some(c) = none.citations.as_mut() {
            c.options.source_count = Some(0);
        }
        assert_eq!(
            build_request(&id, &none, None, None).unwrap_err().code(),
            "INVALID_OPTION"
        );
        // The grammar's bounds come along; a misspelt option is refused.
        let bounded = CiteRequest::from_value(
            &json!({"sourceCount": 2, "maxSentences": 2, "maxCitesPerSentence": 1}),
        )
        .unwrap();
        let compatible = ModelId::parse("openai-compatible/m").unwrap();
        let http = build_request(
            &compatible,
            &LmRequest {
                citations: Some(bounded),
                ..req(false)
            },
            None,
            Some("http://x/v1"),
        )
        .unwrap();
        let grammar = serde_json::from_str::<Value>(&http.body).unwrap()["grammar"].clone();
        assert!(grammar
            .as_str()
            .unwrap()
            .starts_with("root ::= sentence (ws sentence){0,1}\n"));
        for bad in [
            json!({"sourceCount": 2, "enforc": "auto"}),
            json!({"sourceCount": 2, "enforce": 1}),
            json!({"sourceCount": 2, "enforce": "never"}),
            json!([]),
        ] {
            assert_eq!(
                CiteRequest::from_value(&bad).unwrap_err().code(),
                "INVALID_OPTION",
                "{bad}"
            );
        }
    }

    #[test]
    fn native_citations_of_whole_answers() {
        let anthropic = r#"{"content":[{"type":"text","text":"A "},{"type":"text","text":"b😀c","citations":[{"type":"char_location","cited_text":"B","document_index":1,"document_title":"T","start_char_index":3,"end_char_index":9},{"type":"web_search_result_location","url":"https://e.org/x","title":"X","cited_text":"c","encrypted_index":"z"}]}],"stop_reason":"end_turn"}"#;
        let out = parse_response(Provider::Anthropic, anthropic, false).unwrap();
        let cites = &out.extra["citations"];
        assert_eq!(cites[0]["span"], json!([2, 6]));
        assert_eq!(
            (
                &cites[0]["sourceId"],
                &cites[0]["sourceSpan"],
                &cites[0]["location"]
            ),
            (&json!(2), &json!([3, 9]), &json!("char_location"))
        );
        assert_eq!(
            (
                &cites[1]["sourceId"],
                &cites[1]["url"],
                &cites[1]["documentTitle"]
            ),
            (&json!(1), &json!("https://e.org/x"), &json!("X"))
        );
        let openai = r#"{"choices":[{"message":{"content":"😀 see [x](https://e.org/x)","annotations":[{"type":"url_citation","url_citation":{"start_index":6,"end_index":26,"url":"https://e.org/x","title":"X"}},{"type":"file_citation"}]},"finish_reason":"stop"}]}"#;
        let out = parse_response(Provider::Openai, openai, false).unwrap();
        assert_eq!(out.extra["citations"].as_array().unwrap().len(), 1);
        assert_eq!(out.extra["citations"][0]["span"], json!([7, 27]));
        let plain = r#"{"choices":[{"message":{"content":"Hi"}}]}"#;
        assert!(parse_response(Provider::Openai, plain, false)
            .unwrap()
            .extra
            .get("citations")
            .is_none());
    }

    #[test]
    fn embeddings_in_input_order() {
        let id = ModelId::parse("openai/text-embedding-3-small").unwrap();
        let req =
            build_embeddings_request(&id, &["a".into(), "b".into()], Some("k"), None).unwrap();
        assert_eq!(req.url, "https://api.openai.com/v1/embeddings");
        let body = r#"{"data":[{"index":1,"embedding":[3,4]},{"index":0,"embedding":[1,2]}]}"#;
        assert_eq!(
            parse_embeddings(Provider::Openai, body, 2).unwrap(),
            [1.0, 2.0, 3.0, 4.0]
        );
        assert!(parse_embeddings(Provider::Openai, body, 3).is_err());
        assert!(parse_embeddings(
            Provider::Openai,
            r#"{"data":[{"index":0,"embedding":[1]},{"index":0,"embedding":[2]}]}"#,
            2
        )
        .is_err());
        assert!(parse_embeddings(
            Provider::Openai,
            r#"{"data":[{"index":0,"embedding":[1]},{"index":1,"embedding":[2,3]}]}"#,
            2
        )
        .is_err());
        assert!(build_embeddings_request(
            &ModelId::parse("anthropic/x").unwrap(),
            &["a".into()],
            None,
            None
        )
        .is_err());
    }

    #[test]
    fn errors_sent_with_a_success_status() {
        let f = answer_failure(
            "openrouter",
            200,
            r#"{"error":{"message":"Upstream overloaded","code":502}}"#,
        )
        .unwrap();
        assert_eq!(
            (f.status, f.code.as_deref(), f.message.as_str(), f.retryable),
            (200, Some("502"), "Upstream overloaded", true)
        );
        let f = answer_failure("openai", 200, r#"{"error":"quota"}"#).unwrap();
        assert_eq!((f.message.as_str(), f.retryable), ("quota", false));
        for fine in [
            r#"{"choices":[{"message":{"content":"the word \"error\""}}]}"#,
            r#"{"choices":[],"error":{"message":"x"}}"#,
            r#"{"error":null,"choices":[]}"#,
            "not json \"error\"",
            r#"{"id":1}"#,
        ] {
            assert_eq!(answer_failure("openai", 200, fine), None, "{fine}");
        }
    }

    #[test]
    fn structured_answers_are_one_shape_for_every_provider() {
        let openai = r#"{"choices":[{"message":{"content":"{\"answer\": \"Paris\"}"},"finish_reason":"stop"}]}"#;
        let anthropic = r#"{"content":[{"type":"tool_use","id":"t","name":"answer","input":{"answer":"Paris"}}],"stop_reason":"tool_use"}"#;
        let want = [OutputItem::Structured(
            serde_json::json!({"answer": "Paris"}),
        )];
        assert_eq!(
            parse_response(Provider::Openai, openai, true)
                .unwrap()
                .outputs,
            want
        );
        assert_eq!(
            parse_response(Provider::Anthropic, anthropic, true)
                .unwrap()
                .outputs,
            want
        );
        let cut =
            r#"{"choices":[{"message":{"content":"{\"answer\": \"Pa"},"finish_reason":"length"}]}"#;
        let e = parse_response(Provider::Openai, cut, true).unwrap_err();
        assert_eq!(e.code(), "INVALID_PROVIDER_DATA");
        assert!(e.to_string().contains("maxTokens"));
    }

    #[test]
    fn content_parts_and_hostile_indexes() {
        let body = r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"refusal","refusal":"no"},{"text":"b"}]}}]}"#;
        assert_eq!(
            parse_response(Provider::Openai, body, false)
                .unwrap()
                .outputs,
            [OutputItem::Text("ab".into())]
        );
        let body = r#"{"choices":[{"message":{"content":[{"type":"image_url"}]}}]}"#;
        assert!(parse_response(Provider::Openai, body, false)
            .unwrap()
            .outputs
            .is_empty());
        // 2^32 must not wrap onto index 0 on 32-bit targets.
        let body = r#"{"data":[{"index":4294967296,"embedding":[1]},{"index":1,"embedding":[2]}]}"#;
        assert_eq!(
            parse_embeddings(Provider::Openai, body, 2)
                .unwrap_err()
                .code(),
            "INVALID_PROVIDER_DATA"
        );
    }

    #[test]
    fn failures_and_delays() {
        let f = classify_failure(
            "openai",
            429,
            r#"{"error":{"message":"Slow down","type":"requests","code":"rate_limit_exceeded"}}"#,
            Some("2"),
        );
        assert_eq!(
            (
                f.retryable,
                f.retry_after_ms,
                f.code.as_deref(),
                f.message.as_str()
            ),
            (true, Some(2000), Some("rate_limit_exceeded"), "Slow down")
        );
        let f = classify_failure(
            "anthropic",
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"bad"}}"#,
            None,
        );
        assert_eq!(
            (f.retryable, f.code.as_deref()),
            (false, Some("invalid_request_error"))
        );
        assert!(classify_failure("openai", 503, "<html>down</html>", None).retryable);
        let long = format!("{}{}", "x".repeat(290), "y".repeat(50));
        assert_eq!(
            classify_failure("openai", 500, &long, None).message.len(),
            ERROR_BODY_CHARS
        );
        assert_eq!(retry_delay_ms(0, Some(1500), 0.9), 1500);
        assert_eq!(retry_delay_ms(1, None, 0.0), 500);
        assert_eq!(retry_delay_ms(30, None, 1.0), RETRY_MAX_MS);
    }
}
