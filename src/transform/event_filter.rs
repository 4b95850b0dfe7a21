//! [`EventFilterOutputTransformer`]: keeps only the listed event types.

use super::{Lifecycle, OutputTransformer};
use crate::engine::{Cx, Piece, Stage};
use crate::error::{Result, TransformError};
use crate::event::{split_event_type, Event, LmOutput};

/// Keeps events whose base type is listed, with their `_start` / `_end` variants. Matching is
/// exact and case-sensitive; naming `thinking_start` counts as naming `thinking`. Whole
/// outputs pass through unchanged (the filter is about streams).
#[derive(Debug, Clone)]
pub struct EventFilterOutputTransformer {
    /// Sorted, without repeats. (Not a `BTreeSet`: the engine's id map is the streaming
    /// module's one B-tree, and a second key type would link a second copy of its code.)
    allowed: Vec<String>,
    lifecycle: Lifecycle,
}

impl EventFilterOutputTransformer {
    pub fn new<S: AsRef<str>>(event_types: &[S]) -> Result<Self> {
        let mut allowed: Vec<String> = Vec::new();
        for (index, kind) in event_types.iter().enumerate() {
            let kind = kind.as_ref();
            if kind.trim().is_empty() {
                return Err(TransformError::EmptyEventType {
                    index,
                    got: kind.to_owned(),
                });
            }
            let base = split_event_type(kind).0;
            if let Err(at) = allowed.binary_search_by(|a| a.as_str().cmp(base)) {
                allowed.insert(at, base.to_owned());
            }
        }
        Ok(Self {
            allowed,
            lifecycle: Lifecycle::new("EventFilterOutputTransformer"),
        })
    }

    /// Whether events of this type are kept.
    pub fn accepts(&self, kind: &str) -> bool {
        self.allows(split_event_type(kind).0)
    }

    /// Whether this base type is listed.
    fn allows(&self, base: &str) -> bool {
        self.allowed
            .binary_search_by(|a| a.as_str().cmp(base))
            .is_ok()
    }

    /// The base types kept, sorted.
    pub fn allowed_event_types(&self) -> impl Iterator<Item = &str> {
        self.allowed.iter().map(String::as_str)
    }
}

impl OutputTransformer for EventFilterOutputTransformer {
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput> {
        Ok(output)
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        self.lifecycle.check()?;
        Ok(if self.accepts(&event.kind) {
            vec![event]
        } else {
            Vec::new()
        })
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        self.lifecycle.finish()?;
        Ok(Vec::new())
    }
}

impl Stage for EventFilterOutputTransformer {
    fn push_piece(&mut self, piece: Piece, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.check()?;
        let keep = match &piece {
            #[cfg(not(feature = "lean-stream"))]
            Piece::Event(_) => piece.generic(cx).is_some_and(|e| self.accepts(e.ty)),
            Piece::Opaque { .. } | Piece::Raw { .. } => {
                piece.generic(cx).is_some_and(|e| self.accepts(e.ty))
            }
            Piece::Citation { .. } => self.accepts(crate::event::types::CITATION),
            Piece::Start { kind, .. } | Piece::Text { kind, .. } | Piece::End { kind, .. } => {
                self.allows(kind.base())
            }
        };
        if keep {
            out.push(piece);
        }
        Ok(())
    }

    fn finish_pieces(&mut self, _: &mut Cx, _: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.finish()
    }

    fn holds_back(&self) -> bool {
        false
    }

    /// Reads a kept event's type only, and keeps none.
    fn takes_handles(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_base_types_with_variants() {
        let f = EventFilterOutputTransformer::new(&["thinking_start", "status"]).unwrap();
        for kind in ["thinking", "thinking_start", "thinking_end", "status"] {
            assert!(f.accepts(kind), "{kind}");
        }
        for kind in ["response", "Thinking", "thinkingx", "response_end"] {
            assert!(!f.accepts(kind), "{kind}");
        }
    }

    #[test]
    fn empty_list_keeps_nothing_and_blank_is_an_error() {
        let none: [&str; 0] = [];
        assert!(!EventFilterOutputTransformer::new(&none)
            .unwrap()
            .accepts("response"));
        let err = EventFilterOutputTransformer::new(&["thinking", "  "]).unwrap_err();
        assert_eq!(err.code(), "EMPTY_EVENT_TYPE");
        assert!(err.to_string().contains("index 1"));
    }
}
