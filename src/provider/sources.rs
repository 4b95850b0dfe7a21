//! The sources a provider says its answer rests on, as one list a UI renders chips and a
//! reference list from: a `sources` event once per answer (after the answer text, before the
//! citations still to come) and `sources` on the whole answer. Each source has the number its
//! citations name it by (`sourceId`, 1-based, in order of first appearance).

use serde::Serialize;
use serde_json::Value;

use super::native_citations::split_url;

/// The event type (and whole-answer field) carrying an answer's sources.
pub const SOURCES: &str = "sources";

/// The most sources one answer lists (later ones share the last number).
pub const MAX_SOURCES: usize = 1024;

/// One source of a provider's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSource {
    /// The number this answer's citations name it by.
    pub source_id: u32,
    /// What the provider calls this kind of source (`web`, `retrievedContext`, `document`,
    /// `search_result`, `url_citation`, `file_citation`, …).
    pub kind: String,
    /// An absolute http(s) URL, safe to link (see `Citation.url`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Any other URL value the provider sent, for display only, never to be linked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw_url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The provider's own id of the source (a document or file id), when it gives one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// A date the provider gives (a search result's publication date), as sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// A passage of the source the provider sends with it (a snippet, a document's text).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub snippet: Option<String>,
}

impl ProviderSource {
    /// A source of `kind` at `url` (split into `url` / `raw_url` by the safe-link rule).
    pub fn new(kind: &str, url: Option<&str>) -> Self {
        let (url, raw_url) = split_url(url);
        Self {
            source_id: 0,
            kind: kind.to_owned(),
            url,
            raw_url,
            title: None,
            provider_id: None,
            date: None,
            snippet: None,
        }
    }
}

/// An answer's sources, numbered by a key (a URL, a provider id, a list index) in order of
/// first appearance.
#[derive(Debug, Clone, Default)]
pub struct SourceList {
    keys: Vec<String>,
    sources: Vec<ProviderSource>,
}

impl SourceList {
    /// The number of the source `key` names, adding it (made by `make`) when new.
    pub fn number(&mut self, key: &str, make: impl FnOnce() -> ProviderSource) -> u32 {
        let at = match self.keys.iter().position(|k| k == key) {
            Some(i) => i,
            None if self.keys.len() < MAX_SOURCES => {
                let mut source = make();
                source.source_id = u32::try_from(self.keys.len() + 1).unwrap_or(u32::MAX);
                self.keys.push(key.to_owned());
                self.sources.push(source);
                self.keys.len() - 1
            }
            None => MAX_SOURCES - 1,
        };
        u32::try_from(at + 1).unwrap_or(u32::MAX)
    }

    /// The source numbered `source_id`, to fill in what a later message says of it.
    pub fn get_mut(&mut self, source_id: u32) -> Option<&mut ProviderSource> {
        let i = usize::try_from(source_id).ok()?.checked_sub(1)?;
        self.sources.get_mut(i)
    }

    pub fn is_empty(&self) -> bool {
        self.sources.is_empty()
    }

    pub fn len(&self) -> usize {
        self.sources.len()
    }

    /// The list as its JSON value (the `sources` event's value).
    pub fn to_json(&self) -> Value {
        serde_json::to_value(&self.sources).unwrap_or(Value::Null)
    }

    /// The list as JSON text.
    pub fn json_text(&self) -> String {
        serde_json::to_string(&self.sources).unwrap_or_else(|_| "[]".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_numbered_once_in_order() {
        let mut list = SourceList::default();
        let web = |url: &'static str| move || ProviderSource::new("web", Some(url));
        assert_eq!(list.number("https://a.example/", web("https://a.example/")), 1);
        assert_eq!(list.number("javascript:x", web("javascript:x")), 2);
        assert_eq!(list.number("https://a.example/", web("https://a.example/")), 1);
        let json = list.to_json();
        assert_eq!(json[0]["sourceId"], 1);
        assert_eq!(json[0]["url"], "https://a.example/");
        assert_eq!(json[1]["rawUrl"], "javascript:x");
        assert!(json[1].get("url").is_none());
    }
}
