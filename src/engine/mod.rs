//! The streaming engine: provider decoding (OpenAI-style and Anthropic SSE bytes, or plain
//! text, or events), the output transformers and the citation parser composed into one
//! synchronous machine. One call per network chunk does all of it; the pieces it releases
//! have their text in one arena, and [`ops`] packs them into words and one string, which
//! the JS face turns into event objects in a single pass.
//!
//! ```
//! use citeflow::engine::StreamEngine;
//! use citeflow::provider::StreamFormat;
//! use citeflow::transform::OutputTransformerConfig;
//! use serde_json::json;
//!
//! let citations = OutputTransformerConfig::from_value(&json!("citations")).unwrap();
//! let mut engine = StreamEngine::new(
//!     Some(StreamFormat::OpenAi),
//!     &[OutputTransformerConfig::think_tag(), citations],
//! ).unwrap();
//! let body = concat!(
//!     "data: {\"choices\":[{\"delta\":{\"content\":\"<think>hm</think>Water boils [\"}}]}\n\n",
//!     "data: {\"choices\":[{\"delta\":{\"content\":\"1].\"},\"finish_reason\":\"stop\"}]}\n\n",
//!     "data: [DONE]\n\n",
//! );
//! let mut events = engine.push_bytes_events(body.as_bytes()).unwrap();
//! events.extend(engine.finish_events().unwrap());
//! let answer: String = events.iter().filter(|e| e.kind == "response").filter_map(|e| e.text_value()).collect();
//! assert_eq!(answer, "Water boils [1].");
//! assert!(events.iter().any(|e| e.kind == "citation" && e.value["sourceId"] == 1));
//! ```

pub mod handle;
pub mod ops;
mod piece;
mod stage;

pub use handle::{Field, KeptEvent};
pub use piece::{
    Arena, Cx, EventView, Generic, HeldId, IdRef, Ids, KeptValue, Kind, NumberedId, Piece,
};
pub use stage::{finish_events, push_event, EventStage, Stage};

use std::mem;

use crate::error::TransformError;
use crate::event::Event;
use crate::provider::stream::EventSink;
use crate::provider::{ProviderByteStream, SseMessage, StreamError, StreamFormat};
use crate::transform::{Lifecycle, OutputTransformerConfig};

/// What went wrong in a step of the engine: in the provider's stream or in a stage.
#[derive(Debug, Clone, PartialEq)]
pub enum EngineError {
    Stream(StreamError),
    Transform(TransformError),
}

impl From<StreamError> for EngineError {
    fn from(e: StreamError) -> Self {
        Self::Stream(e)
    }
}

impl From<TransformError> for EngineError {
    fn from(e: TransformError) -> Self {
        Self::Transform(e)
    }
}

crate::text::display_by_message!(EngineError);

impl EngineError {
    /// What went wrong, in words (its `Display`): the failing part's message.
    pub fn message(&self) -> String {
        match self {
            Self::Stream(e) => e.message(),
            Self::Transform(e) => e.message(),
        }
    }

    pub fn code(&self) -> &'static str {
        match self {
            Self::Stream(e) => e.code(),
            Self::Transform(e) => e.code(),
        }
    }
}

type Result<T> = std::result::Result<T, EngineError>;

/// Decoded provider events as pieces: text straight into the arena, no event for it.
struct PieceSink<'a> {
    cx: &'a mut Cx,
    out: &'a mut Vec<Piece>,
}

impl EventSink for PieceSink<'_> {
    fn text(&mut self, kind: &'static str, id: Option<&str>, text: &str) {
        let kind = Kind::parse(kind).unwrap_or(Kind::Response);
        let id = self.cx.ids.intern_opt(id);
        let text = self.cx.arena.push(text);
        self.out.push(Piece::Text { kind, id, text });
    }

    fn text_event(&mut self, ty: &str, id: Option<&str>, text: &str) {
        let piece = self.cx.made_text(ty, id, text);
        self.out.push(piece);
    }

    fn json(&mut self, kind: &'static str, id: Option<&str>, json: &str) {
        let piece = self.cx.made_json(kind, id, json);
        self.out.push(piece);
    }
}

/// What one step released: its pieces, and the arena and ids they refer to.
#[derive(Debug, Clone, Copy)]
pub struct Step<'a> {
    pub pieces: &'a [Piece],
    pub cx: &'a Cx,
    /// Whether some stage holds back what it was given, after this step ([`Stage::holds_back`]).
    pub holds: bool,
    /// Whether the engine can move past text a caller shows next by its length alone
    /// ([`StreamEngine::pass_shown`]).
    pub takes_shown: bool,
    /// The handles of kept events some stage may still give back ([`Stage::kept_handles`]);
    /// the caller may let every other handle it sent go.
    pub kept: &'a [u32],
}

/// Provider decoding and stages in one machine. Each step returns the pieces it released;
/// their text is in [`StreamEngine::cx`]'s arena until the next step.
pub struct StreamEngine {
    source: Option<ProviderByteStream>,
    stages: Vec<Box<dyn Stage>>,
    cx: Cx,
    out: Vec<Piece>,
    next: Vec<Piece>,
    kept: Vec<u32>,
    /// Whether any kept event was pushed (until then no stage can keep a handle).
    any_kept: bool,
    /// The provider's `usage` event (one per stream), once through the stages: sent by
    /// [`Self::finish`] after everything else, so that usage comes last whatever blocks a stage
    /// still has open.
    usage: Option<HeldUsage>,
    lifecycle: Lifecycle,
}

/// A `usage` piece held until the stream ends: its type and id (interned, kept across steps)
/// and its value's text (the arena is cleared at each step).
struct HeldUsage {
    ty: u32,
    id: IdRef,
    value: String,
    json: bool,
}

impl StreamEngine {
    /// An engine reading `format`'s SSE bytes (or, with `None`, text and events), through
    /// the transformers `stages` describe, in order.
    pub fn new(
        format: Option<StreamFormat>,
        stages: &[OutputTransformerConfig],
    ) -> std::result::Result<Self, TransformError> {
        Ok(Self {
            source: format.map(ProviderByteStream::new),
            stages: stages
                .iter()
                .map(OutputTransformerConfig::build_stage)
                .collect::<std::result::Result<_, _>>()?,
            cx: Cx::default(),
            out: Vec::new(),
            next: Vec::new(),
            kept: Vec::new(),
            any_kept: false,
            usage: None,
            lifecycle: Lifecycle::new("the stream engine"),
        })
    }

    /// The arena and ids the latest step's pieces refer to.
    pub fn cx(&self) -> &Cx {
        &self.cx
    }

    /// Why the model stopped, once the provider said so.
    pub fn finish_reason(&self) -> Option<&str> {
        self.source.as_ref().and_then(|s| s.finish_reason())
    }

    fn begin(&mut self) -> Result<()> {
        self.lifecycle.check()?;
        self.cx.arena.clear();
        self.out.clear();
        Ok(())
    }

    /// Response body bytes (of the format given at construction).
    pub fn push_bytes(&mut self, bytes: &[u8]) -> Result<Step<'_>> {
        self.push_source(|source, sink| source.push_into(bytes, sink))
    }

    /// One SSE message of the format given at construction, framed already (a caller's own
    /// SSE decoding).
    pub fn push_message(&mut self, message: &SseMessage) -> Result<Step<'_>> {
        self.push_source(|source, sink| source.push_message_into(message, sink))
    }

    /// Decodes provider input by `push`, then runs the stages.
    fn push_source(
        &mut self,
        push: impl FnOnce(
            &mut ProviderByteStream,
            &mut PieceSink<'_>,
        ) -> std::result::Result<(), StreamError>,
    ) -> Result<Step<'_>> {
        self.begin()?;
        let Some(source) = self.source.as_mut() else {
            return Err(TransformError::InvalidEvent(
                "bytes and SSE messages need a provider stream format; push text or events instead"
                    .into(),
            )
            .into());
        };
        let decoded = push(
            source,
            &mut PieceSink {
                cx: &mut self.cx,
                out: &mut self.out,
            },
        );
        // What was decoded before a failure goes through the stages first: an error a stage
        // finds in it comes earlier in the stream, and is the error a body cut just before the
        // failure would give. So the first error in stream order wins, whatever the split.
        self.run(0)?;
        self.hold_usage();
        decoded?;
        Ok(self.step())
    }

    /// Moves the provider's `usage` piece out of this step's output until [`Self::finish`],
    /// where an engine with stages may still end blocks (an engine without stages has the
    /// decoder's own order, usage already last). A second one, which no decoder sends, would
    /// stay where it is.
    #[inline(never)]
    fn hold_usage(&mut self) {
        if self.stages.is_empty() || self.usage.is_some() {
            return;
        }
        let types = &self.cx.types;
        let Some(at) = self
            .out
            .iter()
            .position(|p| matches!(p, Piece::Raw { ty, .. } if types.name(*ty) == Some("usage")))
        else {
            return;
        };
        if let Piece::Raw {
            ty,
            id,
            value,
            json,
        } = self.out.remove(at)
        {
            self.usage = Some(HeldUsage {
                ty,
                id,
                value: self.cx.arena.get(&value).to_owned(),
                json,
            });
        }
    }

    /// A chunk of answer text (a `response` event with this id).
    pub fn push_text(&mut self, text: &str, id: Option<&str>) -> Result<Step<'_>> {
        self.begin()?;
        let id = self.cx.ids.intern_opt(id);
        let text = self.cx.arena.push(text);
        self.out.push(Piece::Text {
            kind: Kind::Response,
            id,
            text,
        });
        self.run(0)?;
        Ok(self.step())
    }

    /// Any event.
    pub fn push_event(&mut self, event: Event) -> Result<Step<'_>> {
        self.begin()?;
        let piece = self.cx.piece(event)?;
        self.out.push(piece);
        self.run(0)?;
        Ok(self.step())
    }

    /// Whether every stage works on events their caller keeps ([`Self::push_kept`]); else
    /// events go whole ([`Self::push_event`]).
    pub fn takes_handles(&self) -> bool {
        self.stages.iter().all(|s| s.takes_handles())
    }

    /// An event its caller keeps (see [`handle`]): refused as [`Self::push_event`] refuses
    /// it, or as an engine whose stages need whole events refuses any ([`Self::takes_handles`]).
    pub fn push_kept(&mut self, event: KeptEvent<'_>) -> Result<Step<'_>> {
        self.begin()?;
        if !self.takes_handles() {
            return Err(TransformError::InvalidEvent(
                "a stage of this engine needs whole events; push them as events".into(),
            )
            .into());
        }
        let piece = self.cx.kept_piece(event.handle, event.view()?);
        self.any_kept = true;
        self.out.push(piece);
        self.run(0)?;
        Ok(self.step())
    }

    /// The state after the latest step, with no pieces: what a caller needs after a step that
    /// failed (which handles are still kept, the flags).
    pub fn idle_step(&mut self) -> Step<'_> {
        self.out.clear();
        self.step()
    }

    /// Ends the stream: the provider must have said it was complete; each stage releases
    /// what it held back, through the stages after it.
    pub fn finish(&mut self) -> Result<Step<'_>> {
        self.begin()?;
        self.lifecycle.finish()?;
        let mut done = Vec::new();
        if let Some(source) = self.source.as_mut() {
            for event in source.finish()? {
                let piece = self.cx.piece(event)?;
                self.out.push(piece);
            }
            self.run(0)?;
            self.hold_usage();
            done.append(&mut self.out);
        }
        for i in 0..self.stages.len() {
            if let Some(stage) = self.stages.get_mut(i) {
                stage.finish_pieces(&mut self.cx, &mut self.out)?;
            }
            self.run(i + 1)?;
            done.append(&mut self.out);
        }
        if let Some(usage) = self.usage.take() {
            let value = self.cx.arena.push(&usage.value);
            done.push(Piece::Raw {
                ty: usage.ty,
                id: usage.id,
                value,
                json: usage.json,
            });
        }
        self.out = done;
        Ok(self.step())
    }

    #[inline]
    fn step(&mut self) -> Step<'_> {
        if self.any_kept {
            self.collect_kept();
        }
        Step {
            pieces: &self.out,
            cx: &self.cx,
            holds: self.stages.iter().any(|s| s.holds_back()),
            takes_shown: self.takes_shown(),
            kept: &self.kept,
        }
    }

    /// The handles stages keep now ([`Stage::kept_handles`]); once any kept event was pushed.
    #[inline(never)]
    fn collect_kept(&mut self) {
        self.kept.clear();
        for stage in &self.stages {
            stage.kept_handles(&mut self.kept);
        }
    }

    /// Whether [`Self::pass_shown`] would take text now: an engine of one stage over text
    /// (no provider decoding) that says so itself ([`Stage::takes_shown`]).
    fn takes_shown(&self) -> bool {
        match self.stages.as_slice() {
            [stage] => self.source.is_none() && stage.takes_shown(),
            _ => false,
        }
    }

    /// Moves past `bytes` bytes of answer text (no id) that the caller has shown already
    /// without a step, by its length alone: ASCII text holding none of the stage's trigger
    /// characters and not only spaces, shown while [`Step::takes_shown`] said so (a JS fast
    /// path's text, which then needs no copying into wasm). The JS citation fast path also
    /// counts simple markers it decided and made citations of itself, which move the scanner
    /// as plain text of their length does (`MarkerScanner::passes_plain`; tested by
    /// tests/engine_properties.rs). Returns false, changing nothing, when the engine cannot.
    pub fn pass_shown(&mut self, bytes: usize) -> Result<bool> {
        self.lifecycle.check()?;
        if !self.takes_shown() {
            return Ok(false);
        }
        Ok(self.stages.first_mut().is_some_and(|s| s.pass_shown(bytes)))
    }

    /// Feeds `self.out` through the stages from `from` on; the result is in `self.out`.
    #[inline]
    fn run(&mut self, from: usize) -> Result<()> {
        for stage in self.stages.iter_mut().skip(from) {
            self.next.clear();
            for piece in self.out.drain(..) {
                stage.push_piece(piece, &mut self.cx, &mut self.next)?;
            }
            mem::swap(&mut self.out, &mut self.next);
        }
        Ok(())
    }

    /// [`Self::push_bytes`] as events (for Rust callers and tests).
    pub fn push_bytes_events(&mut self, bytes: &[u8]) -> Result<Vec<Event>> {
        self.push_bytes(bytes)?;
        Ok(self.events())
    }

    /// [`Self::push_message`] as events.
    pub fn push_message_events(&mut self, message: &SseMessage) -> Result<Vec<Event>> {
        self.push_message(message)?;
        Ok(self.events())
    }

    /// [`Self::push_text`] as events.
    pub fn push_text_events(&mut self, text: &str, id: Option<&str>) -> Result<Vec<Event>> {
        self.push_text(text, id)?;
        Ok(self.events())
    }

    /// [`Self::push_event`] as events.
    pub fn push_event_events(&mut self, event: Event) -> Result<Vec<Event>> {
        self.push_event(event)?;
        Ok(self.events())
    }

    /// [`Self::finish`] as events.
    pub fn finish_events(&mut self) -> Result<Vec<Event>> {
        self.finish()?;
        Ok(self.events())
    }

    fn events(&mut self) -> Vec<Event> {
        let cx = &self.cx;
        self.out.drain(..).map(|p| cx.event(p)).collect()
    }
}
