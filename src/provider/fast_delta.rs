//! A borrowed fast reader for the stream messages that carry the tokens: an OpenAI-style chunk
//! (`{"id":…,"object":"chat.completion.chunk",…,"choices":[{"index":0,"delta":{"content":…},
//! "finish_reason":null}]}`) and an Anthropic `content_block_delta` (`text_delta`,
//! `thinking_delta`), read straight into the [`Message`] that serde's path in [`super::wire`]
//! would build from the same text, without serde's visitor machinery.
//!
//! It reads only the fixed nesting of those shapes (a message, an array of one choice, the
//! objects `delta`, `message` and `content_block`) and, as values, strings without escapes,
//! non-negative integers of at most 19 digits and `null`. It declines (`None`, and the caller
//! takes the serde path) whenever it is not sure to build exactly what serde builds: any
//! other value or nesting (usage objects, content-part arrays, tool calls, citations,
//! booleans, negative or fractional numbers), an escape in any string (a token with a newline
//! or a quote takes serde's path: unescaping here cost the streaming module more than its size
//! budget allows), an `error` key, a known key given twice, more than one choice, bad syntax
//! of any kind (serde's path then reports it with its own message). What it accepts, it reads
//! as the lenient serde types do: a value of the wrong type reads as absent, unknown keys are
//! skipped. The property tests beside it check the two agree on every message it accepts.

use std::borrow::Cow;

use super::token_shape::Ignored;
use super::wire::{Boxed, Choices, Message, Part, Scalar};

/// [`read_noting`] without the notes.
#[cfg(test)]
pub(crate) fn read(data: &str) -> Option<Message<'_>> {
    read_noting(data, &mut Ignored::default())
}

/// `data` read as `serde_json::from_str::<Message>(data)` would read it, or `None` when this
/// reader declines (see the module's notes); noting in `ignored` where the message's
/// top-level string members that neither reader uses hold their values (see [`Ignored`]).
pub(crate) fn read_noting<'a>(data: &'a str, ignored: &mut Ignored) -> Option<Message<'a>> {
    ignored.clear();
    let mut r = Reader {
        data,
        pos: 0,
        ignored,
    };
    let message = r.message(true)?;
    r.ws();
    (r.pos == data.len()).then_some(message)
}

/// Where a key's value goes.
enum Field<'s, 'a> {
    Scalar(&'s mut Scalar<'a>),
    Part(&'s mut Boxed<Part<'a>>),
    Choices(&'s mut Choices<'a>),
    /// Read (a flat value) and dropped.
    Flat,
    /// Read (a flat value) and dropped, and noted as ignored when it is a string.
    Ignored,
}

struct Reader<'a, 'n> {
    data: &'a str,
    pos: usize,
    ignored: &'n mut Ignored,
}

/// Marks a known key as seen: `None` (decline) when it was already.
fn once(seen: &mut u32, bit: u32) -> Option<()> {
    (*seen & bit == 0).then(|| *seen |= bit)
}

impl<'a> Reader<'a, '_> {
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

    /// An object's entries: `field` reads each value after its key (and may decline).
    #[inline(never)]
    fn object(&mut self, field: &mut dyn FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        self.eat(b'{')?;
        self.ws();
        if self.peek() == Some(b'}') {
            self.pos += 1;
            return Some(());
        }
        loop {
            let key = self.string()?;
            self.eat(b':')?;
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
        self.object(&mut |r, key| {
            let (bit, field) = match key {
                "id" => (1, Field::Scalar(&mut out.id)),
                "type" => (2, Field::Scalar(&mut out.kind)),
                "index" => (4, Field::Scalar(&mut out.index)),
                "finish_reason" => (8, Field::Scalar(&mut out.finish_reason)),
                "message" => (16, Field::Part(&mut out.message)),
                "content_block" => (32, Field::Part(&mut out.content_block)),
                "delta" => (64, Field::Part(&mut out.delta)),
                "choices" if top => (128, Field::Choices(&mut out.choices)),
                // A usage object is kept as a generic value: declined (by `flat`).
                "usage" => (256, Field::Flat),
                "choices" | "error" => return None,
                _ if top => (0, Field::Ignored),
                _ => (0, Field::Flat),
            };
            r.field(&mut seen, bit, field)
        })?;
        Some(out)
    }

    /// An object inside a message (`delta`, `message`, `content_block`).
    fn part(&mut self) -> Option<Boxed<Part<'a>>> {
        // Filled in place: a part is large, and moving it into a box costs a copy.
        let mut out: Box<Part> = Box::default();
        let mut seen = 0;
        self.object(&mut |r, key| {
            let (bit, field) = match key {
                "content" => (1, Field::Scalar(&mut out.content)),
                "reasoning_content" => (2, Field::Scalar(&mut out.reasoning_content)),
                "reasoning" => (4, Field::Scalar(&mut out.reasoning)),
                "id" => (8, Field::Scalar(&mut out.id)),
                "type" => (16, Field::Scalar(&mut out.kind)),
                "text" => (32, Field::Scalar(&mut out.text)),
                "thinking" => (64, Field::Scalar(&mut out.thinking)),
                "stop_reason" => (128, Field::Scalar(&mut out.stop_reason)),
                "partial_json" => (256, Field::Scalar(&mut out.partial_json)),
                // Kept as generic values, or read as citations: declined.
                "usage" | "annotations" | "citation" => return None,
                _ => (0, Field::Flat),
            };
            r.field(&mut seen, bit, field)
        })?;
        Some(Boxed(Some(out)))
    }

    /// A field's value; a known key (`bit` not 0) only once. A field is written only while
    /// it still holds its default.
    #[inline(never)]
    fn field(&mut self, seen: &mut u32, bit: u32, field: Field<'_, 'a>) -> Option<()> {
        if bit != 0 {
            once(seen, bit)?;
        }
        match field {
            Field::Scalar(slot) => *slot = self.flat()?,
            Field::Part(slot) => *slot = self.part()?,
            Field::Choices(slot) => *slot = self.choices()?,
            Field::Flat => {
                self.flat()?;
            }
            Field::Ignored => {
                if let Scalar::Str(Cow::Borrowed(value)) = self.flat()? {
                    self.ignored.note(self.data, value);
                }
            }
        }
        Some(())
    }

    /// `choices`: an array of at most one choice.
    fn choices(&mut self) -> Option<Choices<'a>> {
        self.eat(b'[')?;
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

    /// A string, a non-negative integer or `null`; declines anything else.
    #[inline(never)]
    fn flat(&mut self) -> Option<Scalar<'a>> {
        self.ws();
        match self.peek()? {
            b'"' => self.string().map(|s| Scalar::Str(Cow::Borrowed(s))),
            b'0'..=b'9' => self.number(),
            _ => {
                let end = self.pos + 4;
                (self.data.get(self.pos..end)? == "null").then(|| self.pos = end)?;
                Some(Scalar::Other)
            }
        }
    }

    /// A non-negative integer of at most 19 digits (so it fits a `u64`); a sign, a fraction or
    /// an exponent declines.
    fn number(&mut self) -> Option<Scalar<'a>> {
        let rest = self.data.get(self.pos..)?;
        let len = rest
            .bytes()
            .position(|b| !b.is_ascii_digit())
            .unwrap_or(rest.len());
        let digits = rest.get(..len)?;
        self.pos += len;
        let leading_zero = len > 1 && digits.starts_with('0');
        if len > 19 || leading_zero || matches!(self.peek(), Some(b'.' | b'e' | b'E')) {
            return None;
        }
        let n = digits
            .bytes()
            .fold(0, |n: u64, d| n * 10 + u64::from(d - b'0'));
        Some(Scalar::U64(n))
    }

    /// A string without escapes (or control characters, invalid in JSON), borrowed.
    #[inline(never)]
    fn string(&mut self) -> Option<&'a str> {
        self.eat(b'"')?;
        let rest = self.data.get(self.pos..)?;
        let len = rest
            .bytes()
            .position(|b| b == b'"' || b == b'\\' || b < 0x20)?;
        // Closed right there: not at a backslash or a control character.
        if rest.as_bytes().get(len) != Some(&b'"') {
            return None;
        }
        self.pos += len + 1;
        rest.get(..len)
    }
}

#[cfg(test)]
#[path = "fast_delta_tests.rs"]
mod tests;
