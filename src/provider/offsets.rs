//! Offsets into an answer's text in the units providers count, as UTF-16 offsets (what a JS
//! UI slices with): UTF-8 bytes (Gemini's `groundingSupports`) and code points (OpenAI's and
//! Cohere's indices). An offset inside a character (a byte of a multi-byte character) is taken
//! as that character's start, so no span splits a character, a surrogate pair least of all; an
//! offset past the text is its end.

/// The answer text measured as it arrives (in pieces), for offset conversions.
#[derive(Debug, Clone, Default)]
pub struct TextOffsets {
    bytes: usize,
    chars: usize,
    units: usize,
    /// Each non-ASCII character's start: (byte, code point, UTF-16) offsets, in order.
    wide: Vec<[usize; 3]>,
}

/// Which unit an offset counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Utf8Bytes,
    CodePoints,
    Utf16,
}

impl Unit {
    fn field(self) -> usize {
        match self {
            Self::Utf8Bytes => 0,
            Self::CodePoints => 1,
            Self::Utf16 => 2,
        }
    }
}

impl TextOffsets {
    /// Adds the next piece of the text.
    pub fn push(&mut self, text: &str) {
        if text.is_ascii() {
            self.bytes = self.bytes.saturating_add(text.len());
            self.chars = self.chars.saturating_add(text.len());
            self.units = self.units.saturating_add(text.len());
            return;
        }
        for c in text.chars() {
            if !c.is_ascii() {
                self.wide.push([self.bytes, self.chars, self.units]);
            }
            self.bytes += c.len_utf8();
            self.chars += 1;
            self.units += c.len_utf16();
        }
    }

    /// The text's length in UTF-16 units.
    pub fn units(&self) -> usize {
        self.units
    }

    /// The text's length in `unit`.
    pub fn len(&self, unit: Unit) -> usize {
        match unit {
            Unit::Utf8Bytes => self.bytes,
            Unit::CodePoints => self.chars,
            Unit::Utf16 => self.units,
        }
    }

    /// Whether no text has come.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The UTF-16 offset of `offset` counted in `unit`: at a character's start when it falls
    /// inside one, at the text's end when past it.
    pub fn utf16(&self, offset: u64, unit: Unit) -> usize {
        let field = unit.field();
        let offset = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len(unit));
        // The last non-ASCII character starting at or before the offset: everything from it
        // to the offset is ASCII, one unit each, except that character itself.
        let at = self.wide.partition_point(|w| w[field] <= offset);
        let Some(last) = at.checked_sub(1).and_then(|i| self.wide.get(i)) else {
            return offset;
        };
        let (start, units) = (last[field], last[2]);
        if offset == start {
            return units;
        }
        // Inside or after that character: it ends one code point, its UTF-8 length or its
        // UTF-16 length further on; the rest is ASCII.
        let next = self.wide.get(at);
        let (end_in_unit, end_units) = self.end_of(at - 1, next, unit);
        if offset < end_in_unit {
            units
        } else {
            end_units + (offset - end_in_unit)
        }
    }

    /// Where the non-ASCII character `i` ends, in `unit` and in UTF-16 units, measured from
    /// the next entry or the text's totals when nothing wide follows it directly.
    fn end_of(&self, i: usize, next: Option<&[usize; 3]>, unit: Unit) -> (usize, usize) {
        let Some(w) = self.wide.get(i) else {
            return (self.len(unit), self.units);
        };
        // Its width in each unit: the gap to the next wide character minus the ASCII between,
        // found from the code point count (one per character).
        let [b, c, u] = *w;
        let (nb, nc, nu) = match next {
            Some(n) => (n[0], n[1], n[2]),
            None => (self.bytes, self.chars, self.units),
        };
        // ASCII characters after this one, before the next wide one (or the end).
        let ascii = nc - c - 1;
        let width = [nb - b - ascii, 1, nu - u - ascii];
        let field = unit.field();
        (w[field] + width[field], u + width[2])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The UTF-16 offset of every offset in `unit`, counted one character at a time.
    fn by_chars(text: &str, unit: Unit) -> Vec<usize> {
        let mut out = Vec::new();
        let mut units = 0;
        for c in text.chars() {
            let width = match unit {
                Unit::Utf8Bytes => c.len_utf8(),
                Unit::CodePoints => 1,
                Unit::Utf16 => c.len_utf16(),
            };
            out.extend(std::iter::repeat_n(units, width));
            units += c.len_utf16();
        }
        out.push(units);
        out.push(units);
        out
    }

    #[test]
    fn offsets_in_every_unit_land_on_character_starts() {
        let texts = [
            "",
            "plain ascii",
            "東京タワーは333 mです。",
            "a😀b👍🏽c",
            "e\u{301}te\u{301}", // combining marks
            "שלום עולם hello مرحبا",
            "\u{feff}x\u{fffe}",
            "😀😀",
        ];
        for text in texts {
            for split in 0..=text.chars().count() {
                let at = text.char_indices().nth(split).map_or(text.len(), |(i, _)| i);
                let mut offsets = TextOffsets::default();
                offsets.push(&text[..at]);
                offsets.push(&text[at..]);
                for unit in [Unit::Utf8Bytes, Unit::CodePoints, Unit::Utf16] {
                    let want = by_chars(text, unit);
                    let got: Vec<usize> = (0..want.len())
                        .map(|i| offsets.utf16(i as u64, unit))
                        .collect();
                    assert_eq!(got, want, "{text:?} split at {split}, {unit:?}");
                }
                assert_eq!(offsets.utf16(u64::MAX, Unit::Utf8Bytes), offsets.units());
            }
        }
    }
}
