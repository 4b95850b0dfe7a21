//! JSON's short string escapes: the letter after a backslash and the byte it stands for.

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
