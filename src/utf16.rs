//! UTF-8 byte offsets to UTF-16 code-unit offsets: what JS string indices mean.

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented,
        clippy::string_slice
    )
)]

/// Converts increasing byte offsets of one text into UTF-16 offsets in a single forward
/// pass (linear overall). ASCII text, where the two agree, costs nothing.
#[derive(Debug)]
pub struct Utf16Cursor<'a> {
    text: &'a str,
    ascii: bool,
    byte: usize,
    unit: usize,
}

impl<'a> Utf16Cursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            ascii: text.is_ascii(),
            byte: 0,
            unit: 0,
        }
    }

    /// The UTF-16 offset of `byte`, which should be a char boundary at or after the previous
    /// call's (an earlier one restarts the pass). Past the end counts as the end; inside a
    /// character, as that character's start.
    pub fn to_utf16(&mut self, byte: usize) -> usize {
        let byte = floor_char_boundary(self.text, byte);
        if self.ascii {
            return byte;
        }
        if byte < self.byte {
            self.byte = 0;
            self.unit = 0;
        }
        self.unit += self
            .text
            .get(self.byte..byte)
            .unwrap_or_default()
            .chars()
            .map(char::len_utf16)
            .sum::<usize>();
        self.byte = byte;
        self.unit
    }
}

/// The greatest char boundary of `text` at or below `byte`.
fn floor_char_boundary(text: &str, byte: usize) -> usize {
    if byte >= text.len() {
        return text.len();
    }
    // A char is at most four bytes, so a boundary is at most three bytes back.
    (byte.saturating_sub(3)..=byte)
        .rev()
        .find(|&b| text.is_char_boundary(b))
        .unwrap_or(0)
}

/// The byte offset of UTF-16 offset `unit` in `text`, if it falls on a character boundary.
pub fn byte_offset(text: &str, unit: usize) -> Option<usize> {
    let mut units = 0;
    for (i, c) in text.char_indices() {
        if units == unit {
            return Some(i);
        }
        if units > unit {
            return None;
        }
        units += c.len_utf16();
    }
    (units == unit).then_some(text.len())
}

#[cfg(test)]
mod tests {
    use super::Utf16Cursor;

    #[test]
    fn counts_surrogate_pairs_as_two() {
        let text = "a😀é<b";
        let mut c = Utf16Cursor::new(text);
        let lt = text.find('<').unwrap();
        assert_eq!(c.to_utf16(1), 1);
        assert_eq!(c.to_utf16(lt), 4);
        assert_eq!(c.to_utf16(text.len()), 6);
        assert_eq!(c.to_utf16(0), 0);
        assert_eq!(super::byte_offset(text, 4), Some(lt));
        assert_eq!(super::byte_offset(text, 2), None, "inside a surrogate pair");
        assert_eq!(super::byte_offset(text, 6), Some(text.len()));
        assert_eq!(super::byte_offset(text, 7), None);
    }

    #[test]
    fn offsets_off_the_text_are_clamped() {
        let text = "a😀b";
        let mut c = Utf16Cursor::new(text);
        assert_eq!(c.to_utf16(3), 1, "inside 😀 counts as its start");
        assert_eq!(c.to_utf16(99), 4);
        assert_eq!(Utf16Cursor::new("ab").to_utf16(99), 2);
    }
}
