//! Talking to model providers: wire formats, request builders, answer and stream decoders,
//! failure classification and the retry schedule.
//!
//! Everything here reads what a model or provider sent, which is untrusted, inside a wasm
//! instance where a panic aborts the whole instance: no indexing, unwrapping or panicking
//! outside tests; bad input is an error with a stable code.

pub mod decision;
mod fast_delta;
pub mod framing;
pub mod lm_decision;
pub mod native_citations;
// The transport's rules and secret redaction, shared by the Rust face (`web`) and natively
// tested; the npm package's modules leave them out until its JS face calls them (unused, they
// still change the optimised wasm by a few hundred bytes).
#[cfg(any(feature = "web", not(target_arch = "wasm32")))]
pub mod redact;
pub mod request;
pub mod sse;
pub mod stream;
#[cfg(any(feature = "web", not(target_arch = "wasm32")))]
pub mod transport;
pub mod usage;
mod wire;

pub use decision::{build_dm_request, parse_dm_response};
pub use lm_decision::{lm_decision_answer, lm_decision_messages, yes_probability, TOP_LOGPROBS};
pub use request::{
    answer_failure, build_embeddings_request, build_request, cited_output, classify_failure,
    enforcement, parse_embeddings, parse_response, retry_delay_ms, CiteRequest, HttpRequest,
    LmRequest, Message, ModelId, Provider, ProviderFailure, RequestError,
};
pub use sse::{SseDecoder, SseError, SseMessage, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES};
pub use stream::{
    ProviderByteStream, ProviderStreamDecoder, StreamError, StreamFormat, STRUCTURED_DELTA, USAGE,
};
