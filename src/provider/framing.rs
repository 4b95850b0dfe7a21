//! One framing for every provider: text arrives in blocks, `{kind}_start` … `{kind}_end`.
//!
//! Anthropic frames its content blocks itself; OpenAI-style streams send bare deltas. For
//! those, [`DeltaFraming`] opens a block before the first text of a kind and closes it when
//! the kind changes (reasoning, then the answer) or the answer is complete, so a UI and the
//! transformers after the decoder see the same shape whichever provider answered.

use super::stream::EventSink;
use crate::text::cat;

/// Blocks around the deltas of a stream that sends none.
#[derive(Debug, Clone, Default)]
pub struct DeltaFraming {
    /// The base type of the open block (`response`, `thinking`).
    open: Option<&'static str>,
}

impl DeltaFraming {
    /// Before text of `kind`: closes a block of another kind, opens one of this kind.
    pub fn before_text(
        &mut self,
        kind: &'static str,
        id: &Option<String>,
        out: &mut dyn EventSink,
    ) {
        if self.open == Some(kind) {
            return;
        }
        self.close(id, out);
        out.text_event(&cat(&[kind, "_start"]), id.as_deref(), "");
        self.open = Some(kind);
    }

    /// Closes the open block, if any (the answer is complete).
    pub fn close(&mut self, id: &Option<String>, out: &mut dyn EventSink) {
        if let Some(kind) = self.open.take() {
            out.text_event(&cat(&[kind, "_end"]), id.as_deref(), "");
        }
    }
}
