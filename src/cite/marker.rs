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
/// Ids have at most this many digits.
const MAX_DIGITS: usize = 9;

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
        Self::ALL
            .into_iter()
            .find(|s| s.name() == name)
            .ok_or_else(|| {
                CiteError::option(
                    "markerStyle",
                    format!("{name:?} is not one of bracket, paren, curly, caret"),
                )
            })
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
    pub fn format(self, id: u32) -> String {
        match self {
            Self::Bracket => format!("[{id}]"),
            Self::Paren => format!("({id})"),
            Self::Curly => format!("{{{id}}}"),
            Self::Caret => format!("^{id}"),
        }
    }
}

/// What the text at a position holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Group {
    /// A marker group of `len` bytes citing `ids` in order (ranges expanded).
    Marker { len: usize, ids: Vec<u32> },
    /// The text ends before it is decided: wait for more.
    Incomplete,
    /// Not a marker.
    Text,
}

/// Reads a marker group at the start of `s`, which begins with the style's opener.
/// `eof` says no more text follows `s`.
pub fn read_group(style: MarkerStyle, s: &[u8], eof: bool) -> Group {
    match style.closer() {
        None => read_caret(s, eof),
        Some(closer) => read_enclosed(style, closer, s, eof),
    }
}

fn read_caret(s: &[u8], eof: bool) -> Group {
    let digits = s[1..].iter().take_while(|b| b.is_ascii_digit()).count();
    if 1 + digits == s.len() && !eof && digits <= MAX_DIGITS {
        return Group::Incomplete;
    }
    match number(&s[1..1 + digits]) {
        Some(id) => Group::Marker {
            len: 1 + digits,
            ids: vec![id],
        },
        None => Group::Text,
    }
}

fn number(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > MAX_DIGITS {
        return None;
    }
    Some(
        digits
            .iter()
            .fold(0u32, |n, d| n * 10 + u32::from(d - b'0')),
    )
}

/// `opener [^]? item (sep item)* closer`, item = n | n-n | n–n, sep = `,` or `;` with spaces.
fn read_enclosed(style: MarkerStyle, closer: u8, s: &[u8], eof: bool) -> Group {
    let mut i = 1;
    let footnote = style == MarkerStyle::Bracket && s.get(1) == Some(&b'^');
    if footnote {
        i += 1;
    }
    let mut ids = Vec::new();
    loop {
        let start = i;
        while i < s.len() && s[i].is_ascii_digit() {
            i += 1;
        }
        if i == s.len() {
            return incomplete_or_text(i, eof);
        }
        let Some(lo) = number(&s[start..i]) else {
            return Group::Text;
        };
        let mut hi = lo;
        if let Some(dash) = range_dash(&s[i..]) {
            i += dash;
            let start = i;
            while i < s.len() && s[i].is_ascii_digit() {
                i += 1;
            }
            if i == s.len() {
                return incomplete_or_text(i, eof);
            }
            match number(&s[start..i]) {
                Some(n) if n >= lo && n - lo < MAX_RANGE_LEN => hi = n,
                _ => return Group::Text,
            }
        }
        ids.extend(lo..=hi);
        if footnote && ids.len() > 1 {
            return Group::Text;
        }
        match s[i] {
            b if b == closer => return Group::Marker { len: i + 1, ids },
            b',' | b';' if !footnote => {
                i += 1;
                while i < s.len() && s[i] == b' ' {
                    i += 1;
                }
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
            ids: ids.to_vec(),
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
        for text in [
            "[a]",
            "[]",
            "[1 2]",
            "[3-1]",
            "[1-999]",
            "[^1,2]",
            "[1234567890]",
            "[ 1]",
        ] {
            assert_eq!(g(B, text, true), Group::Text, "{text}");
        }
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
