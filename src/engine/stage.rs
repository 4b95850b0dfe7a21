//! [`Stage`]: one step of the engine (a transformer, the citation parser), and the adapter
//! that gives every stage the [`OutputTransformer`] event API from the same code.

use super::piece::{Cx, Piece};
use crate::error::Result;
use crate::event::Event;
use crate::transform::OutputTransformer;

/// A streaming stage over typed pieces. The event API ([`push_event`], [`finish_events`]) is
/// derived from this one, so a rule has one implementation whichever way it is driven.
pub trait Stage {
    /// Feeds one piece; appends what it releases to `out` (text in `cx.arena`).
    fn push_piece(&mut self, piece: Piece, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()>;
    /// Ends the stream; appends what was held back. Pushing afterwards is an error.
    fn finish_pieces(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()>;
    /// Whether the stage holds back anything it was given (text it has not decided yet, or
    /// buffered events). A stage that cannot tell says yes: a caller only skips the engine
    /// when every stage says no.
    fn holds_back(&self) -> bool {
        true
    }
    /// Whether the stage works on events their caller keeps ([`Piece::Opaque`]): it reads
    /// only their type, id and `response` text. A stage that needs whole events says no.
    fn takes_handles(&self) -> bool {
        false
    }
    /// Appends the handles of kept events the stage may still give back after this step
    /// (a template of text it holds back); the caller may let the others go.
    fn kept_handles(&self, _out: &mut Vec<u32>) {}
    /// Whether the stage can move past answer text a caller has shown already by its length
    /// alone ([`Stage::pass_shown`]), now. A stage that cannot says no.
    fn takes_shown(&self) -> bool {
        false
    }
    /// Moves past `bytes` bytes of answer text (no id) that a caller has shown already,
    /// without the text: ASCII, holding none of the stage's trigger characters, not only
    /// spaces. Returns false, changing nothing, unless [`Stage::takes_shown`].
    fn pass_shown(&mut self, _bytes: usize) -> bool {
        false
    }
}

/// [`OutputTransformer::push`] for a stage: the event as a piece, the pieces as events.
pub fn push_event(stage: &mut impl Stage, event: Event) -> Result<Vec<Event>> {
    let mut cx = Cx::default();
    let piece = cx.piece(event)?;
    let mut out = Vec::new();
    stage.push_piece(piece, &mut cx, &mut out)?;
    Ok(out.into_iter().map(|p| cx.event(p)).collect())
}

/// [`OutputTransformer::finish`] for a stage.
pub fn finish_events(stage: &mut impl Stage) -> Result<Vec<Event>> {
    let mut cx = Cx::default();
    let mut out = Vec::new();
    stage.finish_pieces(&mut cx, &mut out)?;
    Ok(out.into_iter().map(|p| cx.event(p)).collect())
}

/// Any event transformer as a stage (JSON, validation, identity): pieces become events for
/// it and its events pieces again. For stages that see few events or none in the hot path.
pub struct EventStage(pub Box<dyn OutputTransformer>);

impl EventStage {
    fn feed(events: Vec<Event>, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        for event in events {
            out.push(cx.piece(event)?);
        }
        Ok(())
    }
}

impl Stage for EventStage {
    fn push_piece(&mut self, piece: Piece, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        let events = self.0.push(cx.event(piece))?;
        Self::feed(events, cx, out)
    }

    fn finish_pieces(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        let events = self.0.finish()?;
        Self::feed(events, cx, out)
    }
}
