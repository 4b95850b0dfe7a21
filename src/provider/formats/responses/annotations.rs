//! The annotations of a Responses answer's `output_text` parts as citeflow sources and
//! citations.
//!
//! Each annotation's offsets count code points (characters) of its own `output_text` part's
//! text, which the answer joins with the other parts: they are moved by the part's start in the
//! answer and kept inside the part. What each kind's position covers:
//!
//! - `url_citation` (`url`, `title`, `start_index`, `end_index`): the span is the inline link the
//!   model wrote (`([site](url))`), [`Covers::Link`]. An annotation without both indices, or
//!   with `start_index >= end_index`, has no position: xAI sends its citations so (only a `url`
//!   in a whole answer, `start_index = end_index = 0` and the URL as `title` in a stream). Its
//!   page is one of the answer's sources, but no citation is made of it, for a citation must
//!   say where the answer cites.
//! - `container_file_citation` (`container_id`, `file_id`, `filename`, `start_index`,
//!   `end_index`): the span is the link target the model wrote to the file
//!   (`sandbox:/mnt/data/<filename>` inside `[Download the file](…)`), [`Covers::Link`]; the
//!   same rule for a missing or empty range.
//! - `file_citation` (`file_id`, `filename`, `index`) and `file_path` (`file_id`, `index`): a
//!   place, no range: an empty span at `index`, [`Covers::Point`]. (An `index` of 0 is a
//!   place: the start of the part.) Without an `index`, a source only.
//!
//! Sources are numbered in the order the annotations come (part by part, each part's in its
//! own order): a web page by its URL (`kind` `url_citation`), a file by its `file_id` (`kind`
//! the annotation's type, `providerId` the file id, `title` its filename). A `title` that only
//! repeats the URL (xAI's streamed citations) is no title and is left out.

use serde_json::Value;

use crate::cite::{Citation, Covers};
use crate::provider::native_citations::split_url;
use crate::provider::offsets::{TextOffsets, Unit};
use crate::provider::sources::{ProviderSource, SourceList};

/// What kind of annotation, as the provider names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Kind {
    Url,
    File,
    ContainerFile,
    FilePath,
}

impl Kind {
    fn parse(name: &str) -> Option<Self> {
        match name {
            "url_citation" => Some(Self::Url),
            "file_citation" => Some(Self::File),
            "container_file_citation" => Some(Self::ContainerFile),
            "file_path" => Some(Self::FilePath),
            _ => None,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Self::Url => "url_citation",
            Self::File => "file_citation",
            Self::ContainerFile => "container_file_citation",
            Self::FilePath => "file_path",
        }
    }
}

/// One annotation, checked, as the decoder holds it until the answer is complete.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Annotation {
    pub kind: Kind,
    /// The part it belongs to (its number among the answer's parts) and its number there.
    pub part: usize,
    pub index: u64,
    /// Code point offsets into the part: a range, or a place (`file_citation`).
    start: Option<u64>,
    end: Option<u64>,
    url: Option<String>,
    title: Option<String>,
    file_id: Option<String>,
    filename: Option<String>,
}

/// A string field: absent or `null` is `None`; any other type is bad data.
fn string(a: &Value, key: &str) -> Result<Option<String>, String> {
    match a.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(format!("an annotation's `{key}` is not a string")),
    }
}

/// An offset field: absent or `null` is `None`; anything but a whole number ≥ 0 is bad data.
fn offset(a: &Value, key: &str) -> Result<Option<u64>, String> {
    match a.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v
            .as_u64()
            .map(Some)
            .ok_or_else(|| format!("an annotation's `{key}` is not a whole number ≥ 0")),
    }
}

impl Annotation {
    /// The annotation `a` (number `index` of part `part`), `None` for a kind citeflow does
    /// not read; bad data (a field of the wrong type, a kind without what names its source) is
    /// an error's detail.
    pub(super) fn read(a: &Value, part: usize, index: u64) -> Result<Option<Self>, String> {
        if !a.is_object() {
            return Err("an annotation that is not an object".into());
        }
        let Some(kind) = a.get("type").and_then(Value::as_str).and_then(Kind::parse) else {
            return Ok(None);
        };
        let (start, end) = match kind {
            Kind::Url | Kind::ContainerFile => (offset(a, "start_index")?, offset(a, "end_index")?),
            Kind::File | Kind::FilePath => {
                let at = offset(a, "index")?;
                (at, at)
            }
        };
        let annotation = Self {
            kind,
            part,
            index,
            start,
            end,
            url: string(a, "url")?,
            title: string(a, "title")?,
            file_id: string(a, "file_id")?,
            filename: string(a, "filename")?,
        };
        let named = match kind {
            Kind::Url => annotation.url.is_some(),
            _ => annotation.file_id.is_some(),
        };
        if !named {
            return Err(format!(
                "a {} annotation without its {}",
                kind.name(),
                if kind == Kind::Url {
                    "`url`"
                } else {
                    "`file_id`"
                }
            ));
        }
        Ok(Some(annotation))
    }

    /// Its position in code points of its part: a range with `start < end` (url and container
    /// file citations), a place (file citations, file paths), or none.
    fn position(&self) -> Option<(u64, u64)> {
        let (start, end) = (self.start?, self.end?);
        match self.kind {
            Kind::Url | Kind::ContainerFile => (start < end).then_some((start, end)),
            Kind::File | Kind::FilePath => Some((start, start)),
        }
    }

    fn covers(&self) -> Covers {
        match self.kind {
            Kind::Url | Kind::ContainerFile => Covers::Link,
            Kind::File | Kind::FilePath => Covers::Point,
        }
    }

    /// The title to show: the provider's, unless it only repeats the URL; a file's name.
    fn title(&self) -> Option<&str> {
        match self.kind {
            Kind::Url => self
                .title
                .as_deref()
                .filter(|t| Some(*t) != self.url.as_deref()),
            _ => self.filename.as_deref().or(self.title.as_deref()),
        }
    }

    /// Its source's number in `sources` (added when new).
    fn source(&self, sources: &mut SourceList) -> u32 {
        let title = self.title().map(str::to_owned);
        match self.kind {
            Kind::Url => {
                let url = self.url.as_deref().unwrap_or_default();
                sources.number(&cat_key("url ", url), || ProviderSource {
                    title,
                    ..ProviderSource::new(Kind::Url.name(), Some(url))
                })
            }
            kind => {
                let id = self.file_id.as_deref().unwrap_or_default();
                sources.number(&cat_key("file ", id), || ProviderSource {
                    title,
                    provider_id: Some(id.to_owned()),
                    ..ProviderSource::new(kind.name(), None)
                })
            }
        }
    }
}

fn cat_key(prefix: &str, key: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + key.len());
    out.push_str(prefix);
    out.push_str(key);
    out
}

/// Where one `output_text` part sits in the answer, in code points: `[start, end)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct PartRange {
    pub start: usize,
    pub end: usize,
}

/// The answer's sources and the citations of `annotations` (held in arrival order), the
/// citations in order of their span's start. `parts`: each part's range in the answer, whose
/// text `offsets` measured.
pub(super) fn resolve(
    annotations: &mut [Annotation],
    parts: &[PartRange],
    offsets: &TextOffsets,
) -> (SourceList, Vec<Citation>) {
    // Part by part, each part's in its own order, whichever order they arrived in.
    annotations.sort_by_key(|a| (a.part, a.index));
    let mut sources = SourceList::default();
    let mut citations = Vec::new();
    for a in annotations.iter() {
        let number = a.source(&mut sources);
        let Some((start, end)) = a.position() else {
            continue;
        };
        let Some(part) = parts.get(a.part) else {
            continue;
        };
        let len = part.end.saturating_sub(part.start) as u64;
        let at = |i: u64| {
            let i = (part.start as u64).saturating_add(i.min(len));
            offsets.utf16(i, Unit::CodePoints)
        };
        let span = [at(start), at(end)];
        let url_named = a.kind == Kind::Url;
        let (url, raw_url) = split_url(a.url.as_deref());
        // A page named only by a URL that is no http(s) URL names no source (see `Citation`).
        let (source_id, valid) = if url_named && url.is_none() {
            (0, false)
        } else {
            (number, true)
        };
        citations.push(Citation {
            document_title: a.title().map(str::to_owned),
            url,
            raw_url,
            location: Some(a.kind.name().to_owned()),
            covers: Some(a.covers()),
            ..Citation::at_marker(source_id, String::new(), span, valid)
        });
    }
    citations.sort_by_key(|c| c.span[0]);
    (sources, citations)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn kinds_read_with_their_positions() {
        let read = |a: Value| Annotation::read(&a, 0, 0);
        let url = read(json!({"type": "url_citation", "url": "https://a.example/", "start_index": 1, "end_index": 4}))
            .unwrap()
            .unwrap();
        assert_eq!(url.position(), Some((1, 4)));
        let xai = read(json!({"type": "url_citation", "url": "https://a.example/", "start_index": 0, "end_index": 0, "title": "https://a.example/"}))
            .unwrap()
            .unwrap();
        assert_eq!((xai.position(), xai.title()), (None, None));
        let bare = read(json!({"type": "url_citation", "url": "https://a.example/"}))
            .unwrap()
            .unwrap();
        assert_eq!(bare.position(), None);
        let file =
            read(json!({"type": "file_citation", "file_id": "f", "filename": "a.txt", "index": 0}))
                .unwrap()
                .unwrap();
        assert_eq!(
            (file.position(), file.title()),
            (Some((0, 0)), Some("a.txt"))
        );
        assert_eq!(read(json!({"type": "something_new"})).unwrap(), None);
        for bad in [
            json!({"type": "url_citation"}),
            json!({"type": "url_citation", "url": 3}),
            json!({"type": "url_citation", "url": "https://a/", "start_index": -1}),
            json!({"type": "url_citation", "url": "https://a/", "end_index": "2"}),
            json!({"type": "file_citation", "index": 2}),
            json!("url_citation"),
        ] {
            assert!(read(bad.clone()).is_err(), "{bad}");
        }
    }
}
