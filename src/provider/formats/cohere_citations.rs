//! Cohere's citations (v2 chat): what the answer's `citations` (whole) or `citation-start`
//! events (streamed) say, held until the answer is complete, then as [`Citation`]s and the
//! answer's [`SourceList`].
//!
//! A Cohere citation is `{start, end, text, sources[], type?, content_index?}`: `start`/`end`
//! count characters (code points) of the cited answer text, relative to the content item
//! `content_index` names (the answer's text when it names none); `text` is that cited text;
//! `type` says which part of the answer it cites (`TEXT_CONTENT`; `THINKING_CONTENT` and
//! `PLAN` cite the reasoning or the tool plan, which are no part of the `response` text, so
//! they are left out). Each source is `{type: "document" | "tool", id, document | tool_output}`;
//! sources are numbered by `id` in order of first appearance. One [`Citation`] per (citation,
//! source), its span the claim the source supports (`covers: claim`), its `location` the
//! citation's `type` (`citation` when it has none).

use serde_json::{Map, Value};

use crate::cite::{Citation, Covers};
use crate::provider::offsets::{TextOffsets, Unit};
use crate::provider::sources::{ProviderSource, SourceList};
use crate::provider::stream::MAX_HELD_CITATIONS;
use crate::provider::wire::MAX_LIST_ITEMS;

/// The `location` of a citation that has no `type`.
pub(crate) const UNTYPED: &str = "citation";

/// The most content items whose place in the answer text is kept (an answer has a few).
pub(crate) const MAX_CONTENT_ITEMS: usize = 4096;

/// Where a text content item sits in the answer text, in code points.
#[derive(Debug, Clone, Copy)]
struct Item {
    index: u64,
    start: usize,
    len: usize,
}

/// The answer's text content items, by their `index`: where each starts and how long it is.
#[derive(Debug, Clone, Default)]
pub(crate) struct ContentItems {
    items: Vec<Item>,
}

impl ContentItems {
    /// Notes text of item `index` (which starts at `at` code points when it is new): `false`
    /// when there are more items than [`MAX_CONTENT_ITEMS`].
    pub(crate) fn grow(&mut self, index: u64, at: usize, chars: usize) -> bool {
        if let Some(item) = self.items.iter_mut().rev().find(|i| i.index == index) {
            item.len = item.len.saturating_add(chars);
            return true;
        }
        if self.items.len() >= MAX_CONTENT_ITEMS {
            return false;
        }
        self.items.push(Item {
            index,
            start: at,
            len: chars,
        });
        true
    }

    /// The code point range `[start, end)` relative to item `index` (the whole text when no
    /// text item has that index) as an absolute code point range, inside that item.
    fn absolute(&self, index: Option<u64>, [start, end]: [u64; 2], total: usize) -> [u64; 2] {
        let (base, len) = index
            .and_then(|n| self.items.iter().find(|i| i.index == n))
            .map_or((0, total), |i| (i.start, i.len));
        let cap = |n: u64| (base as u64).saturating_add(n.min(len as u64));
        let start = cap(start);
        [start, cap(end).max(start)]
    }
}

/// A citation as the provider sent it, until the answer is complete.
#[derive(Debug, Clone)]
struct Held {
    offsets: [u64; 2],
    content_index: Option<u64>,
    location: String,
    /// The numbers of its sources in the answer's list.
    sources: Vec<u32>,
}

/// The answer's citations and sources so far.
#[derive(Debug, Clone, Default)]
pub(crate) struct CohereCitations {
    sources: SourceList,
    held: Vec<Held>,
    /// Sources without an `id`, each its own (numbered by a key of their own).
    anonymous: usize,
}

/// What is wrong with a citation (the decoder says whose data it was).
pub(crate) type Invalid = String;

impl CohereCitations {
    /// Takes one citation object. Citations past [`MAX_HELD_CITATIONS`] and sources past
    /// [`MAX_LIST_ITEMS`] of one citation are dropped, as lists of the other formats are.
    pub(crate) fn add(&mut self, citation: &Value) -> Result<(), Invalid> {
        let c = citation
            .as_object()
            .ok_or_else(|| "a citation that is not an object".to_owned())?;
        let location = match c.get("type") {
            None | Some(Value::Null) => UNTYPED.to_owned(),
            Some(Value::String(kind)) => kind.clone(),
            Some(_) => return Err("a citation whose `type` is not a string".into()),
        };
        if location == "THINKING_CONTENT" || location == "PLAN" {
            return Ok(());
        }
        let offset = |key: &str| {
            c.get(key)
                .and_then(Value::as_u64)
                .ok_or_else(|| format!("a citation without a whole-number `{key}`"))
        };
        let offsets = [offset("start")?, offset("end")?];
        let content_index = match c.get("content_index") {
            None | Some(Value::Null) => None,
            Some(n) => Some(
                n.as_u64()
                    .ok_or("a citation whose `content_index` is not a whole number")?,
            ),
        };
        let listed = match c.get("sources") {
            None | Some(Value::Null) => &[][..],
            Some(Value::Array(list)) => list.as_slice(),
            Some(_) => return Err("a citation whose `sources` is not an array".into()),
        };
        if self.held.len() >= MAX_HELD_CITATIONS {
            return Ok(());
        }
        let mut sources = Vec::new();
        for source in listed.iter().take(MAX_LIST_ITEMS) {
            sources.push(self.source(source)?);
        }
        self.held.push(Held {
            offsets,
            content_index,
            location,
            sources,
        });
        Ok(())
    }

    /// The number of one `sources[]` entry, listing it when it is new.
    fn source(&mut self, source: &Value) -> Result<u32, Invalid> {
        let s = source
            .as_object()
            .ok_or_else(|| "a citation source that is not an object".to_owned())?;
        let text = |map: &Map<String, Value>, key: &str| {
            map.get(key).and_then(Value::as_str).map(str::to_owned)
        };
        let id = text(s, "id");
        let key = match &id {
            Some(id) => id.clone(),
            None => {
                self.anonymous += 1;
                format!("\u{0}{}", self.anonymous)
            }
        };
        let kind = text(s, "type").unwrap_or_else(|| "source".to_owned());
        // A document's fields, or a tool's output object.
        let detail = ["document", "tool_output"]
            .iter()
            .find_map(|k| s.get(*k).and_then(Value::as_object));
        Ok(self.sources.number(&key, || {
            let url = detail.and_then(|d| d.get("url")).and_then(Value::as_str);
            let mut made = ProviderSource::new(&kind, url);
            made.provider_id = id.clone();
            made.title = detail.and_then(|d| text(d, "title"));
            made.snippet = detail.and_then(|d| text(d, "snippet").or_else(|| text(d, "text")));
            made
        }))
    }

    pub(crate) fn has_sources(&self) -> bool {
        !self.sources.is_empty()
    }

    /// The `sources` event's value.
    pub(crate) fn sources_json(&self) -> String {
        self.sources.json_text()
    }

    /// The held citations against the whole answer text, in the order they came: one per
    /// source (one naming no source, `sourceId` 0, when the provider listed none).
    pub(crate) fn take(&mut self, text: &TextOffsets, items: &ContentItems) -> Vec<Citation> {
        let total = text.len(Unit::CodePoints);
        let mut out = Vec::new();
        for held in std::mem::take(&mut self.held) {
            let [start, end] = items.absolute(held.content_index, held.offsets, total);
            let span = [
                text.utf16(start, Unit::CodePoints),
                text.utf16(end, Unit::CodePoints),
            ];
            let bare = Citation {
                location: Some(held.location.clone()),
                covers: Some(Covers::Claim),
                ..Citation::at_marker(0, String::new(), span, false)
            };
            if held.sources.is_empty() {
                out.push(bare);
                continue;
            }
            for id in held.sources {
                let source = self.sources.get_mut(id);
                let (url, raw_url, title) = match source {
                    Some(s) => (s.url.clone(), s.raw_url.clone(), s.title.clone()),
                    None => (None, None, None),
                };
                out.push(Citation {
                    source_id: id,
                    valid: true,
                    url,
                    raw_url,
                    document_title: title,
                    ..bare.clone()
                });
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn offsets_count_from_their_item_and_stay_inside_it() {
        let mut items = ContentItems::default();
        assert!(items.grow(1, 0, 4));
        assert!(items.grow(1, 4, 2));
        assert!(items.grow(3, 6, 5));
        assert_eq!(items.absolute(Some(3), [1, 2], 11), [7, 8]);
        assert_eq!(items.absolute(Some(1), [2, 99], 11), [2, 6]);
        assert_eq!(items.absolute(Some(3), [4, 1], 11), [10, 10]);
        assert_eq!(items.absolute(None, [3, 20], 11), [3, 11]);
        assert_eq!(items.absolute(Some(9), [u64::MAX, u64::MAX], 11), [11, 11]);
    }

    #[test]
    fn sources_are_numbered_by_id_and_thinking_citations_left_out() {
        let mut c = CohereCitations::default();
        let doc = |id: &str| json!({"type": "document", "id": id, "document": {"title": id}});
        c.add(&json!({"start": 0, "end": 1, "sources": [doc("b"), doc("a")]}))
            .unwrap();
        c.add(&json!({"start": 1, "end": 2, "sources": [doc("a"), {"type": "tool"}]}))
            .unwrap();
        c.add(&json!({"start": 0, "end": 1, "type": "PLAN", "sources": [doc("z")]}))
            .unwrap();
        assert!(c.add(&json!({"start": 0})).is_err());
        let mut text = TextOffsets::default();
        text.push("x😀");
        let cites = c.take(&text, &ContentItems::default());
        let got: Vec<(u32, [usize; 2])> = cites.iter().map(|c| (c.source_id, c.span)).collect();
        assert_eq!(got, [(1, [0, 1]), (2, [0, 1]), (2, [1, 3]), (3, [1, 3])]);
        assert_eq!(cites[0].document_title.as_deref(), Some("b"));
        let sources = serde_json::from_str::<Value>(&c.sources_json()).unwrap();
        assert_eq!(sources.as_array().map(Vec::len), Some(3));
        assert_eq!(sources[2], json!({"sourceId": 3, "kind": "tool"}));
    }
}
