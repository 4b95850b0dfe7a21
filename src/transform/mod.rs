//! Output transformers: stages that reshape a model's output, whole or streamed.
//!
//! Every transformer is a synchronous state machine: [`OutputTransformer::push`] an event,
//! get the events it releases; [`OutputTransformer::finish`] at the end of the stream to get
//! whatever was held back. [`OutputTransformer::transform`] applies the same logic to a
//! whole [`LmOutput`].

mod chain;
pub(crate) mod config;
mod event_filter;
mod identity;
mod json;
mod think_tag;
mod validation;

pub use chain::OutputTransformerChain;
pub use config::{
    event_types, think_tag_options, validation_options, OutputTransformerConfig, TransformerKind,
};
pub use event_filter::EventFilterOutputTransformer;
pub use identity::IdentityOutputTransformer;
pub use json::{extract_json_object, JsonOutputTransformer};
pub use think_tag::{
    Block, Op, TagPair, ThinkSplitter, ThinkTagOptions, ThinkTagOutputTransformer, DEFAULT_CLOSE,
    DEFAULT_OPEN, MAX_TAG_CHARS,
};
pub use validation::{ValidationMode, ValidationOutputTransformer};

use crate::error::{Result, TransformError};
use crate::event::{Event, LmOutput};
use serde_json::Value;

/// The shape every output transformer shares.
pub trait OutputTransformer {
    /// Transforms a whole output.
    fn transform(&mut self, output: LmOutput) -> Result<LmOutput>;
    /// Feeds one stream event; returns the events released by it.
    fn push(&mut self, event: Event) -> Result<Vec<Event>>;
    /// Ends the stream; returns the events still held back. Pushing afterwards is an error.
    fn finish(&mut self) -> Result<Vec<Event>>;
    /// Errors with `STREAM_FINISHED` once [`Self::finish`] has been called.
    fn ensure_open(&self) -> Result<()>;
}

/// Tracks whether a stream has finished, so misuse is an error and not silent data loss.
#[derive(Debug, Clone)]
pub struct Lifecycle {
    name: &'static str,
    finished: bool,
}

impl Lifecycle {
    pub fn new(name: &'static str) -> Self {
        Self {
            name,
            finished: false,
        }
    }

    /// Errors when the stream has finished.
    pub fn check(&self) -> Result<()> {
        if self.finished {
            Err(TransformError::StreamFinished {
                transformer: self.name,
            })
        } else {
            Ok(())
        }
    }

    /// Marks the stream finished; errors when it already was.
    pub fn finish(&mut self) -> Result<()> {
        self.check()?;
        self.finished = true;
        Ok(())
    }
}

/// An id prefix unique within the process (or wasm instance), so that ids of blocks from
/// different transformers never collide in one UI.
pub(crate) fn unique_prefix(tag: &str) -> String {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    let n = crate::text::Decimal::new(u64::from(NEXT.fetch_add(1, Ordering::Relaxed)));
    crate::text::cat(&[tag, n.as_str()])
}

/// Names the JSON kind of a value, for error messages.
pub(crate) fn json_kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}
