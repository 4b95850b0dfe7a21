//! The bytes around the token of the last plain token message of an OpenAI-style stream, so
//! that the next message with the same bytes around a new token is read by two comparisons
//! and a scan of the token.
//!
//! A stream repeats its chunk's shape token after token: the same `id`, `object`, `created`,
//! `model`, index and `finish_reason: null`, only the token differs. When one message was read
//! (by the fast reader, its token borrowed from the message) and is *plain* (its only effect
//! on the decoder is one `response` or `thinking` text: no usage, error, annotations, finish
//! reason, no second text field), the message's bytes before and after the token's string
//! contents are kept. A later message that starts and ends with exactly those bytes, and
//! whose part in between has no raw quote or control character and only short escapes (`\n`,
//! `\"`, …; so it is one JSON string that ends where the kept message's did), reads as the kept
//! message with that token, unescaped: every other byte the reader sees is the same, and so is
//! everything it builds from them. Anything else (a `\u` escape, a new field, another id, a
//! finish reason) goes through the reader as before, which keeps the shape only if that message
//! is plain too.

use std::borrow::Cow;

use super::wire::{Choices, Message, Scalar};
use crate::event::types;

/// The kept bytes: `bytes[..split]` before the token, `bytes[split..]` after it.
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenShape {
    bytes: String,
    split: usize,
    /// The text's event type (`response` or `thinking`); `None` when nothing is kept.
    kind: Option<&'static str>,
}

/// The token of a plain message read from `data`, and its kind: the one text field that is
/// a string borrowed from `data`, with every other field of the message without effect.
fn plain<'m>(message: &'m Message<'_>) -> Option<(&'static str, &'m str)> {
    if message.error.0.is_some() || message.usage.0.is_some() {
        return None;
    }
    let Choices::Array(Some(choice)) = &message.choices else {
        return None;
    };
    if matches!(choice.finish_reason, Scalar::Str(_)) {
        return None;
    }
    let delta = choice.delta.0.as_ref()?;
    if !delta.annotations.0.is_empty() {
        return None;
    }
    let borrowed = |s: &'m Scalar<'_>| match s {
        Scalar::Str(Cow::Borrowed(text)) => Some(*text),
        _ => None,
    };
    let absent = |s: &Scalar<'_>| matches!(s, Scalar::Other);
    let fields = [&delta.content, &delta.reasoning_content, &delta.reasoning];
    match fields.map(absent) {
        [false, true, true] => Some((types::RESPONSE, borrowed(&delta.content)?)),
        [true, false, true] => Some((types::THINKING, borrowed(&delta.reasoning_content)?)),
        [true, true, false] => Some((types::THINKING, borrowed(&delta.reasoning)?)),
        _ => None,
    }
}

impl TokenShape {
    /// Keeps the shape of `message`, read from `data`, if it is plain; else keeps none.
    pub fn keep(&mut self, message: &Message<'_>, data: &str) {
        self.kind = None;
        let Some((kind, token)) = plain(message) else {
            return;
        };
        // The token's place in `data` (it is borrowed from it), between two quotes.
        let start = (token.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize);
        let end = start.wrapping_add(token.len());
        let bytes = data.as_bytes();
        let quoted = start
            .checked_sub(1)
            .is_some_and(|before| bytes.get(before) == Some(&b'"'))
            && bytes.get(end) == Some(&b'"');
        let (Some(before), Some(after)) = (data.get(..start), data.get(end..)) else {
            return;
        };
        if !quoted {
            return;
        }
        self.bytes.clear();
        self.bytes.push_str(before);
        self.bytes.push_str(after);
        self.split = before.len();
        self.kind = Some(kind);
    }

    /// Forgets the kept shape.
    pub fn clear(&mut self) {
        self.kind = None;
    }

    /// The token of `data` (unescaped) and its kind, if `data` has the kept shape around a
    /// token [`unescaped`] reads; else `None` (read it in full).
    pub fn token<'d>(&self, data: &'d str) -> Option<(&'static str, Cow<'d, str>)> {
        let kind = self.kind?;
        let before = self.bytes.get(..self.split)?;
        let after = self.bytes.get(self.split..)?;
        let bytes = data.as_bytes();
        let end = bytes.len().checked_sub(after.len())?;
        let same = |kept: &str, at: usize| {
            bytes
                .get(at..at.checked_add(kept.len())?)
                .map(|here| same_bytes(here, kept.as_bytes()))
        };
        if end < before.len() || same(before, 0) != Some(true) || same(after, end) != Some(true) {
            return None;
        }
        Some((kind, unescaped(data.get(before.len()..end)?)?))
    }
}

/// The contents of a JSON string (between its quotes) as serde reads them, when they hold no
/// raw quote or control character and no escape but the short ones (`\"`, `\\`, `\/`, `\b`,
/// `\f`, `\n`, `\r`, `\t`): then they are one string that ends where the kept message's did.
/// `None` for anything else (a `\u` escape, a backslash before the closing quote), which the
/// message's full reading handles.
fn unescaped(s: &str) -> Option<Cow<'_, str>> {
    if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20) {
        return Some(Cow::Borrowed(s));
    }
    // Byte by byte: tokens with escapes are few.
    let mut out = Vec::with_capacity(s.len());
    let mut bytes = s.bytes();
    while let Some(b) = bytes.next() {
        out.push(match b {
            b'\\' => match bytes.next()? {
                b'n' => b'\n',
                b't' => b'\t',
                b'r' => b'\r',
                b'b' => 8,
                b'f' => 12,
                c @ (b'"' | b'\\' | b'/') => c,
                _ => return None,
            },
            b'"' | 0..0x20 => return None,
            b => b,
        });
    }
    // Whole characters were copied around ASCII escapes: valid UTF-8, checked all the same.
    String::from_utf8(out).ok().map(Cow::Owned)
}

/// Whether two slices of the same length hold the same bytes, compared eight at a time (in
/// wasm, `memcmp` compares byte by byte, and the kept bytes are most of a message).
fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let word = |c: &[u8]| <[u8; 8]>::try_from(c).map_or(0, u64::from_le_bytes);
    let (x, y) = (a.chunks_exact(8), b.chunks_exact(8));
    let (x_rest, y_rest) = (x.remainder(), y.remainder());
    let diff = x.zip(y).fold(0, |acc, (p, q)| acc | (word(p) ^ word(q)));
    a.len() == b.len() && diff == 0 && x_rest == y_rest
}
