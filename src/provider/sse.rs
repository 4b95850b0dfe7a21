//! Server-sent events, decoded incrementally and strictly.
//!
//! Bytes go in as the network delivers them (lines, CRLF pairs and UTF-8 characters may be
//! split anywhere); complete messages come out. Line endings are CRLF, LF or a lone CR; a BOM
//! at the very start is skipped; comment lines are ignored; `data` lines join with `\n`.
//! The buffer is bounded: a line longer than the limit is an error, not unbounded memory.
//!
//! ```
//! use citeflow::provider::SseDecoder;
//! let mut d = SseDecoder::default();
//! let mut out = d.push(b"event: delta\r\ndata: {\"a\":").unwrap();
//! out.extend(d.push(b"1}\r\n\r\n: keep-alive\n\ndata: [DONE]\n\n").unwrap());
//! d.finish().unwrap();
//! assert_eq!(out[0].event.as_deref(), Some("delta"));
//! assert_eq!(out[0].data, "{\"a\":1}");
//! assert!(out[1].is_done());
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::text::{cat, decimal, display_by_message};

/// The longest line accepted, in bytes.
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

/// The largest event accepted: its `data` lines joined, in bytes. Provider events are a few
/// kilobytes; a stream of data lines that never ends with a blank line stops here instead of
/// growing until the wasm instance runs out of memory.
pub const DEFAULT_MAX_EVENT_BYTES: usize = 8 << 20;

const BOM: &[u8] = b"\xEF\xBB\xBF";

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SseMessage {
    /// The `event:` name; `None` means the default, "message".
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    pub data: String,
    /// The last event id seen, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// A reconnection time the server asked for, in milliseconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub retry: Option<u64>,
}

impl SseMessage {
    /// OpenAI-style end of stream: `data: [DONE]`.
    pub fn is_done(&self) -> bool {
        self.data == "[DONE]"
    }

    /// A message from a JSON value, by the rules of its derived `Deserialize` (tested equal):
    /// `{event?, data, id?, retry?}` (other keys ignored) or `[event, data, id, retry]`. Read
    /// by hand so that the streaming module carries no derived reader for it.
    pub fn from_json(value: Value) -> Result<Self, String> {
        let (event, data, id, retry) = match value {
            Value::Object(mut map) => (
                map.remove("event"),
                map.remove("data"),
                map.remove("id"),
                map.remove("retry"),
            ),
            Value::Array(items) if items.len() == 4 => {
                let mut items = items.into_iter().map(Some);
                let mut next = || items.next().flatten();
                (next(), next(), next(), next())
            }
            _ => return Err("expected an object {event?, data, id?, retry?}".to_owned()),
        };
        let given = |v: Option<Value>| match v {
            None => Given::Absent,
            Some(Value::Null) => Given::Null,
            Some(Value::String(s)) => Given::Text(s),
            Some(Value::Number(n)) => n.as_u64().map_or(Given::Other, Given::Whole),
            Some(_) => Given::Other,
        };
        Self::from_fields([given(event), given(data), given(id), given(retry)])
    }

    /// A message from its fields `[event, data, id, retry]` as given (whichever reader read
    /// them): `data` a string, `event` and `id` strings or none, `retry` a whole number ≥ 0 or
    /// none.
    pub fn from_fields([event, data, id, retry]: [Given; 4]) -> Result<Self, String> {
        let text = |field: &str, v: Given| match v {
            Given::Absent | Given::Null => Ok(None),
            Given::Text(s) => Ok(Some(s)),
            _ => Err(format!("`{field}` must be a string")),
        };
        let data = match data {
            Given::Text(s) => s,
            Given::Absent => return Err("missing field `data`".to_owned()),
            _ => return Err("`data` must be a string".to_owned()),
        };
        let retry = match retry {
            Given::Absent | Given::Null => None,
            Given::Whole(n) => Some(n),
            _ => return Err("`retry` must be a whole number ≥ 0".to_owned()),
        };
        Ok(SseMessage {
            event: text("event", event)?,
            data,
            id: text("id", id)?,
            retry,
        })
    }
}

/// A field of an SSE message object as a reader found it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Given {
    Absent,
    Null,
    Text(String),
    /// A whole number ≥ 0.
    Whole(u64),
    /// Anything else.
    Other,
}

/// One dispatched event as the decoder hands it to [`SseDecoder::push_with`]'s callback:
/// borrowed from the decoder's buffers, or from the chunk itself when the event was whole in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SseEvent<'a> {
    pub event: Option<&'a str>,
    pub data: &'a str,
    pub id: Option<&'a str>,
    pub retry: Option<u64>,
}

impl SseEvent<'_> {
    /// OpenAI-style end of stream: `data: [DONE]`.
    pub fn is_done(&self) -> bool {
        self.data == "[DONE]"
    }

    pub fn to_message(&self) -> SseMessage {
        SseMessage {
            event: self.event.map(str::to_owned),
            data: self.data.to_owned(),
            id: self.id.map(str::to_owned),
            retry: self.retry,
        }
    }
}

impl SseMessage {
    /// The message as the callback of [`SseDecoder::push_with`] sees one.
    pub fn as_event(&self) -> SseEvent<'_> {
        SseEvent {
            event: self.event.as_deref(),
            data: &self.data,
            id: self.id.as_deref(),
            retry: self.retry,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SseError {
    LineTooLong { limit: usize },
    EventTooLarge { limit: usize },
    Truncated { pending: usize },
    Finished,
}

impl SseError {
    /// What went wrong, in words (its `Display`), composed without `core::fmt`.
    #[cold]
    #[inline(never)]
    pub fn message(&self) -> String {
        match self {
            Self::LineTooLong { limit } => cat(&[
                "an SSE line is longer than ",
                decimal(*limit).as_str(),
                " bytes; the stream is not SSE or the limit is too low",
            ]),
            Self::EventTooLarge { limit } => cat(&[
                "an SSE event is larger than ",
                decimal(*limit).as_str(),
                " bytes (data lines without the blank line that ends an event); the stream is not SSE or the limit is too low",
            ]),
            Self::Truncated { pending } => cat(&[
                "the SSE stream ended inside an event (",
                decimal(*pending).as_str(),
                " bytes not terminated by a blank line)",
            ]),
            Self::Finished => "the SSE decoder has already finished".to_owned(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::LineTooLong { .. } => "SSE_LINE_TOO_LONG",
            Self::EventTooLarge { .. } => "SSE_EVENT_TOO_LARGE",
            Self::Truncated { .. } => "SSE_TRUNCATED",
            Self::Finished => "STREAM_FINISHED",
        }
    }
}

display_by_message!(SseError);

/// The incremental decoder.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    max_line: usize,
    max_event: usize,
    /// Bytes of the current, unterminated line.
    line: Vec<u8>,
    /// The last non-empty chunk ended with CR: a leading LF of the next non-empty one belongs
    /// to it (empty chunks in between change nothing).
    after_cr: bool,
    /// Still at the start of the stream (a BOM may come, possibly split).
    at_start: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    last_id: Option<String>,
    retry: Option<u64>,
    finished: bool,
}

/// The callback of a step: each message; `Err` stops the step ([`SseDecoder::push_with`]
/// keeps the callback's own error).
type Each<'a, 'b> = &'a mut (dyn FnMut(SseEvent<'_>) -> Result<(), ()> + 'b);

/// Why a step stopped.
enum Stopped {
    Decoder(SseError),
    ByCallback,
}

impl From<SseError> for Stopped {
    fn from(e: SseError) -> Self {
        Self::Decoder(e)
    }
}

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE_BYTES)
    }
}

impl SseDecoder {
    /// A decoder with this line limit and the default event limit.
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max_line: max_line_bytes.max(1),
            max_event: DEFAULT_MAX_EVENT_BYTES,
            line: Vec::new(),
            after_cr: false,
            at_start: true,
            event: None,
            data: String::new(),
            has_data: false,
            last_id: None,
            retry: None,
            finished: false,
        }
    }

    /// The same decoder with another limit on one event's data.
    pub fn with_max_event_bytes(mut self, max_event_bytes: usize) -> Self {
        self.max_event = max_event_bytes.max(1);
        self
    }

    /// Feeds bytes; returns the messages they complete.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Vec<SseMessage>, SseError> {
        let mut out = Vec::new();
        self.push_with(bytes, &mut |m: SseEvent| {
            out.push(m.to_message());
            Ok::<_, SseError>(())
        })?;
        Ok(out)
    }

    /// Feeds bytes; hands each message they complete to `each` as it completes, without a
    /// copy (borrowed from the decoder's buffers, or from `bytes` when the event is whole in
    /// them). An error from `each` stops the step.
    pub fn push_with<E: From<SseError>>(
        &mut self,
        bytes: &[u8],
        each: &mut dyn FnMut(SseEvent) -> Result<(), E>,
    ) -> Result<(), E> {
        // The steps below are not generic: one copy of the scanning loop serves every
        // caller's error type (a copy per type measured 1.8 KB of code each). `each`'s error
        // is kept here while they stop.
        let mut failed = None;
        let step = self.push_each(bytes, &mut |m| each(m).map_err(|e| failed = Some(e)));
        match step {
            Ok(()) => Ok(()),
            Err(Stopped::Decoder(e)) => Err(e.into()),
            Err(Stopped::ByCallback) => failed.map_or(Ok(()), Err),
        }
    }

    fn push_each(&mut self, bytes: &[u8], each: Each<'_, '_>) -> Result<(), Stopped> {
        if self.finished {
            return Err(SseError::Finished.into());
        }
        if bytes.is_empty() {
            // Nothing arrived: in particular a pending CR still waits for its LF.
            return Ok(());
        }
        if self.at_start {
            // Hold the first bytes until we know whether they are a BOM.
            self.line.extend_from_slice(bytes);
            if self.line.len() < BOM.len() && BOM.starts_with(&self.line) {
                return Ok(());
            }
            self.at_start = false;
            let mut held = std::mem::take(&mut self.line);
            if held.starts_with(BOM) {
                held.drain(..BOM.len());
            }
            return self.scan(&held, each);
        }
        let bytes = match (self.after_cr, bytes.strip_prefix(b"\n")) {
            (true, Some(rest)) => rest,
            _ => bytes,
        };
        self.after_cr = false;
        self.scan(bytes, each)
    }

    fn scan(&mut self, bytes: &[u8], out: Each<'_, '_>) -> Result<(), Stopped> {
        let mut rest = bytes;
        while let Some(end) = memchr::memchr2(b'\n', b'\r', rest) {
            let (content, tail) = rest.split_at_checked(end).unwrap_or((rest, &[]));
            if self.line.len().saturating_add(content.len()) > self.max_line {
                return Err(SseError::LineTooLong {
                    limit: self.max_line,
                }
                .into());
            }
            // The line: where it is when it is whole in this chunk, else completed in the
            // buffer (whose room serves the next line too).
            let mut held = std::mem::take(&mut self.line);
            let line = if held.is_empty() {
                content
            } else {
                held.extend_from_slice(content);
                &held
            };
            // The common event, one data line and the blank line after it, is dispatched from
            // the line, not copied into the event's buffer first.
            let step = match self.whole_event(line, tail) {
                Some((data, after)) => {
                    let event = self.event.take();
                    out(SseEvent {
                        event: event.as_deref(),
                        data,
                        id: self.last_id.as_deref(),
                        retry: self.retry.take(),
                    })
                    .map(|()| Some(after))
                    .map_err(|()| Stopped::ByCallback)
                }
                None => match self.line_done(line) {
                    Ok(true) => self.dispatch(out).map(|()| None),
                    Ok(false) => Ok(None),
                    Err(e) => Err(e.into()),
                },
            };
            held.clear();
            self.line = held;
            if let Some(after) = step? {
                rest = after;
                continue;
            }
            // `tail` starts with the CR or LF memchr found.
            rest = match tail.split_first() {
                Some((b'\r', after)) => match after.split_first() {
                    Some((b'\n', after_lf)) => after_lf,
                    Some(_) => after,
                    None => {
                        self.after_cr = true;
                        after
                    }
                },
                Some((_, after)) => after,
                None => tail,
            };
        }
        if self.line.len().saturating_add(rest.len()) > self.max_line {
            return Err(SseError::LineTooLong {
                limit: self.max_line,
            }
            .into());
        }
        self.line.extend_from_slice(rest);
        Ok(())
    }

    /// When `line` is an event's only data line, valid UTF-8, and `tail` (the rest of the
    /// chunk) starts with LF LF (its end, then the blank line that dispatches the event): the
    /// event's data, as [`Self::line_done`] would leave it after copying the line, and the
    /// bytes after the blank line. Else `None`.
    #[inline]
    fn whole_event<'l, 'b>(&self, line: &'l [u8], tail: &'b [u8]) -> Option<(&'l str, &'b [u8])> {
        let value = line.strip_prefix(b"data:")?;
        let after = tail.strip_prefix(b"\n\n")?;
        if self.has_data {
            return None;
        }
        let value = std::str::from_utf8(value).ok()?;
        let data = value.strip_prefix(' ').unwrap_or(value);
        (data.len() < self.max_event).then_some((data, after))
    }

    /// The event the buffers hold, handed to `out`.
    fn dispatch(&mut self, out: Each<'_, '_>) -> Result<(), Stopped> {
        let event = self.event.take();
        let handled = out(SseEvent {
            event: event.as_deref(),
            data: &self.data,
            id: self.last_id.as_deref(),
            retry: self.retry.take(),
        });
        // The data buffer serves the next event too.
        self.data.clear();
        handled.map_err(|()| Stopped::ByCallback)
    }

    /// A line that is not a whole event's: whether it completes an event (then in the
    /// buffers, for [`Self::dispatch`]). Never inlined: it is the cold path of `scan`'s loop.
    #[inline(never)]
    fn line_done(&mut self, line: &[u8]) -> Result<bool, SseError> {
        if line.is_empty() {
            if self.has_data {
                if self.data.ends_with('\n') {
                    self.data.pop();
                }
                self.has_data = false;
                return Ok(true);
            }
            self.event = None;
            self.data.clear();
            return Ok(false);
        }
        if line.first() == Some(&b':') {
            return Ok(false);
        }
        // Valid UTF-8 (the usual case) is checked at word speed; anything else is read lossily.
        let line = crate::text::lossy(line);
        // At the first colon, found as a byte (an ASCII byte is never inside a character).
        let colon = line.bytes().position(|b| b == b':');
        let (field, value) = match colon.and_then(|i| Some((line.get(..i)?, line.get(i + 1..)?))) {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                if self
                    .data
                    .len()
                    .saturating_add(value.len())
                    .saturating_add(1)
                    > self.max_event
                {
                    return Err(SseError::EventTooLarge {
                        limit: self.max_event,
                    });
                }
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            // Digits only: their value, none when it does not fit (as `str::parse` reads them).
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.bytes().try_fold(0u64, |n, digit| {
                    n.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
                })
            }
            _ => {}
        }
        Ok(false)
    }

    /// Ends the stream. An event not terminated by a blank line is an error (the stream was
    /// cut), never dropped silently.
    pub fn finish(&mut self) -> Result<(), SseError> {
        if self.finished {
            return Err(SseError::Finished);
        }
        self.finished = true;
        // Data is lost only if an event with data, or a data line, was cut; an unterminated
        // comment or a bare field line carries none.
        let cut_line =
            self.line.starts_with(b"data") && !(self.at_start && BOM.starts_with(&self.line));
        if self.has_data || cut_line {
            return Err(SseError::Truncated {
                pending: self.line.len().saturating_add(self.data.len()),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `from_json` reads what the derived `Deserialize` reads, and refuses what it refuses.
    #[test]
    fn messages_read_from_json_as_derived() {
        use serde_json::json;
        for v in [
            json!({"data": "x"}),
            json!({"event": "delta", "data": "", "id": "7", "retry": 3000}),
            json!({"event": null, "data": "x", "id": null, "retry": null, "other": [1]}),
            json!({"data": 1}),
            json!({"data": null}),
            json!({"event": 1, "data": "x"}),
            json!({"id": ["a"], "data": "x"}),
            json!({"data": "x", "retry": -1}),
            json!({"data": "x", "retry": 1.5}),
            json!({"data": "x", "retry": 2.0}),
            json!({"data": "x", "retry": "10"}),
            json!({"event": "e"}),
            json!(["e", "d", "i", 5]),
            json!([null, "d", null, null]),
            json!(["e", "d"]),
            json!(["e", 1, null, null]),
            json!("data"),
            json!(null),
            json!(3),
        ] {
            let derived = serde_json::from_value::<SseMessage>(v.clone()).ok();
            assert_eq!(SseMessage::from_json(v.clone()).ok(), derived, "{v}");
        }
    }

    fn decode(chunks: &[&[u8]]) -> Result<Vec<SseMessage>, SseError> {
        let mut d = SseDecoder::default();
        let mut out = Vec::new();
        for c in chunks {
            out.extend(d.push(c)?);
        }
        d.finish()?;
        Ok(out)
    }

    fn data(chunks: &[&[u8]]) -> Vec<String> {
        decode(chunks)
            .unwrap()
            .into_iter()
            .map(|m| m.data)
            .collect()
    }

    #[test]
    fn line_endings_comments_fields() {
        assert_eq!(
            data(&[b"data: a\r\n\r\ndata: b\n\ndata: c\r\rdata:d\n\n"]),
            ["a", "b", "c", "d"]
        );
        assert_eq!(data(&[b": comment\ndata: x\ndata:  y\n\n"]), ["x\n y"]);
        assert_eq!(
            data(&[b"\n\nevent: e\n\ndata: after\n\n"]),
            ["after"],
            "an event without data is not dispatched"
        );
        let m = &decode(&[b"id: 7\nretry: 1500\nevent: delta\ndata\n\n"]).unwrap()[0];
        assert_eq!(
            (
                m.id.as_deref(),
                m.retry,
                m.event.as_deref(),
                m.data.as_str()
            ),
            (Some("7"), Some(1500), Some("delta"), "")
        );
        assert_eq!(decode(&[b"retry: 1x\ndata: y\n\n"]).unwrap()[0].retry, None);
        // Invalid UTF-8 read lossily, the field ending at the first colon either way.
        let lossy = decode(&[b"data:\xff: x\n\xffdata: y\nevent:a:b\n\n"]).unwrap();
        assert_eq!(lossy[0].data, "\u{fffd}: x");
        assert_eq!(lossy[0].event.as_deref(), Some("a:b"));
        // As `str::parse` reads digits: the largest u64, and none past it.
        for (line, retry) in [
            ("retry: 18446744073709551615", Some(u64::MAX)),
            ("retry: 18446744073709551616", None),
            ("retry: 007", Some(7)),
        ] {
            let m = &decode(&[format!("{line}\ndata: y\n\n").as_bytes()]).unwrap()[0];
            assert_eq!(m.retry, retry, "{line}");
        }
    }

    #[test]
    fn splits_anywhere_bom_and_utf8() {
        let whole: &[u8] = "\u{feff}data: héllo 😀\r\n\r\ndata: [DONE]\r\n\r\n".as_bytes();
        let expected = data(&[whole]);
        assert_eq!(expected, ["héllo 😀", "[DONE]"]);
        for i in 0..=whole.len() {
            for j in i..=whole.len() {
                assert_eq!(
                    data(&[&whole[..i], &whole[i..j], &whole[j..]]),
                    expected,
                    "split at {i}, {j}"
                );
            }
        }
    }

    #[test]
    fn bounded_and_strict_at_the_end() {
        let mut d = SseDecoder::new(8);
        assert_eq!(
            d.push(b"data: 123456789").unwrap_err(),
            SseError::LineTooLong { limit: 8 }
        );
        assert_eq!(decode(&[b"data: cut"]).unwrap_err().code(), "SSE_TRUNCATED");
        assert_eq!(
            decode(&[b"data: cut\n"]).unwrap_err().code(),
            "SSE_TRUNCATED"
        );
        assert!(decode(&[b"data: ok\n\n: trailing comment\n"]).is_ok());
        assert!(decode(&[b"data: ok\n\n: ping"]).is_ok());
        let mut d = SseDecoder::default();
        d.finish().unwrap();
        assert_eq!(d.push(b"x").unwrap_err().code(), "STREAM_FINISHED");
    }

    #[test]
    fn a_cr_then_empty_chunks_then_lf_is_one_line_ending() {
        // Before: the empty chunk forgot the pending CR, so the LF ended a second (empty) line:
        // the event name was lost and the event split in two.
        let pieces: [&[u8]; 5] = [b"event: delta\r", b"", b"\ndata: a\r", b"", b"\n\r\n"];
        let out = decode(&pieces).unwrap();
        assert_eq!(out.len(), 1);
        assert_eq!(
            (out[0].event.as_deref(), out[0].data.as_str()),
            (Some("delta"), "a")
        );
        // A blank line split as CR | (empty) | LF must not dispatch twice nor end a cut event.
        let out = decode(&[b"data: a\r\n\r", b"", b"", b"\ndata: b\n\n"]).unwrap();
        assert_eq!(
            out.iter().map(|m| m.data.as_str()).collect::<Vec<_>>(),
            ["a", "b"]
        );
        assert_eq!(
            decode(&[b"data: a\r", b"", b"\n"]).unwrap_err().code(),
            "SSE_TRUNCATED",
            "CR | empty | LF is one line ending, not the blank line that ends the event"
        );
    }

    #[test]
    fn every_split_with_empty_chunks_gives_the_same_messages() {
        let whole: &[u8] =
            b"\xEF\xBB\xBFevent: a\r\ndata: 1\r\r: c\rid: 9\ndata: 2\r\ndata: 3\n\nevent: b\rdata:\r\r";
        let expected = decode(&[whole]).unwrap();
        assert_eq!(expected.len(), 3);
        let empty: &[u8] = b"";
        for i in 0..=whole.len() {
            for j in i..=whole.len() {
                let (a, rest) = whole.split_at(i);
                let (b, c) = rest.split_at(j - i);
                for pieces in [
                    vec![a, empty, b, empty, c],
                    vec![empty, a, empty, empty, b, c, empty],
                ] {
                    assert_eq!(decode(&pieces).unwrap(), expected, "split at {i}, {j}");
                }
            }
        }
    }

    /// The messages a decoder with these limits gives for `chunks`, or its first error (a
    /// step that fails returns no messages, so with an error only the error is compared).
    fn run(
        chunks: &[&[u8]],
        max_line: usize,
        max_event: usize,
    ) -> Result<Vec<SseMessage>, SseError> {
        let mut d = SseDecoder::new(max_line).with_max_event_bytes(max_event);
        let mut out = Vec::new();
        for c in chunks {
            out.extend(d.push(c)?);
        }
        d.finish()?;
        Ok(out)
    }

    const LINES: &[&[u8]] = &[
        b"data: {\"a\":1}\n\n",
        b"data: x\n\n",
        b"data:x\n\n",
        b"data:  two spaces\n\n",
        b"data: a longer line of data than the small limits take\n\n",
        b"data: \xff\xfe\n\n",
        b"data: \xC3\xA9\n\n",
        b"data: \xEF\xBB\xBFx\xEF\xBF\xBE\n\n",
        b"data: \xEF\xB7\x90\xF4\x8F\xBF\xBF\n\n",
        b"data: y\n",
        b"data: z\r\n\r\n",
        b"data\n\n",
        b"data: [DONE]\n\n",
        b"event: delta\n",
        b"id: 7\n",
        b"retry: 1500\n",
        b": comment\n",
        b"\n",
        b"\r",
        b"\r\n",
        b"\n\n\n",
        b"\xEF\xBB\xBF",
        b"data: cut",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2000))]

        /// An event whose data line and blank line are at hand is dispatched from the line,
        /// not through the event's buffer; split anywhere (byte by byte, none is), and with
        /// any limits, the messages and errors are the same.
        #[test]
        fn whole_events_decode_as_split_ones(
            lines in proptest::collection::vec(proptest::sample::select(LINES), 0..10),
            cuts in proptest::collection::vec(proptest::prelude::any::<proptest::sample::Index>(), 0..4),
            max_line in proptest::sample::select(&[4usize, 16, 1 << 20][..]),
            max_event in proptest::sample::select(&[4usize, 16, 1 << 20][..]),
        ) {
            let whole = lines.concat();
            let expected = run(&[&whole], max_line, max_event);
            let bytes: Vec<&[u8]> = whole.chunks(1).collect();
            proptest::prop_assert_eq!(&run(&bytes, max_line, max_event), &expected);
            let mut at: Vec<usize> = cuts.iter().map(|c| c.index(whole.len() + 1)).collect();
            at.sort_unstable();
            let mut pieces = Vec::new();
            let mut from = 0;
            for &to in &at {
                pieces.push(&whole[from..to]);
                from = to;
            }
            pieces.push(&whole[from..]);
            proptest::prop_assert_eq!(&run(&pieces, max_line, max_event), &expected);
        }
    }

    #[test]
    fn one_event_is_bounded() {
        let mut d = SseDecoder::default().with_max_event_bytes(16);
        assert!(d.push(b"data: 12345\ndata: 123456\n").is_ok());
        assert_eq!(
            d.push(b"data: 789\n").unwrap_err(),
            SseError::EventTooLarge { limit: 16 }
        );
        // The limit is per event: many events of any total size pass.
        let mut d = SseDecoder::default().with_max_event_bytes(16);
        for _ in 0..100 {
            assert_eq!(d.push(b"data: 0123456789abcd\n\n").unwrap().len(), 1);
        }
        // The default stops a stream of data lines without a blank line.
        let mut d = SseDecoder::default();
        let line = [b"data: ".as_slice(), &[b'x'; 1 << 16], b"\n"].concat();
        let mut error = None;
        for _ in 0..(DEFAULT_MAX_EVENT_BYTES >> 16) + 2 {
            if let Err(e) = d.push(&line) {
                error = Some(e);
                break;
            }
        }
        assert_eq!(error.map(|e| e.code()), Some("SSE_EVENT_TOO_LARGE"));
    }
}
