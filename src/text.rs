//! Messages composed without `core::fmt`: pieces joined in one allocation ([`cat`]), whole
//! numbers as decimal digits on the stack ([`Decimal`]) and strings quoted as JSON writes them
//! ([`quoted`]).
//!
//! The lean streaming module (what a chat UI loads) has no other use for the formatting
//! machinery: `format!` and derived `Display` impls were ~4 KB of its gzip size (issue 11).
//! Error types keep their `Display` impls for Rust callers; those write the same text.

use std::borrow::Cow;

use crate::json_escape::write_string;

/// The pieces, joined.
#[inline(never)]
pub(crate) fn cat(pieces: &[&str]) -> String {
    let mut out = String::with_capacity(pieces.iter().map(|p| p.len()).sum());
    for piece in pieces {
        out.push_str(piece);
    }
    out
}

/// The words of every refused option: "invalid option `name`: reason".
pub(crate) fn invalid_option(option: &str, reason: &str) -> String {
    cat(&["invalid option `", option, "`: ", reason])
}

/// Each name in backticks, `separator` between them: "`a`, `b`".
#[inline(never)]
pub(crate) fn ticked(names: &[&str], separator: &str) -> String {
    let mut pieces = Vec::with_capacity(names.len() * 4);
    for (i, name) in names.iter().enumerate() {
        if i > 0 {
            pieces.push(separator);
        }
        pieces.extend(["`", name, "`"]);
    }
    cat(&pieces)
}

/// `text` quoted as JSON writes it (what a caller gave, shown without `{:?}`).
#[inline(never)]
pub(crate) fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    write_string(text, &mut out);
    out
}

/// A whole number's decimal digits (what its `Display` writes).
pub(crate) struct Decimal(String);

impl Decimal {
    #[inline(never)]
    pub(crate) fn new(n: u64) -> Self {
        let mut digits = String::with_capacity(20);
        push_decimal(&mut digits, n);
        Self(digits)
    }

    /// The digits.
    pub(crate) fn as_str(&self) -> &str {
        &self.0
    }
}

/// `n`'s digits (a `usize` always fits `u64` on the targets this builds for).
pub(crate) fn decimal(n: usize) -> Decimal {
    Decimal::new(n as u64)
}

/// Appends `n`'s decimal digits to `out`.
#[inline(never)]
pub(crate) fn push_decimal(out: &mut String, n: u64) {
    if n >= 10 {
        push_decimal(out, n / 10);
    }
    // A digit: `n % 10` is below 10.
    out.push(char::from(b'0' + (n % 10) as u8));
}

/// `bytes` as text, each invalid sequence replaced by U+FFFD: what `String::from_utf8_lossy`
/// gives (the same rule, `Utf8Error::error_len`, marks where each one ends), with the check
/// `from_utf8` already links (the lossy decoder's own is ~1.1 KB of the lean module's code).
pub(crate) fn lossy(bytes: &[u8]) -> Cow<'_, str> {
    let mut rest = bytes;
    let mut out = String::new();
    loop {
        match std::str::from_utf8(rest) {
            Ok(text) if out.is_empty() && text.len() == bytes.len() => return Cow::Borrowed(text),
            Ok(text) => {
                out.push_str(text);
                return Cow::Owned(out);
            }
            Err(e) => {
                let (valid, after) = rest.split_at(e.valid_up_to());
                out.push_str(std::str::from_utf8(valid).unwrap_or_default());
                out.push(char::REPLACEMENT_CHARACTER);
                rest = after
                    .get(e.error_len().unwrap_or(after.len())..)
                    .unwrap_or_default();
            }
        }
    }
}

/// What a `Utf8Error`'s `Display` writes.
#[cfg_attr(
    not(all(target_arch = "wasm32", feature = "wasm-stream-module")),
    allow(dead_code)
)]
#[cold]
#[inline(never)]
pub(crate) fn utf8_error(e: &std::str::Utf8Error) -> String {
    let at = decimal(e.valid_up_to());
    match e.error_len() {
        Some(n) => cat(&[
            "invalid utf-8 sequence of ",
            decimal(n).as_str(),
            " bytes from index ",
            at.as_str(),
        ]),
        None => cat(&["incomplete utf-8 byte sequence from index ", at.as_str()]),
    }
}

/// `Display` and `Error` for error types whose `message()` composes their text.
macro_rules! display_by_message {
    ($($error:ty),+ $(,)?) => {
        $(impl std::fmt::Display for $error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(&self.message())
            }
        }

        impl std::error::Error for $error {})+
    };
}
pub(crate) use display_by_message;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_invalid_option_is_named_in_backticks() {
        assert_eq!(
            invalid_option("idPrefix", "must not be empty"),
            "invalid option `idPrefix`: must not be empty"
        );
    }

    #[test]
    fn digits_are_what_display_writes() {
        for n in [0, 1, 9, 10, 99, 100, 12345, u64::from(u32::MAX), u64::MAX] {
            assert_eq!(Decimal::new(n).as_str(), n.to_string());
        }
    }

    #[test]
    fn lossy_text_is_what_from_utf8_lossy_gives() {
        let cases: [&[u8]; 9] = [
            b"",
            b"plain",
            "\u{e9}\u{1f600}".as_bytes(),
            b"ab\xff",
            b"\xffab\xfe",
            b"a\xe2\x82",
            b"\xc3\x28x",
            b"\xf0\x9f\x98\xf0\x9f\x98\x80",
            b"\xed\xa0\x80\xc0\xafz",
        ];
        for bytes in cases {
            assert_eq!(lossy(bytes), String::from_utf8_lossy(bytes), "{bytes:?}");
        }
        // Every sequence of up to three bytes from a set that covers each kind of lead and
        // continuation byte.
        let set = [
            0x00, 0x41, 0x7f, 0x80, 0xbf, 0xc0, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5,
            0xff,
        ];
        for &a in &set {
            for &b in &set {
                for &c in &set {
                    let bytes = [a, b, c];
                    assert_eq!(lossy(&bytes), String::from_utf8_lossy(&bytes), "{bytes:?}");
                }
            }
        }
    }

    #[test]
    fn utf8_errors_read_as_their_display() {
        for bytes in [&b"ab\xff"[..], b"a\xe2\x82", b"\xc3\x28x", b"\xf0\x9f\x98"] {
            let e = std::str::from_utf8(bytes).unwrap_err();
            assert_eq!(utf8_error(&e), e.to_string());
        }
    }

    #[test]
    fn pieces_join_and_quote() {
        assert_eq!(cat(&[]), "");
        assert_eq!(cat(&["a", "", "bc"]), "abc");
        assert_eq!(quoted("a\"b\n"), "\"a\\\"b\\n\"");
        assert_eq!(ticked(&[], ", "), "");
        assert_eq!(ticked(&["a", "b", "c"], ", "), "`a`, `b`, `c`");
    }
}
