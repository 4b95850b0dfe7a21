//! The requests sent to providers: what the caller asks for ([`LmRequest`]), how its citations
//! are enforced on each provider, and the HTTP request built from it ([`build_request`]).

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::cite::enforce::{citation_schema, CITED_ANSWER};
use crate::cite::{citation_grammar, GrammarFormat, GrammarOptions, Mechanism};

use super::cite_request::cite_error;
use super::{CiteRequest, ModelId, Provider, RequestError};

/// Anthropic requires `max_tokens`; this is used when the caller gives none.
pub const DEFAULT_ANTHROPIC_MAX_TOKENS: u64 = 4096;
pub const ANTHROPIC_VERSION: &str = "2023-06-01";
pub const OPENAI_BASE: &str = "https://api.openai.com/v1";
pub const OPENROUTER_BASE: &str = "https://openrouter.ai/api/v1";
pub const ANTHROPIC_BASE: &str = "https://api.anthropic.com";

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
pub(crate) fn cite_schema(cite: &CiteRequest) -> Result<Value, RequestError> {
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
    let base = match (base_url, id.provider.base_url()) {
        (Some(b), _) => b.trim_end_matches('/').to_owned(),
        (None, Some(b)) => b.to_owned(),
        (None, None) => {
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
    #[cfg(not(feature = "lean-stream"))]
    if let Some(request) = super::formats::request(id, req, mechanism, api_key, &base) {
        return request;
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cite::{Enforce, Policy};

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
}
