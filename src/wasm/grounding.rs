//! `groundingCitations`: a Gemini answer's `groundingMetadata`, held apart from its stream
//! (the AI SDK hands it over as provider metadata), read into citeflow's citations and
//! sources. In the full streaming module only (the lean one has no provider formats).
//!
//! It crosses as JSON text both ways, written by the writers the stream decoders already use
//! (`Citation::json_text`, `SourceList::json_text`): no other converter is linked for it.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::errors::js_error;
use crate::provider::formats::grounding_citations as read;

/// `{"citations": [...], "sources": [...]}` (JSON text) of the grounding `grounding_json`
/// (JSON text) for the answer `text`: citations in citeflow's `Citation` shape, spans in
/// UTF-16 code units of `text`.
#[wasm_bindgen(js_name = groundingCitations)]
pub fn grounding_citations(text: &str, grounding_json: &str) -> Result<String, JsValue> {
    let grounding: Value = serde_json::from_str(grounding_json).map_err(|_| {
        js_error(
            "INVALID_PROVIDER_DATA",
            "google: `groundingMetadata` is not JSON data",
        )
    })?;
    let (sources, citations) = read(text, &grounding)?;
    let mut out = String::from("{\"citations\":[");
    for (i, citation) in citations.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&citation.json_text());
    }
    out.push_str("],\"sources\":");
    out.push_str(&sources.json_text());
    out.push('}');
    Ok(out)
}
