//! `ThinkTagCore`: the think-tag splitter behind the JS `ThinkTagOutputTransformer`.
//!
//! Crossing the boundary is the cost to beat (see the project's boundary measurements), so
//! nothing but positions come back: `pushText` writes `[words, holdFrom, (code, block,
//! start, end)*]` into a buffer in wasm memory and returns its address. Offsets are UTF-16
//! units into `held + chunk`, which the shim already holds and slices itself.

use wasm_bindgen::prelude::*;

use super::convert;
use crate::transform::{
    think_tag_options, Block, Op, OutputTransformer, ThinkTagOutputTransformer,
};
use crate::utf16::Utf16Cursor;

/// Op codes: block kind in bit 0 (0 response, 1 thinking), action above it.
const START: u32 = 0;
const TEXT: u32 = 2;
const END: u32 = 4;
/// Words before the first op: total word count, then the hold offset.
const HEADER: usize = 2;

#[wasm_bindgen]
pub struct ThinkTagCore {
    inner: ThinkTagOutputTransformer,
    words: Vec<u32>,
}

fn kind(block: Block) -> u32 {
    match block {
        Block::Response => 0,
        Block::Thinking => 1,
    }
}

#[wasm_bindgen]
impl ThinkTagCore {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<ThinkTagCore, JsValue> {
        let options =
            think_tag_options(&convert::options(options, ThinkTagOutputTransformer::NAME)?)?;
        Ok(Self {
            inner: ThinkTagOutputTransformer::new(options)?,
            words: Vec::with_capacity(64),
        })
    }

    #[wasm_bindgen(js_name = idPrefix)]
    pub fn id_prefix(&self) -> String {
        self.inner.id_prefix().to_owned()
    }

    /// First characters of all tags: a chunk with none of them cannot change the state.
    #[wasm_bindgen(js_name = triggerChars)]
    pub fn trigger_chars(&self) -> String {
        self.inner.splitter().trigger_chars()
    }

    #[wasm_bindgen(js_name = pushText)]
    pub fn push_text(&mut self, chunk: &str) -> Result<*const u32, JsValue> {
        self.inner.feed_ops(chunk)?;
        Ok(encode(&mut self.words, &self.inner))
    }

    /// Where to write the next chunk's UTF-8 (at most `max` bytes); then `pushInput`.
    /// Lets long chunks cross with one native `encodeInto` instead of a JS copy loop.
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(&mut self, max: usize) -> Result<*mut u8, JsValue> {
        Ok(self.inner.try_input_buffer(max)?.as_mut_ptr())
    }

    #[wasm_bindgen(js_name = pushInput)]
    pub fn push_input(&mut self, written: usize) -> Result<*const u32, JsValue> {
        self.inner.feed_input_ops(written)?;
        Ok(encode(&mut self.words, &self.inner))
    }

    pub fn finish(&mut self) -> Result<*const u32, JsValue> {
        self.inner.finish_ops()?;
        Ok(encode(&mut self.words, &self.inner))
    }

    #[wasm_bindgen(js_name = ensureOpen)]
    pub fn ensure_open(&self) -> Result<(), JsValue> {
        Ok(self.inner.ensure_open()?)
    }

    pub fn transform(&mut self, output: JsValue) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(
            &self.inner.transform(convert::output(output)?)?,
        ))
    }
}

fn encode(words: &mut Vec<u32>, inner: &ThinkTagOutputTransformer) -> *const u32 {
    let splitter = inner.splitter();
    let mut units = Utf16Cursor::new(splitter.window());
    words.clear();
    words.extend([0; HEADER]);
    for op in inner.ops() {
        let [code, id, start, end] = match op {
            Op::Start { block, id } => [START | kind(*block), *id, 0, 0],
            Op::End { block, id } => [END | kind(*block), *id, 0, 0],
            Op::Text { block, id, range } => {
                let start = units.to_utf16(range.start) as u32;
                [
                    TEXT | kind(*block),
                    *id,
                    start,
                    units.to_utf16(range.end) as u32,
                ]
            }
        };
        words.extend([code, id, start, end]);
    }
    let header = [
        words.len() as u32,
        units.to_utf16(splitter.hold_from()) as u32,
    ];
    if let Some(slot) = words.get_mut(..HEADER) {
        slot.copy_from_slice(&header);
    }
    words.as_ptr()
}
