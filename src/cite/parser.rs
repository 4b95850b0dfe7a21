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

use serde_json::Value;

use super::citation::{parse_citations, Citation, ParseOptions};
use super::scanner::{Found, MarkerScanner};
use crate::error::{Result, TransformError};
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
    /// The latest response event, whose id and fields flushed text reuses.
    template: Option<Event>,
    found: Vec<Found>,
    lifecycle: Lifecycle,
}

/// How much answer text a step released: a prefix of the text received and not yet released.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Released {
    pub bytes: usize,
    /// The same length in UTF-16 code units.
    pub units16: usize,
}

impl CitationParser {
    pub fn new(options: ParseOptions) -> Self {
        Self {
            options,
            scanner: MarkerScanner::new(options.marker_style, options.source_count),
            unreleased: String::new(),
            template: None,
            found: Vec::new(),
            lifecycle: Lifecycle::new("CitationParser"),
        }
    }

    /// Feeds answer text. Returns how much of the unreleased text (this chunk included) is
    /// decided and can be shown; the citations found are in [`Self::take_citations`].
    pub fn feed_text(&mut self, text: &str) -> Result<Released> {
        let bytes = self.feed(text)?;
        Ok(self.release(bytes))
    }

    /// Takes the text in and returns how many bytes of the unreleased text are decided.
    fn feed(&mut self, text: &str) -> Result<usize> {
        self.lifecycle.check()?;
        self.unreleased.push_str(text);
        self.scanner.feed(text, &mut self.found);
        let keep = self.scanner.pending_len().min(self.unreleased.len());
        Ok(self.unreleased.len() - keep)
    }

    /// Releases all held text (a block ended) without deciding the markers in it yet.
    pub fn flush_text(&mut self) -> Released {
        self.release(self.unreleased.len())
    }

    /// Ends the stream: decides the rest and releases everything.
    pub fn finish_text(&mut self) -> Result<Released> {
        self.lifecycle.finish()?;
        self.scanner.finish(&mut self.found);
        Ok(self.flush_text())
    }

    /// Whether undecided text (a possible marker prefix, fence or `://`) is held.
    pub fn has_pending(&self) -> bool {
        self.scanner.pending_len() > 0
    }

    /// Whether [`Self::take_citations`] has any.
    pub fn has_citations(&self) -> bool {
        !self.found.is_empty()
    }

    /// The citations found since the last call, in order.
    pub fn take_citations(&mut self) -> Vec<Citation> {
        let options = self.options;
        self.found
            .drain(..)
            .flat_map(|f| options.citations(f).collect::<Vec<_>>())
            .collect()
    }

    /// Releases the first `bytes` of the unreleased text; returns them too when `keep_text`.
    ///
    /// `bytes` is the unreleased length less the scanner's undecided suffix (which starts
    /// at a char boundary of the same text), or all of it: always a char boundary. Were it
    /// not, nothing would be released (and `finish` would release it all).
    fn release_with(&mut self, bytes: usize, keep_text: bool) -> (Released, String) {
        debug_assert!(self.unreleased.is_char_boundary(bytes));
        let Some(text) = self.unreleased.get(..bytes) else {
            return (Released::default(), String::new());
        };
        let released = Released {
            bytes,
            units16: text.encode_utf16().count(),
        };
        let text = if keep_text {
            let rest = self.unreleased.split_off(bytes);
            std::mem::replace(&mut self.unreleased, rest)
        } else {
            self.unreleased.drain(..bytes);
            String::new()
        };
        (released, text)
    }

    fn release(&mut self, bytes: usize) -> Released {
        self.release_with(bytes, false).0
    }

    /// Text event for what a step released: cut from the text the step saw.
    fn text_event(&self, released: &str) -> Option<Event> {
        if released.is_empty() {
            return None;
        }
        let mut event = self.template.clone().unwrap_or_else(|| Event::response(""));
        event.value = Value::String(released.to_owned());
        Some(event)
    }

    fn events(&mut self, released_text: &str, out: &mut Vec<Event>) {
        out.extend(self.text_event(released_text));
        for citation in self.take_citations() {
            let value = serde_json::to_value(&citation).unwrap_or(Value::Null);
            out.push(Event::json(types::CITATION, None, value));
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
        let citations = parse_citations(&answer, self.options);
        output.extra.insert(
            "citations".into(),
            serde_json::to_value(citations).unwrap_or(Value::Null),
        );
        Ok(output)
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        self.lifecycle.check()?;
        let mut out = Vec::new();
        if event.kind == types::RESPONSE {
            let Some(text) = event.text_value() else {
                return Err(TransformError::InvalidEvent(
                    "a `response` event needs a string value".into(),
                ));
            };
            let bytes = self.feed(text)?;
            let (_, released) = self.release_with(bytes, true);
            self.template = Some(Event {
                value: Value::String(String::new()),
                ..event
            });
            self.events(&released, &mut out);
        } else {
            self.lifecycle.check()?;
            if event.kind == "response_end" {
                let (_, released) = self.release_with(self.unreleased.len(), true);
                out.extend(self.text_event(&released));
            }
            out.push(event);
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        self.lifecycle.finish()?;
        self.scanner.finish(&mut self.found);
        let (_, released) = self.release_with(self.unreleased.len(), true);
        let mut out = Vec::new();
        self.events(&released, &mut out);
        Ok(out)
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }
}
