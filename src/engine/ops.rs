//! The engine's output as words and one string: what crosses to JS after each step.
//!
//! Layout (all `u32`): a header `[word count, text address, text bytes, flags]` (the address
//! is filled in by the wasm binding; `flags` has [`HOLDS`] when some stage holds back what it
//! was given after the step, see [`super::Stage::holds_back`], and [`TAKES_SHOWN`] when the
//! engine can move past shown text by its length, see [`super::StreamEngine::pass_shown`]),
//! then ops, each a code and its operands:
//!
//! | op | words | meaning |
//! |---|---|---|
//! | [`ID`] | `ID, n, start, end` | id number `n` is `text[start..end]` (before its first use) |
//! | [`START`] | `START, kind, id` | `{kind}_start` of block `id` (0: no id) |
//! | [`TEXT`] | `TEXT, kind, id, start, end` | `{kind}` text `text[start..end]` |
//! | [`END`] | `END, kind, id` | `{kind}_end` |
//! | [`EVENT`] | `EVENT, start, end` | any other event, as JSON in `text[start..end]` |
//! | [`CITATION`] | `CITATION, sourceId, spanStart, spanEnd, valid, start, end` | a `citation` event (no id, no fields of its own) whose value is `{sourceId, marker: text[start..end], span, valid}` |
//! | [`HANDLE`] | `HANDLE, handle` | the event object the caller keeps as `handle`, itself ([`super::handle`]) |
//! | [`HANDLE_TEXT`] | `HANDLE_TEXT, handle, start, end` | a copy of that object (its own enumerable fields) with `value: text[start..end]`: text a stage released in its shape |
//! | [`RAW`] | `RAW, id, typeStart, typeEnd, valueStart, valueEnd, json` | an event the core made (no fields of its own) of type `text[typeStart..typeEnd]`: its value is the JSON text `text[valueStart..valueEnd]` (`json` 1, `valueType` `json`) or that text (`json` 0, `valueType` `text`) |
//! | [`KEEP`] | `KEEP, handle` | after the other ops: a stage may still give `handle` back in a later step; the caller may let every other handle go |
//!
//! `kind` is 0 for `response`, 1 for `thinking`. Offsets are UTF-16 code units of the text
//! (JS string indices). Adjacent text of one block in one step is merged into one op.

#[cfg(not(feature = "lean-stream"))]
use serde_json::Value;

use super::piece::{KeptValue, Kind, Piece};
use super::Step;
#[cfg(not(feature = "lean-stream"))]
use crate::event::{types, Event, ValueType};

pub const ID: u32 = 1;
pub const START: u32 = 2;
pub const TEXT: u32 = 3;
pub const END: u32 = 4;
pub const EVENT: u32 = 5;
pub const CITATION: u32 = 6;
pub const HANDLE: u32 = 7;
pub const HANDLE_TEXT: u32 = 8;
pub const KEEP: u32 = 9;
pub const RAW: u32 = 10;
/// Words before the first op.
pub const HEADER: usize = 4;
/// The header's flags: some stage holds back what it was given.
pub const HOLDS: u32 = 1;
/// The header's flags: the engine can move past shown text by its length.
pub const TAKES_SHOWN: u32 = 2;

/// Reusable buffers for encoding steps.
#[derive(Debug, Default)]
pub struct Encoder {
    pub words: Vec<u32>,
    pub text: String,
    /// UTF-16 length of `text`.
    units: u32,
    /// Ids already sent (ids are numbered 1, 2, … in order of first use).
    ids_sent: usize,
    /// Where the latest op starts, when it is text that more text may extend.
    open_text: Option<usize>,
    /// UTF-16 units of response text to leave out of the next step's encoding (text the JS
    /// fast path has shown already); what is left of it after that step.
    pub skip: usize,
}

/// `text` without its first `units` UTF-16 units (whole characters), and the units left over.
fn skip_units(text: &str, units: usize) -> (&str, usize) {
    // An ASCII prefix (the common case): a unit is a byte.
    if let Some(rest) = text
        .get(..units)
        .filter(|p| p.is_ascii())
        .and_then(|_| text.get(units..))
    {
        return (rest, 0);
    }
    let mut left = units;
    for (at, c) in text.char_indices() {
        if left == 0 {
            return (text.get(at..).unwrap_or_default(), 0);
        }
        left = left.saturating_sub(c.len_utf16());
    }
    ("", left)
}

fn code(kind: Kind) -> u32 {
    match kind {
        Kind::Response => 0,
        Kind::Thinking => 1,
    }
}

fn units16(text: &str) -> u32 {
    let n = if text.is_ascii() {
        text.len()
    } else {
        text.encode_utf16().count()
    };
    u32::try_from(n).unwrap_or(u32::MAX)
}

impl Encoder {
    /// Appends text; returns its UTF-16 range.
    fn text(&mut self, text: &str) -> [u32; 2] {
        let start = self.units;
        self.text.push_str(text);
        self.units = self.units.saturating_add(units16(text));
        [start, self.units]
    }

    /// Encodes one step (replacing the previous step's words and text).
    pub fn encode(&mut self, step: Step<'_>) {
        let Step {
            pieces,
            cx,
            holds,
            takes_shown,
            kept,
        } = step;
        self.words.clear();
        self.text.clear();
        self.units = 0;
        self.open_text = None;
        self.words.extend([0; HEADER]);
        while self.ids_sent < cx.ids.len() {
            self.ids_sent += 1;
            let n = u32::try_from(self.ids_sent).unwrap_or(u32::MAX);
            let [a, b] = self.text(cx.ids.name(n).unwrap_or_default());
            self.words.extend([ID, n, a, b]);
        }
        for piece in pieces {
            match piece {
                Piece::Start { kind, id } => {
                    self.open_text = None;
                    self.words.extend([START, code(*kind), *id]);
                }
                Piece::End { kind, id } => {
                    self.open_text = None;
                    self.words.extend([END, code(*kind), *id]);
                }
                Piece::Text { kind, id, text } => {
                    let mut text = cx.arena.get(text);
                    if self.skip > 0 && *kind == Kind::Response {
                        (text, self.skip) = skip_units(text, self.skip);
                        if text.is_empty() {
                            continue;
                        }
                    }
                    let [a, b] = self.text(text);
                    let same = self.open_text.filter(|&at| {
                        self.words.get(at + 1) == Some(&code(*kind))
                            && self.words.get(at + 2) == Some(id)
                    });
                    match same.and_then(|at| self.words.get_mut(at + 4)) {
                        Some(end) => *end = b,
                        None => {
                            self.open_text = Some(self.words.len());
                            self.words.extend([TEXT, code(*kind), *id, a, b]);
                        }
                    }
                }
                Piece::Citation {
                    source_id,
                    marker,
                    span,
                    valid,
                } => {
                    self.open_text = None;
                    let [Ok(start), Ok(end)] = span.map(u32::try_from) else {
                        // Offsets past `u32` (never in wasm32): as the generic event.
                        let json =
                            serde_json::to_string(&cx.event(piece.clone())).unwrap_or_default();
                        let [a, b] = self.text(&json);
                        self.words.extend([EVENT, a, b]);
                        continue;
                    };
                    let [a, b] = self.text(cx.arena.get(marker));
                    self.words
                        .extend([CITATION, *source_id, start, end, u32::from(*valid), a, b]);
                }
                Piece::Opaque {
                    handle,
                    text,
                    value,
                    ..
                } => {
                    self.open_text = None;
                    if *value == KeptValue::NewText {
                        let [a, b] = self.text(cx.arena.get(text));
                        self.words.extend([HANDLE_TEXT, *handle, a, b]);
                    } else {
                        self.words.extend([HANDLE, *handle]);
                    }
                }
                Piece::Raw {
                    ty,
                    id,
                    value,
                    json,
                } => {
                    self.open_text = None;
                    let [a, b] = self.text(cx.types.name(*ty).unwrap_or_default());
                    let [c, d] = self.text(cx.arena.get(value));
                    self.words.extend([RAW, *id, a, b, c, d, u32::from(*json)]);
                }
                #[cfg(not(feature = "lean-stream"))]
                Piece::Event(event) => {
                    self.open_text = None;
                    if let Some(c) = citation(event) {
                        let [a, b] = self.text(c.marker);
                        self.words.extend([
                            CITATION,
                            c.source_id,
                            c.span[0],
                            c.span[1],
                            u32::from(c.valid),
                            a,
                            b,
                        ]);
                    } else {
                        let json = serde_json::to_string(event).unwrap_or_default();
                        let [a, b] = self.text(&json);
                        self.words.extend([EVENT, a, b]);
                    }
                }
            }
        }
        for handle in kept {
            self.words.extend([KEEP, *handle]);
        }
        let count = u32::try_from(self.words.len()).unwrap_or(u32::MAX);
        let bytes = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        if let Some(header) = self.words.get_mut(..HEADER) {
            let flags = if holds { HOLDS } else { 0 } | if takes_shown { TAKES_SHOWN } else { 0 };
            header.copy_from_slice(&[count, 0, bytes, flags]);
        }
    }
}

/// The parts of a citation event in exactly the shape the citation parser makes (and that JSON
/// would give back key for key): `{sourceId, marker, span: [start, end], valid}`, numbers that
/// fit in `u32`. Any other event (more or fewer fields, other order, an id) is not one.
#[cfg(not(feature = "lean-stream"))]
struct CitationParts<'a> {
    source_id: u32,
    marker: &'a str,
    span: [u32; 2],
    valid: bool,
}

#[cfg(not(feature = "lean-stream"))]
fn citation(event: &Event) -> Option<CitationParts<'_>> {
    if event.kind != types::CITATION
        || event.id.is_some()
        || event.value_type != ValueType::Json
        || !event.extra.is_empty()
    {
        return None;
    }
    let map = event.value.as_object()?;
    let mut fields = map.iter();
    let mut next = |key: &str| fields.next().filter(|(k, _)| *k == key).map(|(_, v)| v);
    let source_id = u32::try_from(next("sourceId")?.as_u64()?).ok()?;
    let marker = next("marker")?.as_str()?;
    let span = match next("span")?.as_array()?.as_slice() {
        [Value::Number(a), Value::Number(b)] => [
            u32::try_from(a.as_u64()?).ok()?,
            u32::try_from(b.as_u64()?).ok()?,
        ],
        _ => return None,
    };
    let valid = next("valid")?.as_bool()?;
    if fields.next().is_some() {
        return None;
    }
    Some(CitationParts {
        source_id,
        marker,
        span,
        valid,
    })
}

#[cfg(test)]
mod tests {
    use super::skip_units;

    /// `text` without its first `units` UTF-16 units, counted one character at a time.
    fn by_chars(text: &str, units: usize) -> (&str, usize) {
        let mut left = units;
        let mut at = 0;
        for c in text.chars() {
            if left == 0 {
                break;
            }
            left = left.saturating_sub(c.len_utf16());
            at += c.len_utf8();
        }
        (text.get(at..).unwrap_or_default(), left)
    }

    #[test]
    fn skipping_units_counts_characters_in_any_text() {
        for text in [
            "",
            "abc",
            "ab😀c",
            "é[1]x",
            "plain ascii text",
            "x\u{2028}y😀",
        ] {
            let len16 = text.encode_utf16().count();
            for units in 0..=len16 + 2 {
                assert_eq!(
                    skip_units(text, units),
                    by_chars(text, units),
                    "{text:?} {units}"
                );
            }
        }
    }
}
