//! Marker styles and the grammar of one marker group: `[1]`, `[1, 2]`, `[1-3]`, `[^1]`,
//! `(1)`, `{1}`, `^1`.

use serde::{Deserialize, Serialize};

use super::error::{CiteError, Result};

/// How inline citation markers look.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MarkerStyle {
    /// `[1]`, `[1, 2]`, `[1-3]`, `[^1]`.
    #[default]
    Bracket,
    /// `(1)`, `(1, 2)`; numbers beyond the source count are not citations (years).
    Paren,
    /// `{1}`, `{1, 2}`.
    Curly,
    /// `^1` (no closing mark; the number runs to the first non-digit).
    Caret,
}

/// The longest marker group considered; anything longer is text.
pub const MAX_MARKER_LEN: usize = 64;
/// The most ids a range such as `[1-9]` may expand to; a longer range is text.
pub const MAX_RANGE_LEN: u32 = 64;
/// In paren style without a source count, numbers from here on are years, not citations.
pub const PAREN_YEAR_FLOOR: u32 = 1000;

/// A source id as written in a marker.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MarkerId {
    /// The id, when it fits `u32`.
    Num(u32),
    /// An id too large for `u32` (it names no source): its digits without leading zeros.
    /// At most [`MAX_MARKER_LEN`] of them, since the whole group is bounded.
    Big(String),
}

impl MarkerId {
    /// The id, when it fits `u32`.
    pub fn value(&self) -> Option<u32> {
        match self {
            Self::Num(n) => Some(*n),
            Self::Big(_) => None,
        }
    }
}

impl std::fmt::Display for MarkerId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Num(n) => write!(f, "{n}"),
            Self::Big(digits) => f.write_str(digits),
        }
    }
}

impl MarkerStyle {
    pub const ALL: [MarkerStyle; 4] = [Self::Bracket, Self::Paren, Self::Curly, Self::Caret];

    pub fn name(self) -> &'static str {
        match self {
            Self::Bracket => "bracket",
            Self::Paren => "paren",
            Self::Curly => "curly",
            Self::Caret => "caret",
        }
    }

    pub fn parse(name: &str) -> Result<Self> {
        crate::options::choice(name).map_err(|e| CiteError::option("markerStyle", e.text()))
    }

    /// The byte that opens a marker.
    pub fn opener(self) -> u8 {
        match self {
            Self::Bracket => b'[',
            Self::Paren => b'(',
            Self::Curly => b'{',
            Self::Caret => b'^',
        }
    }

    fn closer(self) -> Option<u8> {
        match self {
            Self::Bracket => Some(b']'),
            Self::Paren => Some(b')'),
            Self::Curly => Some(b'}'),
            Self::Caret => None,
        }
    }

    /// The canonical marker for one id: `[3]`, `(3)`, `{3}`, `^3`.
    pub fn format(self, id: impl std::fmt::Display) -> String {
        match self {
            Self::Bracket => format!("[{id}]"),
            Self::Paren => format!("({id})"),
            Self::Curly => format!("{{{id}}}"),
            Self::Caret => format!("^{id}"),
        }
    }

    /// Appends the canonical marker for `id` to `out` (as [`Self::format`], without its
    /// formatting machinery: a whole answer's dedup writes thousands).
    pub fn write(self, id: &MarkerId, out: &mut String) {
        out.push(char::from(self.opener()));
        match id {
            MarkerId::Num(n) => {
                let mut unit = 1;
                while n / unit >= 10 {
                    unit *= 10;
                }
                while unit > 0 {
                    out.push(char::from_digit(n / unit % 10, 10).unwrap_or('0'));
                    unit /= 10;
                }
            }
            MarkerId::Big(digits) => out.push_str(digits),
        }
        if let Some(closer) = self.closer() {
            out.push(char::from(closer));
        }
    }
}

/// A marker group as written: a short one (nearly every one) kept inline, no allocation per
/// marker, and small enough to move cheaply; a longer one in a box. [`read_group`] bounds a
/// group to [`MAX_MARKER_LEN`] + 1 bytes.
#[derive(Clone, PartialEq, Eq)]
pub struct MarkerText(Repr);

/// Bytes of a group kept inline.
const SHORT_MARKER: usize = 14;

/// Which one a group's length alone decides, so equal texts are equal representations.
#[derive(Clone, PartialEq, Eq)]
enum Repr {
    Short { len: u8, bytes: [u8; SHORT_MARKER] },
    Long(Box<[u8]>),
}

impl MarkerText {
    /// The group `s`; none when it is longer than any group.
    pub fn new(s: &str) -> Option<Self> {
        Self::from_bytes(s.as_bytes())
    }

    /// The group at `bytes`, whole UTF-8 characters of a `str` (not checked here: `as_str`
    /// checks them when the text is read, and gives "" for anything else).
    pub(crate) fn from_bytes(s: &[u8]) -> Option<Self> {
        if s.len() > MAX_MARKER_LEN + 1 {
            return None;
        }
        if s.len() > SHORT_MARKER {
            return Some(Self(Repr::Long(s.into())));
        }
        let mut bytes = [0; SHORT_MARKER];
        bytes.get_mut(..s.len())?.copy_from_slice(s);
        Some(Self(Repr::Short {
            len: u8::try_from(s.len()).ok()?,
            bytes,
        }))
    }

    pub fn as_str(&self) -> &str {
        let bytes = match &self.0 {
            Repr::Short { len, bytes } => bytes.get(..usize::from(*len)).unwrap_or_default(),
            Repr::Long(bytes) => bytes,
        };
        // Whole characters of a `str` (see `from_bytes`), so never empty by mistake.
        std::str::from_utf8(bytes).unwrap_or_default()
    }
}

impl std::ops::Deref for MarkerText {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl std::fmt::Display for MarkerText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Debug for MarkerText {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for MarkerText {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for MarkerText {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

/// The ids of one marker group, in order: most groups cite one source, which is kept inline
/// (no allocation per marker when a whole answer is scanned).
#[derive(Debug, Clone)]
pub enum Ids {
    One(MarkerId),
    /// None, or two or more.
    Many(Vec<MarkerId>),
}

impl Ids {
    pub const fn new() -> Self {
        Self::Many(Vec::new())
    }

    /// Inline: a group's first id then stays in registers (measured: the streamed parse of
    /// token-sized chunks, where a marker is read every few calls).
    #[inline(always)]
    pub fn push(&mut self, id: MarkerId) {
        match self {
            Self::Many(ids) if ids.is_empty() => *self = Self::One(id),
            Self::One(_) => self.push_second(id),
            Self::Many(ids) => ids.push(id),
        }
    }

    #[inline(never)]
    fn push_second(&mut self, id: MarkerId) {
        if let Self::One(first) = self {
            let first = std::mem::replace(first, MarkerId::Num(0));
            *self = Self::Many(vec![first, id]);
        }
    }

    pub fn as_slice(&self) -> &[MarkerId] {
        match self {
            Self::One(id) => std::slice::from_ref(id),
            Self::Many(ids) => ids,
        }
    }
}

impl Default for Ids {
    fn default() -> Self {
        Self::new()
    }
}

impl std::ops::Deref for Ids {
    type Target = [MarkerId];
    fn deref(&self) -> &[MarkerId] {
        self.as_slice()
    }
}

impl<'a> IntoIterator for &'a Ids {
    type Item = &'a MarkerId;
    type IntoIter = std::slice::Iter<'a, MarkerId>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl PartialEq for Ids {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl Eq for Ids {}

impl FromIterator<MarkerId> for Ids {
    fn from_iter<I: IntoIterator<Item = MarkerId>>(iter: I) -> Self {
        let mut ids = Self::new();
        for id in iter {
            ids.push(id);
        }
        ids
    }
}

impl From<Vec<MarkerId>> for Ids {
    fn from(ids: Vec<MarkerId>) -> Self {
        ids.into_iter().collect()
    }
}

/// What the text at a position holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Group {
    /// A marker group of `len` bytes citing `ids` in order (ranges expanded).
    Marker { len: usize, ids: Ids },
    /// The text ends before it is decided: wait for more.
    Incomplete,
    /// Not a marker.
    Text,
}

/// Reads a marker group at the start of `s`, which begins with the style's opener.
/// `eof` says no more text follows `s`.
///
/// Every decision depends only on the bytes it has read, and `Incomplete` is returned only
/// when `s` ends before one can be made, so any split of a stream decides the same.
pub fn read_group(style: MarkerStyle, s: &[u8], eof: bool) -> Group {
    match style.closer() {
        None => read_caret(s, eof),
        Some(closer) => read_enclosed(style, closer, s, eof),
    }
}

/// The run of ASCII digits at `s[from..]` (empty past the end).
fn digits_at(s: &[u8], from: usize) -> &[u8] {
    let rest = s.get(from..).unwrap_or_default();
    let n = rest.iter().take_while(|b| b.is_ascii_digit()).count();
    rest.get(..n).unwrap_or_default()
}

fn read_caret(s: &[u8], eof: bool) -> Group {
    let digits = digits_at(s, 1);
    let len = 1 + digits.len();
    if len > MAX_MARKER_LEN {
        return Group::Text;
    }
    if len == s.len() && !eof {
        return Group::Incomplete;
    }
    match number(digits) {
        Some(id) => Group::Marker {
            len,
            ids: Ids::One(id),
        },
        None => Group::Text,
    }
}

/// The id written as `digits` (ASCII digits); `None` when there are none.
#[inline(always)]
fn number(digits: &[u8]) -> Option<MarkerId> {
    if digits.is_empty() {
        return None;
    }
    let first = digits
        .iter()
        .position(|&d| d != b'0')
        .unwrap_or(digits.len());
    let significant = digits.get(first..).unwrap_or_default();
    let mut value: Option<u32> = Some(0);
    for &d in significant {
        let digit = char::from(d).to_digit(10)?;
        value = value
            .and_then(|v| v.checked_mul(10))
            .and_then(|v| v.checked_add(digit));
    }
    Some(match value {
        Some(n) => MarkerId::Num(n),
        None => big(significant),
    })
}

/// An id too large for `u32`, by its significant digits.
#[cold]
#[inline(never)]
fn big(significant: &[u8]) -> MarkerId {
    MarkerId::Big(significant.iter().copied().map(char::from).collect())
}

/// `opener [^]? item (sep item)* closer`, item = n | n-n | n–n, sep = `,` or `;` with spaces.
fn read_enclosed(style: MarkerStyle, closer: u8, s: &[u8], eof: bool) -> Group {
    let footnote = style == MarkerStyle::Bracket && s.get(1) == Some(&b'^');
    let mut i = if footnote { 2 } else { 1 };
    let mut ids = Ids::new();
    loop {
        let digits = digits_at(s, i);
        i += digits.len();
        if i > MAX_MARKER_LEN {
            return Group::Text;
        }
        if i == s.len() {
            return incomplete_or_text(i, eof);
        }
        let Some(lo) = number(digits) else {
            return Group::Text;
        };
        if let Some(dash) = range_dash(s.get(i..).unwrap_or_default()) {
            i += dash;
            let digits = digits_at(s, i);
            i += digits.len();
            if i > MAX_MARKER_LEN {
                return Group::Text;
            }
            if i == s.len() {
                return incomplete_or_text(i, eof);
            }
            // A range is expanded into its ids, so both ends must be ids that fit u32.
            match (lo.value(), number(digits).and_then(|n| n.value())) {
                (Some(lo), Some(hi)) if hi >= lo && hi - lo < MAX_RANGE_LEN => {
                    for id in lo..=hi {
                        ids.push(MarkerId::Num(id));
                    }
                }
                _ => return Group::Text,
            }
        } else {
            ids.push(lo);
        }
        if footnote && ids.len() > 1 {
            return Group::Text;
        }
        match s.get(i) {
            Some(&b) if b == closer => return Group::Marker { len: i + 1, ids },
            Some(b',' | b';') if !footnote => {
                i += 1;
                i += s
                    .get(i..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|&&b| b == b' ')
                    .count();
                if i > MAX_MARKER_LEN {
                    return Group::Text;
                }
            }
            _ => return Group::Text,
        }
        if i == s.len() {
            return incomplete_or_text(i, eof);
        }
    }
}

fn incomplete_or_text(len: usize, eof: bool) -> Group {
    if eof || len > MAX_MARKER_LEN {
        Group::Text
    } else {
        Group::Incomplete
    }
}

/// The length of a range dash (`-` or `–`) at the start of `s`.
fn range_dash(s: &[u8]) -> Option<usize> {
    if s.first() == Some(&b'-') {
        Some(1)
    } else if s.starts_with("–".as_bytes()) {
        Some("–".len())
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn g(style: MarkerStyle, s: &str, eof: bool) -> Group {
        read_group(style, s.as_bytes(), eof)
    }

    fn m(len: usize, ids: &[u32]) -> Group {
        Group::Marker {
            len,
            ids: ids.iter().copied().map(MarkerId::Num).collect(),
        }
    }

    fn big(digits: &str) -> MarkerId {
        MarkerId::Big(digits.into())
    }

    #[test]
    fn ids_and_marker_text() {
        let one: Ids = [MarkerId::Num(3)].into_iter().collect();
        assert!(matches!(one, Ids::One(MarkerId::Num(3))));
        assert_eq!(one, Ids::Many(vec![MarkerId::Num(3)]));
        let three: Ids = vec![MarkerId::Num(1), big("99999999999"), MarkerId::Num(1)].into();
        assert_eq!(three.len(), 3);
        assert_eq!(Ids::new().as_slice(), &[]);
        let longest = format!("[{}]", "1".repeat(MAX_MARKER_LEN - 1));
        assert_eq!(MarkerText::new(&longest).unwrap(), longest.as_str());
        assert!(MarkerText::new(&format!("{longest}1")).is_none());
        assert_eq!(MarkerText::new("[2–4]").unwrap().to_string(), "[2–4]");
        // Both sides of the inline size, and equality by text alone.
        for n in 1..=MAX_MARKER_LEN + 1 {
            let group = format!("[{}]", "7".repeat(n.saturating_sub(2)));
            let group = group.get(..n).unwrap();
            let text = MarkerText::new(group).unwrap();
            assert_eq!(text, group);
            assert_eq!(text, MarkerText::new(group).unwrap().clone());
        }
    }

    #[test]
    fn write_is_format() {
        for style in MarkerStyle::ALL {
            for id in [0, 1, 9, 10, 99, 100, 4_294_967_295] {
                let mut out = "x".to_owned();
                style.write(&MarkerId::Num(id), &mut out);
                assert_eq!(out, format!("x{}", style.format(id)));
            }
            let mut out = String::new();
            style.write(&big("99999999999"), &mut out);
            assert_eq!(out, style.format("99999999999"));
        }
    }

    #[test]
    fn bracket_forms() {
        use MarkerStyle::Bracket as B;
        assert_eq!(g(B, "[1] x", false), m(3, &[1]));
        assert_eq!(g(B, "[1, 2]", false), m(6, &[1, 2]));
        assert_eq!(g(B, "[1,2;3]", false), m(7, &[1, 2, 3]));
        assert_eq!(g(B, "[1-3]", false), m(5, &[1, 2, 3]));
        assert_eq!(g(B, "[2–4]", false), m(7, &[2, 3, 4]));
        assert_eq!(g(B, "[^7]", false), m(4, &[7]));
        assert_eq!(g(B, "[0]", false), m(3, &[0]));
        for text in ["[a]", "[]", "[1 2]", "[3-1]", "[1-999]", "[^1,2]", "[ 1]"] {
            assert_eq!(g(B, text, true), Group::Text, "{text}");
        }
    }

    #[test]
    fn ids_too_large_for_u32_are_kept_as_written() {
        use MarkerStyle::*;
        assert_eq!(g(Bracket, "[4294967295]", true), m(12, &[u32::MAX]));
        assert_eq!(g(Bracket, "[0000000001]", true), m(12, &[1]));
        let huge = |len, ids: Vec<MarkerId>| Group::Marker {
            len,
            ids: ids.into(),
        };
        assert_eq!(
            g(Bracket, "[4294967296]", true),
            huge(12, vec![big("4294967296")])
        );
        assert_eq!(
            g(Bracket, "[2, 0099999999999999999999]", false),
            huge(27, vec![MarkerId::Num(2), big("99999999999999999999")])
        );
        assert_eq!(
            g(Caret, "^12345678901 x", false),
            huge(12, vec![big("12345678901")])
        );
        assert_eq!(g(Caret, "^12345678901", false), Group::Incomplete);
        assert_eq!(
            g(Curly, "{99999999999}", false),
            huge(13, vec![big("99999999999")])
        );
        // Ranges are expanded, so both ends must fit.
        assert_eq!(g(Bracket, "[4294967295-4294967296]", true), Group::Text);
        assert_eq!(g(Bracket, "[1-99999999999]", true), Group::Text);
        // The group stays bounded: digits past MAX_MARKER_LEN are text, streamed or not.
        let long = format!("[{}]", "9".repeat(MAX_MARKER_LEN));
        assert_eq!(g(Bracket, &long, true), Group::Text);
        assert_eq!(g(Bracket, &long[..MAX_MARKER_LEN + 1], false), Group::Text);
        assert_eq!(
            g(Bracket, &long[..MAX_MARKER_LEN], false),
            Group::Incomplete
        );
        let caret = format!("^{}", "9".repeat(MAX_MARKER_LEN));
        assert_eq!(g(Caret, &caret, true), Group::Text);
        assert_eq!(g(Caret, &caret[..MAX_MARKER_LEN], false), Group::Incomplete);
        assert_eq!(
            g(Caret, &caret[..MAX_MARKER_LEN], true),
            huge(MAX_MARKER_LEN, vec![big(&caret[1..MAX_MARKER_LEN])])
        );
    }

    #[test]
    fn undecided_until_the_group_closes() {
        use MarkerStyle::*;
        for text in ["[", "[1", "[1,", "[1, ", "[1-", "[1-2", "[^", "[1–"] {
            assert_eq!(g(Bracket, text, false), Group::Incomplete, "{text:?}");
            assert_eq!(g(Bracket, text, true), Group::Text, "{text:?}");
        }
        assert_eq!(g(Caret, "^12", false), Group::Incomplete);
        assert_eq!(g(Caret, "^12", true), m(3, &[12]));
        assert_eq!(g(Caret, "^12 x", false), m(3, &[12]));
        assert_eq!(g(Caret, "^x", false), Group::Text);
        assert_eq!(g(Paren, "(2020)", false), m(6, &[2020]));
        assert_eq!(g(Curly, "{1, 2}", false), m(6, &[1, 2]));
    }
}
