//! What the relevance components refuse in a model's answer, each with its stable code.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum FilterError {
    /// A relevance filter's or reference formatter's answer that does not fit its batch.
    #[error("{0}")]
    ModelAnswer(String),
    /// A decision model's answers without the `noul` probability asked for.
    #[error("{0}")]
    DecisionAnswer(String),
}

impl FilterError {
    /// The stable machine-readable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::ModelAnswer(_) => "INVALID_MODEL_ANSWER",
            Self::DecisionAnswer(_) => "INVALID_PROVIDER_DATA",
        }
    }
}
