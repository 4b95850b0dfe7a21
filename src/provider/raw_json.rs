//! What the decoder keeps as JSON text (usage objects, error bodies, a tool's input), read
//! without building a tree: an object's entries, a whole number, a string, the text without
//! its whitespace. The text was checked when it was kept ([`super::message_reader`]'s rules,
//! which are serde_json's); text that is not JSON reads as holding nothing.

use std::borrow::Cow;

use super::message_reader::{read_whole, Num, Prim, ReadError, Reader};

/// Checks that `text` is one JSON value, with nothing but whitespace around it.
pub(crate) fn check(text: &str) -> Result<(), ReadError> {
    read_whole(text, Reader::skip)
}

/// The entries of an object's text, in order (a key given twice is there twice): keys
/// unescaped, values as their text. None for any other value.
pub(crate) fn entries(raw: &str) -> Vec<(Cow<'_, str>, &str)> {
    let mut out = Vec::new();
    let mut r = Reader::new(raw);
    r.ws();
    if r.peek() != Some(b'{') {
        return out;
    }
    let read = r.items(b'}', &mut |r| {
        let key = r.key()?;
        out.push((key, r.raw()?));
        Ok(())
    });
    if read.is_err() {
        out.clear();
    }
    out
}

/// The value of `key` in `entries`: its last occurrence, as a parsed object keeps it.
pub(crate) fn get<'a>(entries: &[(Cow<'_, str>, &'a str)], key: &str) -> Option<&'a str> {
    entries
        .iter()
        .rev()
        .find(|(k, _)| k == key)
        .map(|(_, v)| *v)
}

/// The value as a `u64` when it is one (a non-negative integer that fits, written without a
/// fraction or an exponent: what serde_json's `Value::as_u64` gives).
pub(crate) fn whole_number(raw: &str) -> Option<u64> {
    match Reader::new(raw).primitive() {
        Ok(Prim::Num(Num::U64(n))) => Some(n),
        _ => None,
    }
}

/// The value as a string when it is one, unescaped.
pub(crate) fn string(raw: &str) -> Option<Cow<'_, str>> {
    match Reader::new(raw).primitive() {
        Ok(Prim::Str(s)) => Some(s),
        _ => None,
    }
}

/// The text without the whitespace between its tokens.
pub(crate) fn compact(raw: &str) -> Cow<'_, str> {
    if !raw
        .bytes()
        .any(|b| matches!(b, b' ' | b'\n' | b'\r' | b'\t'))
    {
        return Cow::Borrowed(raw);
    }
    // Byte by byte: only ASCII whitespace is left out, so what is kept is whole characters.
    let mut out = Vec::with_capacity(raw.len());
    let (mut in_string, mut escaped) = (false, false);
    for b in raw.bytes() {
        if in_string {
            out.push(b);
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
        } else if !matches!(b, b' ' | b'\n' | b'\r' | b'\t') {
            in_string = b == b'"';
            out.push(b);
        }
    }
    Cow::Owned(String::from_utf8(out).unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use serde_json::Value;

    use super::*;

    #[test]
    fn entries_numbers_strings_and_compact_text() {
        let raw = r#" { "a" : 1, "\u0062" : {"c": [1, 2]}, "a": "x\"y", "d": -1, "e": 2.0 } "#;
        let e = entries(raw.trim());
        let keys: Vec<&str> = e.iter().map(|(k, _)| k.as_ref()).collect();
        assert_eq!(keys, ["a", "b", "a", "d", "e"]);
        assert_eq!(get(&e, "b"), Some(r#"{"c": [1, 2]}"#));
        assert_eq!(get(&e, "a").and_then(string).as_deref(), Some("x\"y"));
        assert_eq!(get(&e, "a").and_then(whole_number), None);
        assert_eq!(e.first().and_then(|(_, v)| whole_number(v)), Some(1));
        assert_eq!(get(&e, "d").and_then(whole_number), None);
        assert_eq!(get(&e, "e").and_then(whole_number), None);
        assert!(entries("[1]").is_empty() && entries("\"s\"").is_empty());
        let text = compact(raw);
        assert_eq!(
            text,
            r#"{"a":1,"\u0062":{"c":[1,2]},"a":"x\"y","d":-1,"e":2.0}"#
        );
        let parsed = |s: &str| serde_json::from_str::<Value>(s).unwrap();
        assert_eq!(parsed(&text), parsed(raw));
        assert_eq!(compact(r#""a b\\" "#), r#""a b\\""#);
        assert_eq!(
            compact(" { \"é\" :\t\"a b 😀\\\"\" }\n"),
            "{\"é\":\"a b 😀\\\"\"}"
        );
        assert!(check(" [1, {\"a\": null}] ").is_ok());
        assert!(check("[1] 2").is_err() && check("{").is_err() && check("").is_err());
    }
}
