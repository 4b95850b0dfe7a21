//! What the JS invokers ask the core: requests to send, answers read, failures classified,
//! retry delays. The JS side only moves bytes through `fetch`.
//!
//! Whatever carries a provider's JSON (answers, usage, logprobs, decision answers) reaches JS
//! through `to_js`, i.e. `JSON.parse` semantics: a `__proto__` key is an own key.

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::provider::transport;
use crate::provider::{
    build_embeddings_request, build_request, check_max_concurrency, cited_output, enforcement,
    parse_embeddings, parse_response, CiteRequest, LmRequest, ModelId, Provider,
    DEFAULT_MAX_CONCURRENCY,
};

fn provider(name: &str) -> Result<Provider, JsValue> {
    serde_json::from_value(json!(name))
        .map_err(|_| js_error("UNKNOWN_PROVIDER", &format!("unknown provider {name:?}")))
}

/// An invoker builder's plain options; its JS-only ones (`headers`, `fetch`,
/// `outputTransformers`, `fallbackLms`) are JS's, given here as `null` (which builder takes
/// which is [`BUILDER_KEYS`]).
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct BuilderOptions {
    #[serde(default)]
    api_key: Option<String>,
    #[serde(default)]
    base_url: Option<String>,
    #[serde(default)]
    timeout_ms: Option<f64>,
    #[serde(default)]
    max_retries: Option<f64>,
    #[serde(default)]
    max_response_bytes: Option<f64>,
    #[serde(default)]
    batch_size: Option<f64>,
    #[serde(default)]
    max_concurrency: Option<f64>,
    // JS-only: passed as `null` so that a builder that does not take one refuses it.
    #[serde(default)]
    #[allow(dead_code)] // checked in JS
    headers: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)] // checked in JS
    fetch: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)] // checked in JS
    output_transformers: Option<IgnoredAny>,
    #[serde(default)]
    #[allow(dead_code)] // checked in JS
    fallback_lms: Option<IgnoredAny>,
}

const TRANSPORT_KEYS: &str = "apiKey baseUrl headers fetch timeoutMs maxRetries maxResponseBytes";
/// The keys each builder takes.
const BUILDER_KEYS: [(&str, [&str; 2]); 3] = [
    (
        "buildLMInvoker",
        [TRANSPORT_KEYS, "outputTransformers fallbackLms"],
    ),
    ("buildEMInvoker", [TRANSPORT_KEYS, "batchSize"]),
    ("buildDMInvoker", [TRANSPORT_KEYS, "maxConcurrency"]),
];

/// An invoker builder's plain options (`builder`: its name), read by the one options reader
/// (a key it does not take or a value of the wrong type refused, naming the key):
/// `{apiKey, baseUrl, timeoutMs, maxRetries, maxResponseBytes, batchSize, maxConcurrency}`,
/// `null` for absent; the transport's limits, an embedding model's `batchSize` and a decision
/// model's `maxConcurrency` checked, their defaults filled in.
#[wasm_bindgen(js_name = invokerOptions)]
pub fn invoker_options(builder: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let takes = BUILDER_KEYS
        .iter()
        .find(|(name, _)| *name == builder)
        .map_or(&[""; 2], |(_, keys)| keys);
    let map = convert::options(options, builder)?;
    let o: BuilderOptions = crate::options::derived::read_taking(builder, &map, takes)
        .map_err(|e| convert::option_error("INVALID_OPTION", &e))?;
    // The transport's limits, each checked or its default filled in ([`transport`]).
    let timeout_ms = o
        .timeout_ms
        .unwrap_or(f64::from(transport::DEFAULT_TIMEOUT_MS));
    let max_retries = o
        .max_retries
        .unwrap_or(f64::from(transport::DEFAULT_MAX_RETRIES));
    let max_response_bytes = o
        .max_response_bytes
        .unwrap_or(transport::DEFAULT_MAX_RESPONSE_BYTES as f64);
    transport::check_limits(timeout_ms, max_retries, max_response_bytes)?;
    let batch_size = match o.batch_size {
        Some(n) => Some(transport::check_whole("batchSize", n, 1).map(|()| n)?),
        None if builder == "buildEMInvoker" => Some(transport::DEFAULT_EM_BATCH_SIZE as f64),
        None => None,
    };
    let max_concurrency = match o.max_concurrency {
        Some(n) => Some(check_max_concurrency(n)?),
        None if builder == "buildDMInvoker" => Some(DEFAULT_MAX_CONCURRENCY),
        None => None,
    };
    Ok(convert::to_js(&json!({
        "apiKey": o.api_key,
        "baseUrl": o.base_url,
        "timeoutMs": timeout_ms,
        "maxRetries": max_retries,
        "maxResponseBytes": max_response_bytes,
        "batchSize": batch_size,
        "maxConcurrency": max_concurrency,
    })))
}

/// `{provider, streamFormat, url, headers: [[name, value]], body, enforce}` for a model id and
/// request; `enforce` names how its citations are enforced (`null` when it asks for none).
#[wasm_bindgen(js_name = buildHttpRequest)]
pub fn build_http_request(
    model_id: &str,
    request: JsValue,
    api_key: Option<String>,
    base_url: Option<String>,
) -> Result<JsValue, JsValue> {
    let id = ModelId::parse(model_id)?;
    let request: LmRequest = convert::options_as(request, "request")?;
    let http = build_request(&id, &request, api_key.as_deref(), base_url.as_deref())?;
    let enforce = enforcement(&id, &request)?.map(|m| m.name());
    Ok(convert::to_js(&json!({
        "provider": id.provider.name(),
        "streamFormat": id.provider.stream_format(),
        "url": http.url,
        "headers": http.headers,
        "body": http.body,
        "enforce": enforce,
    })))
}

/// A whole answer as an LMOutput. `citations` (`{markerStyle, sourceCount, …}`, for an
/// answer whose citations were enforced by a schema or a tool): its JSON becomes marked text.
#[wasm_bindgen(js_name = parseProviderResponse)]
pub fn parse_provider_response(
    provider_name: &str,
    body: &str,
    structured: bool,
    citations: JsValue,
) -> Result<JsValue, JsValue> {
    let output = parse_response(provider(provider_name)?, body, structured)?;
    let output = if citations.is_undefined() || citations.is_null() {
        output
    } else {
        let cite: CiteRequest = convert::from_js(citations, "INVALID_OPTION", "citations")?;
        cited_output(output, &cite)?
    };
    Ok(convert::to_js(&output))
}

/// `{provider, url, headers, body}` for one batch of texts to embed.
#[wasm_bindgen(js_name = buildEmbeddingsRequest)]
pub fn build_embeddings_http_request(
    model_id: &str,
    texts: Vec<String>,
    api_key: Option<String>,
    base_url: Option<String>,
) -> Result<JsValue, JsValue> {
    let id = ModelId::parse(model_id)?;
    let http = build_embeddings_request(&id, &texts, api_key.as_deref(), base_url.as_deref())?;
    Ok(convert::to_js(
        &json!({ "provider": id.provider.name(), "url": http.url, "headers": http.headers, "body": http.body }),
    ))
}

/// The batch's vectors, flattened in input order (the shim cuts them into Float32Arrays).
#[wasm_bindgen(js_name = parseEmbeddings)]
pub fn parse_embeddings_response(
    provider_name: &str,
    body: &str,
    expected: usize,
) -> Result<Vec<f32>, JsValue> {
    Ok(parse_embeddings(provider(provider_name)?, body, expected)?)
}

/// `{url, headers, body}` for a System One call.
#[wasm_bindgen(js_name = buildDecisionRequest)]
pub fn build_decision_request(
    model_id: &str,
    state: JsValue,
    questions: JsValue,
    api_key: Option<String>,
    base_url: Option<String>,
) -> Result<JsValue, JsValue> {
    let state: Value = convert::from_js(state, "INVALID_OPTION", "state")?;
    let questions = questions_arg(questions)?;
    let http = crate::provider::build_dm_request(
        model_id,
        &state,
        &questions,
        api_key.as_deref(),
        base_url.as_deref(),
    )?;
    Ok(convert::to_js(
        &json!({ "provider": "decision-model", "url": http.url, "headers": http.headers, "body": http.body }),
    ))
}

#[wasm_bindgen(js_name = parseDecisionResponse)]
pub fn parse_decision_response(body: &str, questions: JsValue) -> Result<JsValue, JsValue> {
    let questions = questions_arg(questions)?;
    Ok(convert::to_js(&crate::provider::parse_dm_response(
        body, &questions,
    )?))
}

/// The questions of a decision request, `{name: question}`, read as JSON.
fn questions_arg(questions: JsValue) -> Result<serde_json::Map<String, Value>, JsValue> {
    match convert::from_js::<Value>(questions, "INVALID_OPTION", "questions")? {
        Value::Object(questions) => Ok(questions),
        _ => Err(js_error(
            "INVALID_OPTION",
            "questions must be an object {name: question}",
        )),
    }
}

/// Who answers a decision model id's questions: `"system-one"` or `"language-model"`
/// (`INVALID_MODEL_ID` for an id neither can be, e.g. an Anthropic model, which returns no
/// log-probabilities).
#[wasm_bindgen(js_name = decisionBackend)]
pub fn decision_backend(model_id: &str) -> Result<String, JsValue> {
    Ok(crate::provider::DecisionBackend::of(model_id)?
        .name()
        .to_owned())
}

/// The calls of a language-model decision: `{calls: [messages], options}`, one call per
/// question in the questions' order, each sent with `options` (`temperature`, `maxTokens`,
/// `topLogprobs`).
#[wasm_bindgen(js_name = lmDecisionCalls)]
pub fn lm_decision_calls(state: JsValue, questions: JsValue) -> Result<JsValue, JsValue> {
    let state: Value = convert::from_js(state, "INVALID_OPTION", "state")?;
    let questions = questions_arg(questions)?;
    let calls: Vec<_> = crate::provider::lm_decision_calls(&state, &questions)?
        .into_iter()
        .map(|call| call.messages)
        .collect();
    Ok(convert::to_js(
        &json!({ "calls": calls, "options": crate::provider::lm_decision_call_options() }),
    ))
}

/// The decision `{model, answers, usage}` made of the calls' answers (`[{usage, logprobs}]`,
/// one per question in the questions' order).
#[wasm_bindgen(js_name = lmDecisionResult)]
pub fn lm_decision_result(
    model_id: &str,
    questions: JsValue,
    answers: JsValue,
) -> Result<JsValue, JsValue> {
    let questions = questions_arg(questions)?;
    // `[{usage, logprobs}]`: each call's normalised usage (or null) and its logprobs.
    let answers: Value = convert::from_js(answers, "INVALID_PROVIDER_DATA", "answers")?;
    let outputs: Vec<_> = answers
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|a| crate::provider::LmDecisionOutput {
            usage: a.get("usage").filter(|u| !u.is_null()),
            logprobs: a.get("logprobs").unwrap_or(&Value::Null),
        })
        .collect();
    Ok(convert::to_js(&crate::provider::lm_decision_result(
        model_id, &questions, &outputs,
    )?))
}

/// `enforce`'s fallback after a failed call ([`crate::cite::Enforce::fallback`]): the
/// enforcement to call again with (`"prompt"`), or nothing. `model_id`: the invoker's model
/// (none for a caller's own invoker: no fallback); `code` and `status`: the failure's.
#[wasm_bindgen(js_name = citationFallback)]
pub fn citation_fallback(
    enforce: &str,
    model_id: Option<String>,
    code: Option<String>,
    status: Option<f64>,
) -> Result<Option<String>, JsValue> {
    let enforce = crate::cite::Enforce::parse(enforce)?;
    let Some(id) = model_id.and_then(|id| ModelId::parse(&id).ok()) else {
        return Ok(None);
    };
    // Only a provider's own answer has a status (PROVIDER_ERROR), a whole number.
    let status = status
        .filter(|s| code.as_deref() == Some("PROVIDER_ERROR") && s.fract() == 0.0)
        .and_then(|s| u16::try_from(s as i64).ok());
    Ok(enforce
        .fallback(id.provider, status)
        .map(|e| e.name().to_owned()))
}

/// How `enforce` (`auto`, `grammar`, `schema`, `tool`, `prompt`) applies to a model: the
/// mechanism's name for a model id, or the checked name without one (or with an id that is
/// not a provider model's: a caller's own invoker). `INVALID_OPTION` for a bad name or a
/// mechanism the model's provider has not.
#[wasm_bindgen(js_name = citationEnforcement)]
pub fn citation_enforcement(enforce: &str, model_id: Option<String>) -> Result<String, JsValue> {
    let enforce = crate::cite::Enforce::parse(enforce)?;
    Ok(match model_id.and_then(|id| ModelId::parse(&id).ok()) {
        None => enforce.name().to_owned(),
        Some(id) => enforce.mechanism(id.provider)?.name().to_owned(),
    })
}
