//! Talking to model providers: wire formats and (later) request builders and invokers.

pub mod sse;

pub use sse::{SseDecoder, SseError, SseMessage, DEFAULT_MAX_LINE_BYTES};
