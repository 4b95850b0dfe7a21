//! The think-tag state machine: splits text into response and thinking blocks as it arrives.
//!
//! It reports *positions*, not copies: each [`Op`] names a block and, for text, a byte range
//! of [`ThinkSplitter::window`]. The window is the text held back from the previous chunk
//! followed by the new chunk, so a caller that still has both (the JS shim does) can slice
//! the text itself instead of copying it out of wasm.

use std::ops::Range;

use super::tags::{sorted_distinct, Found, Scan, TagPair, TagSet};
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
/// [`super::MAX_TAG_CHARS`] characters); time is linear in the input, whatever the tags and
/// however the input is cut: each byte moves each tag of the current mode a step (see
/// the matcher in `tags.rs`; text held back is not read again), plus, after a tag, at most the
/// longest tag's length read again when a longer tag beginning before or at it had to be
/// ruled out first.
#[derive(Debug, Clone)]
pub struct ThinkSplitter {
    tags: TagSet,
    blocks: Blocks,
    /// Held-back text followed by the latest chunk.
    window: String,
    /// Where the held-back part of `window` starts.
    hold_from: usize,
    /// How far the window has been scanned (the held-back part is not read again).
    scan: Scan,
    /// Steps the matching took so far (for tests of its cost).
    steps: u64,
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
            scan: Scan::default(),
            steps: 0,
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
        let dropped = self.hold_from.min(self.window.len());
        self.window.drain(..dropped);
        self.hold_from = 0;
        // The scan stopped at or after the held part's start, and any tag it found begins
        // there or later.
        self.scan.pos = self.scan.pos.saturating_sub(dropped);
        if let Some((start, _, _)) = self.scan.best.as_mut() {
            *start = start.saturating_sub(dropped);
        }
    }

    /// Ends the stream: flushes held-back text and closes the open block.
    pub fn finish(&mut self, out: &mut Vec<Op>) {
        self.drop_released();
        self.hold_from = self.scan(true, out);
        self.blocks.close(out);
    }

    /// Releases the window's text and tags from the start on; returns where the text held
    /// back (the start of a possible tag) begins.
    fn scan(&mut self, eof: bool, out: &mut Vec<Op>) -> usize {
        let pairs = self.tags.pairs.len();
        let mut emitted = 0;
        loop {
            let active = match self.blocks.mode {
                Mode::Response => 0..2 * pairs,
                // The closing tag of the pair that opened the block.
                Mode::Thinking(k) => pairs + k..pairs + k + 1,
            };
            let bytes = self.window.as_bytes();
            let found = self
                .tags
                .matcher
                .find(bytes, &mut self.scan, active, eof, &mut self.steps);
            match found {
                Found::Tag { start, index, len } => {
                    self.blocks.text(emitted..start, out);
                    self.blocks.on_tag(index, pairs, out);
                    emitted = start + len;
                    // The mode may have changed: its matcher reads on from the tag's end.
                    self.scan.restart(emitted);
                }
                Found::Partial { start } => {
                    self.blocks.text(emitted..start, out);
                    return start;
                }
                Found::None => {
                    let end = self.window.len();
                    self.blocks.text(emitted..end, out);
                    return end;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::tags::MAX_TAG_CHARS;
    use super::*;

    /// The text of each block, in order, merged (what a UI shows).
    fn blocks(s: &ThinkSplitter, ops: &[Op], out: &mut Vec<(Block, String)>) {
        for op in ops {
            if let Op::Text { block, range, .. } = op {
                let text = &s.window()[range.clone()];
                match out.last_mut() {
                    Some((b, t)) if b == block => t.push_str(text),
                    _ => out.push((*block, text.to_owned())),
                }
            }
        }
    }

    /// Runs `text` cut into `size`-byte chunks: the blocks and the matching steps taken.
    fn split(
        pairs: &[TagPair],
        thinking: bool,
        text: &str,
        size: usize,
    ) -> (Vec<(Block, String)>, u64) {
        let mut s = ThinkSplitter::new(pairs.to_vec(), thinking).unwrap();
        let mut out = Vec::new();
        let mut ops = Vec::new();
        let bytes = text.as_bytes();
        let mut at = 0;
        while at < bytes.len() {
            let mut end = (at + size).min(bytes.len());
            while !text.is_char_boundary(end) {
                end += 1;
            }
            ops.clear();
            s.feed(&text[at..end], &mut ops);
            blocks(&s, &ops, &mut out);
            at = end;
        }
        ops.clear();
        s.finish(&mut ops);
        blocks(&s, &ops, &mut out);
        (out, s.steps)
    }

    /// Tags whose first characters repeat in them, over text that almost matches them at every
    /// position: each byte of text costs a few steps, however long the tags, however the text
    /// is cut (held text is never read again).
    #[test]
    fn matching_is_linear_in_the_text_whatever_the_tags() {
        let long = format!("{}b", "a".repeat(MAX_TAG_CHARS - 1));
        let text = format!("{}b{}", "a".repeat(100_000), "a".repeat(100_000));
        let n = text.len() as u64;
        for (pairs, thinking, want) in [
            (
                vec![TagPair::new(long.clone(), "</x>")],
                false,
                vec![
                    (Block::Response, "a".repeat(100_000 - MAX_TAG_CHARS + 1)),
                    (Block::Thinking, "a".repeat(100_000)),
                ],
            ),
            (
                vec![TagPair::new("<x>", long.clone())],
                true,
                vec![
                    (Block::Thinking, "a".repeat(100_000 - MAX_TAG_CHARS + 1)),
                    (Block::Response, "a".repeat(100_000)),
                ],
            ),
        ] {
            for size in [text.len(), 1, 3, 64, 1000] {
                let (got, steps) = split(&pairs, thinking, &text, size);
                assert_eq!(got, want, "chunks of {size}");
                assert!(
                    steps <= 4 * n,
                    "chunks of {size}: {steps} steps for {n} bytes"
                );
            }
        }
    }
}
