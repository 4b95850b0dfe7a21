//! Mistral (`mistral/<model>`, `{base}/chat/completions`): Chat Completions whose `content`
//! (`message.content`, `delta.content`) is a string or an array of chunks: `text`,
//! `thinking` (reasoning models: `thinking: [{type: "text", text}]`, read as a `thinking`
//! block) and `reference` (`reference_ids: [ints]`, between two text chunks).
//!
//! A reference cites the sources its ids name at that place in the answer: one citation per
//! id with an empty span at the end of the answer text so far (`covers: "point"`,
//! `location: "reference"`, `valid` true). Mistral's reference ids are the caller's own: the
//! ids it gave its documents (in a tool result it returned to the model). Each distinct id is
//! one source of the answer (kind `reference`), numbered in order of first appearance
//! (`sourceId`), with the id as sent in `providerId`, by which the caller finds its
//! document. Structured outputs: `response_format: {type: "json_schema", json_schema: {name,
//! schema, strict: true}}`.

use serde_json::{Map, Value};

use super::chat_like::{self, Flavor};
use crate::cite::{Citation, Covers, Mechanism};
use crate::event::LmOutput;
use crate::provider::sources::{ProviderSource, SourceList};
use crate::provider::{HttpRequest, LmRequest, ModelId, RequestError};

/// The most reference citations one answer holds (later ones are dropped).
pub const MAX_REFERENCES: usize = 4096;

/// The most ids of one reference chunk that are read (the rest are checked and dropped).
const MAX_IDS_PER_REFERENCE: usize = 1024;

/// The references of an answer so far: their sources and citations.
#[derive(Debug, Clone, Default)]
pub(crate) struct References {
    sources: SourceList,
    citations: Vec<Citation>,
}

impl References {
    /// A reference chunk's `reference_ids` at UTF-16 offset `at` of the answer.
    pub(crate) fn add(&mut self, ids: Option<&Value>, at: usize) -> Result<(), String> {
        let ids = match ids {
            None | Some(Value::Null) => return Ok(()),
            Some(Value::Array(ids)) => ids,
            Some(_) => return Err("`reference_ids` is not an array".into()),
        };
        for (i, id) in ids.iter().enumerate() {
            let key = match (id.as_u64(), id.as_i64()) {
                (Some(n), _) => n.to_string(),
                (None, Some(n)) => n.to_string(),
                _ => return Err("a reference id is not a whole number".into()),
            };
            if i >= MAX_IDS_PER_REFERENCE || self.citations.len() >= MAX_REFERENCES {
                continue;
            }
            let source_id = self.sources.number(&key, || ProviderSource {
                provider_id: Some(key.clone()),
                ..ProviderSource::new("reference", None)
            });
            self.citations.push(Citation {
                location: Some("reference".into()),
                covers: Some(Covers::Point),
                ..Citation::at_marker(source_id, String::new(), [at, at], true)
            });
        }
        Ok(())
    }

    /// The answer's sources and citations (emptied).
    pub(crate) fn take(&mut self) -> (SourceList, Vec<Citation>) {
        (
            std::mem::take(&mut self.sources),
            std::mem::take(&mut self.citations),
        )
    }
}

/// Mistral's `json_schema`: name, schema, strict.
fn schema_format(name: &'static str, schema: Value) -> Value {
    let mut format = Map::new();
    format.insert("name".into(), Value::from(name));
    format.insert("schema".into(), schema);
    format.insert("strict".into(), Value::Bool(true));
    Value::Object(format)
}

pub(crate) fn request(
    id: &ModelId,
    req: &LmRequest,
    mechanism: Option<Mechanism>,
    api_key: Option<&str>,
    base: &str,
) -> Result<HttpRequest, RequestError> {
    chat_like::request(id, req, mechanism, api_key, base, schema_format)
}

pub(crate) fn whole_answer(body: &str, structured: bool) -> Result<LmOutput, RequestError> {
    chat_like::whole(Flavor::Mistral, body, structured)
}
