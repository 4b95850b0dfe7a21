//! Keeping an invoker's secrets out of its errors. Providers echo keys back (a 401 quoting
//! the key, a proxy logging the request), and error messages get cut at a length limit, so
//! matching the whole key is not enough: every run of text made of pieces of a secret at least
//! [`SECRET_PIECE`] characters long is removed too. A key echoed URL-encoded (`k/9+Xa` as
//! `k%2F9%2BXa`, as a query string or a logged URL quotes it) is removed the same way: the
//! text is also read with its percent-escapes decoded.
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
///
/// Percent-encoded echoes: the text is read a second time with each `%XX` escape of an ASCII
/// character (either case of hex, any choice of which characters were escaped) read as that
/// character, and each `+` as a `+` or a space (form encoding). A run of that reading which is
/// part of a secret is removed when the text it was written as is a piece long (10 units,
/// escapes counted as written: `k%2F9%2BXa` is a piece, though it encodes six characters) or
/// when it is the whole secret. Escapes of other bytes are left as written: keys and
/// credential header values travel in HTTP headers, which carry bytes (ASCII in practice, at
/// most Latin-1 through `fetch`), so how a server would escape a non-ASCII one is its own
/// choice; the ASCII parts of such a key are still found, a piece at a time.
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
    /// [`REDACTED`], whether written plainly or percent-encoded. A character any unit of which
    /// is in a piece is hidden whole, so no half of a surrogate pair is left behind.
    pub fn redact<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.0.is_empty() {
            return Cow::Borrowed(text);
        }
        let units: Vec<u16> = text.encode_utf16().collect();
        let as_written = reading(&units, false);
        // Only a text with an escape or a `+` reads differently decoded.
        let decoded = units
            .iter()
            .any(|&u| u == PERCENT || u == PLUS)
            .then(|| reading(&units, true));
        let mut hidden = vec![false; units.len()];
        let mut found = false;
        for secret in &self.0 {
            let secret: Vec<u16> = secret.encode_utf16().collect();
            found |= hide_pieces(&as_written, &secret, &mut hidden);
            if let Some(decoded) = &decoded {
                found |= hide_pieces(decoded, &secret, &mut hidden);
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

/// Query parameters whose values are credentials, compared case-insensitively with `-` read as
/// `_`; a name ending in `_key`, `_token`, `_secret`, `_signature`, `_sig`, `_password` or
/// `_credential` (`x-goog-api-key`, `X-Amz-Signature`, `refresh_token`) is one too.
pub const CREDENTIAL_PARAMS: [&str; 10] = [
    "key",
    "apikey",
    "api_key",
    "token",
    "access_token",
    "sig",
    "signature",
    "secret",
    "password",
    "auth",
];

const CREDENTIAL_SUFFIXES: [&str; 7] = [
    "_key",
    "_token",
    "_secret",
    "_signature",
    "_sig",
    "_password",
    "_credential",
];

/// Whether `name` is `word`, any case, `-` read as `_` (bytes compared: no allocation, no
/// substring search, whose code the core module would carry).
fn same_param(name: &[u8], word: &str) -> bool {
    let normal = |b: &u8| {
        if *b == b'-' {
            b'_'
        } else {
            b.to_ascii_lowercase()
        }
    };
    name.len() == word.len() && name.iter().map(normal).eq(word.bytes())
}

fn is_credential_param(name: &[u8]) -> bool {
    CREDENTIAL_PARAMS.iter().any(|w| same_param(name, w))
        || CREDENTIAL_SUFFIXES.iter().any(|w| {
            name.len() > w.len()
                && same_param(name.get(name.len() - w.len()..).unwrap_or_default(), w)
        })
}

/// A URL as an error may name it: without the user name and password (`https://u:p@host/` →
/// `https://host/`), with the value of each query parameter whose name is a credential's
/// ([`CREDENTIAL_PARAMS`]) replaced by [`REDACTED`], and without the fragment. The rest is
/// kept as written. Any text is taken: what is not a URL's part passes unchanged.
///
/// ```
/// use citeflow::provider::redact::url_without_credentials;
///
/// assert_eq!(
///     url_without_credentials("https://me:pw@api.test/v1/chat?key=sk-123&alt=sse"),
///     "https://api.test/v1/chat?key=[redacted]&alt=sse"
/// );
/// ```
pub fn url_without_credentials(url: &str) -> Cow<'_, str> {
    let (end, cuts) = credential_cuts(url);
    let part = |from: usize, to: usize| url.get(from..to).unwrap_or_default();
    if cuts.is_empty() {
        return Cow::Borrowed(part(0, end));
    }
    let mut out = String::with_capacity(end);
    let mut from = 0;
    for (start, stop, user_info) in cuts {
        out.push_str(part(from, start));
        out.push_str(if user_info { "" } else { REDACTED });
        from = stop;
    }
    out.push_str(part(from, end));
    Cow::Owned(out)
}

/// The credentials a URL carries as written (its user info, the values of its credential
/// parameters), as [`Secrets`]: a runtime's error may quote the URL whole.
pub fn url_credentials(url: &str) -> Secrets {
    let (_, cuts) = credential_cuts(url);
    // The user info without its `@`.
    Secrets::listed(cuts.iter().map(|&(start, stop, user_info)| {
        url.get(start..stop - usize::from(user_info))
            .unwrap_or_default()
    }))
}

/// Where `url` ends before its fragment, and the parts to cut: `[start, stop)`, and whether it
/// is the user info (with its `@`; else a credential parameter's value).
fn credential_cuts(url: &str) -> (usize, Vec<(usize, usize, bool)>) {
    // One walk over the bytes (every delimiter is ASCII, so each cut is at a char boundary).
    let bytes = url.as_bytes();
    let slice = |from: usize, to: usize| bytes.get(from..to).unwrap_or_default();
    let find = |from: usize, to: usize, byte: u8| {
        slice(from, to)
            .iter()
            .position(|&b| b == byte)
            .map_or(to, |i| from + i)
    };
    let end = find(0, bytes.len(), b'#');
    let query = find(0, end, b'?');
    let mut cuts = Vec::new();
    // The authority runs from `//` to the next `/`; its user info ends at its last `@`.
    if let Some(at) = slice(0, query).windows(2).position(|w| w == b"//") {
        let start = at + 2;
        let stop = find(start, query, b'/');
        if let Some(i) = slice(start, stop).iter().rposition(|&b| b == b'@') {
            cuts.push((start, start + i + 1, true));
        }
    }
    let mut at = query + 1;
    while at < end {
        let stop = find(at, end, b'&');
        let eq = find(at, stop, b'=');
        if eq + 1 < stop && is_credential_param(slice(at, eq)) {
            cuts.push((eq + 1, stop, false));
        }
        at = stop + 1;
    }
    (end, cuts)
}

const PERCENT: u16 = b'%' as u16;
const PLUS: u16 = b'+' as u16;
const SPACE: u16 = b' ' as u16;

/// One UTF-16 unit of a reading of the text, and the units `[start, end)` of the text it was
/// read from (one unit, or a whole escape when decoded).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Symbol {
    unit: u16,
    /// A `+` read decoded: it stands for a `+` or a space.
    plus: bool,
    start: usize,
    end: usize,
}

impl Symbol {
    fn matches(&self, secret_unit: u16) -> bool {
        self.unit == secret_unit || (self.plus && secret_unit == SPACE)
    }
}

/// Marks in `hidden` (indexed by the text's units) every run of `reading` that is also a run
/// of `secret` and is a piece long as written (or is the whole secret); returns whether any
/// was found.
///
/// For each symbol, the longest such run ending there (one row of the classic longest common
/// substring table, kept as two): every shorter run ending there lies inside it, so it alone
/// says what to hide. Linear in the reading for each secret, with no hash set (whose code
/// would cost the wasm module kilobytes).
fn hide_pieces(reading: &[Symbol], secret: &[u16], hidden: &mut [bool]) -> bool {
    let mut previous = vec![0u32; secret.len() + 1];
    let mut current = vec![0u32; secret.len() + 1];
    let mut found = false;
    // The text's units before this are marked already: the runs' starts never move back, so
    // each unit is marked once.
    let mut marked_to = 0;
    for (end, symbol) in reading.iter().enumerate() {
        let mut longest = 0;
        for ((run, &before), &s) in current.iter_mut().skip(1).zip(&previous).zip(secret) {
            *run = if symbol.matches(s) {
                before.saturating_add(1)
            } else {
                0
            };
            longest = longest.max(*run);
        }
        std::mem::swap(&mut previous, &mut current);
        let Some(first) = (end + 1)
            .checked_sub(longest as usize)
            .filter(|_| longest > 0)
        else {
            continue;
        };
        let Some(from) = reading.get(first).map(|s| s.start) else {
            continue;
        };
        if symbol.end - from >= SECRET_PIECE || longest as usize >= secret.len() {
            for flag in hidden.iter_mut().take(symbol.end).skip(from.max(marked_to)) {
                *flag = true;
            }
            marked_to = marked_to.max(symbol.end);
            found = true;
        }
    }
    found
}

/// The text read as written (one symbol per unit), or `decoded`: each `%XX` escape (either
/// case of hex) of an ASCII character is read as that character, spanning the escape; a `+`
/// may be a space.
fn reading(units: &[u16], decoded: bool) -> Vec<Symbol> {
    let hex = |u: u16| match u {
        0x30..=0x39 => Some(u - 0x30),
        0x41..=0x46 => Some(u - 0x37),
        0x61..=0x66 => Some(u - 0x57),
        _ => None,
    };
    let escape_at = |at: usize| -> Option<u16> {
        match units.get(at..at + 3)? {
            &[PERCENT, high, low] => Some(hex(high)? << 4 | hex(low)?).filter(|&c| c < 0x80),
            _ => None,
        }
    };
    let mut out = Vec::with_capacity(units.len());
    let mut at = 0;
    while let Some(&unit) = units.get(at) {
        let (unit, width) = match decoded.then(|| escape_at(at)).flatten() {
            Some(c) => (c, 3),
            None => (unit, 1),
        };
        out.push(Symbol {
            unit,
            plus: decoded && width == 1 && unit == PLUS,
            start: at,
            end: at + width,
        });
        at += width;
    }
    out
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
    fn urls_without_credentials() {
        let cases = [
            (
                "http://127.0.0.1:9/v1/chat/completions",
                "http://127.0.0.1:9/v1/chat/completions",
            ),
            (
                "https://user:pw@api.test:8443/v1/chat?key=sk-abc123&alt=sse",
                "https://api.test:8443/v1/chat?key=[redacted]&alt=sse",
            ),
            // The last `@` ends the user info (a password may hold one).
            ("https://u:p@ss@host.test/", "https://host.test/"),
            // Names any case, `-` as `_`, and the suffixes; other parameters kept as written.
            (
                "https://h.test/x?API_KEY=a&Api-Key=b&apikey=c&token=d&access_token=e&sig=f&signature=g&x-goog-api-key=h&X-Amz-Signature=i&refresh_token=j&model=gpt&keyboard=k",
                "https://h.test/x?API_KEY=[redacted]&Api-Key=[redacted]&apikey=[redacted]&token=[redacted]&access_token=[redacted]&sig=[redacted]&signature=[redacted]&x-goog-api-key=[redacted]&X-Amz-Signature=[redacted]&refresh_token=[redacted]&model=gpt&keyboard=k",
            ),
            // The fragment never leaves the client, and is not named either.
            ("https://h.test/a#token=x", "https://h.test/a"),
            // No authority: an `@` in a path is not user info.
            ("/v1/chat?token=t", "/v1/chat?token=[redacted]"),
            ("/users/@me", "/users/@me"),
            ("https://h.test/users/@me", "https://h.test/users/@me"),
            // An empty value or a bare name hides nothing.
            ("https://h.test/?key=&key", "https://h.test/?key=&key"),
            ("", ""),
            ("not a url", "not a url"),
        ];
        for (url, named) in cases {
            assert_eq!(url_without_credentials(url), named, "{url}");
        }
        assert!(matches!(
            url_without_credentials("https://h.test/v1?alt=sse"),
            Cow::Borrowed(_)
        ));
        // What a runtime's own error quotes of the URL is redacted with these.
        let url = "http://me:pw-0123456789@h.test/v1?key=sk-query-1&alt=sse";
        assert_eq!(
            url_credentials(url).redact(&format!("no credentials in a URL: {url}")),
            "no credentials in a URL: http://[redacted]@h.test/v1?key=[redacted]&alt=sse"
        );
        assert!(url_credentials("https://h.test/v1?alt=sse").is_empty());
    }

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
        shown(text, &hidden)
    }

    /// `text` with each run of hidden units (and the characters they are part of) replaced.
    fn shown(text: &str, hidden: &[bool]) -> String {
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

    /// A small seeded generator (xorshift): `next(n)` is in `0..n`.
    fn random(mut seed: u64) -> impl FnMut(usize) -> usize {
        move |n| {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed % n as u64) as usize
        }
    }

    /// One to `most` characters of `alphabet`.
    fn random_key(next: &mut impl FnMut(usize) -> usize, alphabet: &[char], most: usize) -> String {
        (0..1 + next(most))
            .map(|_| alphabet[next(alphabet.len())])
            .collect()
    }

    #[test]
    fn agrees_with_the_rule_as_written() {
        let alphabet: Vec<char> = "ab0-_🔑é ".chars().collect();
        let mut next = random(0x2545_f491_4f6c_dd1d);
        for _ in 0..3000 {
            let key = random_key(&mut next, &alphabet, 24);
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

    /// Every character of `key` percent-encoded (upper-case hex), as `encodeURIComponent`
    /// writes the reserved ones.
    fn escaped(key: &str, lower: bool) -> String {
        let mut out = String::new();
        for c in key.chars() {
            if c.is_ascii_alphanumeric() || "-_.~".contains(c) {
                out.push(c);
                continue;
            }
            let mut bytes = [0u8; 4];
            for b in c.encode_utf8(&mut bytes).bytes() {
                out.push_str(&if lower {
                    format!("%{b:02x}")
                } else {
                    format!("%{b:02X}")
                });
            }
        }
        out
    }

    #[test]
    fn percent_encoded_echoes() {
        // No ten characters of this key in a row survive encoding unchanged.
        let key = "k/9+Xa/7+Qm=2Xr/9Lw+4T=z8/q";
        let s = Secrets::new(Some(key), &[]);
        let upper = escaped(key, false);
        assert!(upper.starts_with("k%2F9%2BXa%2F7%2BQm%3D"), "{upper}");
        assert_eq!(
            s.redact(&format!("bad key {upper}.")),
            "bad key [redacted]."
        );
        assert_eq!(
            s.redact(&format!("bad key {}.", escaped(key, true))),
            "bad key [redacted]."
        );
        // Some characters escaped and others not (a `/` left as it is), hex of either case.
        assert_eq!(
            s.redact("?key=k/9%2BXa/7%2bQm%3d2Xr/9Lw%2B4T%3Dz8/q&x=1"),
            "?key=[redacted]&x=1"
        );
        // Cut by a length limit: the pieces are counted as written (ten units), so a cut
        // inside an escape leaves only the cut escape.
        assert_eq!(
            s.redact("invalid: k%2F9%2BXa%2F7%2"),
            "invalid: [redacted]%2"
        );
        assert_eq!(s.redact("x k%2F9%2BXa y"), "x [redacted] y");
        assert_eq!(s.redact("x %2F9%2BXa y"), "x %2F9%2BXa y", "nine units");
        // Escapes that are no part of the key stay, and so does the text.
        for text in ["path%2Fto%20file", "a+b=c", "100%", "%zz%2", "%FF%C3%2F"] {
            assert!(matches!(s.redact(text), Cow::Borrowed(_)), "{text}");
        }
    }

    #[test]
    fn form_encoding_and_non_ascii_escapes() {
        // A space is `+` in a form body or a query string, `%20` elsewhere.
        let key = "open sesame 42 times";
        let s = Secrets::new(Some(key), &[]);
        assert_eq!(s.redact("got open+sesame+42+times"), "got [redacted]");
        assert_eq!(s.redact("got open%20sesame%2042%20times"), "got [redacted]");
        // A `+` that is a `+` still matches a key's `+`.
        let s = Secrets::new(Some("a+b+c+d+e+f"), &[]);
        assert_eq!(s.redact("[a+b+c+d+e+f]"), "[[redacted]]");
        assert_eq!(s.redact("[a%2Bb%2Bc%2Bd]"), "[[redacted]]");
        // Escapes of bytes beyond ASCII stay as written; the ASCII parts of the key around
        // them are found a piece at a time.
        let s = Secrets::new(Some("clé/0123456789/ab"), &[]);
        assert_eq!(
            s.redact(&escaped("clé/0123456789/ab", false)),
            "cl%C3%A9[redacted]"
        );
        // A short key is matched whole, encoded too.
        let s = Secrets::new(Some("a/b"), &[]);
        assert_eq!(s.redact("x a%2Fb y a%2F"), "x [redacted] y a%2F");
    }

    #[test]
    fn decoding_reads_escapes_as_characters() {
        let units = |s: &str| s.encode_utf16().collect::<Vec<u16>>();
        let read = |s: &str| {
            reading(&units(s), true)
                .iter()
                .map(|x| {
                    (
                        char::from_u32(u32::from(x.unit)).unwrap_or('?'),
                        x.plus,
                        x.start,
                        x.end,
                    )
                })
                .collect::<Vec<_>>()
        };
        assert_eq!(
            read("a%2f+%7E%00"),
            [
                ('a', false, 0, 1),
                ('/', false, 1, 4),
                ('+', true, 4, 5),
                ('~', false, 5, 8),
                ('\0', false, 8, 11)
            ]
        );
        // Escapes of other bytes, and cut or broken escapes, stay as written, one symbol per
        // unit.
        assert_eq!(read("%%41"), [('%', false, 0, 1), ('A', false, 1, 4)]);
        for text in ["%C3%A9", "%80%FF", "%4", "%G1"] {
            let symbols = read(text);
            assert_eq!(symbols.len(), text.len(), "{text}");
            assert_eq!(symbols.iter().map(|x| x.0).collect::<String>(), text);
        }
        // Read as written, nothing is decoded and a `+` is a `+`.
        assert!(reading(&units("%2F+"), false)
            .iter()
            .enumerate()
            .all(|(at, x)| !x.plus && (x.start, x.end) == (at, at + 1)));
    }

    /// The rule as written over readings: every run of a reading that is part of the secret
    /// and a piece long as written (or the whole secret), all runs tried.
    fn naive_reading(reading: &[Symbol], secret: &[u16], hidden: &mut [bool]) {
        for i in 0..reading.len() {
            for j in i..reading.len() {
                let run = &reading[i..=j];
                let part = run.len() <= secret.len()
                    && (0..=secret.len() - run.len())
                        .any(|k| run.iter().zip(&secret[k..]).all(|(x, &u)| x.matches(u)));
                if !part {
                    break;
                }
                let (start, end) = (run[0].start, run[run.len() - 1].end);
                if end - start >= SECRET_PIECE || run.len() == secret.len() {
                    hidden[start..end].iter_mut().for_each(|h| *h = true);
                }
            }
        }
    }

    #[test]
    fn encoded_echoes_agree_with_the_rule_as_written() {
        let alphabet: Vec<char> = "ab0/+ é🔑%".chars().collect();
        let mut next = random(0x9e37_79b9_7f4a_7c15);
        for _ in 0..3000 {
            let key = random_key(&mut next, &alphabet, 20);
            let chars: Vec<char> = key.chars().collect();
            // Slices of the key, each character written as it is, escaped (either case of
            // hex), or (a space) as `+`; with other text between them.
            let mut text = String::new();
            for _ in 0..1 + next(4) {
                let from = next(chars.len());
                let to = from + next(chars.len() - from + 1);
                for &c in &chars[from..to] {
                    match next(4) {
                        0 => text.push(c),
                        1 if c == ' ' => text.push('+'),
                        n => text.push_str(&escaped(&c.to_string(), n == 3)),
                    }
                }
                text.extend((0..next(4)).map(|_| alphabet[next(alphabet.len())]));
                if next(3) == 0 {
                    text.push_str(["%2", "%C3", "%", "%4"][next(4)]);
                }
            }
            let units: Vec<u16> = text.encode_utf16().collect();
            let secret: Vec<u16> = key.encode_utf16().collect();
            let mut hidden = vec![false; units.len()];
            let written: Vec<Symbol> = (0..units.len())
                .map(|at| Symbol {
                    unit: units[at],
                    plus: false,
                    start: at,
                    end: at + 1,
                })
                .collect();
            naive_reading(&written, &secret, &mut hidden);
            naive_reading(&reading(&units, true), &secret, &mut hidden);
            let secrets = Secrets::new(Some(&key), &[]);
            assert_eq!(
                secrets.redact(&text),
                shown(&text, &hidden),
                "{key:?} in {text:?}"
            );
        }
    }

    #[test]
    fn schemes() {
        assert_eq!(without_scheme("Bearer  k"), "k");
        assert_eq!(without_scheme("k"), "k");
        assert_eq!(without_scheme(" k"), " k");
    }
}
