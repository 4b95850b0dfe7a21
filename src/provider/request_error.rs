//! The error of building requests and reading answers, with its stable codes.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Error)]
pub enum RequestError {
    #[error("invalid model id {id:?}: {reason}")]
    InvalidModelId { id: String, reason: String },
    #[error("invalid option `{option}`: {reason}")]
    InvalidOption {
        option: &'static str,
        reason: String,
    },
    #[error("{provider} answered with something that is not the expected JSON: {detail}")]
    InvalidResponse {
        provider: &'static str,
        detail: String,
    },
    /// The model's structured answer (the JSON a `responseSchema` or a cited answer asked
    /// for) is not what was asked: the model's output, not the provider's envelope.
    #[error("invalid LMOutput: {0}")]
    InvalidOutput(String),
}

impl RequestError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidModelId { .. } => "INVALID_MODEL_ID",
            Self::InvalidOption { .. } => "INVALID_OPTION",
            Self::InvalidResponse { .. } => "INVALID_PROVIDER_DATA",
            Self::InvalidOutput(_) => "INVALID_OUTPUT",
        }
    }
}
