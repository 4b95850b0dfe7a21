//! The bytes around the token of the last plain token message of a stream (an OpenAI-style
//! chunk or an Anthropic `content_block_delta`), so that the next message with the same bytes
//! around a new token is read by comparing them and scanning the strings between them instead
//! of parsing it.
//!
//! A stream repeats its chunk's shape token after token: the same `id`, `object`, `created`,
//! `model`, index and `finish_reason: null` (or Anthropic's `type`, `index` and delta type),
//! only the token differs, and (OpenAI) a top-level `obfuscation` string of random length and
//! value. When one message was read (by the fast reader, its token borrowed from the message)
//! and is *plain*, its bytes are kept with *holes*. Plain: its only effect on the decoder is
//! one `response` or `thinking` text. For an OpenAI-style chunk, no usage, error, annotations,
//! finish reason, no second text field; for an Anthropic event, a `content_block_delta` with a
//! `text_delta`'s text or a `thinking_delta`'s thinking, read as text of its block, whose id
//! is kept with the shape (only `message_start` changes it, and every message not read by the
//! shape replaces or forgets it first). The holes: the token's string contents, and the
//! contents of every top-level string member whose key neither reader reads ([`Ignored`]: both
//! skip an unknown key's value unseen). A later message that has exactly the kept bytes
//! between the holes, and in each hole one JSON string's contents ending at its first
//! unescaped quote, reads as the kept message with that token, unescaped:
//!
//! - an ignored hole must hold no quote, backslash or control character, so it is a string that
//!   ends at the first quote, right where the next kept bytes begin with the kept closing quote;
//! - the token's hole ends at its first quote not escaped by a backslash, and must hold no raw
//!   control character; it is read by the message reader's own string reading (escapes as
//!   the full reading reads them; anything it rejects, a lone surrogate or an unknown escape,
//!   goes to the full reading, which reports it);
//! - everything else is byte for byte the kept message.
//!
//! So the message is the kept one with other string values in the same places: the same
//! structure, the same keys, the same values wherever a reader looks, but the token. Every
//! other byte the readers see is the same, and so is everything they build from them. Anything
//! else (an escape in an ignored string, a new field, another id, a finish reason, a changed
//! string that a reader reads) goes through the readers as before, which keep the shape only if that message
//! is plain too. The SSE event's name is not compared: the decoder reads it only beside an
//! `error` member, which no plain message has.

use std::borrow::Cow;
use std::cmp::Ordering;

use super::raw_json;
use super::stream::StreamFormat;
use super::wire::{Choices, Message, Scalar};
use crate::event::types;

/// The most values [`Ignored`] notes; later ones are not noted.
const MAX_IGNORED: usize = 8;

/// Where a message's top-level members with keys that no reader reads (`obfuscation`,
/// `model`, `created`, …) have string values without escapes: the byte ranges of the strings'
/// contents in the message's text, in order; at most [`MAX_IGNORED`] of them. Noted by the
/// reader that read the message (`fast_delta`'s or `message_reader`'s).
#[derive(Debug, Default)]
pub(crate) struct Ignored {
    spans: [(usize, usize); MAX_IGNORED],
    len: usize,
}

impl Ignored {
    pub(super) fn clear(&mut self) {
        self.len = 0;
    }

    pub fn spans(&self) -> &[(usize, usize)] {
        self.spans.get(..self.len).unwrap_or_default()
    }

    /// Notes `value`, a string borrowed from `data`.
    pub(super) fn note(&mut self, data: &str, value: &str) {
        let start = (value.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize);
        if let Some(slot) = self.spans.get_mut(self.len) {
            *slot = (start, start.wrapping_add(value.len()));
            self.len += 1;
        }
    }
}

/// The kept bytes, without the holes' contents, and where the holes are in them.
#[derive(Debug, Clone, Default)]
pub(crate) struct TokenShape {
    bytes: String,
    /// The holes' places in `bytes`, in order.
    holes: Vec<usize>,
    /// Which hole is the token's.
    token: usize,
    /// The text's event type (`response` or `thinking`); `None` when nothing is kept.
    kind: Option<&'static str>,
    /// An Anthropic event's block id (`None` for OpenAI-style chunks).
    block: Option<String>,
}

/// A token read by its message's shape.
pub(crate) struct Token<'s, 'd> {
    /// `response` or `thinking`.
    pub kind: &'static str,
    pub text: Cow<'d, str>,
    /// The Anthropic block it belongs to (`None` for OpenAI-style chunks).
    pub block: Option<&'s str>,
}

/// The token of a plain message read from `data`, and its kind: the one text field that is
/// a string borrowed from `data`, with every other field of the message without effect.
fn plain<'m>(message: &'m Message<'_>) -> Option<(&'static str, &'m str)> {
    if message.error.text.is_some() || message.usage.text.is_some() {
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

/// The token of a plain Anthropic event (a `content_block_delta` whose `text_delta` text or
/// `thinking_delta` thinking is a string borrowed from `data`; the decoder reads nothing else
/// of it), its kind and its block's index.
fn plain_anthropic<'m>(message: &'m Message<'_>) -> Option<(&'static str, &'m str, u64)> {
    if message.kind.str() != Some("content_block_delta") {
        return None;
    }
    let index = message.index.u64()?;
    let delta = message.delta.0.as_ref()?;
    let (kind, token) = match delta.kind.str()? {
        "text_delta" => (types::RESPONSE, &delta.text),
        "thinking_delta" => (types::THINKING, &delta.thinking),
        _ => return None,
    };
    match token {
        Scalar::Str(Cow::Borrowed(token)) => Some((kind, token, index)),
        _ => None,
    }
}

/// Whether `data[start..end]` are a string's contents, between two quotes.
fn quoted(data: &str, (start, end): (usize, usize)) -> bool {
    let bytes = data.as_bytes();
    start
        .checked_sub(1)
        .is_some_and(|before| bytes.get(before) == Some(&b'"'))
        && bytes.get(end) == Some(&b'"')
        && data.get(start..end).is_some()
}

impl TokenShape {
    /// Keeps the shape of `message`, read from `data` (`ignored` noted by that reading), if it
    /// is plain; else keeps none.
    /// An Anthropic event's text goes to its block, named by `block_id` (which only a
    /// `message_start` changes, and that event is not plain: kept shapes are forgotten first).
    pub fn keep(
        &mut self,
        message: &Message<'_>,
        data: &str,
        ignored: &Ignored,
        format: StreamFormat,
        block_id: impl FnOnce(u64) -> Option<String>,
    ) {
        self.kind = None;
        // A provider's error is read whatever else the message holds (`fast_delta` declines
        // such a message; the message reader reads it).
        if message.error.text.is_some() {
            return;
        }
        let (kind, token) = match format {
            StreamFormat::OpenAi => {
                let Some(plain) = plain(message) else { return };
                self.block = None;
                plain
            }
            StreamFormat::Anthropic => {
                let Some((kind, token, index)) = plain_anthropic(message) else {
                    return;
                };
                let Some(id) = block_id(index) else { return };
                self.block = Some(id);
                (kind, token)
            }
            // Read by their own decoders (`formats`), never here.
            #[cfg(not(feature = "lean-stream"))]
            StreamFormat::Other(_) => return,
        };
        // The token's place in `data` (it is borrowed from it).
        let start = (token.as_ptr() as usize).wrapping_sub(data.as_ptr() as usize);
        if self.holes_of(data, ignored, (start, start.wrapping_add(token.len()))) {
            self.kind = Some(kind);
        }
    }

    /// Keeps `data` with holes at the `ignored` strings and at `token`'s; whether they are
    /// all strings' contents.
    fn holes_of(&mut self, data: &str, ignored: &Ignored, token: (usize, usize)) -> bool {
        self.bytes.clear();
        self.holes.clear();
        // The ignored strings are top-level members' and the token is inside `choices` or
        // `delta`: they do not overlap, and in order the token goes after the ones that start
        // before it.
        let spans = ignored.spans();
        self.token = spans.iter().take_while(|s| s.0 < token.0).count();
        let mut from = 0;
        for i in 0..=spans.len() {
            let span = match i.cmp(&self.token) {
                Ordering::Less => spans.get(i),
                Ordering::Equal => Some(&token),
                Ordering::Greater => spans.get(i.wrapping_sub(1)),
            };
            let Some(&(start, end)) = span.filter(|&&span| quoted(data, span)) else {
                return false;
            };
            self.bytes
                .push_str(data.get(from..start).unwrap_or_default());
            self.holes.push(self.bytes.len());
            from = end;
        }
        self.bytes.push_str(data.get(from..).unwrap_or_default());
        true
    }

    /// Forgets the kept shape.
    pub fn clear(&mut self) {
        self.kind = None;
    }

    /// The token of `data` (unescaped) and its kind, if `data` has the kept bytes between
    /// strings that fill the holes (see the module's notes); else `None` (read it in full).
    pub fn token<'d>(&self, data: &'d str) -> Option<Token<'_, 'd>> {
        let kind = self.kind?;
        let bytes = data.as_bytes();
        let kept = self.bytes.as_bytes();
        // Where the next kept bytes go in `data`, and where they start in `kept`.
        let (mut at, mut from) = (0usize, 0);
        let mut token = None;
        for (i, &hole) in self.holes.iter().enumerate() {
            let fixed = kept.get(from..hole)?;
            let here = bytes.get(at..at.checked_add(fixed.len())?)?;
            if !same_bytes(here, fixed) {
                return None;
            }
            at += fixed.len();
            let (len, escaped) = string_end(bytes.get(at..)?, i == self.token)?;
            let end = at.checked_add(len)?;
            if i == self.token {
                token = Some((at, end, escaped));
            }
            (at, from) = (end, hole);
        }
        let fixed = kept.get(from..)?;
        if bytes.len().checked_sub(at)? != fixed.len() || !same_bytes(bytes.get(at..)?, fixed) {
            return None;
        }
        let (start, end, escaped) = token?;
        Some(Token {
            kind,
            // Without a backslash, the contents are the string (no quote or control in them);
            // with one, the string between its quotes is read as every message's strings are.
            text: if escaped {
                raw_json::string(data.get(start.checked_sub(1)?..end.checked_add(1)?)?)?
            } else {
                Cow::Borrowed(data.get(start..end)?)
            },
            block: self.block.as_deref(),
        })
    }
}

/// The length of the contents of a string that starts `s` (after its opening quote): up to
/// its first quote not escaped (`escapes`), or its first quote when it may hold no backslash;
/// and whether they hold a backslash. `None` at a control character, a backslash not allowed,
/// or no end.
fn string_end(s: &[u8], escapes: bool) -> Option<(usize, bool)> {
    let (mut i, mut escaped) = (0, false);
    loop {
        match *s.get(i)? {
            b'"' => return Some((i, escaped)),
            b'\\' if escapes => (i, escaped) = (i + 2, true),
            b'\\' | 0..0x20 => return None,
            _ => i += 1,
        }
    }
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

#[cfg(test)]
mod tests {
    use super::super::message_reader::read_message;
    use super::*;

    /// OpenAI's chunk with every field, the token `%` and the obfuscation `@`.
    const CHUNK: &str = r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1733184462,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"%"},"logprobs":null,"finish_reason":null}],"obfuscation":"@"}"#;

    fn kept(first: &str, format: StreamFormat) -> TokenShape {
        let mut ignored = Ignored::default();
        let message = read_message(first, &mut ignored).unwrap();
        let mut shape = TokenShape::default();
        shape.keep(&message, first, &ignored, format, |i| {
            Some(format!("m-{i}"))
        });
        shape
    }

    #[test]
    fn real_openai_chunks_are_read_by_their_shape() {
        let shape = kept(
            &CHUNK.replace('%', "Hello").replace('@', "a1"),
            StreamFormat::OpenAi,
        );
        let next = CHUNK.replace('%', r"world\n").replace('@', "Xk93mQzz0");
        let token = shape.token(&next).unwrap();
        assert_eq!(
            (token.kind, token.text.as_ref()),
            (types::RESPONSE, "world\n")
        );
        // A string a reader reads, or one that is not one plain string, is not skipped.
        for other in [
            CHUNK.replace("chatcmpl-1", "chatcmpl-2").replace('@', ""),
            CHUNK.replace('@', r#"a\"b"#),
            CHUNK.replace('@', r"\q"),
            CHUNK.replace('@', r#"a","usage":{"total_tokens":1},"z":""#),
        ] {
            assert!(shape.token(&other.replace('%', "x")).is_none(), "{other}");
        }
    }

    #[test]
    fn escaped_tokens_are_read_as_the_reader_reads_strings() {
        let shape = kept(
            &CHUNK.replace('%', "Hi").replace('@', "a"),
            StreamFormat::OpenAi,
        );
        let read = |token: &str| {
            let next = CHUNK.replace('%', token).replace('@', "b");
            shape.token(&next).map(|t| t.text.into_owned())
        };
        assert_eq!(
            read(r#"caf\u00e9 \ud83d\ude00\n\""#).as_deref(),
            Some("café 😀\n\"")
        );
        // What the reader rejects is read in full, which reports it.
        for rejected in [r"\ud83d", r"\ude00x", r"\q", r"\u00g1"] {
            assert_eq!(read(rejected), None, "{rejected}");
        }
    }

    #[test]
    fn anthropic_deltas_are_read_by_their_shape() {
        let delta = r#"{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":"%"}}"#;
        let shape = kept(&delta.replace('%', "Hmm"), StreamFormat::Anthropic);
        let next = delta.replace('%', "so");
        let token = shape.token(&next).unwrap();
        let read = (token.kind, token.text.as_ref(), token.block);
        assert_eq!(read, (types::THINKING, "so", Some("m-2")));
        let other = delta.replace("thinking_delta", "signature_delta");
        assert!(kept(&other.replace('%', "x"), StreamFormat::Anthropic)
            .token(&other.replace('%', "y"))
            .is_none());
    }

    #[test]
    fn a_message_with_an_error_keeps_no_shape() {
        let delta = r#"{"type":"content_block_delta","index":1,"delta":{"type":"text_delta","text":"%"},"o":"a","error":{"message":"m"}}"#;
        let shape = kept(&delta.replace('%', "the"), StreamFormat::Anthropic);
        assert!(shape.token(&delta.replace('%', "so")).is_none());
        let chunk = CHUNK.replace(r#""obfuscation""#, r#""error":null,"obfuscation""#);
        let shape = kept(&chunk.replace('%', "the"), StreamFormat::OpenAi);
        assert!(shape.token(&chunk.replace('%', "so")).is_none());
    }
}
