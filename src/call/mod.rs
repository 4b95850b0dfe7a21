//! One model call as a machine that does no I/O (sans-IO): it is told the request and the
//! transport's settings, says what to do next ([`Step`]: send, read the body up to a limit,
//! wait, hand the body to streaming, done, failed) and is told what happened ([`Outcome`]).
//! Every rule it applies is the transport's ([`crate::provider::transport`]): which redirects
//! are followed, the limits, what a failure means, when to try again, the error it gives up
//! with, and the secrets kept out of that error. A driver (the npm package's `fetch` loop,
//! the `web` face's) only moves bytes, runs timers and cancels.
//!
//! ```
//! use citeflow::call::{CallMachine, CallSettings, Head, Outcome, Step};
//!
//! let settings = CallSettings::default();
//! let mut call = CallMachine::new("openai", "https://api.test/v1/chat", settings, || 0.5);
//! assert!(matches!(call.next(), Step::Send { timeout_ms: Some(60_000), .. }));
//! call.report(Outcome::Answered(Head { status: 200, content_type: Some("application/json"), ..Head::default() }));
//! assert!(matches!(call.next(), Step::Read { .. }));
//! call.report(Outcome::Body { text: r#"{"choices":[]}"#, complete: true });
//! assert!(matches!(call.next(), Step::Done));
//! ```

mod error;
mod machine;
mod outcome;
mod settings;
mod step;
#[cfg(test)]
mod tests;

pub use error::{CallError, GaveUp};
pub use machine::CallMachine;
pub use outcome::{Head, Outcome, Target};
pub use settings::{merge_headers, CallSettings};
pub use step::Step;
