//! citeflow: a client-side toolkit for cited, streamed language-model answers.
//!
//! The core is plain Rust that builds and tests natively; the JS face (compiled to
//! WebAssembly and shipped as the `citeflow` npm package) lives in `src/wasm/` and only
//! converts at the boundary.
//!
//! Every stage is a synchronous state machine: `push` input, get output; `finish` at the end.
//! A whole output is the same machine fed once, so streamed and whole results agree for any
//! split of the input.
//!
//! ```
//! use citeflow::event::Event;
//! use citeflow::transform::{OutputTransformer, OutputTransformerChain, OutputTransformerConfig};
//!
//! let mut chain = OutputTransformerChain::from_configs(&[
//!     OutputTransformerConfig::think_tag(),
//!     OutputTransformerConfig::event_filter(&["response"]),
//! ]).unwrap();
//! let mut answer = String::new();
//! for chunk in ["<think>hidden</th", "ink>The answer", " is 42."] {
//!     for event in chain.push(Event::response(chunk)).unwrap() {
//!         answer.push_str(event.text_value().unwrap_or_default());
//!     }
//! }
//! chain.finish().unwrap();
//! assert_eq!(answer, "The answer is 42.");
//! ```
//!
//! # Where to start
//!
//! - [`transform`]: output transformers (think tags, event filters, JSON) and their chains.
//! - [`cite`]: citation markers, the streaming citation parser, policies and grammars.
//! - [`engine`]: provider decoding, transformers and citations in one streaming machine.
//! - [`provider`]: model ids, requests, answers, streams, failures and retries for OpenAI,
//!   Anthropic, OpenRouter and OpenAI-compatible servers.
//! - [`reference`](mod@reference), [`filter`], [`chunk`]: sources, relevance and reference lists (CSL styles
//!   with the `csl` feature).
//! - `web` (feature `web`, target `wasm32-unknown-unknown`): async model invokers for Rust web
//!   apps, over `fetch`, streaming as a `futures` stream of [`event::Event`]s.
//!
//! # Features
//!
//! - `csl`: the CSL engine (styled bibliographies).
//! - `web`: the Rust face for wasm32 web apps and workers (`gloo-net`, `wasm-bindgen-futures`,
//!   `web-sys`). With it, the npm package's JS bindings are left out of the build, so an app's
//!   wasm exports only its own functions. On other targets it adds nothing.
//!
//! ```toml
//! [dependencies]
//! citeflow = { version = "0.1", features = ["web"] }
//! ```

#![cfg_attr(docsrs, feature(doc_cfg))]
// Untrusted input must never abort the wasm instance: no panicking shortcuts in the library
// (tests may use them). Where an invariant truly rules a panic out, a local `allow` says why.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::string_slice,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented
    )
)]

#[doc(hidden)]
pub mod abi;
pub mod call;
pub mod chunk;
pub mod cite;
pub mod engine;
pub mod error;
pub mod event;
pub mod filter;
pub mod html;
mod json_escape;
mod options;
pub mod provider;
pub mod reference;
pub mod source_item;
mod text;
pub mod transform;
pub mod utf16;

// The npm package's JS face. A Rust app built with `web` exports only its own functions (and
// defines its own start function), so the JS face stays out of its wasm.
#[cfg(all(target_arch = "wasm32", not(feature = "web")))]
mod wasm;
#[cfg(all(feature = "web", target_arch = "wasm32"))]
#[cfg_attr(docsrs, doc(cfg(all(feature = "web", target_arch = "wasm32"))))]
pub mod web;
