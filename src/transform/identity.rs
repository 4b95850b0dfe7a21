//! [`IdentityOutputTransformer`]: passes everything through unchanged.

use super::{Lifecycle, OutputTransformer};
use crate::engine::{Cx, Piece, Stage};
use crate::error::Result;
use crate::event::{Event, LmOutput};

/// Returns outputs and events as they are; the neutral element of a chain.
#[derive(Debug, Clone)]
pub struct IdentityOutputTransformer {
    lifecycle: Lifecycle,
}

impl Default for IdentityOutputTransformer {
    fn default() -> Self {
        Self {
            lifecycle: Lifecycle::new("IdentityOutputTransformer"),
        }
    }
}

impl OutputTransformer for IdentityOutputTransformer {
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput> {
        Ok(output)
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        self.lifecycle.check()?;
        Ok(vec![event])
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        self.lifecycle.finish()?;
        Ok(Vec::new())
    }
}

impl Stage for IdentityOutputTransformer {
    fn push_piece(&mut self, piece: Piece, _: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.check()?;
        out.push(piece);
        Ok(())
    }

    fn finish_pieces(&mut self, _: &mut Cx, _: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.finish()
    }

    fn holds_back(&self) -> bool {
        false
    }

    /// Passes a kept event on unread, and keeps none.
    fn takes_handles(&self) -> bool {
        true
    }
}
