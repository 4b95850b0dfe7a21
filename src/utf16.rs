//! UTF-8 byte offsets to UTF-16 code-unit offsets: what JS string indices mean.

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

/// Converts increasing UTF-16 offsets of one text into byte offsets in a single forward pass
/// (linear overall, where calling [`byte_offset`] for each would be quadratic).
#[derive(Debug)]
pub struct ByteCursor<'a> {
    text: &'a str,
    byte: usize,
    unit: usize,
}

impl<'a> ByteCursor<'a> {
    pub fn new(text: &'a str) -> Self {
        Self {
            text,
            byte: 0,
            unit: 0,
        }
    }

    /// The byte offset of UTF-16 offset `unit`, if it falls on a character boundary (as
    /// [`byte_offset`]). An offset before the previous call's restarts the pass.
    pub fn to_byte(&mut self, unit: usize) -> Option<usize> {
        if unit < self.unit {
            self.byte = 0;
            self.unit = 0;
        }
        let rest = self.text.get(self.byte..).unwrap_or_default();
        for c in rest.chars() {
            if self.unit >= unit {
                break;
            }
            self.unit += c.len_utf16();
            self.byte += c.len_utf8();
        }
        (self.unit == unit).then_some(self.byte)
    }
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
    fn the_byte_cursor_agrees_with_byte_offset() {
        let text = "a😀é<b";
        let mut c = super::ByteCursor::new(text);
        for unit in [0, 1, 2, 3, 4, 5, 6, 7, 3, 0, 6, 2, 99] {
            assert_eq!(c.to_byte(unit), super::byte_offset(text, unit), "{unit}");
        }
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
