//! [`CitedAnswer`]: a cited answer given as JSON (structured outputs, a forced tool; see
//! [`super::enforce`]) turned back into marked text and citation events while it streams.
//!
//! Each segment's text streams as it arrives; its closing punctuation is held until the
//! segment's ids are known, so the markers go before it, in the caller's marker style:
//! `{"text": "It is 330 m tall.", "citations": [2]}` reads `It is 330 m tall [2].`, and a
//! `citation` event follows the marker, its span in the visible answer (UTF-16), as the
//! marker parser would give it. An answer that is not JSON at all (a provider that ignored
//! the schema) passes through the marker parser instead, so its markers count too.
//!
//! Every id the model wrote comes back as a citation, once per segment (repeats dropped). A
//! whole number however written (`2`, `2.0`, `"2"`) cites that source, `valid` when it names
//! one, its marker the canonical `[2]`. Anything else (`-1`, `1.5`, `1e300`, `true`, `null`, a
//! string, an array or object) is an invalid citation with `sourceId` 0, as a marker id too
//! large for 32 bits is: its marker shows the id as written (JSON text, strings quoted, cut
//! after 32 characters with `…`), `[-1]`, `[true]`, `["x"]`, unless that text would itself read
//! as a valid marker (`[[1]]`, or caret style's `^1.5`, read as `^1`): then it is `[?]`, so the
//! text never plants a citation the stage did not make. Past [`MAX_CITES_PER_SEGMENT`]
//! distinct ids, the rest of a segment's ids are one invalid citation `[…]`.
//!
//! ```
//! use citeflow::cite::{CitedAnswer, ParseOptions};
//! use citeflow::event::Event;
//! use citeflow::transform::OutputTransformer;
//!
//! let mut stage = CitedAnswer::new(ParseOptions { source_count: Some(2), ..Default::default() });
//! let mut events = Vec::new();
//! for piece in [r#"{"segments":[{"text":"Water boils at 100 °C.","cit"#, r#"ations":[1]}]}"#] {
//!     events.extend(stage.push(Event::response(piece)).unwrap());
//! }
//! events.extend(stage.finish().unwrap());
//! let text: String = events.iter().filter(|e| e.kind == "response").filter_map(|e| e.text_value()).collect();
//! assert_eq!(text, "Water boils at 100 °C [1].");
//! let cite = events.iter().find(|e| e.kind == "citation").unwrap();
//! assert_eq!((cite.value["sourceId"].as_u64(), &cite.value["span"]), (Some(1), &serde_json::json!([22, 25])));
//! ```

use super::citation::{parse_citations, set_citations, Citation, ParseOptions};
use super::marker::MarkerStyle;
use super::parser::CitationParser;
use super::scanner::MarkerScanner;
use super::segments_json::{CitedId, SegmentEvent, SegmentsReader};
use crate::engine::{finish_events, push_event, Cx, HeldId, Kind, Piece, Stage};
use crate::error::{Result, TransformError};
use crate::event::{json_text, types, Event, LmOutput, OutputItem};
use crate::provider::stream::STRUCTURED_DELTA;
use crate::transform::{Lifecycle, OutputTransformer};

/// The most distinct ids one segment keeps (a schema lists each source once; more is noise):
/// ids past them are one invalid citation, `[…]`.
pub const MAX_CITES_PER_SEGMENT: usize = 64;

/// What the marker of an id past [`MAX_CITES_PER_SEGMENT`] shows.
const MORE_IDS: &str = "…";
/// What the marker of an id shows when its text as written would read as a valid marker.
const UNSHOWN_ID: &str = "?";

/// Whether the answer turned out to be JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Mode {
    /// Only whitespace so far.
    Undecided,
    Json,
    /// Prose: through the marker parser.
    Text,
}

/// The streaming stage (and transformer) reading a cited answer's JSON.
#[derive(Debug, Clone)]
pub struct CitedAnswer {
    options: ParseOptions,
    reader: SegmentsReader,
    mode: Mode,
    /// Whitespace read before the answer was decided.
    leading: String,
    prose: CitationParser,
    /// UTF-16 length of the answer released so far.
    answer16: usize,
    /// Segments released so far (a separator goes before the next one's text).
    segments: usize,
    /// The open segment: its distinct ids, whether it had more, and whether its text has begun.
    ids: Vec<CitedId>,
    more_ids: bool,
    began: bool,
    /// The open segment's trailing whitespace and closing punctuation, held.
    held: String,
    id: HeldId,
    /// The citations released, kept too when a whole answer is rendered.
    collected: Option<Vec<Citation>>,
    /// A tool answer (Anthropic) carries no response block: this stage opens and closes one.
    opened: bool,
    /// A tool answer's input was read from its deltas: its final `structured` event is not
    /// read again.
    from_deltas: bool,
    lifecycle: Lifecycle,
}

impl CitedAnswer {
    pub fn new(options: ParseOptions) -> Self {
        Self {
            options,
            reader: SegmentsReader::default(),
            mode: Mode::Undecided,
            leading: String::new(),
            prose: CitationParser::new(options),
            answer16: 0,
            segments: 0,
            ids: Vec::new(),
            more_ids: false,
            began: false,
            held: String::new(),
            id: HeldId::default(),
            collected: None,
            opened: false,
            from_deltas: false,
            lifecycle: Lifecycle::new("CitedAnswer"),
        }
    }

    /// A whole cited answer (a structured value or its JSON text) as marked text and its
    /// citations: the stream's own code, fed once.
    pub fn render(options: ParseOptions, json: &str) -> Result<(String, Vec<Citation>)> {
        let mut stage = Self::new(options);
        stage.collected = Some(Vec::new());
        let mut events = stage.push(Event::response(json))?;
        events.extend(stage.finish()?);
        let text: String = events
            .iter()
            .filter(|e| e.kind == types::RESPONSE)
            .filter_map(Event::text_value)
            .collect();
        // Prose (not JSON) was read by the marker parser: its citations are the text's.
        let citations = match (stage.mode, stage.collected) {
            (Mode::Text, _) | (_, None) => parse_citations(&text, options),
            (_, Some(collected)) => collected,
        };
        Ok((text, citations))
    }

    fn invalid(e: super::segments_json::SegmentsError) -> TransformError {
        TransformError::InvalidOutput(format!(
            "the cited answer is not the expected JSON: {}",
            e.0
        ))
    }

    /// Answer text in; released text and citations out.
    fn feed(&mut self, text: &str, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        if self.mode == Mode::Undecided {
            let rest = text.trim_start();
            if rest.is_empty() {
                self.leading.push_str(text);
                return Ok(());
            }
            self.mode = if rest.starts_with('{') {
                Mode::Json
            } else {
                Mode::Text
            };
            if self.mode == Mode::Text {
                let leading = std::mem::take(&mut self.leading);
                let piece = self.text_piece(&leading, cx);
                self.prose.push_piece(piece, cx, out)?;
            }
        }
        if self.mode == Mode::Text {
            let piece = self.text_piece(text, cx);
            return self.prose.push_piece(piece, cx, out);
        }
        let mut events = Vec::new();
        self.reader.feed(text, &mut events).map_err(Self::invalid)?;
        self.apply(events, cx, out);
        Ok(())
    }

    fn text_piece(&mut self, text: &str, cx: &mut Cx) -> Piece {
        Piece::Text {
            kind: Kind::Response,
            id: self.id.get(&mut cx.ids),
            text: cx.arena.push(text),
        }
    }

    fn release(&mut self, text: &str, cx: &mut Cx, out: &mut Vec<Piece>) {
        if text.is_empty() {
            return;
        }
        self.answer16 = self.answer16.saturating_add(text.encode_utf16().count());
        let piece = self.text_piece(text, cx);
        out.push(piece);
    }

    fn apply(&mut self, events: Vec<SegmentEvent>, cx: &mut Cx, out: &mut Vec<Piece>) {
        for event in events {
            match event {
                SegmentEvent::SegmentStart => {
                    self.ids.clear();
                    self.more_ids = false;
                    self.held.clear();
                    self.began = false;
                }
                SegmentEvent::Text(text) => self.text(&text, cx, out),
                SegmentEvent::Cite(id) => {
                    if !self.ids.contains(&id) {
                        if self.ids.len() < MAX_CITES_PER_SEGMENT {
                            self.ids.push(id);
                        } else {
                            self.more_ids = true;
                        }
                    }
                }
                SegmentEvent::SegmentEnd => self.end_segment(cx, out),
            }
        }
    }

    /// Sentence text: released up to its trailing whitespace and closing punctuation.
    fn text(&mut self, text: &str, cx: &mut Cx, out: &mut Vec<Piece>) {
        let mut text = text;
        if !self.began {
            text = text.trim_start();
            if text.is_empty() {
                return;
            }
            self.began = true;
            if self.segments > 0 {
                self.release(" ", cx, out);
            }
        }
        let keep = text
            .trim_end_matches(|c: char| c.is_whitespace() || matches!(c, '.' | '!' | '?'))
            .len();
        let (body, tail) = text.split_at(keep);
        if !body.is_empty() {
            let held = std::mem::take(&mut self.held);
            let mut released = held;
            released.push_str(body);
            self.release(&released, cx, out);
        }
        self.held.push_str(tail);
    }

    fn end_segment(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) {
        let mut ids = std::mem::take(&mut self.ids);
        if std::mem::take(&mut self.more_ids) {
            ids.push(CitedId::Other(MORE_IDS.to_owned()));
        }
        if !self.began && !ids.is_empty() && self.segments > 0 {
            self.release(" ", cx, out);
        }
        let style = self.options.marker_style;
        let mut citations = Vec::new();
        for (i, id) in ids.iter().enumerate() {
            if i > 0 || self.began {
                self.release(" ", cx, out);
            }
            let (source_id, marker) = match id {
                CitedId::Number(n) => (*n, style.format(n)),
                CitedId::Other(written) => (0, shown_marker(style, written)),
            };
            let start = self.answer16;
            self.release(&marker, cx, out);
            let valid = matches!(id, CitedId::Number(_)) && self.options.is_valid(source_id);
            let span = [start, self.answer16];
            citations.push(Citation::at_marker(source_id, marker, span, valid));
        }
        let punctuation: String = std::mem::take(&mut self.held)
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        self.release(&punctuation, cx, out);
        if let Some(collected) = self.collected.as_mut() {
            collected.extend(citations.iter().cloned());
        }
        for c in citations {
            let value = c.to_json();
            out.push(Piece::Event(Box::new(Event::json(
                types::CITATION,
                None,
                value,
            ))));
        }
        if self.began || !ids.is_empty() {
            self.segments += 1;
        }
        self.began = false;
    }

    /// Opens the response block a tool answer lacks.
    fn open(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) {
        if !self.opened {
            self.opened = true;
            out.push(Piece::Start {
                kind: Kind::Response,
                id: self.id.get(&mut cx.ids),
            });
        }
    }

    fn close(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) {
        if std::mem::take(&mut self.opened) {
            out.push(Piece::End {
                kind: Kind::Response,
                id: self.id.get(&mut cx.ids),
            });
        }
    }

    fn finish_answer(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        match self.mode {
            Mode::Text => self.prose.finish_pieces(cx, out)?,
            Mode::Json => {
                let mut events = Vec::new();
                self.reader.finish(&mut events).map_err(Self::invalid)?;
                self.apply(events, cx, out);
            }
            Mode::Undecided => {
                let leading = std::mem::take(&mut self.leading);
                self.release(&leading, cx, out);
            }
        }
        Ok(())
    }
}

/// The marker of an id that is not a whole number: the id as written, unless the marker
/// parser would read a valid citation in that text (whatever the source count), which would
/// cite a source the model did not name as one.
#[inline(never)]
fn shown_marker(style: MarkerStyle, written: &str) -> String {
    let marker = style.format(written);
    let any = ParseOptions {
        marker_style: style,
        source_count: None,
    };
    let plants = MarkerScanner::find_all(style, None, &marker)
        .iter()
        .any(|found| found.ids.iter().any(|id| any.is_valid_id(id)));
    if plants {
        style.format(UNSHOWN_ID)
    } else {
        marker
    }
}

impl Stage for CitedAnswer {
    fn push_piece(&mut self, piece: Piece, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.check()?;
        // This stage reads events the core made whole (a tool's input).
        let piece = match piece {
            Piece::Raw { .. } => Piece::Event(Box::new(cx.event(piece))),
            piece => piece,
        };
        match piece {
            Piece::Text {
                kind: Kind::Response,
                id,
                text,
            } => {
                self.id.set(id, &cx.ids);
                let text = cx.arena.get(&text).to_owned();
                self.feed(&text, cx, out)
            }
            Piece::Event(event) if event.kind == types::RESPONSE => {
                let text = event.text_value().ok_or_else(|| {
                    TransformError::InvalidEvent("a `response` event needs a string value".into())
                })?;
                let id = cx.ids.intern_opt(event.id.as_deref());
                self.id.set(id, &cx.ids);
                self.feed(text, cx, out)
            }
            // A tool's input as it streams (Anthropic), then whole at the block's end.
            Piece::Event(event) if event.kind == STRUCTURED_DELTA => {
                let id = cx.ids.intern_opt(event.id.as_deref());
                self.id.set(id, &cx.ids);
                self.from_deltas = true;
                self.open(cx, out);
                self.feed(event.text_value().unwrap_or_default(), cx, out)
            }
            Piece::Event(event) if event.kind == types::STRUCTURED => {
                let id = cx.ids.intern_opt(event.id.as_deref());
                self.id.set(id, &cx.ids);
                self.open(cx, out);
                if !std::mem::take(&mut self.from_deltas) {
                    self.feed(&json_text(&event.value), cx, out)?;
                }
                self.close(cx, out);
                Ok(())
            }
            piece => {
                if self.mode == Mode::Text {
                    return self.prose.push_piece(piece, cx, out);
                }
                out.push(piece);
                Ok(())
            }
        }
    }

    fn finish_pieces(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.finish()?;
        self.finish_answer(cx, out)?;
        self.close(cx, out);
        Ok(())
    }
}

impl OutputTransformer for CitedAnswer {
    /// A whole answer: its structured item (a forced tool's input) or its text (a schema
    /// answer's JSON) becomes the marked text, with `citations` beside it.
    fn transform(&mut self, mut output: LmOutput) -> Result<LmOutput> {
        let structured = output.outputs.iter().find_map(|i| match i {
            OutputItem::Structured(v) => Some(json_text(v)),
            _ => None,
        });
        let json = structured.unwrap_or_else(|| {
            output
                .outputs
                .iter()
                .filter_map(|i| match i {
                    OutputItem::Text(t) => Some(t.as_str()),
                    _ => None,
                })
                .collect()
        });
        let (text, citations) = Self::render(self.options, &json)?;
        output
            .outputs
            .retain(|i| matches!(i, OutputItem::Thinking(_)));
        output.outputs.push(OutputItem::Text(text));
        set_citations(&mut output, &citations);
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
