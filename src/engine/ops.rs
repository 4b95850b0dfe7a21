//! The engine's output as words and one string: what crosses to JS after each step.
//!
//! Layout (all `u32`): a header `[word count, text address, text bytes]` (the address is
//! filled in by the wasm binding), then ops, each a code and its operands:
//!
//! | op | words | meaning |
//! |---|---|---|
//! | [`ID`] | `ID, n, start, end` | id number `n` is `text[start..end]` (before its first use) |
//! | [`START`] | `START, kind, id` | `{kind}_start` of block `id` (0: no id) |
//! | [`TEXT`] | `TEXT, kind, id, start, end` | `{kind}` text `text[start..end]` |
//! | [`END`] | `END, kind, id` | `{kind}_end` |
//! | [`EVENT`] | `EVENT, start, end` | any other event, as JSON in `text[start..end]` |
//!
//! `kind` is 0 for `response`, 1 for `thinking`. Offsets are UTF-16 code units of the text
//! (JS string indices). Adjacent text of one block in one step is merged into one op.

use super::piece::{Cx, Kind, Piece};

pub const ID: u32 = 1;
pub const START: u32 = 2;
pub const TEXT: u32 = 3;
pub const END: u32 = 4;
pub const EVENT: u32 = 5;
/// Words before the first op.
pub const HEADER: usize = 3;

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

    /// Encodes one step's pieces (replacing the previous step's words and text).
    pub fn encode(&mut self, pieces: &[Piece], cx: &Cx) {
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
                    let [a, b] = self.text(cx.arena.get(text));
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
                Piece::Event(event) => {
                    self.open_text = None;
                    let json = serde_json::to_string(event).unwrap_or_default();
                    let [a, b] = self.text(&json);
                    self.words.extend([EVENT, a, b]);
                }
            }
        }
        let count = u32::try_from(self.words.len()).unwrap_or(u32::MAX);
        let bytes = u32::try_from(self.text.len()).unwrap_or(u32::MAX);
        if let Some(header) = self.words.get_mut(..HEADER) {
            header.copy_from_slice(&[count, 0, bytes]);
        }
    }
}
