//! The request to a Responses API (OpenAI's `/v1/responses`, xAI's, which takes the same
//! shape): `POST {base}/responses` with `model`, `input` (the conversation's user and assistant
//! messages as `[{role, content}]`), `instructions` (the system messages joined),
//! `temperature`, `max_output_tokens`, `stream`, and a structured answer as
//! `text.format` `{type: "json_schema", name, schema, strict: true}` (`cited_answer` for a cited
//! answer's schema, `response` for a `responseSchema`). The key goes in a bearer header only.

use serde_json::{json, Map, Value};

use crate::cite::Mechanism;
use crate::provider::{HttpRequest, LmRequest, ModelId, RequestError};

/// The HTTP request (see the module's docs). `req`'s messages already carry the note a
/// structured cited answer needs.
pub(crate) fn request(
    id: &ModelId,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
    api_key: Option<&str>,
    base: &str,
) -> Result<HttpRequest, RequestError> {
    let format = super::super::answer_schema(id.provider, req, mechanism)?;
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key {
        headers.push(("authorization".into(), format!("Bearer {key}")));
    }
    let system: Vec<&str> = req
        .messages
        .iter()
        .filter(|m| m.role == "system")
        .map(|m| m.content.as_str())
        .collect();
    let input: Vec<Value> = req
        .messages
        .iter()
        .filter(|m| m.role != "system")
        .map(|m| json!({ "role": m.role, "content": m.content }))
        .collect();
    let mut body = Map::new();
    body.insert("model".into(), json!(id.model));
    if !system.is_empty() {
        body.insert("instructions".into(), json!(system.join("\n\n")));
    }
    body.insert("input".into(), Value::Array(input));
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), json!(t));
    }
    if let Some(m) = req.max_tokens {
        body.insert("max_output_tokens".into(), json!(m));
    }
    if let Some((name, schema)) = format {
        body.insert(
            "text".into(),
            json!({ "format": { "type": "json_schema", "name": name, "schema": schema, "strict": true } }),
        );
    }
    if req.stream {
        body.insert("stream".into(), json!(true));
    }
    Ok(HttpRequest {
        url: format!("{base}/responses"),
        headers,
        body: Value::Object(body).to_string(),
    })
}
