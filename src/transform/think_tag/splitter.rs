//! The think-tag state machine: splits text into response and thinking blocks as it arrives.
//!
//! It reports *positions*, not copies: each [`Op`] names a block and, for text, a byte range
//! of [`ThinkSplitter::window`]. The window is the text held back from the previous chunk
//! followed by the new chunk, so a caller that still has both (the JS shim does) can slice
//! the text itself instead of copying it out of wasm.

use std::ops::Range;

use super::tags::{match_at, sorted_distinct, TagMatch, TagPair, TagSet};
use crate::error::Result;

/// The two kinds of block a stream is split into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Block {
    Response,
    Thinking,
}

/// One step of the split, in stream order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Op {
    Start {
        block: Block,
        id: u32,
    },
    /// Text of the block; `range` indexes [`ThinkSplitter::window`].
    Text {
        block: Block,
        id: u32,
        range: Range<usize>,
    },
    End {
        block: Block,
        id: u32,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    Response,
    /// Inside the block opened by tag pair `usize`, waiting for its closing tag.
    Thinking(usize),
}

/// Which block is open and how ids are handed out.
#[derive(Debug, Clone)]
struct Blocks {
    mode: Mode,
    open: Option<(Block, u32)>,
    next_id: u32,
}

impl Blocks {
    fn block(&self) -> Block {
        match self.mode {
            Mode::Response => Block::Response,
            Mode::Thinking(_) => Block::Thinking,
        }
    }

    fn ensure_open(&mut self, block: Block, out: &mut Vec<Op>) -> u32 {
        match self.open {
            Some((open, id)) if open == block => id,
            _ => {
                self.close(out);
                // Ids only need to differ between neighbouring blocks; wrap after 2^32.
                self.next_id = self.next_id.wrapping_add(1);
                let id = self.next_id;
                self.open = Some((block, id));
                out.push(Op::Start { block, id });
                id
            }
        }
    }

    fn close(&mut self, out: &mut Vec<Op>) {
        if let Some((block, id)) = self.open.take() {
            out.push(Op::End { block, id });
        }
    }

    fn text(&mut self, range: Range<usize>, out: &mut Vec<Op>) {
        if range.is_empty() {
            return;
        }
        let block = self.block();
        let id = self.ensure_open(block, out);
        out.push(Op::Text { block, id, range });
    }

    /// Applies the candidate tag `index` (see [`ThinkSplitter::candidates`]).
    fn on_tag(&mut self, index: usize, pairs: usize, out: &mut Vec<Op>) {
        match self.mode {
            Mode::Response if index < pairs => {
                self.close(out);
                self.mode = Mode::Thinking(index);
                self.ensure_open(Block::Thinking, out);
            }
            // A closing tag with nothing open (the reasoning was prefilled, or the model
            // repeated a tag): markup only, never part of the answer.
            Mode::Response => {}
            Mode::Thinking(_) => {
                self.ensure_open(Block::Thinking, out);
                self.close(out);
                self.mode = Mode::Response;
            }
        }
    }
}

/// Splits a text stream at think tags. Memory is bounded by the longest tag (at most
/// [`super::MAX_TAG_CHARS`] characters), and so is the work at each place a tag could begin.
#[derive(Debug, Clone)]
pub struct ThinkSplitter {
    tags: TagSet,
    blocks: Blocks,
    /// Held-back text followed by the latest chunk.
    window: String,
    /// Where the held-back part of `window` starts.
    hold_from: usize,
}

impl ThinkSplitter {
    /// A splitter for the given tag pairs; `start_in_thinking` treats the stream as already
    /// inside a block of the first pair (reasoning prefilled by the prompt template).
    pub fn new(pairs: Vec<TagPair>, start_in_thinking: bool) -> Result<Self> {
        Ok(Self::with_tags(TagSet::new(pairs)?, start_in_thinking))
    }

    /// A splitter for `<think>` / `</think>`.
    pub fn with_default_tags(start_in_thinking: bool) -> Self {
        Self::with_tags(TagSet::default_pair(), start_in_thinking)
    }

    fn with_tags(tags: TagSet, start_in_thinking: bool) -> Self {
        let mode = if start_in_thinking {
            Mode::Thinking(0)
        } else {
            Mode::Response
        };
        Self {
            tags,
            blocks: Blocks {
                mode,
                open: None,
                next_id: 0,
            },
            window: String::new(),
            hold_from: 0,
        }
    }

    /// The distinct first characters of all tags: a chunk without any of them, arriving
    /// while nothing is held back, cannot change the state.
    pub fn trigger_chars(&self) -> String {
        let chars = self
            .tags
            .pairs
            .iter()
            .flat_map(|p| [p.open.chars().next(), p.close.chars().next()])
            .flatten();
        sorted_distinct(chars).into_iter().collect()
    }

    /// The text the ranges of the latest ops index into.
    pub fn window(&self) -> &str {
        &self.window
    }

    /// Where the text held back for the next chunk starts in [`Self::window`].
    pub fn hold_from(&self) -> usize {
        self.hold_from
    }

    /// Whether text is held back for the next chunk (the start of a possible tag).
    pub fn holds(&self) -> bool {
        self.hold_from < self.window.len()
    }

    /// Feeds a chunk, appending the resulting ops to `out`.
    pub fn feed(&mut self, chunk: &str, out: &mut Vec<Op>) {
        self.drop_released();
        self.window.push_str(chunk);
        self.hold_from = self.scan(false, out);
    }

    /// Drops the window's text before the held-back part. `hold_from` is where `scan`
    /// stopped: the end, or a byte that starts a tag, which (tags being text) is a UTF-8
    /// lead byte, so a char boundary.
    fn drop_released(&mut self) {
        debug_assert!(self.window.is_char_boundary(self.hold_from));
        self.window.drain(..self.hold_from.min(self.window.len()));
        self.hold_from = 0;
    }

    /// Ends the stream: flushes held-back text and closes the open block.
    pub fn finish(&mut self, out: &mut Vec<Op>) {
        self.drop_released();
        self.hold_from = self.scan(true, out);
        self.blocks.close(out);
    }

    fn scan(&mut self, eof: bool, out: &mut Vec<Op>) -> usize {
        let bytes = self.window.as_bytes();
        let pairs = &self.tags.pairs;
        let mut emitted = 0;
        let mut at = 0;
        while let Some(j) = self.tags.next_candidate(bytes, at) {
            let rest = bytes.get(j..).unwrap_or_default();
            let found = match self.blocks.mode {
                Mode::Response => match_at(
                    pairs
                        .iter()
                        .map(|p| p.open.as_str())
                        .chain(pairs.iter().map(|p| p.close.as_str())),
                    rest,
                    eof,
                ),
                // `k` is the index of the pair that opened the block (0 when prefilled, and
                // there is always a pair), so `get` always finds it.
                Mode::Thinking(k) => match_at(
                    pairs.get(k).map(|p| p.close.as_str()).into_iter(),
                    rest,
                    eof,
                ),
            };
            match found {
                TagMatch::Tag { index, len } => {
                    self.blocks.text(emitted..j, out);
                    self.blocks.on_tag(index, pairs.len(), out);
                    at = j + len;
                    emitted = at;
                }
                TagMatch::Partial => {
                    self.blocks.text(emitted..j, out);
                    return j;
                }
                TagMatch::None => at = j + 1,
            }
        }
        self.blocks.text(emitted..bytes.len(), out);
        bytes.len()
    }
}
