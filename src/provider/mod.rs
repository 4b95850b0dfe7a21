//! Talking to model providers: wire formats and (later) request builders and invokers.

pub mod decision;
pub mod lm_decision;
pub mod request;
pub mod sse;
pub mod stream;

pub use decision::{build_dm_request, parse_dm_response};
pub use lm_decision::{lm_decision_answer, lm_decision_messages, yes_probability, TOP_LOGPROBS};
pub use request::{
    build_embeddings_request, build_request, classify_failure, parse_embeddings, parse_response,
    retry_delay_ms, HttpRequest, LmRequest, Message, ModelId, Provider, ProviderFailure,
    RequestError,
};
pub use sse::{SseDecoder, SseError, SseMessage, DEFAULT_MAX_LINE_BYTES};
pub use stream::{ProviderByteStream, ProviderStreamDecoder, StreamError, StreamFormat, USAGE};
