//! Relevance: which retrieved chunks matter for a query (filters) or for an answer
//! (reference formatters). The model calls are async and live in JS; everything else
//! (similarity maths, prompts, the text shown to models, reading their answers) is here.

pub mod decision;
pub mod error;
pub mod lm;
// Read only by the JS face's relevance bindings (and the tests).
#[cfg(any(
    test,
    all(
        target_arch = "wasm32",
        not(any(
            feature = "web",
            feature = "wasm-csl-module",
            feature = "wasm-stream-module"
        ))
    )
))]
pub(crate) mod options;
pub mod similarity;

pub use decision::{decision_batch, decision_scores, DecisionKind};
pub use error::FilterError;
pub use lm::{
    fill_template, formatter_context, formatter_kept, formatter_schema, preset, reference_label,
    relevance_chunk_text, relevance_results, relevance_schema, Preset, PRESETS,
};
pub use similarity::{cosine_scores, SimilarityError};
