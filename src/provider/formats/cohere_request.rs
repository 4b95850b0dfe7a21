//! The request to Cohere's v2 chat: `POST {base}/chat` with a bearer key and
//! `{model, messages: [{role, content}], temperature?, max_tokens?, stream, response_format?}`.
//!
//! A structured answer (a `responseSchema`, or citations enforced by `schema`) is Cohere's
//! JSON mode with a schema: `response_format: {type: "json_object", json_schema: <the schema>}`
//! (a bare JSON schema: Cohere takes no name or `strict` flag). Cohere's own grounded
//! citations need documents sent with the request, which `LmRequest` does not carry: a
//! cited answer here is the prompt's or the schema's. Log probabilities and grammars are
//! refused rather than dropped.

use serde_json::{json, Map, Value};

use crate::cite::Mechanism;
use crate::provider::{HttpRequest, LmRequest, ModelId, RequestError};

pub(crate) fn request(
    id: &ModelId,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
    api_key: Option<&str>,
    base: &str,
) -> Result<HttpRequest, RequestError> {
    let schema = super::answer_schema(id.provider, req, mechanism)?;
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
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
    if let Some((_, schema)) = schema {
        body.insert(
            "response_format".into(),
            json!({ "type": "json_object", "json_schema": schema }),
        );
    }
    body.insert("stream".into(), json!(req.stream));
    Ok(HttpRequest {
        url: format!("{base}/chat"),
        headers,
        body: Value::Object(body).to_string(),
    })
}
