//! The Rust face for web apps compiled to wasm32 (feature `web`).
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

pub use crate::provider::Message;
pub use call::Call;
pub use decision::{question, Decision, DmInvoker};
pub use embeddings::EmInvoker;
pub use error::{Error, ErrorCode};
pub use lm::{LmAnswer, LmInvoker};
pub use options::Options;
pub use stream::EventStream;
pub use usage::Usage;
