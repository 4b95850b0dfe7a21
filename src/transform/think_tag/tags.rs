//! Tag pairs and the matching of tags at a position, for any number of configured pairs.

use crate::error::{Result, TransformError};
use crate::text::{cat, decimal, quoted};

/// The default opening tag.
pub const DEFAULT_OPEN: &str = "<think>";
/// The default closing tag.
pub const DEFAULT_CLOSE: &str = "</think>";

/// One opening/closing tag pair, such as `<think>` / `</think>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TagPair {
    pub open: String,
    pub close: String,
}

impl TagPair {
    pub fn new(open: impl Into<String>, close: impl Into<String>) -> Self {
        Self {
            open: open.into(),
            close: close.into(),
        }
    }

    /// `<name>` / `</name>`.
    pub fn xml(name: &str) -> Self {
        Self::new(cat(&["<", name, ">"]), cat(&["</", name, ">"]))
    }
}

impl Default for TagPair {
    fn default() -> Self {
        Self::new(DEFAULT_OPEN, DEFAULT_CLOSE)
    }
}

/// The longest tag, in characters: what a stream may hold back (the start of a possible tag)
/// and what matching compares at a place a tag could begin.
pub const MAX_TAG_CHARS: usize = 256;

/// Pair `i` refused: `why`, or when `tag` is given, that it uses `tag` both to open and to
/// close.
#[cold]
#[inline(never)]
fn refused(i: usize, why: &str, tag: &str) -> TransformError {
    let (tag, end) = match tag {
        "" => (String::new(), ""),
        tag => (quoted(tag), " both to open and to close"),
    };
    TransformError::option(
        "tags",
        cat(&["tag pair ", decimal(i).as_str(), why, &tag, end]),
    )
}

/// What a position in the text holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TagMatch {
    /// The tag `index` (into the candidate list) of `len` bytes starts here.
    Tag { index: usize, len: usize },
    /// The text ends here with the beginning of a tag: wait for more input.
    Partial,
    /// No tag starts here.
    None,
}

/// Validated tag pairs plus the lookup data the scanner needs.
#[derive(Debug, Clone)]
pub(crate) struct TagSet {
    pub pairs: Vec<TagPair>,
    /// Distinct first bytes of every tag (open and close): where a tag can begin.
    pub first_bytes: Vec<u8>,
}

impl TagSet {
    pub fn new(pairs: Vec<TagPair>) -> Result<Self> {
        if pairs.is_empty() {
            return Err(TransformError::option(
                "tags",
                "at least one tag pair is required",
            ));
        }
        for (i, pair) in pairs.iter().enumerate() {
            if pair.open.is_empty() || pair.close.is_empty() {
                return Err(refused(i, " has an empty tag", ""));
            }
            // Characters counted as the bytes that begin one.
            let chars = |tag: &str| tag.bytes().filter(|b| b & 0xC0 != 0x80).count();
            if chars(&pair.open).max(chars(&pair.close)) > MAX_TAG_CHARS {
                return Err(refused(i, " has a tag longer than 256 characters", ""));
            }
            if pair.open == pair.close {
                return Err(refused(i, " uses ", &pair.open));
            }
        }
        Ok(Self::from_checked(pairs))
    }

    /// The set for pairs known to be valid (non-empty, distinct tags).
    fn from_checked(pairs: Vec<TagPair>) -> Self {
        let first_bytes = sorted_distinct(
            pairs
                .iter()
                .flat_map(|p| [p.open.as_bytes().first(), p.close.as_bytes().first()])
                .flatten()
                .copied(),
        );
        Self { pairs, first_bytes }
    }

    /// `<think>` / `</think>`.
    pub fn default_pair() -> Self {
        Self::from_checked(vec![TagPair::default()])
    }

    /// The first position at or after `from` where any tag could begin.
    pub fn next_candidate(&self, bytes: &[u8], from: usize) -> Option<usize> {
        let hay = bytes.get(from..)?;
        let found = match self.first_bytes.as_slice() {
            [a] => memchr::memchr(*a, hay),
            [a, b] => memchr::memchr2(*a, *b, hay),
            [a, b, c] => memchr::memchr3(*a, *b, *c, hay),
            many => hay.iter().position(|b| many.contains(b)),
        };
        found.map(|i| i + from)
    }
}

/// Matches the candidates against `rest` (the text from a position to the end of what is
/// known). A longer tag wins over a shorter one; while a tag could still complete, the
/// answer is `Partial` unless `eof` says no more text will come.
pub(crate) fn match_at<'a>(
    candidates: impl Iterator<Item = &'a str>,
    rest: &[u8],
    eof: bool,
) -> TagMatch {
    let mut best: Option<(usize, usize)> = None;
    for (index, tag) in candidates.enumerate() {
        let tag = tag.as_bytes();
        if rest.len() >= tag.len() {
            if rest.starts_with(tag) && best.is_none_or(|(_, len)| tag.len() > len) {
                best = Some((index, tag.len()));
            }
        } else if !eof && tag.starts_with(rest) {
            return TagMatch::Partial;
        }
    }
    match best {
        Some((index, len)) => TagMatch::Tag { index, len },
        None => TagMatch::None,
    }
}

/// The distinct items, in ascending order: for the handful of first characters of tags, by
/// insertion (a general sort would link ~3.4 KB per item type into the streaming module).
pub(super) fn sorted_distinct<T: Ord>(items: impl IntoIterator<Item = T>) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if let Err(at) = out.binary_search(&item) {
            out.insert(at, item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(tags: &[&str], rest: &str, eof: bool) -> TagMatch {
        match_at(tags.iter().copied(), rest.as_bytes(), eof)
    }

    #[test]
    fn matches_whole_partial_and_none() {
        assert_eq!(
            m(&["<think>"], "<think>abc", false),
            TagMatch::Tag { index: 0, len: 7 }
        );
        assert_eq!(m(&["<think>"], "<thi", false), TagMatch::Partial);
        assert_eq!(m(&["<think>"], "<thi", true), TagMatch::None);
        assert_eq!(m(&["<think>"], "<b>", false), TagMatch::None);
    }

    #[test]
    fn longer_tag_wins_and_a_possible_longer_tag_waits() {
        assert_eq!(
            m(&["[[", "[[["], "[[[x", false),
            TagMatch::Tag { index: 1, len: 3 }
        );
        assert_eq!(m(&["[[", "[[["], "[[", false), TagMatch::Partial);
        assert_eq!(
            m(&["[[", "[[["], "[[", true),
            TagMatch::Tag { index: 0, len: 2 }
        );
    }

    /// A tag longer than [`MAX_TAG_CHARS`] characters is refused, counted in characters.
    #[test]
    fn over_long_tags_are_refused() {
        for tag in ["a", "é", "😀"] {
            let ok = tag.repeat(MAX_TAG_CHARS);
            let long = tag.repeat(MAX_TAG_CHARS + 1);
            assert!(TagSet::new(vec![TagPair::new(ok.clone(), "</x>")]).is_ok());
            assert!(TagSet::new(vec![TagPair::new("<x>", ok)]).is_ok());
            for pair in [
                TagPair::new(long.clone(), "</x>"),
                TagPair::new("<x>", long),
            ] {
                let e = TagSet::new(vec![TagPair::xml("t"), pair]).unwrap_err();
                assert_eq!(e.code(), "INVALID_OPTION");
                assert_eq!(
                    e.message(),
                    "invalid option `tags`: tag pair 1 has a tag longer than 256 characters"
                );
            }
        }
    }

    #[test]
    fn rejects_bad_pairs() {
        assert!(TagSet::new(vec![]).is_err());
        assert!(TagSet::new(vec![TagPair::new("", "</x>")]).is_err());
        assert!(TagSet::new(vec![TagPair::new("<x>", "<x>")]).is_err());
        assert_eq!(
            TagSet::new(vec![TagPair::xml("a"), TagPair::xml("b")])
                .unwrap()
                .first_bytes,
            b"<".to_vec()
        );
    }
}
