//! One hand-written reader of every provider stream message (an SSE message's `data`) into the
//! typed, borrowed shapes of [`super::wire`], in place of serde's derived readers.
//!
//! It is lenient in exactly the way `wire` describes, and the differential test
//! (`message_reader_tests`) holds it to serde's derived path:
//!
//! - every field accepts any JSON value; a value of the wrong type reads as absent;
//! - a key given twice keeps its last value, and unknown keys are skipped;
//! - everything skipped is still checked as serde_json checks it: JSON syntax, numbers out of
//!   `f64`'s range (computed as serde_json computes them, see [`super::pow10`]), lone surrogate
//!   escapes, control characters in strings, and nesting of arrays and objects 128 deep (serde_json's
//!   limit: at most 127 open at once).
//!
//! Strings without escapes are borrowed from the message. Every recursion goes through
//! [`Reader::enter`], so the nesting limit bounds the stack too. Which field a key fills is
//! looked up in one key table per shape.

use crate::text::{cat, decimal};
use std::borrow::Cow;
use std::fmt;

use super::pow10::{FIRST_POW10_HIGH, POW10_HIGH};
use super::token_shape::Ignored;
use super::wire::{
    Boxed, Choices, CitationPart, List, Message, Part, Raw, RawObject, Scalar, MAX_LIST_ITEMS,
};

/// serde_json's nesting limit: the 128th array or object open at once is an error.
const MAX_DEPTH: u32 = 128;

/// Why a message is not JSON (or not JSON serde_json accepts), and where.
#[derive(Debug, PartialEq)]
pub(crate) struct ReadError {
    /// The byte offset in the message where reading stopped.
    pub offset: usize,
    pub what: &'static str,
}

impl ReadError {
    /// Why and where, in words (its `Display`), composed without `core::fmt`.
    pub(crate) fn message(&self) -> String {
        cat(&[self.what, " at byte ", decimal(self.offset).as_str()])
    }
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.message())
    }
}

pub(super) type Read<T> = Result<T, ReadError>;

/// One message: its JSON value read as a [`Message`], nothing but whitespace after it; noting
/// in `ignored` where its top-level members that no reader reads hold strings (see
/// [`Ignored`]). Never inlined: the decoder's hot path (the shape's reading) stays small.
#[inline(never)]
pub(crate) fn read_message<'a>(data: &'a str, ignored: &mut Ignored) -> Read<Message<'a>> {
    ignored.clear();
    read_whole(data, |r| r.message(Some(ignored)))
}

/// What `read` reads of `data`, which must hold nothing else but whitespace.
pub(super) fn read_whole<'a, T>(
    data: &'a str,
    read: impl FnOnce(&mut Reader<'a>) -> Read<T>,
) -> Read<T> {
    let mut r = Reader::new(data);
    let value = read(&mut r)?;
    r.ws();
    match r.peek() {
        None => Ok(value),
        Some(_) => Err(r.error("trailing characters")),
    }
}

/// A JSON number as the decoder needs it: an integer without a minus sign that fits a `u64`
/// (serde_json's `Value::as_u64`), or any other number (checked, its value unused).
pub(super) enum Num {
    U64(u64),
    Other,
}

/// A value that is neither an array nor an object.
pub(super) enum Prim<'a> {
    Str(Cow<'a, str>),
    Num(Num),
    /// `true`, `false` or `null`.
    Word,
}

/// The keys each shape reads, in the order of its fields' dispatch below (the tests draw their
/// keys from these tables too).
pub(super) const MESSAGE_KEYS: &[&str] = &[
    "id",
    "choices",
    "type",
    "index",
    "finish_reason",
    "message",
    "content_block",
    "delta",
    "usage",
    "error",
];

pub(super) const PART_KEYS: &[&str] = &[
    "content",
    "reasoning_content",
    "reasoning",
    "id",
    "type",
    "text",
    "thinking",
    "stop_reason",
    "usage",
    "citation",
    "partial_json",
    "annotations",
];

pub(super) const CITATION_KEYS: &[&str] = &[
    "type",
    "document_index",
    "search_result_index",
    "cited_text",
    "start_char_index",
    "end_char_index",
    "start_page_number",
    "end_page_number",
    "start_block_index",
    "end_block_index",
    "document_title",
    "title",
    "url",
    "source",
    "start_index",
    "end_index",
    "url_citation",
];

pub(super) struct Reader<'a> {
    data: &'a str,
    pos: usize,
    /// Arrays and objects open.
    depth: u32,
}

/// Whether `n * 10 + d` would overflow a `u64`.
fn overflows(n: u64, d: u64) -> bool {
    n >= u64::MAX / 10 && (n > u64::MAX / 10 || d > u64::MAX % 10)
}

impl<'a> Reader<'a> {
    pub(super) fn new(data: &'a str) -> Self {
        Self {
            data,
            pos: 0,
            depth: 0,
        }
    }

    pub(super) fn error(&self, what: &'static str) -> ReadError {
        ReadError {
            offset: self.pos,
            what,
        }
    }

    pub(super) fn peek(&self) -> Option<u8> {
        self.data.as_bytes().get(self.pos).copied()
    }

    /// The next byte, consumed.
    fn bump(&mut self) -> Read<u8> {
        let b = self.peek().ok_or_else(|| self.error("unexpected end"))?;
        self.pos += 1;
        Ok(b)
    }

    fn expect(&mut self, want: u8, what: &'static str) -> Read<()> {
        self.ws();
        match self.peek() {
            Some(b) if b == want => {
                self.pos += 1;
                Ok(())
            }
            _ => Err(self.error(what)),
        }
    }

    pub(super) fn ws(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\n' | b'\r' | b'\t')) {
            self.pos += 1;
        }
    }

    /// The text between two byte offsets at ASCII bytes (so at character boundaries).
    fn slice(&self, from: usize, to: usize) -> &'a str {
        self.data.get(from..to).unwrap_or_default()
    }

    /// Past an array's or object's opening byte, one level deeper.
    fn enter(&mut self) -> Read<()> {
        self.depth += 1;
        if self.depth >= MAX_DEPTH {
            return Err(self.error("nesting too deep"));
        }
        self.pos += 1;
        Ok(())
    }

    /// An array's items or an object's entries up to `close`, the opening byte consumed.
    pub(super) fn items(
        &mut self,
        close: u8,
        item: &mut dyn FnMut(&mut Self) -> Read<()>,
    ) -> Read<()> {
        self.enter()?;
        self.ws();
        if self.peek() == Some(close) {
            self.pos += 1;
        } else {
            loop {
                item(self)?;
                self.ws();
                match self.bump()? {
                    b',' => {}
                    b if b == close => break,
                    _ => {
                        self.pos -= 1;
                        return Err(self.error("expected a comma or the end of a list"));
                    }
                }
            }
        }
        self.depth -= 1;
        Ok(())
    }

    /// An object key and its colon.
    pub(super) fn key(&mut self) -> Read<Cow<'a, str>> {
        self.ws();
        if self.peek() != Some(b'"') {
            return Err(self.error("expected a key"));
        }
        let key = self.string()?;
        self.expect(b':', "expected a colon")?;
        Ok(key)
    }

    /// A value where an object is expected: each value handed to `field` with its key's index
    /// in `keys`, or `keys.len()` for a key not there; anything but an object skipped (all
    /// absent).
    fn object(
        &mut self,
        keys: &[&str],
        mut field: impl FnMut(&mut Self, usize) -> Read<()>,
    ) -> Read<()> {
        self.ws();
        if self.peek() != Some(b'{') {
            return self.skip();
        }
        self.items(b'}', &mut |r| {
            let key = r.key()?;
            field(r, keys.iter().position(|k| *k == key).unwrap_or(keys.len()))
        })
    }

    /// A value skipped, its contents noted in `ignored` when it is a string without escapes.
    fn ignored(&mut self, ignored: &mut Ignored) -> Read<()> {
        self.ws();
        if self.peek() != Some(b'"') {
            return self.skip();
        }
        if let Cow::Borrowed(value) = self.string()? {
            ignored.note(self.data, value);
        }
        Ok(())
    }

    /// A value where an array is expected: each item to `item`; anything else skipped.
    fn array(&mut self, item: &mut dyn FnMut(&mut Self) -> Read<()>) -> Read<()> {
        self.ws();
        if self.peek() != Some(b'[') {
            return self.skip();
        }
        self.items(b']', item)
    }

    /// Any value, checked and dropped.
    pub(super) fn skip(&mut self) -> Read<()> {
        self.ws();
        match self.peek() {
            Some(b'{') => self.items(b'}', &mut |r| {
                r.key()?;
                r.skip()
            }),
            Some(b'[') => self.items(b']', &mut Self::skip),
            _ => self.primitive().map(drop),
        }
    }

    /// Any value, checked, as its text (from its first byte to its last).
    pub(super) fn raw(&mut self) -> Read<&'a str> {
        self.ws();
        let start = self.pos;
        self.skip()?;
        Ok(self.slice(start, self.pos))
    }

    /// A value where a string, an integer or content parts are expected (see [`Scalar`]).
    fn scalar(&mut self) -> Read<Scalar<'a>> {
        self.ws();
        Ok(match self.peek() {
            Some(b'[') => {
                let mut text: Option<String> = None;
                self.items(b']', &mut |r| {
                    r.part()?.join_text(&mut text);
                    Ok(())
                })?;
                text.map_or(Scalar::Other, Scalar::Parts)
            }
            Some(b'{') => {
                self.skip()?;
                Scalar::Other
            }
            _ => match self.primitive()? {
                Prim::Str(s) => Scalar::Str(s),
                Prim::Num(Num::U64(n)) => Scalar::U64(n),
                _ => Scalar::Other,
            },
        })
    }

    /// A stream message (`ignored`: its top-level strings no reader reads noted there), or one
    /// of a chunk's choices (`None`).
    fn message(&mut self, mut ignored: Option<&mut Ignored>) -> Read<Message<'a>> {
        let mut m = Message::default();
        self.object(MESSAGE_KEYS, |r, i| {
            // One call per kind of value, its slot chosen first.
            let slot = match i {
                0 => &mut m.id,
                2 => &mut m.kind,
                3 => &mut m.index,
                4 => &mut m.finish_reason,
                _ => {
                    let part = match i {
                        5 => &mut m.message,
                        6 => &mut m.content_block,
                        7 => &mut m.delta,
                        1 => return r.choices().map(|c| m.choices = c),
                        8 => return r.raw_object().map(|u| m.usage = u),
                        9 => return r.raw().map(|e| m.error = Raw::new(e)),
                        _ => match ignored.as_deref_mut() {
                            Some(ignored) => return r.ignored(ignored),
                            None => return r.skip(),
                        },
                    };
                    *part = Boxed(Some(Box::new(r.part()?)));
                    return Ok(());
                }
            };
            *slot = r.scalar()?;
            Ok(())
        })?;
        Ok(m)
    }

    fn part(&mut self) -> Read<Part<'a>> {
        let mut p = Part::default();
        self.object(PART_KEYS, |r, i| {
            let slot = match i {
                0 => &mut p.content,
                1 => &mut p.reasoning_content,
                2 => &mut p.reasoning,
                3 => &mut p.id,
                4 => &mut p.kind,
                5 => &mut p.text,
                6 => &mut p.thinking,
                7 => &mut p.stop_reason,
                10 => &mut p.partial_json,
                8 => return r.raw_object().map(|u| p.usage = u),
                9 => {
                    p.citation = Boxed(Some(Box::new(r.citation()?)));
                    return Ok(());
                }
                11 => return r.citations().map(|a| p.annotations = a),
                _ => return r.skip(),
            };
            *slot = r.scalar()?;
            Ok(())
        })?;
        Ok(p)
    }

    fn citation(&mut self) -> Read<CitationPart<'a>> {
        let mut c = CitationPart::default();
        self.object(CITATION_KEYS, |r, i| {
            let slot = match i {
                0 => &mut c.kind,
                1 => &mut c.document_index,
                2 => &mut c.search_result_index,
                3 => &mut c.cited_text,
                4 => &mut c.start_char_index,
                5 => &mut c.end_char_index,
                6 => &mut c.start_page_number,
                7 => &mut c.end_page_number,
                8 => &mut c.start_block_index,
                9 => &mut c.end_block_index,
                10 => &mut c.document_title,
                11 => &mut c.title,
                12 => &mut c.url,
                13 => &mut c.source,
                14 => &mut c.start_index,
                15 => &mut c.end_index,
                16 => {
                    c.url_citation = Boxed(Some(Box::new(r.citation()?)));
                    return Ok(());
                }
                _ => return r.skip(),
            };
            *slot = r.scalar()?;
            Ok(())
        })?;
        Ok(c)
    }

    /// An array of citations: the first [`MAX_LIST_ITEMS`] kept, the rest checked.
    fn citations(&mut self) -> Read<List<CitationPart<'a>>> {
        let mut items = Vec::new();
        self.array(&mut |r| {
            if items.len() < MAX_LIST_ITEMS {
                items.push(r.citation()?);
                Ok(())
            } else {
                r.skip()
            }
        })?;
        Ok(List(items))
    }

    /// A value kept (as its text) only when it is an object.
    fn raw_object(&mut self) -> Read<RawObject<'a>> {
        Ok(RawObject::new(self.raw()?))
    }

    /// A chunk's `choices` (see [`Choices`]).
    fn choices(&mut self) -> Read<Choices<'a>> {
        self.ws();
        match self.peek() {
            Some(b'[') => {
                let mut first: Option<Box<Message<'a>>> = None;
                self.items(b']', &mut |r| {
                    if first.is_some() {
                        return r.skip();
                    }
                    let choice = r.message(None)?;
                    // Not a u64 (missing, negative, fractional, a string…) counts as 0.
                    if choice.index.u64().unwrap_or(0) == 0 {
                        first = Some(Box::new(choice));
                    }
                    Ok(())
                })?;
                Ok(Choices::Array(first))
            }
            next => {
                self.skip()?;
                Ok(if next == Some(b'n') {
                    Choices::Absent
                } else {
                    Choices::NotArray
                })
            }
        }
    }

    /// A string, number, `true`, `false` or `null`.
    pub(super) fn primitive(&mut self) -> Read<Prim<'a>> {
        self.ws();
        match self.peek() {
            Some(b'"') => self.string().map(Prim::Str),
            Some(b'-' | b'0'..=b'9') => self.number().map(Prim::Num),
            Some(b't') => self.word("true"),
            Some(b'f') => self.word("false"),
            Some(b'n') => self.word("null"),
            Some(_) => Err(self.error("expected a value")),
            None => Err(self.error("unexpected end")),
        }
    }

    fn word(&mut self, word: &str) -> Read<Prim<'a>> {
        let end = self.pos + word.len();
        if self.data.as_bytes().get(self.pos..end) == Some(word.as_bytes()) {
            self.pos = end;
            Ok(Prim::Word)
        } else {
            Err(self.error("expected a value"))
        }
    }

    /// A string, at its opening quote: borrowed when it has no escapes.
    fn string(&mut self) -> Read<Cow<'a, str>> {
        self.pos += 1;
        let mut run = self.pos;
        let mut owned: Option<String> = None;
        loop {
            match self.peek() {
                Some(b'"') => {
                    let tail = self.slice(run, self.pos);
                    self.pos += 1;
                    return Ok(match owned {
                        None => Cow::Borrowed(tail),
                        Some(mut s) => {
                            s.push_str(tail);
                            Cow::Owned(s)
                        }
                    });
                }
                Some(b'\\') => {
                    let s = owned.get_or_insert_with(String::new);
                    s.push_str(self.slice(run, self.pos));
                    self.pos += 1;
                    let c = self.escape()?;
                    s.push(c);
                    run = self.pos;
                }
                Some(0..=0x1f) => return Err(self.error("control character in a string")),
                // Plain text up to the next quote, backslash or control character at once.
                Some(_) => {
                    let rest = self.data.as_bytes().get(self.pos..).unwrap_or_default();
                    self.pos += rest
                        .iter()
                        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                        .unwrap_or(rest.len());
                }
                None => return Err(self.error("unexpected end in a string")),
            }
        }
    }

    /// The character of an escape, after its backslash.
    fn escape(&mut self) -> Read<char> {
        Ok(match self.bump()? {
            b'"' => '"',
            b'\\' => '\\',
            b'/' => '/',
            b'b' => '\u{8}',
            b'f' => '\u{c}',
            b'n' => '\n',
            b'r' => '\r',
            b't' => '\t',
            b'u' => {
                let n = self.hex4()?;
                let code = match n {
                    0xDC00..=0xDFFF => return Err(self.error("lone surrogate escape")),
                    0xD800..=0xDBFF => {
                        if self.bump()? != b'\\' || self.bump()? != b'u' {
                            return Err(self.error("lone surrogate escape"));
                        }
                        let low = self.hex4()?;
                        if !(0xDC00..=0xDFFF).contains(&low) {
                            return Err(self.error("lone surrogate escape"));
                        }
                        0x10000 + ((n - 0xD800) << 10) + (low - 0xDC00)
                    }
                    n => n,
                };
                char::from_u32(code).ok_or_else(|| self.error("invalid escape"))?
            }
            _ => return Err(self.error("invalid escape")),
        })
    }

    fn hex4(&mut self) -> Read<u32> {
        let mut n = 0;
        for _ in 0..4 {
            let b = self.bump()?;
            let d = char::from(b)
                .to_digit(16)
                .ok_or_else(|| self.error("invalid escape"))?;
            n = n * 16 + d;
        }
        Ok(n)
    }

    fn digit(&self) -> Option<u64> {
        match self.peek() {
            Some(b @ b'0'..=b'9') => Some(u64::from(b - b'0')),
            _ => None,
        }
    }

    /// A number, classified and checked as serde_json does: a float's digits past a `u64` are
    /// dropped (those of the integer part raising the exponent), and it is out of range when
    /// the kept digits scaled by a power of ten are infinite. Only a `u64` keeps its value.
    fn number(&mut self) -> Read<Num> {
        let negative = self.peek() == Some(b'-');
        if negative {
            self.pos += 1;
        }
        let Some(first) = self.digit() else {
            return Err(self.error("invalid number"));
        };
        self.pos += 1;
        let mut significand = first;
        let mut exponent: i32 = 0;
        let mut float = false;
        if first == 0 {
            if self.digit().is_some() {
                return Err(self.error("invalid number"));
            }
        } else {
            while let Some(d) = self.digit() {
                self.pos += 1;
                if float {
                    exponent = exponent.saturating_add(1);
                } else if overflows(significand, d) {
                    float = true;
                    exponent = 1;
                } else {
                    significand = significand * 10 + d;
                }
            }
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            float = true;
            if self.digit().is_none() {
                return Err(self.error("invalid number"));
            }
            let mut dropping = false;
            while let Some(d) = self.digit() {
                self.pos += 1;
                if dropping || overflows(significand, d) {
                    dropping = true;
                } else {
                    significand = significand * 10 + d;
                    exponent -= 1;
                }
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            let positive = match self.peek() {
                Some(b'-') => {
                    self.pos += 1;
                    false
                }
                Some(b'+') => {
                    self.pos += 1;
                    true
                }
                _ => true,
            };
            if self.digit().is_none() {
                return Err(self.error("invalid number"));
            }
            let mut e: i32 = 0;
            let mut huge = false;
            while let Some(d) = self.digit() {
                self.pos += 1;
                // `d` is a digit: it fits.
                let d = d as i32;
                if huge || e >= i32::MAX / 10 && (e > i32::MAX / 10 || d > i32::MAX % 10) {
                    huge = true;
                } else {
                    e = e * 10 + d;
                }
            }
            if huge {
                if significand != 0 && positive {
                    return Err(self.error("number out of range"));
                }
                return Ok(Num::Other);
            }
            exponent = if positive {
                exponent.saturating_add(e)
            } else {
                exponent.saturating_sub(e)
            };
            return self.in_range(significand, exponent);
        }
        if float {
            return self.in_range(significand, exponent);
        }
        Ok(if negative {
            Num::Other
        } else {
            Num::U64(significand)
        })
    }

    /// A float, checked as serde_json checks it: an error when its value, the kept digits
    /// scaled by `10^exponent` (serde_json multiplies by the power, or divides by it for a
    /// negative exponent), is infinite. Dividing never is, nor is multiplying by at most
    /// `1e288` (`u64::MAX × 1e288 < f64::MAX`): only the powers above are needed, and past
    /// `1e308` (serde_json's table) any non-zero number is out of range.
    fn in_range(&self, significand: u64, exponent: i32) -> Read<Num> {
        let Some(above) = exponent.checked_sub(FIRST_POW10_HIGH).filter(|e| *e >= 0) else {
            return Ok(Num::Other);
        };
        let infinite = match POW10_HIGH.get(above.unsigned_abs() as usize) {
            Some(&pow) => (significand as f64 * pow).is_infinite(),
            None => significand != 0,
        };
        if infinite {
            return Err(self.error("number out of range"));
        }
        Ok(Num::Other)
    }
}

#[cfg(test)]
#[path = "message_reader_tests.rs"]
mod tests;
