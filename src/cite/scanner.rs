//! The marker scanner: finds citation markers in text as it streams, skipping code (inline
//! and fenced), URLs and markdown links, with spans in UTF-16 units of the whole text.
//!
//! It keeps only the undecided tail of the text (a possible marker, fence or `://`), so
//! memory is bounded and any split of the input gives the same markers.

use std::ops::Range;

use super::marker::{read_group, Group, Ids, MarkerStyle, MarkerText, PAREN_YEAR_FLOOR};

/// One marker group found in the text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Found {
    /// Ids in order of appearance, ranges expanded.
    pub ids: Ids,
    /// The marker group exactly as written.
    pub marker: MarkerText,
    /// Where it is, in UTF-16 code units of the whole text.
    pub span16: Range<usize>,
    /// Where it is, in bytes of the whole text.
    pub span: Range<usize>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Context {
    Normal,
    /// Inside inline code opened by a run of this many backticks.
    InlineCode(usize),
    /// Inside a fenced code block opened by a run of this many of this byte.
    Fenced(u8, usize),
    /// Inside a URL (after `://`), up to whitespace or a delimiter.
    Url,
}

/// Indentation allowed before a code fence.
const MAX_FENCE_INDENT: usize = 3;
/// Bytes that end a URL.
fn ends_url(b: u8) -> bool {
    b.is_ascii_whitespace() || matches!(b, b'<' | b'>' | b'"' | b'`')
}

/// `s[from..]`, empty past the end.
fn tail(s: &[u8], from: usize) -> &[u8] {
    s.get(from..).unwrap_or_default()
}

/// How many bytes equal to `b` start `s[from..]`.
fn run_of(s: &[u8], from: usize, b: u8) -> usize {
    tail(s, from).iter().take_while(|&&c| c == b).count()
}

const ONES: u64 = 0x0101_0101_0101_0101;

/// The UTF-16 length of `bytes` (whole UTF-8 characters).
#[inline]
fn units16(bytes: &[u8]) -> usize {
    if bytes.is_ascii() {
        bytes.len()
    } else {
        bytes
            .iter()
            .map(|&b| usize::from(b & 0xC0 != 0x80) + usize::from(b >= 0xF0))
            .sum()
    }
}

/// Past the 16-byte blocks from `s[from..]` on that hold none of the bytes repeated in `words`
/// (each word is its trigger byte eight times), at the first of those bytes in the block that
/// holds one: where a byte-wise search goes on. Sixteen bytes compared at once with wasm's
/// SIMD: a 1 MB answer's dedup 4.4 -> 3.4 ms in the core module (its scan is most of it).
/// tests/js/citations.test.mjs holds the whole-text scan (16 KB slices, so mostly blocks) to
/// the streamed one (chunks of a few bytes) for random texts.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
fn skip_plain(s: &[u8], from: usize, words: &[u64; 5]) -> usize {
    use core::arch::wasm32::*;
    // The low byte of each word is its trigger byte.
    let [a, b, c, d, e] = words.map(|w| u8x16_splat(w as u8));
    let mut i = from;
    while let Some(block) = s.get(i..i + 16) {
        // SAFETY: `block` is 16 bytes; v128_load allows unaligned reads.
        let v = unsafe { v128_load(block.as_ptr() as *const v128) };
        let hits = v128_or(
            v128_or(
                v128_or(u8x16_eq(v, a), u8x16_eq(v, b)),
                v128_or(u8x16_eq(v, c), u8x16_eq(v, d)),
            ),
            u8x16_eq(v, e),
        );
        let mask = u8x16_bitmask(hits);
        if mask != 0 {
            return i + mask.trailing_zeros() as usize;
        }
        i += 16;
    }
    i
}

/// Past the 8-byte words from `s[from..]` on that hold none of the bytes repeated in `words`
/// (all but the last few bytes of a run of plain text, checked a word at a time): where a
/// byte-wise search goes on.
#[cfg(not(all(target_arch = "wasm32", target_feature = "simd128")))]
fn skip_plain(s: &[u8], from: usize, words: &[u64; 5]) -> usize {
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // The high bit of some byte set when `x` has a zero byte (the classic test: whether any
    // byte is zero is exact).
    let zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGH;
    let [a, b, c, d, e] = *words;
    let mut i = from;
    while let Some(w) = s
        .get(i..i + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
        .map(u64::from_le_bytes)
    {
        if zero(w ^ a) | zero(w ^ b) | zero(w ^ c) | zero(w ^ d) | zero(w ^ e) != 0 {
            break;
        }
        i += 8;
    }
    i
}

#[derive(Debug, Clone)]
pub struct MarkerScanner {
    style: MarkerStyle,
    source_count: Option<u32>,
    context: Context,
    /// Undecided text, starting where the scan stopped.
    pending: String,
    /// Offsets of `pending[0]` in the whole text.
    offset: usize,
    offset16: usize,
    /// `Some(k)` while only `k` spaces stand between the last line start and here.
    line_spaces: Option<usize>,
    /// The last byte scanned was a newline (a second one ends inline code).
    after_newline: bool,
    interesting: [bool; 256],
    /// Each trigger byte repeated over a word (for [`skip_plain`]).
    trigger_words: [u64; 5],
    /// The text being scanned is ASCII.
    ascii: bool,
}

impl MarkerScanner {
    /// The bytes where the scan must stop and look: a marker opener, code (`` ` ``, `~`), a
    /// URL's `:` and line starts. Text without any of them, while nothing is undecided, can
    /// change no decision.
    pub fn triggers(style: MarkerStyle) -> [u8; 5] {
        [style.opener(), b'`', b'~', b':', b'\n']
    }

    pub fn new(style: MarkerStyle, source_count: Option<u32>) -> Self {
        let mut interesting = [false; 256];
        for b in Self::triggers(style) {
            if let Some(slot) = interesting.get_mut(usize::from(b)) {
                *slot = true;
            }
        }
        Self {
            trigger_words: Self::triggers(style).map(|b| ONES.wrapping_mul(u64::from(b))),
            ascii: true,
            style,
            source_count,
            context: Context::Normal,
            pending: String::new(),
            offset: 0,
            offset16: 0,
            line_spaces: Some(0),
            after_newline: false,
            interesting,
        }
    }

    /// Every marker group in a whole text.
    pub fn find_all(style: MarkerStyle, source_count: Option<u32>, text: &str) -> Vec<Found> {
        let mut scanner = Self::new(style, source_count);
        let mut found = Vec::new();
        // The whole text at once: scanned in place (at the end, so nothing stays undecided).
        scanner.scan(text.as_bytes(), true, &mut found);
        found
    }

    /// Whether plain text may be passed over by its length alone ([`Self::pass_plain`]):
    /// nothing is undecided, and the text is normal text: not in a URL (which a space in it
    /// would end), nor in code. The JS fast path relies on the last (see
    /// `pkg/src/simple_markers.js`): while this holds, a bracket opener followed by ASCII
    /// digits (then perhaps the closer) at the end of the text seen so far is undecided, so
    /// held back; and a simple marker (`[3]`) that the next character makes a citation leaves
    /// the scanner as passing that many bytes of plain text does, so the fast path may decide
    /// it, make its citation and count it as passed.
    pub fn passes_plain(&self) -> bool {
        self.pending.is_empty() && self.context == Context::Normal
    }

    /// Moves past `bytes` bytes of plain text without seeing it: ASCII, none of the
    /// [`Self::triggers`], not only spaces. Feeding that text would do the same (it decides
    /// nothing and ends no context; the line holds more than spaces now) when
    /// [`Self::passes_plain`]; otherwise this returns false and does nothing. (Text with simple
    /// markers decided by the caller, see [`Self::passes_plain`], moves the scanner the same,
    /// but for the markers it would find.)
    pub fn pass_plain(&mut self, bytes: usize) -> bool {
        if !self.passes_plain() {
            return false;
        }
        // The count comes from outside (a JS fast path): it may be anything.
        self.offset = self.offset.saturating_add(bytes);
        self.offset16 = self.offset16.saturating_add(bytes);
        if bytes > 0 {
            self.line_spaces = None;
            self.after_newline = false;
        }
        true
    }

    /// Bytes of the text still undecided (a suffix of all text fed).
    pub fn pending_len(&self) -> usize {
        self.pending.len()
    }

    pub fn feed(&mut self, chunk: &str, out: &mut Vec<Found>) {
        if !self.pending.is_empty() {
            self.pending.push_str(chunk);
            self.run(false, out);
            return;
        }
        // Nothing undecided: the chunk is scanned where it is, and only its undecided tail is
        // kept (a char boundary, as in `run`).
        let used = self.scan(chunk.as_bytes(), false, out);
        debug_assert!(chunk.is_char_boundary(used));
        self.pending.push_str(chunk.get(used..).unwrap_or_default());
    }

    pub fn finish(&mut self, out: &mut Vec<Found>) {
        self.run(true, out);
    }

    fn run(&mut self, eof: bool, out: &mut Vec<Found>) {
        let pending = std::mem::take(&mut self.pending);
        let used = self.scan(pending.as_bytes(), eof, out);
        self.pending = pending;
        // `scan` stops only at the end or at an ASCII byte it must look at again (an opener,
        // a backtick or tilde run, a `:`), so `used` is a char boundary within `pending`.
        debug_assert!(self.pending.is_char_boundary(used));
        if used >= self.pending.len() {
            self.pending.clear();
        } else {
            self.pending.drain(..used);
        }
    }

    /// Moves past `bytes` (plain text), keeping offsets and line state. `normal`: a step in
    /// normal text, which stops at each newline (a trigger) and passes it on its own, so a
    /// newline in `bytes` can only be its last byte. `ascii`: `bytes` is ASCII.
    fn advance(&mut self, bytes: &[u8], normal: bool, ascii: bool) {
        if bytes.is_empty() {
            return;
        }
        self.offset = self.offset.saturating_add(bytes.len());
        self.offset16 =
            self.offset16
                .saturating_add(if ascii { bytes.len() } else { units16(bytes) });
        let newline = if normal {
            bytes
                .len()
                .checked_sub(1)
                .filter(|_| bytes.last() == Some(&b'\n'))
        } else {
            memchr::memrchr(b'\n', bytes)
        };
        debug_assert_eq!(newline, memchr::memrchr(b'\n', bytes));
        let tail = match newline {
            Some(nl) => {
                self.line_spaces = Some(0);
                tail(bytes, nl + 1)
            }
            None => bytes,
        };
        let spaces = tail.iter().take_while(|&&b| b == b' ').count();
        self.line_spaces = match self.line_spaces {
            Some(k) if spaces == tail.len() => Some(k + spaces),
            _ => None,
        };
        self.after_newline = bytes.last() == Some(&b'\n');
    }

    /// Scans `s`, returning how many bytes are decided.
    fn scan(&mut self, s: &[u8], eof: bool, out: &mut Vec<Found>) -> usize {
        // Checked once (a word at a time), not per step: in ASCII text a byte is a unit.
        self.ascii = s.is_ascii();
        let mut i = 0;
        while i < s.len() {
            let normal = self.context == Context::Normal;
            let step = match self.context {
                Context::Normal => self.normal(s, i, eof, out),
                Context::InlineCode(n) => self.inline_code(s, i, n, eof),
                Context::Fenced(ch, n) => self.fenced(s, i, ch, n, eof),
                Context::Url => {
                    let end = tail(s, i)
                        .iter()
                        .position(|&b| ends_url(b))
                        .map_or(s.len(), |p| i + p);
                    if end < s.len() {
                        self.context = Context::Normal;
                    }
                    Some(end)
                }
            };
            // A step never moves back; it stays put only when it switched context (a URL
            // ending right away). `None`: undecided, wait for more.
            match step.and_then(|next| Some((next, s.get(i..next)?))) {
                Some((next, passed)) => {
                    self.advance(passed, normal, self.ascii);
                    i = next;
                }
                None => return i,
            }
        }
        i
    }

    /// One step in normal text; `None` means "undecided, wait for more".
    fn normal(&mut self, s: &[u8], i: usize, eof: bool, out: &mut Vec<Found>) -> Option<usize> {
        let interesting = &self.interesting;
        let from = skip_plain(s, i, &self.trigger_words);
        let Some((j, b)) = tail(s, from)
            .iter()
            .position(|&b| interesting.get(usize::from(b)) == Some(&true))
            .and_then(|p| Some((from + p, *s.get(from + p)?)))
        else {
            return Some(s.len());
        };
        if j > i {
            return Some(j);
        }
        if b == self.style.opener() {
            return self.marker(s, j, eof, out);
        }
        match b {
            b'\n' => Some(j + 1),
            b'`' | b'~' => {
                let run = run_of(s, j, b);
                if j + run == s.len() && !eof {
                    return None;
                }
                if run >= 3 && self.line_spaces.is_some_and(|k| k <= MAX_FENCE_INDENT) {
                    self.context = Context::Fenced(b, run);
                } else if b == b'`' {
                    self.context = Context::InlineCode(run);
                }
                Some(j + run)
            }
            b':' => {
                let rest = tail(s, j);
                if rest.starts_with(b"://") {
                    self.context = Context::Url;
                    Some(j + 3)
                } else if !eof && b"://".starts_with(rest) {
                    None
                } else {
                    Some(j + 1)
                }
            }
            _ => Some(j + 1),
        }
    }

    fn marker(&mut self, s: &[u8], j: usize, eof: bool, out: &mut Vec<Found>) -> Option<usize> {
        let (len, ids) = match read_group(self.style, tail(s, j), eof) {
            Group::Incomplete => return None,
            Group::Text => return Some(j + 1),
            Group::Marker { len, ids } => (len, ids),
        };
        if self.style == MarkerStyle::Bracket {
            // `[1](url)` is a link and `[1]: …` a reference definition, not citations.
            match s.get(j + len) {
                None if !eof => return None,
                Some(b'(') | Some(b':') => return Some(j + len),
                _ => {}
            }
        }
        if self.style == MarkerStyle::Paren {
            let limit = self.source_count.unwrap_or(PAREN_YEAR_FLOOR - 1);
            if ids.iter().any(|id| id.value().is_none_or(|id| id > limit)) {
                return Some(j + 1);
            }
        }
        // Offsets of the marker: everything before it in `s[..j]` has been advanced over.
        // `s` is the bytes of a `str` and the group starts and ends at ASCII bytes (whole
        // characters); it is never longer than MarkerText holds (else it would be text).
        let Some(marker) = MarkerText::from_bytes(s.get(j..j + len)?) else {
            return Some(j + 1);
        };
        let start16 = self.offset16;
        let len16 = if self.ascii {
            len
        } else {
            units16(marker.as_bytes())
        };
        out.push(Found {
            ids,
            marker,
            span16: start16..start16.saturating_add(len16),
            span: self.offset..self.offset.saturating_add(len),
        });
        Some(j + len)
    }

    fn inline_code(&mut self, s: &[u8], i: usize, n: usize, eof: bool) -> Option<usize> {
        let Some((j, b)) = tail(s, i)
            .iter()
            .position(|&b| b == b'`' || b == b'\n')
            .and_then(|p| Some((i + p, *s.get(i + p)?)))
        else {
            return Some(s.len());
        };
        if j > i {
            return Some(j);
        }
        if b == b'\n' {
            // A blank line ends the paragraph, and with it an unclosed code span.
            if self.after_newline {
                self.context = Context::Normal;
            }
            return Some(j + 1);
        }
        let run = run_of(s, j, b'`');
        if j + run == s.len() && !eof {
            return None;
        }
        if run == n {
            self.context = Context::Normal;
        }
        Some(j + run)
    }

    fn fenced(&mut self, s: &[u8], i: usize, ch: u8, n: usize, eof: bool) -> Option<usize> {
        if self.line_spaces.is_some_and(|k| k <= MAX_FENCE_INDENT) {
            match s.get(i) {
                Some(b' ') => return Some(i + 1),
                Some(&c) if c == ch => {
                    let run = run_of(s, i, ch);
                    if i + run == s.len() && !eof {
                        return None;
                    }
                    if run >= n {
                        self.context = Context::Normal;
                    }
                    return Some(i + run);
                }
                _ => {}
            }
        }
        Some(memchr::memchr(b'\n', tail(s, i)).map_or(s.len(), |p| i + p + 1))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::cite::MarkerId;

    fn scan(style: MarkerStyle, sources: Option<u32>, text: &str) -> Vec<(Vec<MarkerId>, String)> {
        let mut s = MarkerScanner::new(style, sources);
        let mut out = Vec::new();
        s.feed(text, &mut out);
        s.finish(&mut out);
        out.into_iter()
            .map(|f| (f.ids.to_vec(), f.marker.to_string()))
            .collect()
    }

    fn ids(style: MarkerStyle, sources: Option<u32>, text: &str) -> Vec<u32> {
        scan(style, sources, text)
            .into_iter()
            .flat_map(|(ids, _)| ids)
            .map(|id| id.value().unwrap())
            .collect()
    }

    #[test]
    fn skips_code_links_and_urls() {
        use MarkerStyle::Bracket as B;
        assert_eq!(ids(B, None, "a [1] `b [2]` c [3]"), [1, 3]);
        assert_eq!(ids(B, None, "x\n```rust\nlet a = v[2];\n```\ny [4]"), [4]);
        assert_eq!(ids(B, None, "x\n  ~~~\n[2]\n  ~~~~\n[5]"), [5]);
        assert_eq!(ids(B, None, "see [1](https://a.b/c) and [2]"), [2]);
        assert_eq!(ids(B, None, "[1]: https://x.y\n[2]"), [2]);
        assert_eq!(ids(B, None, "https://x.y/a[3]?b=[4] then [5]"), [5]);
        assert_eq!(ids(B, None, "unclosed `code [1]\n\n[2]"), [2]);
        assert_eq!(ids(B, None, "a ``x ` [1]`` [2]"), [2]);
        assert_eq!(ids(B, None, "text ``` not a fence [1]``` [2]"), [2]);
    }

    #[test]
    fn paren_style_skips_years() {
        assert_eq!(
            ids(
                MarkerStyle::Paren,
                Some(3),
                "In (2020) it rose (2) (1, 3) (4)."
            ),
            [2, 1, 3]
        );
        assert_eq!(
            ids(MarkerStyle::Paren, None, "In (2020) it rose (12)."),
            [12]
        );
    }

    #[test]
    fn paren_style_treats_huge_numbers_as_text() {
        assert_eq!(
            scan(MarkerStyle::Paren, Some(3), "(99999999999) (1)"),
            [(vec![MarkerId::Num(1)], "(1)".to_owned())]
        );
        assert_eq!(
            scan(MarkerStyle::Bracket, Some(3), "[99999999999]"),
            [(
                vec![MarkerId::Big("99999999999".into())],
                "[99999999999]".to_owned()
            )]
        );
    }

    #[test]
    fn a_url_that_ends_at_once_goes_back_to_text() {
        assert_eq!(ids(MarkerStyle::Bracket, None, "a:// [1]"), [1]);
    }

    #[test]
    fn caret_reads_the_whole_number() {
        assert_eq!(ids(MarkerStyle::Caret, Some(3), "x^12 y^1^2"), [12, 1, 2]);
    }

    #[test]
    fn spans_are_utf16() {
        let mut s = MarkerScanner::new(MarkerStyle::Bracket, None);
        let mut out = Vec::new();
        s.feed("😀é [2] x", &mut out);
        s.finish(&mut out);
        assert_eq!(out[0].span16, 4..7);
        assert_eq!(out[0].span, 7..10);
    }
}
