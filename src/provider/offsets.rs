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
    /// Each non-ASCII character: where it starts and how wide it is, in each unit, in order.
    wide: Vec<Wide>,
}

/// One non-ASCII character's start and width as (UTF-8 bytes, code points, UTF-16 units).
#[derive(Debug, Clone, Copy)]
struct Wide {
    start: [usize; 3],
    width: [usize; 3],
}

/// Which unit an offset counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    Utf8Bytes,
    CodePoints,
    Utf16,
}

impl Unit {
    /// This unit's count of a (bytes, code points, UTF-16 units) triple.
    fn of(self, counts: [usize; 3]) -> usize {
        let [bytes, chars, units] = counts;
        match self {
            Self::Utf8Bytes => bytes,
            Self::CodePoints => chars,
            Self::Utf16 => units,
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
                self.wide.push(Wide {
                    start: [self.bytes, self.chars, self.units],
                    width: [c.len_utf8(), 1, c.len_utf16()],
                });
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
        unit.of([self.bytes, self.chars, self.units])
    }

    /// Whether no text has come.
    pub fn is_empty(&self) -> bool {
        self.bytes == 0
    }

    /// The UTF-16 offset of `offset` counted in `unit`: at a character's start when it falls
    /// inside one, at the text's end when past it.
    pub fn utf16(&self, offset: u64, unit: Unit) -> usize {
        let offset = usize::try_from(offset)
            .unwrap_or(usize::MAX)
            .min(self.len(unit));
        // The last non-ASCII character starting at or before the offset: everything after it
        // is ASCII, one unit in every count.
        let at = self.wide.partition_point(|w| unit.of(w.start) <= offset);
        let Some(last) = at.checked_sub(1).and_then(|i| self.wide.get(i)) else {
            return offset;
        };
        let end = unit.of(last.start) + unit.of(last.width);
        if offset < end {
            // At or inside it: its start.
            Unit::Utf16.of(last.start)
        } else {
            Unit::Utf16.of(last.start) + Unit::Utf16.of(last.width) + (offset - end)
        }
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
                let at = text
                    .char_indices()
                    .nth(split)
                    .map_or(text.len(), |(i, _)| i);
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
