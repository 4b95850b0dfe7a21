//! Talking to model providers: wire formats, request builders, answer and stream decoders,
//! failure classification and the retry schedule.
//!
//! Everything here reads what a model or provider sent, which is untrusted, inside a wasm
//! instance where a panic aborts the whole instance: no indexing, unwrapping or panicking
//! outside tests; bad input is an error with a stable code.

// Whole answers (the core module's; the lean streaming module has no cited-answer reader).
#[cfg(not(feature = "lean-stream"))]
mod answer;
mod cite_request;
pub mod decision;
mod embeddings;
mod failure;
// The providers beyond OpenAI's Chat Completions and Anthropic's Messages.
#[cfg(not(feature = "lean-stream"))]
pub(crate) mod formats;
// The token messages' own reader; the lean module reads them with `message_reader`.
#[cfg(not(feature = "lean-stream"))]
mod fast_delta;
pub mod framing;
pub mod lm_decision;
mod lm_decision_calls;
mod message_reader;
mod model_id;
pub mod native_citations;
#[cfg(not(feature = "lean-stream"))]
pub mod offsets;
mod pow10;
mod raw_json;
// The transport's rules and secret redaction: one implementation, asked by the npm package's
// JS face (src/wasm/transport.rs) and by the Rust face (`web`).
pub mod redact;
mod request;
mod request_error;
#[cfg(not(feature = "lean-stream"))]
pub mod sources;
pub mod sse;
pub mod stream;
mod token_shape;
pub mod transport;
pub mod usage;
mod wire;

#[cfg(not(feature = "lean-stream"))]
pub use answer::{cited_output, parse_response};
pub use cite_request::CiteRequest;
pub use decision::{build_dm_request, is_system_one, parse_dm_response};
pub use embeddings::{build_embeddings_request, parse_embeddings};
pub use failure::{
    answer_failure, classify_failure, retry_delay_ms, ProviderFailure, ERROR_BODY_CHARS,
    RETRY_BASE_MS, RETRY_MAX_MS,
};
pub use lm_decision::{lm_decision_answer, lm_decision_messages, yes_probability, TOP_LOGPROBS};
pub use lm_decision_calls::{
    check_max_concurrency, lm_decision_call_options, lm_decision_calls, lm_decision_result,
    DecisionBackend, LmDecisionCall, LmDecisionOutput, CALL_MAX_TOKENS, CALL_TEMPERATURE,
    DEFAULT_MAX_CONCURRENCY,
};
pub use model_id::{ModelId, Provider};
pub use request::{
    build_request, enforcement, HttpRequest, LmRequest, Message, ANTHROPIC_BASE, ANTHROPIC_VERSION,
    DEFAULT_ANTHROPIC_MAX_TOKENS, OPENAI_BASE, OPENROUTER_BASE, STRUCTURED_NOTE,
};
pub use request_error::RequestError;
pub use sse::{
    Given, SseDecoder, SseError, SseEvent, SseMessage, DEFAULT_MAX_EVENT_BYTES,
    DEFAULT_MAX_LINE_BYTES,
};
pub use stream::{
    ProviderByteStream, ProviderStreamDecoder, StreamError, StreamFormat, FULL_MODULE_FORMATS,
    STRUCTURED_DELTA, USAGE,
};
