//! [`CitationParser`]: the streaming form, as an output transformer.
//!
//! ```
//! use citeflow::cite::{CitationParser, ParseOptions};
//! use citeflow::event::Event;
//! use citeflow::transform::OutputTransformer;
//!
//! let mut p = CitationParser::new(ParseOptions { source_count: Some(2), ..Default::default() });
//! let mut events = Vec::new();
//! for chunk in ["Water boils [", "1]. Ice [2", "] melts."] {
//!     events.extend(p.push(Event::response(chunk)).unwrap());
//! }
//! events.extend(p.finish().unwrap());
//! let cites: Vec<u64> = events.iter().filter(|e| e.kind == "citation").map(|e| e.value["sourceId"].as_u64().unwrap()).collect();
//! assert_eq!(cites, [1, 2]);
//! ```

#[cfg(not(feature = "lean-stream"))]
use serde_json::Value;

use super::citation::{parse_citations, set_citations, Citation, ParseOptions};
use super::scanner::{Found, MarkerScanner};
use crate::engine::{finish_events, push_event, Cx, HeldId, KeptValue, Kind, Piece, Stage};
use crate::error::Result;
use crate::event::{types, Event, LmOutput, OutputItem};
use crate::transform::{Lifecycle, OutputTransformer};

/// Finds citation markers in the answer (`response` events) as it streams. Answer text passes
/// through, except a possible marker prefix, held until it is decided (or the block ends);
/// a `citation` event follows the text that completes each marker. Spans index the answer
/// text seen so far (the concatenated `response` values: after ThinkTag, the visible answer).
#[derive(Debug, Clone)]
pub struct CitationParser {
    options: ParseOptions,
    scanner: MarkerScanner,
    /// Answer text received but not yet passed on.
    unreleased: String,
    /// The latest response event, whose id and fields released text reuses.
    template: Template,
    found: Vec<Found>,
    lifecycle: Lifecycle,
}

/// Where the text a feed decided is: the first bytes of the unreleased text, or (nothing held
/// before it) of the input piece's text, which stays where it is in the arena.
#[derive(Debug, Clone, Copy)]
enum Decided {
    Held(usize),
    Input(usize),
}

/// Whose id and fields released answer text carries: the latest response event's.
#[derive(Debug, Clone)]
enum Template {
    /// Plain text with this id (no id before the first response).
    Plain(HeldId),
    /// A response event with fields of its own (its value emptied). (The lean streaming
    /// module has no such piece: its events stay in JS, `Kept`.)
    #[cfg(not(feature = "lean-stream"))]
    Event(Event),
    /// A response event its caller keeps (its value replaced when text is released).
    Kept { handle: u32, id: HeldId },
}

impl Template {
    /// The template a generic `response` piece gives.
    fn of(piece: Piece, cx: &Cx) -> Self {
        match piece {
            #[cfg(not(feature = "lean-stream"))]
            Piece::Event(event) => Template::Event(Event {
                value: Value::String(String::new()),
                ..*event
            }),
            Piece::Opaque { handle, id, .. } => {
                let mut held = HeldId::default();
                held.set(id, &cx.ids);
                Template::Kept { handle, id: held }
            }
            _ => Template::default(),
        }
    }
}

impl Default for Template {
    fn default() -> Self {
        Template::Plain(HeldId::default())
    }
}

impl CitationParser {
    pub fn new(options: ParseOptions) -> Self {
        Self {
            options,
            scanner: MarkerScanner::new(options.marker_style, options.source_count),
            unreleased: String::new(),
            template: Template::default(),
            found: Vec::new(),
            lifecycle: Lifecycle::new("CitationParser"),
        }
    }

    /// Takes the text in and says where the decided text is. `in_arena`: `text` is a piece's
    /// text in the step's arena, where a decided prefix of it can stay (nothing held before it).
    fn feed(&mut self, text: &str, in_arena: bool) -> Result<Decided> {
        self.lifecycle.check()?;
        self.scanner.feed(text, &mut self.found);
        // The scanner keeps an undecided suffix of all text fed (whole characters).
        let keep = self
            .scanner
            .pending_len()
            .min(self.unreleased.len() + text.len());
        if in_arena && self.unreleased.is_empty() {
            let decided = text.len() - keep;
            self.unreleased
                .push_str(text.get(decided..).unwrap_or_default());
            return Ok(Decided::Input(decided));
        }
        self.unreleased.push_str(text);
        Ok(Decided::Held(self.unreleased.len() - keep))
    }

    /// The citations found since the last call, in order.
    pub fn take_citations(&mut self) -> Vec<Citation> {
        let options = self.options;
        let found = std::mem::take(&mut self.found);
        found.iter().flat_map(|f| options.citations(f)).collect()
    }

    /// Releases the decided text as a text piece in the template's shape: the first `bytes`
    /// of the unreleased text, or of the input piece's text at `input` in the arena.
    fn release_piece(&mut self, decided: Decided, input: usize, cx: &mut Cx, out: &mut Vec<Piece>) {
        let text = match decided {
            Decided::Input(0) | Decided::Held(0) => return,
            Decided::Input(bytes) => input..input + bytes,
            Decided::Held(bytes) => {
                let Some(text) = self.unreleased.get(..bytes) else {
                    return;
                };
                let text = cx.arena.push(text);
                if bytes == self.unreleased.len() {
                    self.unreleased.clear();
                } else {
                    self.unreleased.drain(..bytes);
                }
                text
            }
        };
        out.push(match &mut self.template {
            Template::Plain(id) => Piece::Text {
                kind: Kind::Response,
                id: id.get(&mut cx.ids),
                text,
            },
            #[cfg(not(feature = "lean-stream"))]
            Template::Event(template) => Piece::Event(Box::new(Event {
                value: Value::String(cx.arena.get(&text).to_owned()),
                ..template.clone()
            })),
            Template::Kept { handle, id } => Piece::Opaque {
                handle: *handle,
                ty: cx.types.intern(types::RESPONSE),
                id: id.get(&mut cx.ids),
                text,
                value: KeptValue::NewText,
            },
        });
    }

    /// Releases all unreleased text.
    fn release_all(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) {
        self.release_piece(Decided::Held(self.unreleased.len()), 0, cx, out);
    }

    /// A `citation` piece per citation found.
    fn citation_pieces(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) {
        for found in self.found.drain(..) {
            let marker = cx.arena.push(found.marker.as_str());
            let span = [found.span16.start, found.span16.end];
            for id in &found.ids {
                out.push(Piece::Citation {
                    source_id: id.value().unwrap_or(0),
                    marker: marker.clone(),
                    span,
                    valid: self.options.is_valid_id(id),
                });
            }
        }
    }
}

impl OutputTransformer for CitationParser {
    /// Adds `citations` (over the concatenated text items) to the output.
    fn transform(&mut self, mut output: LmOutput) -> Result<LmOutput> {
        let answer: String = output
            .outputs
            .iter()
            .filter_map(|i| {
                if let OutputItem::Text(t) = i {
                    Some(t.as_str())
                } else {
                    None
                }
            })
            .collect();
        set_citations(&mut output, &parse_citations(&answer, self.options));
        Ok(output)
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        push_event(self, event)
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        finish_events(self)
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }
}

impl Stage for CitationParser {
    fn push_piece(&mut self, piece: Piece, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.check()?;
        let (decided, input) = match piece {
            Piece::Text {
                kind: Kind::Response,
                id,
                text,
            } => {
                let decided = self.feed(cx.arena.get(&text), true)?;
                match &mut self.template {
                    Template::Plain(held) => held.set(id, &cx.ids),
                    template => {
                        let mut held = HeldId::default();
                        held.set(id, &cx.ids);
                        *template = Template::Plain(held);
                    }
                }
                (decided, text.start)
            }
            piece => {
                let mut ends = matches!(
                    piece,
                    Piece::End {
                        kind: Kind::Response,
                        ..
                    }
                );
                let fed = match piece.generic(cx) {
                    Some(event) if event.ty == types::RESPONSE => {
                        Some(self.feed(event.response_text()?, false)?)
                    }
                    Some(event) => {
                        ends = event.ty == "response_end";
                        None
                    }
                    None => None,
                };
                let Some(decided) = fed else {
                    // The block ends: its text ends there for markers too, so the held text
                    // and the citations of its last markers come before its end, and a UI
                    // closing the block has them all.
                    if ends {
                        self.scanner.finish(&mut self.found);
                        self.release_all(cx, out);
                        self.citation_pieces(cx, out);
                    }
                    out.push(piece);
                    return Ok(());
                };
                self.template = Template::of(piece, cx);
                (decided, 0)
            }
        };
        self.release_piece(decided, input, cx, out);
        self.citation_pieces(cx, out);
        Ok(())
    }

    fn finish_pieces(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.finish()?;
        self.scanner.finish(&mut self.found);
        self.release_all(cx, out);
        self.citation_pieces(cx, out);
        Ok(())
    }

    /// Answer text not yet released (a possible marker's start, a marker waiting for the next
    /// character to rule out a link), or text the scanner has not decided yet (a block's end
    /// released it, its markers are decided later).
    fn holds_back(&self) -> bool {
        !self.unreleased.is_empty() || self.scanner.pending_len() != 0
    }

    /// Reads a kept event's type, id and `response` text; keeps the latest `response` one
    /// while text it holds back is to be released in its shape.
    fn takes_handles(&self) -> bool {
        true
    }

    fn kept_handles(&self, out: &mut Vec<u32>) {
        if let Template::Kept { handle, .. } = self.template {
            if !self.unreleased.is_empty() {
                out.push(handle);
            }
        }
    }

    /// Shown text (see [`Stage::pass_shown`]) only moves the scanner on: nothing is held to
    /// release before it, and the scanner passes it by its length where that is the same as
    /// reading it ([`MarkerScanner::passes_plain`]).
    fn takes_shown(&self) -> bool {
        self.unreleased.is_empty() && self.scanner.passes_plain()
    }

    fn pass_shown(&mut self, bytes: usize) -> bool {
        self.lifecycle.check().is_ok()
            && self.unreleased.is_empty()
            && self.scanner.pass_plain(bytes)
    }
}
