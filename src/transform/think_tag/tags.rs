//! Tag pairs and the matching of tags at a position, for any number of configured pairs.

use std::ops::Range;

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

/// Validated tag pairs plus the matcher the scanner needs.
#[derive(Debug, Clone)]
pub(crate) struct TagSet {
    pub pairs: Vec<TagPair>,
    /// Every opening tag, then every closing tag (a pair's index, then the pair count plus
    /// it): outside reasoning all of them are looked for, inside the block pair `k` opened
    /// only its closing tag.
    pub matcher: Matcher,
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
        let opens = pairs.iter().map(|p| p.open.as_str());
        let all: Vec<&str> = opens
            .chain(pairs.iter().map(|p| p.close.as_str()))
            .collect();
        let matcher = Matcher::new(&all);
        Self { pairs, matcher }
    }

    /// `<think>` / `</think>`.
    pub fn default_pair() -> Self {
        Self::from_checked(vec![TagPair::default()])
    }
}

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

/// The longest tag, in characters: what a stream may hold back (the start of a possible tag)
/// and what the JS fast path compares at a place a tag could begin.
pub const MAX_TAG_CHARS: usize = 256;

/// What the scan of a window found ([`Matcher::find`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Found {
    /// Tag `index` (of the matcher's list) at `start`, `len` bytes: the first place a tag
    /// begins, the longest there.
    Tag {
        start: usize,
        index: usize,
        len: usize,
    },
    /// The text from `start` on may begin a tag (and no tag begins before it): more input
    /// decides it.
    Partial { start: usize },
    /// No tag begins in the window, nor could one in text still to come.
    None,
}

/// How far a scan of the window has gone: kept between chunks, so text held back is never
/// read twice.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Scan {
    /// For each tag, the length of its longest beginning that ends the text read so far (a
    /// place it may still complete; none when empty).
    matched: Vec<u32>,
    /// The longest of them.
    longest: usize,
    pub pos: usize,
    /// The first (then longest) tag found, `(start, index, len)`, while a tag that begins
    /// before or at it could still complete.
    pub best: Option<(usize, usize, usize)>,
}

impl Scan {
    /// Starts again from `pos`, nothing read yet (keeping its memory).
    pub fn restart(&mut self, pos: usize) {
        self.matched.fill(0);
        self.longest = 0;
        self.pos = pos;
        self.best = None;
    }
}

/// One tag and its failure function (Knuth–Morris–Pratt): `fail[i]` is the length of the
/// longest proper beginning of `tag[..=i]` that also ends it.
#[derive(Debug, Clone)]
struct Tag {
    bytes: Vec<u8>,
    fail: Vec<u32>,
}

/// The tags, each followed through the text by its failure function: a
/// byte of text moves each tag one step forward, plus at most as many steps back as it took
/// forward before, so a scan is linear in the text whatever the tags (no place is compared
/// twice). Among the tags found, the one that begins first wins, the longest there; while a
/// tag that begins before or at it could still complete, the decision waits.
#[derive(Debug, Clone)]
pub(crate) struct Matcher {
    tags: Vec<Tag>,
    /// Distinct first bytes of the tags: where a tag can begin.
    first_bytes: Vec<u8>,
}

impl Matcher {
    #[inline(never)]
    pub fn new(tags: &[&str]) -> Self {
        let mut matcher = Self {
            tags: Vec::new(),
            first_bytes: Vec::new(),
        };
        for tag in tags {
            let bytes = tag.as_bytes();
            let mut fail = Vec::with_capacity(bytes.len());
            let mut k = 0;
            for &b in bytes {
                // The first byte's beginning is empty; then each byte extends or falls back.
                k = if fail.is_empty() {
                    0
                } else {
                    follow(bytes, &fail, k, b, &mut 0)
                };
                fail.push(k as u32);
            }
            if let Some(&first) = bytes.first() {
                if !matcher.first_bytes.contains(&first) {
                    matcher.first_bytes.push(first);
                }
            }
            matcher.tags.push(Tag {
                bytes: bytes.to_vec(),
                fail,
            });
        }
        matcher
    }

    /// The first position at or after `from` where one of the tags `active` could begin.
    fn next_candidate(&self, bytes: &[u8], from: usize, active: &Range<usize>) -> Option<usize> {
        let hay = bytes.get(from..)?;
        let firsts = if active.len() == self.tags.len() {
            &self.first_bytes[..]
        } else {
            let tag = self.tags.get(active.start);
            tag.and_then(|t| t.bytes.get(..1)).unwrap_or_default()
        };
        let found = match firsts {
            [a] => memchr::memchr(*a, hay),
            [a, b] => memchr::memchr2(*a, *b, hay),
            [a, b, c] => memchr::memchr3(*a, *b, *c, hay),
            many => hay.iter().position(|b| many.contains(b)),
        };
        found.map(|i| i + from)
    }

    /// Scans `bytes` from where `scan` stands to the first of the tags `active` (the whole
    /// list, or one tag) or the end; `eof` when no more text will come. Counts its steps in
    /// `steps`.
    pub fn find(
        &self,
        bytes: &[u8],
        scan: &mut Scan,
        active: Range<usize>,
        eof: bool,
        steps: &mut u64,
    ) -> Found {
        if scan.matched.len() != self.tags.len() {
            scan.matched.resize(self.tags.len(), 0);
        }
        // The longest beginning of a tag that ends the text read: where a tag may still
        // complete, the first such place.
        let mut longest = scan.longest;
        loop {
            if longest == 0 && scan.best.is_none() {
                match self.next_candidate(bytes, scan.pos, &active) {
                    Some(j) => scan.pos = j,
                    None => {
                        scan.pos = bytes.len();
                        return Found::None;
                    }
                }
                // Where no tag's second byte follows (a `<` of maths): after the next byte
                // every tag stands as it would starting there, so this one is passed over.
                if let Some(&next) = bytes.get(scan.pos + 1) {
                    let tags = self.tags.get(active.clone()).unwrap_or_default();
                    if tags
                        .iter()
                        .all(|t| t.bytes.get(1).is_some_and(|&b| b != next))
                    {
                        *steps += 1;
                        scan.pos += 1;
                        continue;
                    }
                }
            }
            let Some(&b) = bytes.get(scan.pos) else {
                break;
            };
            scan.pos += 1;
            longest = 0;
            let tags = self.tags.iter().zip(&mut scan.matched).enumerate();
            for (index, (tag, matched)) in tags.skip(active.start).take(active.len()) {
                let mut k = follow(&tag.bytes, &tag.fail, *matched as usize, b, steps);
                if k == tag.bytes.len() {
                    let start = scan.pos.saturating_sub(k);
                    if scan
                        .best
                        .is_none_or(|(s, _, l)| start < s || (start == s && k > l))
                    {
                        scan.best = Some((start, index, k));
                    }
                    // Another may begin inside it.
                    k = tag.fail.get(k - 1).map_or(0, |&f| f as usize);
                }
                *matched = k as u32;
                longest = longest.max(k);
            }
            scan.longest = longest;
            if let Some(best) = scan.best.filter(|b| b.0 < scan.pos.saturating_sub(longest)) {
                return Found::Tag {
                    start: best.0,
                    index: best.1,
                    len: best.2,
                };
            }
        }
        // The end of the window: a tag that may begin at `open_from` waits for more text.
        let open_from = scan.pos.saturating_sub(longest);
        match scan.best {
            Some((start, index, len)) if eof || start < open_from => {
                Found::Tag { start, index, len }
            }
            _ if !eof && longest > 0 => Found::Partial { start: open_from },
            _ => Found::None,
        }
    }
}

/// The length of the longest beginning of `tag` that ends the text, after a text whose
/// longest such beginning was `k` bytes reads `b`.
fn follow(tag: &[u8], fail: &[u32], mut k: usize, b: u8, steps: &mut u64) -> usize {
    loop {
        *steps += 1;
        if tag.get(k) == Some(&b) {
            return k + 1;
        }
        if k == 0 {
            return 0;
        }
        k = fail.get(k - 1).map_or(0, |&f| f as usize);
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
    use proptest::prelude::*;

    fn m(tags: &[&str], text: &str, eof: bool) -> Found {
        let matcher = Matcher::new(tags);
        matcher.find(
            text.as_bytes(),
            &mut Scan::default(),
            0..tags.len(),
            eof,
            &mut 0,
        )
    }

    /// The rule, position by position, as it reads without an automaton: at the first position
    /// where a tag begins, or where the rest of the text may begin one, a tag that could still
    /// complete waits (unless `eof`), else the longest tag there wins (the first listed of
    /// equal ones).
    fn reference(tags: &[&str], text: &[u8], eof: bool) -> Found {
        for start in 0..text.len() {
            let rest = &text[start..];
            let mut best: Option<(usize, usize)> = None;
            for (index, tag) in tags.iter().enumerate() {
                let tag = tag.as_bytes();
                if rest.len() >= tag.len() {
                    if rest.starts_with(tag) && best.is_none_or(|(_, len)| tag.len() > len) {
                        best = Some((index, tag.len()));
                    }
                } else if !eof && tag.starts_with(rest) {
                    return Found::Partial { start };
                }
            }
            if let Some((index, len)) = best {
                return Found::Tag { start, index, len };
            }
        }
        Found::None
    }

    #[test]
    fn matches_whole_partial_and_none() {
        assert_eq!(
            m(&["<think>"], "a<think>abc", false),
            Found::Tag {
                start: 1,
                index: 0,
                len: 7
            }
        );
        assert_eq!(m(&["<think>"], "a<thi", false), Found::Partial { start: 1 });
        assert_eq!(m(&["<think>"], "<thi", true), Found::None);
        assert_eq!(m(&["<think>"], "<b>", false), Found::None);
    }

    #[test]
    fn longer_tag_wins_and_a_possible_longer_tag_waits() {
        let tag = |start, index, len| Found::Tag { start, index, len };
        assert_eq!(m(&["[[", "[[["], "[[[x", false), tag(0, 1, 3));
        assert_eq!(m(&["[[", "[[["], "[[", false), Found::Partial { start: 0 });
        assert_eq!(m(&["[[", "[[["], "[[", true), tag(0, 0, 2));
        // A tag that begins first wins over one found first.
        assert_eq!(m(&["abcd", "bc"], "abcd", false), tag(0, 0, 4));
        assert_eq!(m(&["abcd", "bc"], "abce", false), tag(1, 1, 2));
        assert_eq!(
            m(&["abcd", "bc"], "abc", false),
            Found::Partial { start: 0 }
        );
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The matcher decides as the position-by-position rule does, for any tags (sharing
        /// starts, overlapping, repeating their first characters) and text, read whole or
        /// resumed chunk by chunk without reading held text again.
        #[test]
        fn the_matcher_follows_the_rule(
            tags in prop::collection::vec("[ab<]{1,5}", 1..5),
            text in "[ab<]{0,40}",
            cuts in prop::collection::vec(0usize..41, 0..6),
            eof in any::<bool>(),
        ) {
            let tags: Vec<&str> = tags.iter().map(String::as_str).collect();
            let matcher = Matcher::new(&tags);
            let bytes = text.as_bytes();
            prop_assert_eq!(
                matcher.find(bytes, &mut Scan::default(), 0..tags.len(), eof, &mut 0),
                reference(&tags, bytes, eof)
            );
            let mut ends: Vec<usize> = cuts.into_iter().filter(|&c| c < bytes.len()).collect();
            ends.sort_unstable();
            ends.push(bytes.len());
            let mut scan = Scan::default();
            for end in ends {
                let last = end == bytes.len();
                let found = matcher.find(&bytes[..end], &mut scan, 0..tags.len(), eof && last, &mut 0);
                prop_assert_eq!(found, reference(&tags, &bytes[..end], eof && last));
                if matches!(found, Found::Tag { .. }) {
                    break;
                }
            }
        }
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
                .matcher
                .first_bytes,
            b"<".to_vec()
        );
    }
}
