//! Keeping an invoker's secrets out of its errors. Providers echo keys back (a 401 quoting
//! the key, a proxy logging the request), and error messages get cut at a length limit, so
//! matching the whole key is not enough: every run of text made of pieces of a secret at least
//! [`SECRET_PIECE`] characters long is removed too.
//!
//! ```
//! use citeflow::provider::redact::Secrets;
//!
//! let secrets = Secrets::new(Some("sk-abcdefghijklmnopqrstuvwxyz"), &[]);
//! assert_eq!(
//!     secrets.redact("invalid key sk-abcdefghijkl… (cut)"),
//!     "invalid key [redacted]… (cut)"
//! );
//! ```

use std::borrow::Cow;

/// Pieces of a secret this long or longer are removed wherever they appear.
pub const SECRET_PIECE: usize = 10;

/// Request headers whose values are secrets too (compared case-insensitively).
pub const CREDENTIAL_HEADERS: [&str; 5] = [
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "cookie",
];

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// The secrets of one invoker: its API key and the values of the credential headers it sends
/// (each also without its scheme, `Bearer k` → `k`).
///
/// Lengths are counted in UTF-16 units, as JS strings count them: a piece is 10 units, so an
/// astral character counts twice. That is the stricter of the two ways to count (a run of 10
/// characters always holds a run of 10 units), so a key of emoji loses its halves too. A secret
/// shorter than a piece is matched whole, every occurrence, however short: a one-character key
/// takes that character out of every error (the price of never showing it).
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<String>);

impl std::fmt::Debug for Secrets {
    // Never print what this holds.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Secrets({} hidden)", self.0.len())
    }
}

impl Secrets {
    pub fn new(api_key: Option<&str>, headers: &[(String, String)]) -> Self {
        let mut found: Vec<&str> = api_key.into_iter().collect();
        for (name, value) in headers {
            if CREDENTIAL_HEADERS
                .iter()
                .any(|h| h.eq_ignore_ascii_case(name))
            {
                found.push(value);
                found.push(without_scheme(value));
            }
        }
        Self::listed(found)
    }

    /// Secrets found before (see [`Secrets::into_list`]): empty ones dropped, each kept once.
    pub fn listed<S: AsRef<str>>(found: impl IntoIterator<Item = S>) -> Self {
        let mut secrets: Vec<String> = Vec::new();
        for s in found {
            let s = s.as_ref();
            if !s.is_empty() && !secrets.iter().any(|known| known == s) {
                secrets.push(s.to_owned());
            }
        }
        Self(secrets)
    }

    /// The secrets themselves, for an edge that keeps them (the npm package's JS face finds
    /// them once per invoker and hands them back with each text to redact).
    pub fn into_list(self) -> Vec<String> {
        self.0
    }

    /// True when there is nothing to hide.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with each secret, and each run of text made of its pieces, replaced by
    /// [`REDACTED`]. A character any unit of which is in a piece is hidden whole, so no half of
    /// a surrogate pair is left behind.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.0.is_empty() {
            return Cow::Borrowed(text);
        }
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut hidden = vec![false; units.len()];
        let mut found = false;
        for secret in &self.0 {
            let secret: Vec<u16> = secret.encode_utf16().collect();
            let size = SECRET_PIECE.min(secret.len());
            // For each position of the text, the longest run ending there that also ends at
            // some position of the secret (one row of the classic table, kept as two): a run
            // of `size` or more means the `size` units before it are a piece. Linear in the
            // text for each secret, with no hash set (whose code would cost the wasm module
            // kilobytes).
            let mut previous = vec![0u32; secret.len() + 1];
            let mut current = vec![0u32; secret.len() + 1];
            for (end, &unit) in units.iter().enumerate() {
                let mut longest = 0;
                for ((run, &before), &s) in current.iter_mut().skip(1).zip(&previous).zip(&secret) {
                    *run = if s == unit {
                        before.saturating_add(1)
                    } else {
                        0
                    };
                    longest = longest.max(*run);
                }
                std::mem::swap(&mut previous, &mut current);
                if longest as usize >= size {
                    let start = (end + 1).saturating_sub(size);
                    for flag in hidden.iter_mut().skip(start).take(size) {
                        *flag = true;
                    }
                    found = true;
                }
            }
        }
        if !found {
            return Cow::Borrowed(text);
        }
        let mut out = String::with_capacity(text.len());
        let mut previous = false;
        let mut at = 0;
        for c in text.chars() {
            let width = c.len_utf16();
            let hide = hidden.iter().skip(at).take(width).any(|&h| h);
            at += width;
            match (hide, previous) {
                (true, false) => out.push_str(REDACTED),
                (true, true) => {}
                (false, _) => out.push(c),
            }
            previous = hide;
        }
        Cow::Owned(out)
    }
}

/// `Bearer k` → `k` (the first word and the spaces after it removed, when the first word is
/// letters, digits or `_`).
fn without_scheme(value: &str) -> &str {
    let word = value
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(value.len());
    match value.get(word..) {
        Some(rest) if word > 0 && rest.starts_with(char::is_whitespace) => rest.trim_start(),
        _ => value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whole_and_partial_secrets() {
        let key = "sk-0123456789abcdefghij";
        let s = Secrets::new(Some(key), &[]);
        assert_eq!(s.redact(&format!("a {key} b")), "a [redacted] b");
        assert_eq!(s.redact("cut: sk-012345678"), "cut: [redacted]");
        assert_eq!(s.redact("short sk-01234 stays"), "short sk-01234 stays");
        assert_eq!(s.redact("nothing here"), "nothing here");
        assert!(matches!(s.redact("nothing"), Cow::Borrowed(_)));
        // Two pieces with text between them are two redactions.
        assert_eq!(
            s.redact("sk-0123456789 and abcdefghij"),
            "[redacted] and [redacted]"
        );
    }

    #[test]
    fn credential_headers_and_short_secrets() {
        let headers = vec![
            (
                "Authorization".to_owned(),
                "Bearer tok-ABCDEFGHIJKL".to_owned(),
            ),
            ("x-other".to_owned(), "visible-value-123456".to_owned()),
        ];
        let s = Secrets::new(None, &headers);
        // The header's value with its scheme is a secret too: the space before the token is
        // part of one of its pieces.
        assert_eq!(s.redact("got tok-ABCDEFGHIJKL"), "got[redacted]");
        assert_eq!(s.redact("got:tok-ABCDEFGHIJKL"), "got:[redacted]");
        assert_eq!(s.redact("visible-value-123456"), "visible-value-123456");
        // A secret shorter than a piece is matched whole.
        let s = Secrets::new(Some("abc"), &[]);
        assert_eq!(s.redact("xabcx"), "x[redacted]x");
        assert_eq!(format!("{s:?}"), "Secrets(1 hidden)");
        assert!(Secrets::new(Some(""), &[]).is_empty());
        // Every occurrence, however short the key.
        let s = Secrets::new(Some("k"), &[]);
        assert_eq!(s.redact("key kit"), "[redacted]ey [redacted]it");
    }

    #[test]
    fn pieces_are_utf16_units() {
        // Eight emoji are 16 units: five of them (10 units) are a piece.
        let key = "🔑😀🎉🚀🌍🔥💧🌈";
        let s = Secrets::new(Some(key), &[]);
        assert_eq!(s.redact("got 😀🎉🚀🌍🔥!"), "got [redacted]!");
        assert_eq!(s.redact("got 😀🎉🚀🌍!"), "got 😀🎉🚀🌍!");
        // A piece that starts inside a pair hides the whole character.
        let s = Secrets::new(Some("a🔑bcdefghijk"), &[]);
        assert_eq!(s.redact("x🔑bcdefghijy"), "x[redacted]y");
        assert_eq!(s.redact("é🔑bcdefghij"), "é[redacted]");
    }

    /// The rule as written: every `size`-unit window of the text equal to one of the secret's.
    fn naive(secrets: &[&str], text: &str) -> String {
        let units: Vec<u16> = text.encode_utf16().collect();
        let mut hidden = vec![false; units.len()];
        for secret in secrets {
            let secret: Vec<u16> = secret.encode_utf16().collect();
            let size = SECRET_PIECE.min(secret.len());
            for start in 0..units.len().saturating_sub(size - 1) {
                let window = &units[start..start + size];
                if secret.windows(size).any(|p| p == window) {
                    hidden[start..start + size]
                        .iter_mut()
                        .for_each(|h| *h = true);
                }
            }
        }
        let (mut out, mut at, mut previous) = (String::new(), 0, false);
        for c in text.chars() {
            let hide = hidden[at..at + c.len_utf16()].iter().any(|&h| h);
            at += c.len_utf16();
            if !hide {
                out.push(c);
            } else if !previous {
                out.push_str(REDACTED);
            }
            previous = hide;
        }
        out
    }

    #[test]
    fn agrees_with_the_rule_as_written() {
        let alphabet: Vec<char> = "ab0-_🔑é ".chars().collect();
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = |n: usize| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        };
        for _ in 0..3000 {
            let key: String = (0..1 + next(24))
                .map(|_| alphabet[next(alphabet.len())])
                .collect();
            let mut text = String::new();
            for _ in 0..next(6) {
                let chars: Vec<char> = key.chars().collect();
                let from = next(chars.len());
                let to = from + next(chars.len() - from + 1);
                text.extend(&chars[from..to]);
                text.extend((0..next(4)).map(|_| alphabet[next(alphabet.len())]));
            }
            let secrets = Secrets::new(Some(&key), &[]);
            assert_eq!(
                secrets.redact(&text),
                naive(&[&key], &text),
                "{key:?} in {text:?}"
            );
        }
    }

    #[test]
    fn lists_round_trip() {
        let headers = vec![("Cookie".to_owned(), "Bearer sess-0123456789".to_owned())];
        let list = Secrets::new(Some("sk-key"), &headers).into_list();
        assert_eq!(
            list,
            ["sk-key", "Bearer sess-0123456789", "sess-0123456789"]
        );
        let again = Secrets::listed(&list);
        assert_eq!(again, Secrets::new(Some("sk-key"), &headers));
        assert_eq!(Secrets::listed(["", "a", "a"]).into_list(), ["a"]);
    }

    #[test]
    fn schemes() {
        assert_eq!(without_scheme("Bearer  k"), "k");
        assert_eq!(without_scheme("k"), "k");
        assert_eq!(without_scheme(" k"), " k");
    }
}
