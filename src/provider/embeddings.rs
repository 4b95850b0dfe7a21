//! Requests to OpenAI-style `/embeddings` endpoints and their answers.

use serde_json::{json, Value};

use super::request::{OPENAI_BASE, OPENROUTER_BASE};
use super::{HttpRequest, ModelId, Provider, RequestError};

/// A request to an OpenAI-style `/embeddings` endpoint for one batch of texts.
pub fn build_embeddings_request(
    id: &ModelId,
    inputs: &[String],
    api_key: Option<&str>,
    base_url: Option<&str>,
) -> Result<HttpRequest, RequestError> {
    let base = match (id.provider, base_url) {
        (p, _) if !p.is_openai_chat() => {
            return Err(RequestError::InvalidModelId {
                id: format!("{}/{}", p.name(), id.model),
                reason: "embeddings are read from OpenAI-style /embeddings endpoints: use an openai/, openrouter/ or openai-compatible/ embedding model"
                    .into(),
            })
        }
        (_, Some(b)) => b.trim_end_matches('/').to_owned(),
        (Provider::Openai, None) => OPENAI_BASE.into(),
        (Provider::Openrouter, None) => OPENROUTER_BASE.into(),
        (_, None) => {
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
    fn hostile_indexes() {
        // 2^32 must not wrap onto index 0 on 32-bit targets.
        let body = r#"{"data":[{"index":4294967296,"embedding":[1]},{"index":1,"embedding":[2]}]}"#;
        assert_eq!(
            parse_embeddings(Provider::Openai, body, 2)
                .unwrap_err()
                .code(),
            "INVALID_PROVIDER_DATA"
        );
    }
}
