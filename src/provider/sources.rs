//! The sources a provider says its answer rests on, as one list a UI renders chips and a
//! reference list from: a `sources` event once per answer (after the answer text, before the
//! citations still to come) and `sources` on the whole answer. Each source has the number its
//! citations name it by (`sourceId`, 1-based, in order of first appearance).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::native_citations::split_url;
use crate::json_escape::write_string;
use crate::text::push_decimal;

/// The event type (and whole-answer field) carrying an answer's sources.
pub const SOURCES: &str = "sources";

/// The most sources one answer lists (later ones share the last number).
pub const MAX_SOURCES: usize = 1024;

/// One source of a provider's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderSource {
    /// The number this answer's citations name it by.
    pub source_id: u32,
    /// What the provider calls this kind of source (`web`, `retrievedContext`, `document`,
    /// `search_result`, `url_citation`, `file_citation`, …).
    pub kind: String,
    /// An absolute http(s) URL, safe to link (see `Citation.url`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Any other URL value the provider sent, for display only, never to be linked.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_url: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The provider's own id of the source (a document or file id), when it gives one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_id: Option<String>,
    /// A date the provider gives (a search result's publication date), as sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub date: Option<String>,
    /// A passage of the source the provider sends with it (a snippet, a document's text).
    #[serde(default, skip_serializing_if = "Option::is_none")]
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
        serde_json::from_str(&self.json_text()).unwrap_or(Value::Null)
    }

    /// The list as JSON text: what serde writes of the sources (the same fields in the same
    /// order, those without a value left out), written by hand as `Citation::json_text` is,
    /// so that no serializer of `ProviderSource` is linked.
    pub fn json_text(&self) -> String {
        let mut out = String::from("[");
        for (i, source) in self.sources.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"sourceId\":");
            push_decimal(&mut out, u64::from(source.source_id));
            out.push_str(",\"kind\":");
            write_string(&source.kind, &mut out);
            for (key, value) in [
                ("url", &source.url),
                ("rawUrl", &source.raw_url),
                ("title", &source.title),
                ("providerId", &source.provider_id),
                ("date", &source.date),
                ("snippet", &source.snippet),
            ] {
                if let Some(value) = value {
                    out.push_str(",\"");
                    out.push_str(key);
                    out.push_str("\":");
                    write_string(value, &mut out);
                }
            }
            out.push('}');
        }
        out.push(']');
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sources_are_numbered_once_in_order() {
        let mut list = SourceList::default();
        let web = |url: &'static str| move || ProviderSource::new("web", Some(url));
        assert_eq!(
            list.number("https://a.example/", web("https://a.example/")),
            1
        );
        assert_eq!(list.number("javascript:x", web("javascript:x")), 2);
        assert_eq!(
            list.number("https://a.example/", web("https://a.example/")),
            1
        );
        let json = list.to_json();
        assert_eq!(json[0]["sourceId"], 1);
        assert_eq!(json[0]["url"], "https://a.example/");
        assert_eq!(json[1]["rawUrl"], "javascript:x");
        assert!(json[1].get("url").is_none());
    }

    #[test]
    fn the_hand_written_json_is_what_serde_writes() {
        let mut list = SourceList::default();
        assert_eq!(list.json_text(), "[]");
        list.number("a", || {
            ProviderSource::new("web", Some("https://a.example/\"x"))
        });
        list.number("b", || {
            let mut s = ProviderSource::new("document", Some("file:x"));
            s.title = Some("T\u{e9}\n".into());
            s.provider_id = Some("doc_1".into());
            s.date = Some("2024".into());
            s.snippet = Some("\u{1}<".into());
            s
        });
        list.number("c", || ProviderSource::new("maps", None));
        assert_eq!(
            list.json_text(),
            serde_json::to_string(&list.sources).unwrap()
        );
    }
}
