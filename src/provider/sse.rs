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
use thiserror::Error;

/// The longest line accepted, in bytes.
pub const DEFAULT_MAX_LINE_BYTES: usize = 1 << 20;

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
}

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum SseError {
    #[error(
        "an SSE line is longer than {limit} bytes; the stream is not SSE or the limit is too low"
    )]
    LineTooLong { limit: usize },
    #[error(
        "the SSE stream ended inside an event ({pending} bytes not terminated by a blank line)"
    )]
    Truncated { pending: usize },
    #[error("the SSE decoder has already finished")]
    Finished,
}

impl SseError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::LineTooLong { .. } => "SSE_LINE_TOO_LONG",
            Self::Truncated { .. } => "SSE_TRUNCATED",
            Self::Finished => "STREAM_FINISHED",
        }
    }
}

/// The incremental decoder.
#[derive(Debug, Clone)]
pub struct SseDecoder {
    max_line: usize,
    /// Bytes of the current, unterminated line.
    line: Vec<u8>,
    /// The previous chunk ended with CR: a leading LF of the next one belongs to it.
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

impl Default for SseDecoder {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_LINE_BYTES)
    }
}

impl SseDecoder {
    pub fn new(max_line_bytes: usize) -> Self {
        Self {
            max_line: max_line_bytes.max(1),
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

    /// Feeds bytes; returns the messages they complete.
    pub fn push(&mut self, mut bytes: &[u8]) -> Result<Vec<SseMessage>, SseError> {
        if self.finished {
            return Err(SseError::Finished);
        }
        let mut out = Vec::new();
        if self.at_start {
            // Hold the first bytes until we know whether they are a BOM.
            self.line.extend_from_slice(bytes);
            if self.line.len() < BOM.len() && BOM.starts_with(&self.line) {
                return Ok(out);
            }
            self.at_start = false;
            let start = if self.line.starts_with(BOM) {
                BOM.len()
            } else {
                0
            };
            let held: Vec<u8> = self.line.drain(..).skip(start).collect();
            return self.scan(&held, &mut out).map(|()| out);
        }
        if self.after_cr && bytes.first() == Some(&b'\n') {
            bytes = &bytes[1..];
        }
        self.after_cr = false;
        self.scan(bytes, &mut out)?;
        Ok(out)
    }

    fn scan(&mut self, bytes: &[u8], out: &mut Vec<SseMessage>) -> Result<(), SseError> {
        let mut rest = bytes;
        while let Some(end) = memchr::memchr2(b'\n', b'\r', rest) {
            if self.line.len() + end > self.max_line {
                return Err(SseError::LineTooLong {
                    limit: self.max_line,
                });
            }
            self.line.extend_from_slice(&rest[..end]);
            let line = std::mem::take(&mut self.line);
            self.line_done(&line, out);
            self.line = line;
            self.line.clear();
            let mut next = end + 1;
            if rest[end] == b'\r' {
                match rest.get(next) {
                    Some(b'\n') => next += 1,
                    None => self.after_cr = true,
                    Some(_) => {}
                }
            }
            rest = &rest[next..];
        }
        if self.line.len() + rest.len() > self.max_line {
            return Err(SseError::LineTooLong {
                limit: self.max_line,
            });
        }
        self.line.extend_from_slice(rest);
        Ok(())
    }

    fn line_done(&mut self, line: &[u8], out: &mut Vec<SseMessage>) {
        if line.is_empty() {
            if self.has_data {
                if self.data.ends_with('\n') {
                    self.data.pop();
                }
                out.push(SseMessage {
                    event: self.event.take(),
                    data: std::mem::take(&mut self.data),
                    id: self.last_id.clone(),
                    retry: self.retry.take(),
                });
                self.has_data = false;
            } else {
                self.event = None;
                self.data.clear();
            }
            return;
        }
        if line[0] == b':' {
            return;
        }
        let line = String::from_utf8_lossy(line);
        let (field, value) = match line.find(':') {
            Some(i) => {
                let v = &line[i + 1..];
                (&line[..i], v.strip_prefix(' ').unwrap_or(v))
            }
            None => (&line[..], ""),
        };
        match field {
            "event" => self.event = Some(value.to_owned()),
            "data" => {
                self.data.push_str(value);
                self.data.push('\n');
                self.has_data = true;
            }
            "id" if !value.contains('\0') => self.last_id = Some(value.to_owned()),
            "retry" if !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit()) => {
                self.retry = value.parse().ok()
            }
            _ => {}
        }
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
                pending: self.line.len() + self.data.len(),
            });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
