//! JSON's string escapes: the letter after a backslash and the byte it stands for, and strings
//! written as JSON.

/// The byte `\` + `letter` stands for in a JSON string (`\"`, `\\`, `\/`, `\b`, `\f`, `\n`,
/// `\r`, `\t`); `None` for any other letter (`u` starts a unicode escape, the rest are errors).
pub(crate) fn short_escape(letter: u8) -> Option<u8> {
    Some(match letter {
        b'"' | b'\\' | b'/' => letter,
        b'b' => 0x08,
        b'f' => 0x0c,
        b'n' => b'\n',
        b'r' => b'\r',
        b't' => b'\t',
        _ => return None,
    })
}

/// How serde_json escapes each control character: by its short escape where JSON has one,
/// else as `\u00XX` (lower-case hex).
#[rustfmt::skip]
const CONTROL: [&str; 32] = [
    "\\u0000", "\\u0001", "\\u0002", "\\u0003", "\\u0004", "\\u0005", "\\u0006", "\\u0007",
    "\\b", "\\t", "\\n", "\\u000b", "\\f", "\\r", "\\u000e", "\\u000f",
    "\\u0010", "\\u0011", "\\u0012", "\\u0013", "\\u0014", "\\u0015", "\\u0016", "\\u0017",
    "\\u0018", "\\u0019", "\\u001a", "\\u001b", "\\u001c", "\\u001d", "\\u001e", "\\u001f",
];

/// Appends `text` as a JSON string, escaped as serde_json writes it: `"`, `\` and the control
/// characters ([`CONTROL`]).
pub(crate) fn write_string(text: &str, out: &mut String) {
    out.push('"');
    let mut run = 0;
    for (at, b) in text.bytes().enumerate() {
        let escape = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            0..=0x1f => CONTROL.get(usize::from(b)).copied().unwrap_or_default(),
            _ => continue,
        };
        out.push_str(text.get(run..at).unwrap_or_default());
        out.push_str(escape);
        run = at + 1;
    }
    out.push_str(text.get(run..).unwrap_or_default());
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every string reads back as itself, written exactly as serde_json writes it.
    #[test]
    fn strings_are_written_as_serde_json_writes_them() {
        let all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        for s in [
            "",
            "plain",
            "a\"b\\c/d",
            "é\u{2028}😀",
            "\u{7f}\u{1f}\u{0}",
            all.as_str(),
        ] {
            let mut out = String::new();
            write_string(s, &mut out);
            assert_eq!(out, serde_json::to_string(s).unwrap());
        }
    }
}
