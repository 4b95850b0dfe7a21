//! [`ThinkTagOutputTransformer`]: separates `<think>` reasoning from the answer.
//!
//! ```
//! use citeflow::event::{Event, OutputItem, LmOutput};
//! use citeflow::transform::{OutputTransformer, ThinkTagOutputTransformer};
//!
//! let mut t = ThinkTagOutputTransformer::default();
//! let mut events = Vec::new();
//! for chunk in ["<th", "ink>plan</thi", "nk>Answer"] {
//!     events.extend(t.push(Event::response(chunk)).unwrap());
//! }
//! events.extend(t.finish().unwrap());
//! let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
//! assert_eq!(kinds, ["thinking_start", "thinking", "thinking_end", "response_start", "response", "response_end"]);
//!
//! let whole = t.transform(LmOutput::from_text("<think>plan</think>Answer")).unwrap();
//! assert_eq!(whole.outputs, [OutputItem::Thinking("plan".into()), OutputItem::Text("Answer".into())]);
//! ```

mod splitter;
mod tags;

pub use splitter::{Block, Op, ThinkSplitter};
pub use tags::{TagPair, DEFAULT_CLOSE, DEFAULT_OPEN, MAX_TAG_CHARS};

use super::{unique_prefix, Lifecycle, OutputTransformer};
use crate::engine::{finish_events, push_event, Cx, Kind, NumberedId, Piece, Stage};
use crate::error::Result;
use crate::event::{items_from_events, types, Event, LmOutput, OutputItem};

/// Options of [`ThinkTagOutputTransformer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThinkTagOptions {
    /// Tag pairs to recognise; default `<think>` / `</think>`. Each tag has 1 to
    /// [`MAX_TAG_CHARS`] characters (a longer one is refused, `INVALID_OPTION`).
    pub tags: Vec<TagPair>,
    /// The stream starts inside reasoning (the prompt template prefilled the opening tag).
    pub start_in_thinking: bool,
    /// Prefix of the block ids; default a prefix unique within this process.
    pub id_prefix: Option<String>,
}

impl Default for ThinkTagOptions {
    fn default() -> Self {
        Self {
            tags: vec![TagPair::default()],
            start_in_thinking: false,
            id_prefix: None,
        }
    }
}

impl Block {
    pub fn event_type(self) -> &'static str {
        match self {
            Block::Response => types::RESPONSE,
            Block::Thinking => types::THINKING,
        }
    }
}

/// Splits `response` text into thinking and response blocks. The blocks of its input
/// (`response_start` / `response_end` from a provider decoder) are consumed: the text is
/// re-framed into the blocks it splits, so there is one framing, never one nested in another.
/// Every other event passes through untouched.
#[derive(Debug, Clone)]
pub struct ThinkTagOutputTransformer {
    options: ThinkTagOptions,
    splitter: ThinkSplitter,
    prefix: String,
    ops: Vec<Op>,
    id: NumberedId,
    lifecycle: Lifecycle,
}

impl Default for ThinkTagOutputTransformer {
    fn default() -> Self {
        Self::with_splitter(
            ThinkTagOptions::default(),
            ThinkSplitter::with_default_tags(false),
        )
    }
}

impl ThinkTagOutputTransformer {
    pub const NAME: &'static str = "ThinkTagOutputTransformer";

    pub fn new(options: ThinkTagOptions) -> Result<Self> {
        let splitter = ThinkSplitter::new(options.tags.clone(), options.start_in_thinking)?;
        Ok(Self::with_splitter(options, splitter))
    }

    fn with_splitter(options: ThinkTagOptions, splitter: ThinkSplitter) -> Self {
        let prefix = options
            .id_prefix
            .clone()
            .unwrap_or_else(|| unique_prefix("tt"));
        Self {
            options,
            splitter,
            prefix,
            ops: Vec::new(),
            id: NumberedId::default(),
            lifecycle: Lifecycle::new(Self::NAME),
        }
    }

    /// The id prefix: block `n` has id `{prefix}-{n}`.
    pub fn id_prefix(&self) -> &str {
        &self.prefix
    }

    /// The underlying splitter: its window is what the latest ops' ranges index.
    pub fn splitter(&self) -> &ThinkSplitter {
        &self.splitter
    }

    /// Feeds a bare text chunk and returns positions instead of events: for callers (like
    /// the JS binding) that still hold the text and can slice it themselves.
    pub fn feed_ops(&mut self, chunk: &str) -> Result<()> {
        self.lifecycle.check()?;
        self.ops.clear();
        self.splitter.feed(chunk, &mut self.ops);
        Ok(())
    }

    /// Ends the stream, returning positions; see [`Self::feed_ops`].
    pub fn finish_ops(&mut self) -> Result<()> {
        self.lifecycle.finish()?;
        self.ops.clear();
        self.splitter.finish(&mut self.ops);
        Ok(())
    }

    /// The ops of the latest [`Self::feed_ops`] or [`Self::finish_ops`].
    pub fn ops(&self) -> &[Op] {
        &self.ops
    }

    /// Feeds a bare text chunk.
    pub fn push_text(&mut self, chunk: &str) -> Result<Vec<Event>> {
        push_event(self, Event::response(chunk))
    }

    /// The latest ops as pieces, their text copied into the step's arena.
    fn pieces(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) {
        let window = self.splitter.window();
        for op in &self.ops {
            let (block, id) = match op {
                Op::Start { block, id } | Op::End { block, id } | Op::Text { block, id, .. } => {
                    (*block, *id)
                }
            };
            let kind = match block {
                Block::Response => Kind::Response,
                Block::Thinking => Kind::Thinking,
            };
            let id = self.id.get(&self.prefix, id, &mut cx.ids);
            out.push(match op {
                Op::Start { .. } => Piece::Start { kind, id },
                Op::End { .. } => Piece::End { kind, id },
                // Ranges come from the splitter over this window: char boundaries.
                Op::Text { range, .. } => Piece::Text {
                    kind,
                    id,
                    text: cx.arena.push(window.get(range.clone()).unwrap_or_default()),
                },
            });
        }
    }

    fn split_whole(&self, text: &str) -> Result<Vec<OutputItem>> {
        let mut fresh = Self::new(ThinkTagOptions {
            id_prefix: Some(self.prefix.clone()),
            ..self.options.clone()
        })?;
        let mut events = fresh.push_text(text)?;
        events.extend(fresh.finish()?);
        Ok(items_from_events(&events))
    }
}

impl OutputTransformer for ThinkTagOutputTransformer {
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput> {
        let mut items = Vec::with_capacity(output.outputs.len());
        for item in &output.outputs {
            match item {
                OutputItem::Text(text) => items.extend(self.split_whole(text)?),
                other => items.push(other.clone()),
            }
        }
        Ok(output.with_outputs(items))
    }

    fn push(&mut self, event: Event) -> Result<Vec<Event>> {
        push_event(self, event)
    }

    fn ensure_open(&self) -> Result<()> {
        self.lifecycle.check()
    }

    fn finish(&mut self) -> Result<Vec<Event>> {
        finish_events(self)
    }
}

impl Stage for ThinkTagOutputTransformer {
    /// Response text is split; every other piece passes through untouched.
    fn push_piece(&mut self, piece: Piece, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.lifecycle.check()?;
        let passes = match &piece {
            Piece::Text {
                kind: Kind::Response,
                text,
                ..
            } => {
                self.feed_ops(cx.arena.get(text))?;
                false
            }
            // The input's own response blocks: replaced by the blocks split here.
            Piece::Start {
                kind: Kind::Response,
                ..
            }
            | Piece::End {
                kind: Kind::Response,
                ..
            } => return Ok(()),
            other => match other.generic(cx) {
                Some(event) if event.ty == types::RESPONSE => {
                    self.feed_ops(event.response_text()?)?;
                    false
                }
                Some(event) if event.ty == "response_start" || event.ty == "response_end" => {
                    return Ok(())
                }
                _ => true,
            },
        };
        if passes {
            out.push(piece);
            return Ok(());
        }
        self.pieces(cx, out);
        Ok(())
    }

    fn finish_pieces(&mut self, cx: &mut Cx, out: &mut Vec<Piece>) -> Result<()> {
        self.finish_ops()?;
        self.pieces(cx, out);
        Ok(())
    }

    /// The start of a possible tag, kept until the next chunk decides it.
    fn holds_back(&self) -> bool {
        self.splitter.holds()
    }

    /// Reads a kept event's type and `response` text only, and keeps none.
    fn takes_handles(&self) -> bool {
        true
    }
}
