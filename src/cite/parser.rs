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

use super::citation::{parse_citations, ParseOptions};
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

    /// Text that is no longer a possible marker prefix (or all of it).
    fn release(&mut self, all: bool) -> Option<Event> {
        let keep = if all { 0 } else { self.scanner.pending_len().min(self.unreleased.len()) };
        let n = self.unreleased.len() - keep;
        if n == 0 {
            return None;
        }
        let text: String = self.unreleased.drain(..n).collect();
        let mut event = self.template.clone().unwrap_or_else(|| Event::response(""));
        event.value = Value::String(text);
        Some(event)
    }

    fn citation_events(&mut self, out: &mut Vec<Event>) {
        for found in self.found.drain(..) {
            for citation in self.options.citations(found) {
                let value = serde_json::to_value(&citation).unwrap_or(Value::Null);
                out.push(Event::json(types::CITATION, None, value));
            }
        }
    }
}

impl OutputTransformer for CitationParser {
    /// Adds `citations` (over the concatenated text items) to the output.
    fn transform(&mut self, mut output: LmOutput) -> Result<LmOutput> {
        let answer: String = output.outputs.iter().filter_map(|i| if let OutputItem::Text(t) = i { Some(t.as_str()) } else { None }).collect();
        let citations = parse_citations(&answer, self.options);
        output.extra.insert("citations".into(), serde_json::to_value(citations).unwrap_or(Value::Null));
        Ok(output)
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        self.lifecycle.check()?;
        let mut out = Vec::new();
        if event.kind == types::RESPONSE {
            let Some(text) = event.text_value() else {
                return Err(TransformError::InvalidEvent("a `response` event needs a string value".into()));
            };
            self.unreleased.push_str(text);
            self.scanner.feed(text, &mut self.found);
            self.template = Some(Event { value: Value::String(String::new()), ..event });
            out.extend(self.release(false));
            self.citation_events(&mut out);
        } else {
            if event.kind == "response_end" {
                out.extend(self.release(true));
            }
            out.push(event);
        }
        Ok(out)
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        self.lifecycle.finish()?;
        self.scanner.finish(&mut self.found);
        let mut out: Vec<Event> = self.release(true).into_iter().collect();
        self.citation_events(&mut out);
        Ok(out)
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }
}
