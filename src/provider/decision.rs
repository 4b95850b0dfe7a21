//! Decision models over the TypeSafe "System One" wire format (also served by OpenRouter):
//! questions about a state, answered with probabilities.

use serde_json::{json, Map, Value};

use super::{HttpRequest, RequestError};

pub const TYPESAFE_BASE: &str = "https://api.typesafe.ai";
pub const OPENROUTER_DM_BASE: &str = "https://openrouter.ai/api";

/// Whether a model id names a System One decision model: `typesafe/<model>` or
/// `openrouter/typesafe/<model>` (any other id is a language model answering decision
/// questions through its log-probabilities). The one place this rule lives: the npm package
/// and the Rust face both ask it through [`super::DecisionBackend::of`].
pub fn is_system_one(model_id: &str) -> bool {
    model_id.starts_with("typesafe/") || model_id.starts_with("openrouter/typesafe/")
}

/// `typesafe/<model>` or `openrouter/typesafe/<model>` → (base, model name sent).
pub fn dm_endpoint(
    model_id: &str,
    base_url: Option<&str>,
) -> Result<(String, String), RequestError> {
    let bad = |reason: &str| RequestError::InvalidModelId {
        id: model_id.to_owned(),
        reason: reason.to_owned(),
    };
    if !is_system_one(model_id) {
        return Err(bad(
            "decision models are typesafe/<model> or openrouter/typesafe/<model>",
        ));
    }
    let (default_base, model) = match model_id.strip_prefix("openrouter/") {
        Some(m) => (OPENROUTER_DM_BASE, m),
        None => (TYPESAFE_BASE, model_id),
    };
    if model
        .split('/')
        .nth(1)
        .is_none_or(|name| name.trim().is_empty())
    {
        return Err(bad("the model name is empty"));
    }
    let base = base_url
        .unwrap_or(default_base)
        .trim_end_matches('/')
        .trim_end_matches("/v1")
        .to_owned();
    Ok((base, model.to_owned()))
}

fn check_question(name: &str, q: &Value) -> Result<(), RequestError> {
    let bad = |reason: String| RequestError::InvalidOption {
        option: "questions",
        reason: format!("{name:?}: {reason}"),
    };
    let kind = q
        .get("type")
        .and_then(Value::as_str)
        .ok_or_else(|| bad("needs a `type` (noul, choice or score)".into()))?;
    if q.get("instructions").is_none_or(Value::is_null) {
        return Err(bad("needs `instructions`".into()));
    }
    match (kind, q.get("criteria")) {
        ("noul", None) => Ok(()),
        ("noul", Some(Value::Object(c)))
            if c.contains_key("true") && c.contains_key("false") && c.len() == 2 =>
        {
            Ok(())
        }
        ("noul", Some(_)) => Err(bad("noul criteria are {true, false}".into())),
        ("choice", Some(Value::Object(c))) if c.len() >= 2 => Ok(()),
        ("choice", _) => Err(bad(
            "choice criteria are an object of two or more labels".into()
        )),
        ("score", Some(Value::Array(levels))) if levels.len() >= 2 => Ok(()),
        ("score", _) => Err(bad(
            "score criteria are an array of two or more levels".into()
        )),
        (other, _) => Err(bad(format!("unknown type {other:?}"))),
    }
}

/// A decision asks at least one question (whichever backend answers it).
pub(super) fn some_questions(questions: &Map<String, Value>) -> Result<(), RequestError> {
    if questions.is_empty() {
        return Err(RequestError::InvalidOption {
            option: "questions",
            reason: "ask at least one question".into(),
        });
    }
    Ok(())
}

pub fn build_dm_request(
    model_id: &str,
    state: &Value,
    questions: &Map<String, Value>,
    api_key: Option<&str>,
    base_url: Option<&str>,
) -> Result<HttpRequest, RequestError> {
    let (base, model) = dm_endpoint(model_id, base_url)?;
    some_questions(questions)?;
    for (name, q) in questions {
        check_question(name, q)?;
    }
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    if let Some(key) = api_key {
        headers.push(("authorization".into(), format!("Bearer {key}")));
    }
    let body = json!({ "state": state, "model": model, "questions": questions });
    Ok(HttpRequest {
        url: format!("{base}/v1/systemone"),
        headers,
        body: body.to_string(),
    })
}

/// The answers, checked: one per question, of the question's type, probabilities in [0, 1].
pub fn parse_dm_response(
    body: &str,
    questions: &Map<String, Value>,
) -> Result<Value, RequestError> {
    let invalid = |detail: String| RequestError::InvalidResponse {
        provider: "decision model",
        detail,
    };
    let v: Value = serde_json::from_str(body).map_err(|e| invalid(e.to_string()))?;
    let answers = v
        .get("answers")
        .and_then(Value::as_object)
        .ok_or_else(|| invalid("no `answers` object".into()))?;
    let prob = |a: &Value, key: &str| {
        a.get(key)
            .and_then(Value::as_f64)
            .is_some_and(|p| (0.0..=1.0).contains(&p))
    };
    for (name, q) in questions {
        let a = answers
            .get(name)
            .ok_or_else(|| invalid(format!("no answer to {name:?}")))?;
        let kind = q.get("type").and_then(Value::as_str).unwrap_or_default();
        let ok = a.get("type").and_then(Value::as_str) == Some(kind)
            && match kind {
                "noul" => prob(a, "noul"),
                "choice" => a.get("choice").is_some_and(Value::is_string),
                "score" => a.get("score").is_some_and(Value::is_number),
                _ => false,
            };
        if !ok {
            return Err(invalid(format!(
                "the answer to {name:?} is not a {kind} answer: {a}"
            )));
        }
    }
    let usage = v.get("usage").cloned().map(super::usage::normalize);
    Ok(json!({ "model": v.get("model"), "answers": answers, "usage": usage }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn questions() -> Map<String, Value> {
        json!({"relevant": {"type": "noul", "instructions": "Is it relevant?", "criteria": {"true": "yes", "false": "no"}}}).as_object().unwrap().clone()
    }

    #[test]
    fn request_and_answers() {
        let r = build_dm_request(
            "openrouter/typesafe/jev-1.13",
            &json!("a state"),
            &questions(),
            Some("k"),
            None,
        )
        .unwrap();
        assert_eq!(r.url, "https://openrouter.ai/api/v1/systemone");
        let body: Value = serde_json::from_str(&r.body).unwrap();
        assert_eq!(body["model"], "typesafe/jev-1.13");
        assert_eq!(
            build_dm_request("typesafe/jev-1.13", &json!({}), &questions(), None, None)
                .unwrap()
                .url,
            "https://api.typesafe.ai/v1/systemone"
        );
        let ok = r#"{"model":"m","answers":{"relevant":{"type":"noul","noul":0.8}},"usage":{"input_tokens":3,"output_tokens":1}}"#;
        assert_eq!(
            parse_dm_response(ok, &questions()).unwrap()["answers"]["relevant"]["noul"],
            0.8
        );
        for bad in [
            r#"{"answers":{}}"#,
            r#"{"answers":{"relevant":{"type":"choice","choice":"a"}}}"#,
            r#"{"answers":{"relevant":{"type":"noul","noul":1.5}}}"#,
        ] {
            assert_eq!(
                parse_dm_response(bad, &questions()).unwrap_err().code(),
                "INVALID_PROVIDER_DATA",
                "{bad}"
            );
        }
        let bad_q = json!({"q": {"type": "score", "instructions": "x", "criteria": ["only one"]}})
            .as_object()
            .unwrap()
            .clone();
        assert_eq!(
            build_dm_request("typesafe/m", &json!(1), &bad_q, None, None)
                .unwrap_err()
                .code(),
            "INVALID_OPTION"
        );
        assert!(build_dm_request("openai/gpt", &json!(1), &questions(), None, None).is_err());
    }

    #[test]
    fn system_one_ids() {
        for yes in [
            "typesafe/jev-1.13",
            "openrouter/typesafe/jev-1.13",
            "typesafe/",
        ] {
            assert!(is_system_one(yes), "{yes}");
        }
        for no in [
            "openai/gpt-4o",
            "openrouter/openai/gpt-4o",
            "Typesafe/m",
            "xtypesafe/m",
            "openrouter/typesafe",
            "openai-compatible/typesafe/m",
        ] {
            assert!(!is_system_one(no), "{no}");
        }
        // Another OpenRouter vendor is a language model, not System One.
        assert_eq!(
            dm_endpoint("openrouter/openai/gpt-4o", None)
                .unwrap_err()
                .code(),
            "INVALID_MODEL_ID"
        );
    }
}
