//! Talking to model providers: wire formats and (later) request builders and invokers.

pub mod sse;
pub mod stream;

pub use sse::{SseDecoder, SseError, SseMessage, DEFAULT_MAX_LINE_BYTES};
pub use stream::{ProviderByteStream, ProviderStreamDecoder, StreamError, StreamFormat, USAGE};
