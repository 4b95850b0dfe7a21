//! Perplexity (`perplexity/<model>`, `{base}/chat/completions`): Chat Completions with the
//! web sources of its answer beside the choices.
//!
//! Every chunk of a stream (and a whole answer) carries the top-level `citations` (the
//! sources' URLs, in order) and, in newer API versions, `search_results` (`{title, url,
//! date, last_updated, snippet}` per source, in the same order); a stream repeats them with
//! each chunk (the latest are kept), and its `usage` is running. The model cites source `i`
//! (0-based) by writing the marker `[i+1]` in the text.
//!
//! The answer's sources are the `search_results` when there are any (kind `search_result`,
//! with title, date and snippet), else the `citations` URLs (kind `citation`), numbered in
//! the provider's order, so that a marker's number is its source's `sourceId`. The markers
//! are found by citeflow's own marker parser once the text is complete (a marker may arrive
//! in pieces): one citation per id, `span` the marker (`covers: "marker"`, `marker` as
//! written), `valid` when the id names a listed source, the source's URL and title on it.
//! An answer without sources has no citations (its bracketed numbers cite nothing).
//! Structured outputs: `response_format: {type: "json_schema", json_schema: {name, schema}}`.

use serde_json::{Map, Value};

/// Whether the answer is a JSON object (a structured answer), not prose.
fn is_json_object(text: &str) -> bool {
    text.trim_start().starts_with('{')
        && serde_json::from_str::<Value>(text).is_ok_and(|v| v.is_object())
}

use super::chat_like::{self, Flavor};
use crate::cite::Mechanism;
use crate::cite::{parse_citations, Citation, Covers, MarkerStyle, ParseOptions};
use crate::event::LmOutput;
use crate::provider::sources::{ProviderSource, SourceList, MAX_SOURCES};
use crate::provider::{HttpRequest, LmRequest, ModelId, RequestError};

/// One of `search_results`.
#[derive(Debug, Clone, Default, PartialEq)]
struct SearchResult {
    title: Option<String>,
    url: Option<String>,
    date: Option<String>,
    snippet: Option<String>,
}

/// The latest `citations` and `search_results` of an answer (at most [`MAX_SOURCES`] each:
/// more would not keep a marker's number equal to its source's).
#[derive(Debug, Clone, Default)]
pub(crate) struct SearchLists {
    citations: Vec<String>,
    search_results: Vec<SearchResult>,
}

impl SearchLists {
    /// Takes a chunk's lists, when it has them (they replace the earlier ones).
    pub(crate) fn read(&mut self, chunk: &Map<String, Value>) -> Result<(), String> {
        match chunk.get("citations") {
            None | Some(Value::Null) => {}
            Some(Value::Array(urls)) => {
                self.citations = urls
                    .iter()
                    .take(MAX_SOURCES)
                    .map(|u| match u {
                        Value::String(u) => Ok(u.clone()),
                        _ => Err("a `citations` item is not a string".to_owned()),
                    })
                    .collect::<Result<_, _>>()?;
            }
            Some(_) => return Err("`citations` is not an array".into()),
        }
        match chunk.get("search_results") {
            None | Some(Value::Null) => {}
            Some(Value::Array(results)) => {
                self.search_results = results
                    .iter()
                    .take(MAX_SOURCES)
                    .map(search_result)
                    .collect::<Result<_, _>>()?;
            }
            Some(_) => return Err("`search_results` is not an array".into()),
        }
        Ok(())
    }

    /// The answer's sources, and the citations of the markers in `text`.
    pub(crate) fn cite(&self, text: &str) -> (SourceList, Vec<Citation>) {
        let (location, sources): (&str, Vec<ProviderSource>) = if self.search_results.is_empty() {
            let sources = self
                .citations
                .iter()
                .map(|url| ProviderSource::new("citation", Some(url)));
            ("citation", sources.collect())
        } else {
            let sources = self.search_results.iter().map(|r| ProviderSource {
                title: r.title.clone(),
                date: r.date.clone(),
                snippet: r.snippet.clone(),
                ..ProviderSource::new("search_result", r.url.as_deref())
            });
            ("search_result", sources.collect())
        };
        let mut list = SourceList::default();
        for (i, source) in sources.iter().enumerate() {
            // Keyed by position: the same URL twice is two sources, as the markers count.
            list.number(&i.to_string(), || source.clone());
        }
        // A structured answer (JSON, as a `responseSchema` or a cited answer's schema asks for)
        // has no markers: its `[1, 2]` are JSON arrays, which the cited-answer stage reads.
        if sources.is_empty() || is_json_object(text) {
            return (list, Vec::new());
        }
        let options = ParseOptions {
            marker_style: MarkerStyle::Bracket,
            source_count: u32::try_from(sources.len()).ok(),
        };
        let citations = parse_citations(text, options)
            .into_iter()
            .map(|c| {
                let source = c
                    .valid
                    .then(|| (c.source_id as usize).checked_sub(1))
                    .flatten()
                    .and_then(|i| sources.get(i));
                Citation {
                    url: source.and_then(|s| s.url.clone()),
                    raw_url: source.and_then(|s| s.raw_url.clone()),
                    document_title: source.and_then(|s| s.title.clone()),
                    location: Some(location.to_owned()),
                    covers: Some(Covers::Marker),
                    ..c
                }
            })
            .collect();
        (list, citations)
    }
}

/// One `search_results` item: an object whose fields are strings (or null).
fn search_result(value: &Value) -> Result<SearchResult, String> {
    let Some(item) = value.as_object() else {
        return Err("a `search_results` item is not an object".into());
    };
    let field = |key: &str| match item.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("a search result's `{key}` is not a string")),
    };
    Ok(SearchResult {
        title: field("title")?,
        url: field("url")?,
        date: field("date")?,
        snippet: field("snippet")?,
    })
}

/// Perplexity's `json_schema`: its name and the schema (the name is required by its API
/// reference; `strict` is not offered).
fn schema_format(name: &'static str, schema: Value) -> Value {
    let mut format = Map::new();
    format.insert("name".into(), Value::from(name));
    format.insert("schema".into(), schema);
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
    chat_like::whole(Flavor::Perplexity, body, structured)
}
