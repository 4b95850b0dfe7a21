//! Providers' own citations as [`Citation`]s, the type parsed markers have, so a UI renders
//! both the same way.
//!
//! - Anthropic cites documents on text blocks (`citations` in a whole answer,
//!   `citations_delta` in a stream): `char_location`, `page_location`,
//!   `content_block_location` (source: `document_index`, 0-based), `search_result_location`
//!   (`search_result_index`) and `web_search_result_location` (a `url`). The span is the
//!   cited text block in the answer; `sourceSpan` is where the cited text sits in the source,
//!   in the unit `location` names.
//! - OpenAI-style answers (OpenAI web search, OpenRouter's web plugin) carry `url_citation`
//!   annotations (`message.annotations`, or `delta.annotations` in a stream) whose
//!   `start_index`/`end_index` count characters (code points) of the answer: the span is that
//!   range in UTF-16.
//!
//! A citation of a web page names no source of the caller's list: its `sourceId` numbers the
//! distinct URLs of the answer in order of first appearance (1, 2, …), with the `url` and
//! `documentTitle` beside it.
//!
//! `url` holds only an absolute http(s) URL ([`is_safe_url`], the rule by which citeflow's own
//! HTML links a URL), so a UI that links it links no `javascript:` or `data:` URL. Any other
//! value the provider sent is kept as `rawUrl`, and is no page: it takes no number, and a
//! citation it alone named (no document or search result index) names no source (`sourceId`
//! 0, `valid` false), as a citation without any URL does.

use super::wire::CitationPart;
use crate::cite::{Citation, Covers};
use crate::html::is_safe_url;

/// The most distinct URLs numbered in one answer (later ones share the last number).
pub const MAX_CITED_URLS: usize = 1024;

/// Numbers the distinct URLs cited in one answer.
#[derive(Debug, Clone, Default)]
pub struct UrlNumbers {
    urls: Vec<String>,
}

impl UrlNumbers {
    fn number(&mut self, url: &str) -> u32 {
        let at = match self.urls.iter().position(|u| u == url) {
            Some(i) => i,
            None if self.urls.len() < MAX_CITED_URLS => {
                self.urls.push(url.to_owned());
                self.urls.len() - 1
            }
            None => MAX_CITED_URLS - 1,
        };
        u32::try_from(at + 1).unwrap_or(u32::MAX)
    }
}

/// Code point offsets of a text as UTF-16 offsets: the count so far and where the characters
/// outside the BMP (two units each) are.
#[derive(Debug, Clone, Default)]
pub struct CharsToUtf16 {
    chars: usize,
    units: usize,
    /// Code point index of each character outside the BMP, in order.
    astral: Vec<usize>,
}

impl CharsToUtf16 {
    /// Adds text; returns its UTF-16 length.
    pub fn push(&mut self, text: &str) -> usize {
        if text.is_ascii() {
            self.chars = self.chars.saturating_add(text.len());
            self.units = self.units.saturating_add(text.len());
            return text.len();
        }
        let mut units = 0usize;
        for c in text.chars() {
            if c.len_utf16() == 2 {
                self.astral.push(self.chars);
            }
            self.chars += 1;
            units += c.len_utf16();
        }
        self.units = self.units.saturating_add(units);
        units
    }

    /// The UTF-16 length of the text so far.
    pub fn units(&self) -> usize {
        self.units
    }

    /// The UTF-16 offset of code point `index` (capped at the text's end).
    pub fn utf16(&self, index: u64) -> usize {
        let index = usize::try_from(index).unwrap_or(usize::MAX).min(self.chars);
        index + self.astral.partition_point(|&a| a < index)
    }
}

fn u64_pair(a: Option<u64>, b: Option<u64>) -> Option<[usize; 2]> {
    let cap = |n: u64| usize::try_from(n).unwrap_or(usize::MAX);
    Some([cap(a?), cap(b?)])
}

/// One Anthropic citation, cited by the answer text at `span`. (Cold, as `openai` and
/// `split_url`: rare next to text deltas, so built for size, which keeps the streaming module
/// within its budget.)
#[cold]
#[inline(never)]
pub(crate) fn anthropic(
    c: Option<&CitationPart>,
    span: [usize; 2],
    urls: &mut UrlNumbers,
) -> Citation {
    // None given (a `citations_delta` without its `citation`): a citation of no known source.
    let Some(c) = c else {
        return Citation {
            covers: Some(Covers::Claim),
            ..Citation::at_marker(0, String::new(), span, false)
        };
    };
    let index = c
        .document_index
        .u64()
        .or_else(|| c.search_result_index.u64());
    let (url, raw_url) = split_url(c.url.str().or_else(|| c.source.str()));
    let (source_id, valid) = match (index, url.as_deref()) {
        (Some(i), _) => match u32::try_from(i.saturating_add(1)) {
            Ok(id) => (id, true),
            Err(_) => (0, false),
        },
        (None, Some(url)) => (urls.number(url), true),
        (None, None) => (0, false),
    };
    let source_span = u64_pair(c.start_char_index.u64(), c.end_char_index.u64())
        .or_else(|| u64_pair(c.start_page_number.u64(), c.end_page_number.u64()))
        .or_else(|| u64_pair(c.start_block_index.u64(), c.end_block_index.u64()));
    Citation {
        cited_text: c.cited_text.str().map(str::to_owned),
        source_span,
        document_title: c
            .document_title
            .str()
            .or_else(|| c.title.str())
            .map(str::to_owned),
        url,
        raw_url,
        location: c.kind.str().map(str::to_owned),
        covers: Some(Covers::Claim),
        ..Citation::at_marker(source_id, String::new(), span, valid)
    }
}

/// One OpenAI-style annotation, if it is a `url_citation`; offsets through `answer`.
#[cold]
#[inline(never)]
pub(crate) fn openai(
    a: &CitationPart,
    answer: &CharsToUtf16,
    urls: &mut UrlNumbers,
) -> Option<Citation> {
    if a.kind.str() != Some("url_citation") {
        return None;
    }
    // The fields sit in `url_citation` (OpenAI); some servers put them on the annotation.
    let detail = a.url_citation.0.as_deref().unwrap_or(a);
    let (url, raw_url) = split_url(Some(detail.url.str()?));
    let start = answer.utf16(detail.start_index.u64().unwrap_or(0));
    let end = answer.utf16(detail.end_index.u64().unwrap_or(0)).max(start);
    let (source_id, valid) = match url.as_deref() {
        Some(url) => (urls.number(url), true),
        None => (0, false),
    };
    Some(Citation {
        document_title: detail.title.str().map(str::to_owned),
        url,
        raw_url,
        location: Some("url_citation".into()),
        covers: Some(Covers::Link),
        ..Citation::at_marker(source_id, String::new(), [start, end], valid)
    })
}

/// A provider's URL as `(url, raw_url)`: an http(s) URL is a `url`, anything else a `raw_url`.
/// (Out of line: one copy for both kinds of citation.)
#[cold]
#[inline(never)]
pub(crate) fn split_url(url: Option<&str>) -> (Option<String>, Option<String>) {
    let url = url.map(str::to_owned);
    match url {
        Some(u) if is_safe_url(&u) => (Some(u), None),
        other => (None, other),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_citation_reads_as_one_without_fields() {
        let mut urls = UrlNumbers::default();
        let empty = CitationPart::default();
        assert_eq!(
            anthropic(None, [1, 2], &mut urls),
            anthropic(Some(&empty), [1, 2], &mut urls)
        );
    }

    #[test]
    fn code_points_become_utf16_offsets() {
        let mut m = CharsToUtf16::default();
        assert_eq!(m.push("a😀b"), 4);
        assert_eq!(m.push("😀"), 2);
        assert_eq!([0, 1, 2, 3, 4, 99].map(|i| m.utf16(i)), [0, 1, 3, 4, 6, 6]);
    }

    #[test]
    fn urls_are_numbered_in_order() {
        let mut urls = UrlNumbers::default();
        assert_eq!(["a", "b", "a"].map(|u| urls.number(u)), [1, 2, 1]);
    }
}
