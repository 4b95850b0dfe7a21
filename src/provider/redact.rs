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
use std::collections::HashSet;

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
#[derive(Clone, Default, PartialEq, Eq)]
pub struct Secrets(Vec<Vec<char>>);

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
        let mut secrets: Vec<Vec<char>> = Vec::new();
        for s in found.into_iter().filter(|s| !s.is_empty()) {
            let chars: Vec<char> = s.chars().collect();
            if !secrets.contains(&chars) {
                secrets.push(chars);
            }
        }
        Self(secrets)
    }

    /// True when there is nothing to hide.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// `text` with each secret, and each run of text made of its pieces, replaced by
    /// [`REDACTED`].
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.0.is_empty() {
            return Cow::Borrowed(text);
        }
        let chars: Vec<char> = text.chars().collect();
        let mut hidden = vec![false; chars.len()];
        let mut found = false;
        for secret in &self.0 {
            let size = SECRET_PIECE.min(secret.len());
            let pieces: HashSet<&[char]> = secret.windows(size).collect();
            for (start, window) in chars.windows(size).enumerate() {
                if pieces.contains(window) {
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
        for (c, hide) in chars.into_iter().zip(hidden) {
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
    }

    #[test]
    fn schemes() {
        assert_eq!(without_scheme("Bearer  k"), "k");
        assert_eq!(without_scheme("k"), "k");
        assert_eq!(without_scheme(" k"), " k");
    }
}
