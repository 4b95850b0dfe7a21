//! The Rust face: citeflow for Rust web apps compiled to `wasm32-unknown-unknown` (Leptos,
//! Dioxus, Yew, a plain `wasm-bindgen` page, a workers-rs Worker). Enabled by the `web`
//! feature; on other targets the feature adds nothing.
//!
//! Async model invokers that do the HTTP with the runtime's `fetch` (through `gloo-net`),
//! in browsers and workers alike:
//!
//! - [`LmInvoker`]: a language model. [`LmInvoker::invoke`] gives the whole answer
//!   ([`LmAnswer`]: text, thinking, [`Usage`], finish reason); [`LmInvoker::stream`] gives an
//!   [`EventStream`], a [`futures_core::Stream`] of the core's [`crate::event::Event`]s decoded
//!   from the response body's `ReadableStream` as it arrives, through the output transformers
//!   (think tags, event filters, JSON, the citation parser) in one
//!   [`crate::engine::StreamEngine`].
//! - [`EmInvoker`]: embeddings, in input order, in batches.
//! - [`DmInvoker`]: a decision model (System One, or a language model read from its
//!   log-probabilities), with [`question`] builders.
//!
//! They behave as the npm package's `buildLMInvoker`, `buildEMInvoker` and `buildDMInvoker`
//! do, because the rules are the same code: the core ([`crate::provider`]) builds the requests,
//! reads the answers, classifies failures, sets the retry schedule and the transport's limits
//! ([`crate::provider::transport`]) and redacts secrets ([`crate::provider::redact`]); this
//! module only fetches, waits and cancels. So: retries of 408, 409, 429, 5xx, timeouts and
//! network errors with backoff (or the server's `Retry-After`); a per-attempt timeout that
//! covers the wait for an answer; no redirect followed but a same-origin 307/308; answers
//! bounded by `max_response_bytes`; cancellation through a [`web_sys::AbortSignal`]
//! ([`Call::signal`]); one [`Error`] type whose [`ErrorCode`]s are the npm package's
//! `error.code`s, and whose text never holds the API key, even in part.
//!
//! # Streaming a cited answer
//!
//! ```no_run
//! use citeflow::transform::OutputTransformerConfig;
//! use citeflow::web::{Call, LmInvoker, Message, Options};
//! use futures_util::StreamExt;
//! use serde_json::json;
//!
//! # async fn run() -> Result<(), citeflow::web::Error> {
//! let citations = OutputTransformerConfig::from_value(
//!     &json!({"type": "citations", "kwargs": {"sourceCount": 2}}),
//! )?;
//! let lm = LmInvoker::new(
//!     "openai-compatible/SmolLM2-135M-Instruct",
//!     Options::new().base_url("http://127.0.0.1:8082/v1"),
//! )?
//! .with_output_transformers(vec![citations])?;
//!
//! let call = Call::messages(vec![
//!     Message { role: "system".into(), content: "Cite sources as [N].\n\nSource 1: …\n\nSource 2: …".into() },
//!     Message { role: "user".into(), content: "When was the Eiffel Tower completed?".into() },
//! ]);
//! let mut events = lm.stream(call);
//! while let Some(event) = events.next().await {
//!     let event = event?;
//!     match event.kind.as_str() {
//!         "response" => print!("{}", event.text_value().unwrap_or_default()),
//!         "citation" => println!("\n[cites source {}]", event.value["sourceId"]),
//!         "usage" => println!("\n{} tokens", event.value["totalTokens"]),
//!         _ => {}
//!     }
//! }
//! # Ok(()) }
//! ```
//!
//! A complete app, built and tested in headless Chromium against a local model, is in the
//! repository's `examples/rust-web/`.
//!
//! # Cancelling
//!
//! ```no_run
//! # async fn run(lm: citeflow::web::LmInvoker) {
//! use citeflow::web::{Call, ErrorCode};
//!
//! let controller = web_sys::AbortController::new().unwrap();
//! let answer = lm.invoke(Call::prompt("A long story, please.").signal(&controller.signal()));
//! controller.abort(); // e.g. from a Stop button
//! let error = answer.await.unwrap_err();
//! assert_eq!(error.code(), ErrorCode::Aborted);
//! # }
//! ```

#![deny(missing_docs)]

mod body;
pub mod call;
pub mod decision;
pub mod embeddings;
pub mod error;
pub mod lm;
pub mod options;
pub mod stream;
mod timer;
mod transport;
pub mod usage;

pub use call::Call;
pub use decision::{question, Decision, DmInvoker};
pub use embeddings::EmInvoker;
pub use error::{Error, ErrorCode};
pub use lm::{LmAnswer, LmInvoker};
pub use options::Options;
pub use stream::EventStream;
pub use usage::Usage;

/// The events a stream yields.
pub use crate::event::Event;
/// Citations to enforce on a call ([`Call::citations`]).
pub use crate::provider::CiteRequest;
/// One chat message (`role`: `system`, `user` or `assistant`).
pub use crate::provider::Message;
