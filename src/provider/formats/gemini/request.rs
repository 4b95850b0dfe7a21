//! The request to Gemini: `POST {base}/models/{model}:generateContent`, or
//! `:streamGenerateContent?alt=sse` for a stream (SSE rather than one JSON array), the key in
//! the `x-goog-api-key` header only.
//!
//! Body: `contents` (role `user`, or `model` for an `assistant` message), the system messages
//! joined as `systemInstruction`, and `generationConfig` (`temperature`, `maxOutputTokens`).
//! A structured answer (the caller's `responseSchema`, or citations enforced by a schema) is
//! `responseMimeType: "application/json"` with the schema as `responseJsonSchema`, not
//! `responseSchema`: `responseSchema` takes Gemini's own OpenAPI-subset `Schema` object, which
//! has no `additionalProperties` (the citation schema has it, as OpenAI's strict mode
//! requires), while `responseJsonSchema` takes JSON Schema, and its documented subset
//! (`type`, `properties`, `required`, `additionalProperties`, `items`, `enum`, `minItems`,
//! `description`, …) holds every keyword of the citation schema, so it is sent as it is.
//! `logprobs`, `topLogprobs` and `grammar` are refused.

use serde_json::{json, Map, Value};

use super::super::{HttpRequest, LmRequest, ModelId, RequestError};
use crate::cite::Mechanism;

/// The Gemini request (`base`: the API's base URL, without a trailing slash).
pub(crate) fn request(
    id: &ModelId,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
    api_key: Option<&str>,
    base: &str,
) -> Result<HttpRequest, RequestError> {
    let schema = super::super::answer_schema(id.provider, req, mechanism)?;
    let model = model_path(id)?;
    let mut system = Vec::new();
    let mut contents = Vec::new();
    for message in &req.messages {
        let role = match message.role.as_str() {
            "system" => {
                system.push(message.content.as_str());
                continue;
            }
            "user" => "user",
            "assistant" => "model",
            other => {
                return Err(RequestError::InvalidOption {
                    option: "messages",
                    reason: format!(
                        "role {other:?} is not one Gemini takes (system, user, assistant)"
                    ),
                })
            }
        };
        contents.push(json!({ "role": role, "parts": [{ "text": message.content }] }));
    }
    if contents.is_empty() {
        return Err(RequestError::InvalidOption {
            option: "messages",
            reason: "Gemini needs at least one user or assistant message".into(),
        });
    }
    let mut body = Map::new();
    body.insert("contents".into(), Value::Array(contents));
    if !system.is_empty() {
        body.insert(
            "systemInstruction".into(),
            json!({ "parts": [{ "text": system.join("\n\n") }] }),
        );
    }
    let mut config = Map::new();
    if let Some(t) = req.temperature {
        config.insert("temperature".into(), json!(t));
    }
    if let Some(m) = req.max_tokens {
        config.insert("maxOutputTokens".into(), json!(m));
    }
    if let Some((_, schema)) = schema {
        config.insert("responseMimeType".into(), json!("application/json"));
        config.insert("responseJsonSchema".into(), schema);
    }
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key {
        headers.push(("x-goog-api-key".into(), key.to_owned()));
    }
    let method = if req.stream {
        "streamGenerateContent?alt=sse"
    } else {
        "generateContent"
    };
    Ok(HttpRequest {
        url: format!("{base}/{model}:{method}"),
        headers,
        body: Value::Object(body).to_string(),
    })
}

/// The model's resource path: `models/<name>` (a name already starting with `models/` or
/// `tunedModels/` as it is). A name that would change the URL beyond its own path segment
/// (a query, a fragment, an escape, `..`, whitespace) is refused.
fn model_path(id: &ModelId) -> Result<String, RequestError> {
    let name = id.model.as_str();
    let bad = |reason: &str| RequestError::InvalidModelId {
        id: format!("google/{name}"),
        reason: reason.to_owned(),
    };
    if name
        .chars()
        .any(|c| matches!(c, '?' | '#' | '%' | '\\' | ':') || c.is_whitespace() || c.is_control())
    {
        return Err(bad(
            "a Gemini model name has no `?`, `#`, `%`, `\\`, `:` or whitespace",
        ));
    }
    let path = if name.starts_with("models/") || name.starts_with("tunedModels/") {
        name.to_owned()
    } else {
        format!("models/{name}")
    };
    if path
        .split('/')
        .any(|segment| matches!(segment, "" | "." | ".."))
    {
        return Err(bad(
            "a Gemini model name has no empty, `.` or `..` path segment",
        ));
    }
    Ok(path)
}
