//! The relevance components' core calls: chunk texts, context rendering, prompts, reading
//! model answers, decision batches, and cosine similarity over a matrix JS writes in place.

use serde_json::{json, Value};
use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::chunk::{
    chunks_from_value, context_text, format_chunk_as_string, format_references_as_string, Chunk,
    ContextConfig, MetadataMap,
};
use crate::filter::{self, DecisionKind};

fn chunks(value: JsValue) -> Result<Vec<Chunk>, JsValue> {
    let value: Value = convert::from_js(value, "INVALID_CHUNK", "chunks")?;
    Ok(chunks_from_value(value)?)
}

fn chunk(value: JsValue) -> Result<Chunk, JsValue> {
    let v: Value = convert::from_js(value, "INVALID_CHUNK", "chunk")?;
    Ok(Chunk::from_value(v, 0)?)
}

fn context_config(value: JsValue) -> Result<Option<ContextConfig>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let cfg: ContextConfig =
        convert::options_coded(value, "ContextConfig", "INVALID_CONTEXT_CONFIG")?;
    cfg.validate()?;
    Ok(Some(cfg))
}

/// Checks chunks; `undefined` when they are all fine (the error names the first bad one).
#[wasm_bindgen(js_name = checkChunks)]
pub fn check_chunks(value: JsValue) -> Result<(), JsValue> {
    chunks(value).map(|_| ())
}

/// The config with its defaults filled in, checked.
#[wasm_bindgen(js_name = contextConfig)]
pub fn normalize_context_config(value: JsValue) -> Result<JsValue, JsValue> {
    let cfg = context_config(value)?.unwrap_or_default();
    Ok(convert::to_js(&cfg))
}

/// What a model or embedder sees of each chunk: its rendered context, or its content.
#[wasm_bindgen(js_name = chunkTexts)]
pub fn chunk_texts(value: JsValue, config: JsValue) -> Result<Vec<String>, JsValue> {
    let cfg = context_config(config)?;
    chunks(value)?
        .iter()
        .map(|c| context_text(c, cfg.as_ref()).map_err(Into::into))
        .collect()
}

#[wasm_bindgen(js_name = formatChunkAsString)]
pub fn format_chunk(value: JsValue, metadata_map: JsValue) -> Result<String, JsValue> {
    let map: MetadataMap = convert::options_as(metadata_map, "metadata map {title, url}")?;
    Ok(format_chunk_as_string(&chunk(value)?, &map))
}

/// A source's metadata as a CSL-JSON item (see [`crate::source_item`]).
#[wasm_bindgen(js_name = cslItemOf)]
pub fn csl_item_of(metadata: JsValue) -> Result<JsValue, JsValue> {
    if !metadata.is_object() || convert::is_array(&metadata) {
        return Err(js_error(
            "INVALID_SOURCE",
            "cslItemOf takes a source's metadata object",
        ));
    }
    let value = convert::js_to_json(&metadata, "INVALID_SOURCE", "source metadata")?;
    let item = crate::source_item::csl_item(value.as_object().unwrap_or(&serde_json::Map::new()));
    Ok(convert::to_js(&Value::Object(item)))
}

#[wasm_bindgen(js_name = formatReferencesAsString)]
pub fn format_references(items: JsValue) -> Result<String, JsValue> {
    if !convert::is_array(&items) {
        return Err(js_error(
            "INVALID_OPTION",
            "formatReferencesAsString takes an array of strings",
        ));
    }
    let items: Vec<String> = convert::from_js(items, "INVALID_OPTION", "reference strings")?;
    Ok(format_references_as_string(&items))
}

/// A relevance component's plain options (`kind`: its class), checked, defaults filled in;
/// `owner` names it in errors. A `relevanceQuestion` is checked here too.
#[wasm_bindgen(js_name = relevanceOptions)]
pub fn relevance_options(kind: &str, owner: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let what = format!("{owner} options");
    let map = match convert::options_to_json(&options, "INVALID_OPTION", &what)? {
        Value::Null => serde_json::Map::new(),
        Value::Object(map) => map,
        _ => {
            return Err(js_error(
                "INVALID_OPTION",
                &format!("{what} must be an object"),
            ))
        }
    };
    let settings = filter::options::settings(kind, owner, &map)
        .map_err(|e| convert::option_error("INVALID_OPTION", &e))?;
    if let Some(q) = &settings.relevance_question {
        filter::decision_batch(DecisionKind::Filter, "", &[], 0, Some(q))?;
    }
    Ok(convert::to_js(&settings))
}

/// `{name}` placeholders of `template` filled from `vars` (an object of strings).
#[wasm_bindgen(js_name = fillTemplate)]
pub fn fill_template(template: &str, vars: JsValue) -> Result<String, JsValue> {
    let vars: std::collections::BTreeMap<String, String> =
        convert::from_js(vars, "INVALID_OPTION", "template values")?;
    let pairs: Vec<(&str, &str)> = vars.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    Ok(filter::fill_template(template, &pairs))
}

/// The relevance filter's text for each chunk of a batch.
#[wasm_bindgen(js_name = relevanceChunkTexts)]
pub fn relevance_chunk_texts(
    value: JsValue,
    metadata_keys: Option<Vec<String>>,
    chunk_format: Option<String>,
    config: JsValue,
) -> Result<Vec<String>, JsValue> {
    let cfg = context_config(config)?;
    chunks(value)?
        .iter()
        .map(|c| {
            filter::relevance_chunk_text(
                c,
                metadata_keys.as_deref(),
                chunk_format.as_deref(),
                cfg.as_ref(),
            )
            .map_err(Into::into)
        })
        .collect()
}

/// `{context, labels}`: the reference formatter's view of a batch starting at `start`.
#[wasm_bindgen(js_name = formatterContext)]
pub fn formatter_context(
    value: JsValue,
    key: &str,
    start: usize,
    config: JsValue,
) -> Result<JsValue, JsValue> {
    let cfg = context_config(config)?;
    let (context, labels) = filter::formatter_context(&chunks(value)?, key, start, cfg.as_ref())?;
    Ok(convert::to_js(
        &json!({ "context": context, "labels": labels }),
    ))
}

/// The filter's verdicts from a model's `outputs`; INVALID_MODEL_ANSWER when they do not fit.
#[wasm_bindgen(js_name = relevanceResults)]
pub fn relevance_results(outputs: JsValue, expected: usize) -> Result<Vec<u8>, JsValue> {
    let outputs: Value = convert::from_js(outputs, "INVALID_MODEL_ANSWER", "model outputs")?;
    let kept = filter::relevance_results(&outputs, expected)?;
    Ok(kept.into_iter().map(u8::from).collect())
}

/// Which labels the formatter's answer lists.
#[wasm_bindgen(js_name = formatterKept)]
pub fn formatter_kept(
    outputs: JsValue,
    key: &str,
    labels: Vec<String>,
) -> Result<Vec<u8>, JsValue> {
    let outputs: Value = convert::from_js(outputs, "INVALID_MODEL_ANSWER", "model outputs")?;
    let kept = filter::formatter_kept(&outputs, key, &labels)?;
    Ok(kept.into_iter().map(u8::from).collect())
}

/// `{state, questions, names}` for one decision-model batch.
#[wasm_bindgen(js_name = decisionBatch)]
pub fn decision_batch(
    formatter: bool,
    text: &str,
    texts: Vec<String>,
    start: usize,
    question: JsValue,
) -> Result<JsValue, JsValue> {
    let kind = if formatter {
        DecisionKind::Formatter
    } else {
        DecisionKind::Filter
    };
    let question: Option<Value> = if question.is_undefined() || question.is_null() {
        None
    } else {
        Some(convert::from_js(
            question,
            "INVALID_OPTION",
            "relevanceQuestion",
        )?)
    };
    let batch = filter::decision_batch(kind, text, &texts, start, question.as_ref())?;
    Ok(convert::to_js(&batch))
}

#[wasm_bindgen(js_name = decisionScores)]
pub fn decision_scores(answers: JsValue, names: Vec<String>) -> Result<Vec<f64>, JsValue> {
    let answers: Value = convert::from_js(answers, "INVALID_PROVIDER_DATA", "answers")?;
    Ok(filter::decision_scores(&answers, &names)?)
}

/// Vectors written in place by JS (no intermediate copy), scored against a query.
#[wasm_bindgen(js_name = SimilarityMatrixCore)]
pub struct SimilarityMatrix {
    data: Vec<f32>,
}

#[wasm_bindgen(js_class = SimilarityMatrixCore)]
impl SimilarityMatrix {
    /// Room for `rows` vectors of `dim` values.
    #[wasm_bindgen(constructor)]
    pub fn new(rows: usize, dim: usize) -> Result<SimilarityMatrix, JsValue> {
        let too_many = || {
            js_error(
                "INVALID_EMBEDDING",
                &format!("{rows} embeddings of {dim} dimensions do not fit in wasm memory"),
            )
        };
        let len = rows.checked_mul(dim).ok_or_else(too_many)?;
        // A failed allocation would abort the whole instance: ask first, fail with an error.
        let mut data = Vec::new();
        data.try_reserve_exact(len).map_err(|_| too_many())?;
        data.resize(len, 0.0);
        Ok(SimilarityMatrix { data })
    }

    /// Where JS writes the vectors (valid until the next allocation in the module).
    pub fn ptr(&mut self) -> usize {
        self.data.as_mut_ptr() as usize
    }

    /// The cosine of `query` with each row.
    pub fn scores(&self, query: &[f32]) -> Result<Vec<f32>, JsValue> {
        Ok(filter::cosine_scores(query, &self.data)?)
    }
}
