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

/// Appends `text` as a JSON string, escaped as serde_json writes it: `"`, `\` and the control
/// characters, by their short escape where JSON has one, else as `\u00XX`.
pub(crate) fn write_string(text: &str, out: &mut String) {
    out.push('"');
    let mut run = 0;
    for (at, b) in text.bytes().enumerate() {
        let short = match b {
            b'"' => '"',
            b'\\' => '\\',
            b'\n' => 'n',
            b'\r' => 'r',
            b'\t' => 't',
            0x08 => 'b',
            0x0c => 'f',
            0..=0x1f => '\0',
            _ => continue,
        };
        out.push_str(text.get(run..at).unwrap_or_default());
        run = at + 1;
        out.push('\\');
        if short == '\0' {
            out.push_str("u00");
            for digit in [b >> 4, b & 15] {
                out.push(char::from_digit(u32::from(digit), 16).unwrap_or('0'));
            }
        } else {
            out.push(short);
        }
    }
    out.push_str(text.get(run..).unwrap_or_default());
    out.push('"');
}

/// A string quoted for a message, as JSON writes it (what a caller gave, shown without
/// `{:?}`, whose Unicode tables the streaming module does not otherwise need).
pub(crate) struct Quoted<'a>(pub &'a str);

impl std::fmt::Display for Quoted<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let mut out = String::with_capacity(self.0.len() + 2);
        write_string(self.0, &mut out);
        f.write_str(&out)
    }
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
