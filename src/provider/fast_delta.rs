//! A borrowed fast reader for the stream messages that carry the tokens: an OpenAI-style chunk
//! (`{"id":…,"object":"chat.completion.chunk",…,"choices":[{"index":0,"delta":{"content":…},
//! "finish_reason":null}]}`) and an Anthropic `content_block_delta` (`text_delta`,
//! `thinking_delta`), read straight into the [`Message`] that serde's path in [`super::wire`]
//! would build from the same text, without serde's visitor machinery.
//!
//! It reads only flat values and the fixed nesting of those shapes (a message, one choice, the
//! objects `delta`, `message` and `content_block`), and it declines (`None`, and the caller
//! takes the serde path) whenever it is not sure to build exactly what serde builds: any
//! other nesting (usage objects, content-part arrays, tool calls, citations), an `error` key,
//! a known key given twice, a key with escapes, more than one choice, a number with a
//! fraction or an exponent or more than 19 digits, a lone surrogate escape, bad syntax of any
//! kind (serde's path then reports it with its own message). What it accepts, it reads as the
//! lenient serde types do: a value of the wrong type reads as absent, unknown keys are skipped.
//! The property test beside it checks the two agree on every message the fast path accepts.

use std::borrow::Cow;

use super::wire::{Boxed, Choices, Message, Part, Scalar};

/// `data` read as `serde_json::from_str::<Message>(data)` would read it, or `None` when this
/// reader declines (see the module's notes).
pub(crate) fn read(data: &str) -> Option<Message<'_>> {
    let mut r = Reader { data, pos: 0 };
    let message = r.message(true)?;
    r.ws();
    (r.pos == data.len()).then_some(message)
}

/// A value without nesting, as every lenient reader tells them apart.
enum Flat<'a> {
    Str(Cow<'a, str>),
    /// A non-negative integer (`visit_u64`).
    U64(u64),
    Null,
    /// `[]`.
    EmptyArray,
    /// `true`, `false`, a negative integer.
    Other,
}

impl<'a> Flat<'a> {
    fn scalar(self) -> Scalar<'a> {
        match self {
            Flat::Str(s) => Scalar::Str(s),
            Flat::U64(n) => Scalar::U64(n),
            _ => Scalar::Other,
        }
    }
}

struct Reader<'a> {
    data: &'a str,
    pos: usize,
}

/// Marks a known key as seen: `None` (decline) when it was already.
fn once(seen: &mut u32, bit: u32) -> Option<()> {
    (*seen & bit == 0).then(|| *seen |= bit)
}

impl<'a> Reader<'a> {
    fn peek(&self) -> Option<u8> {
        self.data.as_bytes().get(self.pos).copied()
    }

    fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
    }

    /// The next byte after whitespace, consumed.
    fn next(&mut self) -> Option<u8> {
        self.ws();
        let b = self.peek()?;
        self.pos += 1;
        Some(b)
    }

    fn eat(&mut self, want: u8) -> Option<()> {
        (self.next()? == want).then_some(())
    }

    fn literal(&mut self, word: &str) -> Option<()> {
        let end = self.pos + word.len();
        (self.data.get(self.pos..end)? == word).then(|| self.pos = end)
    }

    /// An object's entries: `field` reads each value after its key (and may decline).
    fn object(&mut self, mut field: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Some(());
        }
        loop {
            self.ws();
            let Cow::Borrowed(key) = self.string()? else {
                return None;
            };
            self.eat(b':')?;
            self.ws();
            field(self, key)?;
            match self.next()? {
                b',' => {}
                b'}' => return Some(()),
                _ => return None,
            }
        }
    }

    /// A stream message, or (not `top`) one of a chunk's choices.
    fn message(&mut self, top: bool) -> Option<Message<'a>> {
        let mut out = Message::default();
        let mut seen = 0;
        self.object(|r, key| {
            match key {
                "id" => {
                    once(&mut seen, 1)?;
                    out.id = r.flat()?.scalar();
                }
                "choices" if top => {
                    once(&mut seen, 2)?;
                    out.choices = r.choices()?;
                }
                "type" => {
                    once(&mut seen, 4)?;
                    out.kind = r.flat()?.scalar();
                }
                "index" => {
                    once(&mut seen, 8)?;
                    out.index = r.flat()?.scalar();
                }
                "finish_reason" => {
                    once(&mut seen, 16)?;
                    out.finish_reason = r.flat()?.scalar();
                }
                "message" => {
                    once(&mut seen, 32)?;
                    out.message = r.part()?;
                }
                "content_block" => {
                    once(&mut seen, 64)?;
                    out.content_block = r.part()?;
                }
                "delta" => {
                    once(&mut seen, 128)?;
                    out.delta = r.part()?;
                }
                // A usage object is kept as a generic value: declined. Anything else is none.
                "usage" => {
                    once(&mut seen, 256)?;
                    r.flat()?;
                }
                "choices" | "error" => return None,
                _ => {
                    r.flat()?;
                }
            }
            Some(())
        })?;
        Some(out)
    }

    /// `choices`: absent (`null`), empty, one choice, or not an array.
    fn choices(&mut self) -> Option<Choices<'a>> {
        if self.peek() != Some(b'[') {
            return Some(match self.flat()? {
                Flat::Null => Choices::Absent,
                Flat::EmptyArray => Choices::Array(None),
                _ => Choices::NotArray,
            });
        }
        self.pos += 1;
        self.ws();
        if self.peek() == Some(b']') {
            self.pos += 1;
            return Some(Choices::Array(None));
        }
        let choice = self.message(false)?;
        self.eat(b']')?;
        // The first choice with index 0, or with no integer index (as serde's path keeps it).
        let first = (choice.index.u64().unwrap_or(0) == 0).then(|| Box::new(choice));
        Some(Choices::Array(first))
    }

    /// An object inside a message (`delta`, `message`, `content_block`); any flat value reads
    /// as an object without fields, as the lenient reader has it.
    fn part(&mut self) -> Option<Boxed<Part<'a>>> {
        let mut out = Part::default();
        if self.peek() != Some(b'{') {
            self.flat()?;
            return Some(Boxed(Some(Box::new(out))));
        }
        let mut seen = 0;
        self.object(|r, key| {
            let (bit, slot) = match key {
                "content" => (1, &mut out.content),
                "reasoning_content" => (2, &mut out.reasoning_content),
                "reasoning" => (4, &mut out.reasoning),
                "id" => (8, &mut out.id),
                "type" => (16, &mut out.kind),
                "text" => (32, &mut out.text),
                "thinking" => (64, &mut out.thinking),
                "stop_reason" => (128, &mut out.stop_reason),
                "partial_json" => (256, &mut out.partial_json),
                // Objects and arrays of these are declined (by `flat`); a flat value reads as
                // no usage, no annotations, or a citation without fields.
                "usage" | "annotations" => {
                    once(&mut seen, if key == "usage" { 512 } else { 1024 })?;
                    r.flat()?;
                    return Some(());
                }
                "citation" => {
                    once(&mut seen, 2048)?;
                    r.flat()?;
                    out.citation = Boxed(Some(Box::default()));
                    return Some(());
                }
                _ => {
                    r.flat()?;
                    return Some(());
                }
            };
            once(&mut seen, bit)?;
            *slot = r.flat()?.scalar();
            Some(())
        })?;
        Some(Boxed(Some(Box::new(out))))
    }

    /// A value without nesting (`[]` aside); declines anything else.
    fn flat(&mut self) -> Option<Flat<'a>> {
        match self.peek()? {
            b'"' => self.string().map(Flat::Str),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.literal("true").map(|()| Flat::Other),
            b'f' => self.literal("false").map(|()| Flat::Other),
            b'n' => self.literal("null").map(|()| Flat::Null),
            b'[' => {
                self.pos += 1;
                self.eat(b']').map(|()| Flat::EmptyArray)
            }
            _ => None,
        }
    }

    /// An integer of at most 19 digits (so it fits a `u64`); fractions and exponents decline.
    fn number(&mut self) -> Option<Flat<'a>> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let start = self.pos;
        let mut n: u64 = 0;
        while let Some(d @ b'0'..=b'9') = self.peek() {
            if self.pos - start == 19 {
                return None;
            }
            n = n * 10 + u64::from(d - b'0');
            self.pos += 1;
        }
        let digits = self.pos - start;
        let leading_zero = self.data.as_bytes().get(start) == Some(&b'0') && digits > 1;
        if digits == 0 || leading_zero || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        Some(if negative { Flat::Other } else { Flat::U64(n) })
    }

    /// A string: borrowed when it has no escapes, else unescaped into a new one.
    fn string(&mut self) -> Option<Cow<'a, str>> {
        self.eat(b'"')?;
        let start = self.pos;
        let end = start + self.run()?;
        self.pos = end;
        if self.peek()? == b'"' {
            self.pos += 1;
            return self.data.get(start..end).map(Cow::Borrowed);
        }
        let mut out = String::from(self.data.get(start..end)?);
        loop {
            // At a backslash.
            self.pos += 1;
            let c = match self.peek()? {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => self.unicode()?,
                _ => return None,
            };
            out.push(c);
            self.pos += 1;
            let from = self.pos;
            let to = from + self.run()?;
            out.push_str(self.data.get(from..to)?);
            self.pos = to;
            if self.peek()? == b'"' {
                self.pos += 1;
                return Some(Cow::Owned(out));
            }
        }
    }

    /// The length of the text up to the next quote or backslash; `None` at a control
    /// character (invalid in a string) or the end.
    fn run(&self) -> Option<usize> {
        let rest = self.data.as_bytes().get(self.pos..)?;
        let n = rest
            .iter()
            .position(|&b| b == b'"' || b == b'\\' || b < 0x20)?;
        (*rest.get(n)? >= 0x20).then_some(n)
    }

    /// A `\u` escape (at its `u`), a surrogate pair whole; leaves `pos` at its last digit.
    fn unicode(&mut self) -> Option<char> {
        let hex = |r: &Self, at: usize| -> Option<u32> {
            let digits = r.data.get(at..at + 4)?;
            if !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            u32::from_str_radix(digits, 16).ok()
        };
        let high = hex(self, self.pos + 1)?;
        self.pos += 4;
        if !(0xD800..0xDC00).contains(&high) {
            return char::from_u32(high);
        }
        if self.data.get(self.pos + 1..self.pos + 3)? != "\\u" {
            return None;
        }
        let low = hex(self, self.pos + 3)?;
        if !(0xDC00..0xE000).contains(&low) {
            return None;
        }
        self.pos += 6;
        char::from_u32(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
    }
}

#[cfg(test)]
#[path = "fast_delta_tests.rs"]
mod tests;
