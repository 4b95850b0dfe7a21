//! Errors of the output-transformer domain.
//!
//! Every variant has a stable [`TransformError::code`] that the JS binding copies onto the
//! thrown `Error` as `error.code`, so callers can branch on it without parsing messages.

use thiserror::Error;

use crate::json_escape::Quoted;

/// What went wrong while configuring or running an output transformer.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum TransformError {
    /// An option has a value the transformer cannot use.
    #[error("invalid option `{option}`: {reason}")]
    InvalidOption { option: String, reason: String },

    /// An event filter was given an empty or blank event type.
    #[error("event type cannot be empty or blank (got {} at index {index})", Quoted(.got))]
    EmptyEventType { index: usize, got: String },

    /// A config names a transformer type that does not exist.
    #[error("unknown output transformer type {}; supported types: {supported}", Quoted(.name))]
    UnknownTransformer { name: String, supported: String },

    /// A config has the wrong shape.
    #[error("invalid output transformer config: {0}")]
    InvalidConfig(String),

    /// `push` or `finish` was called after `finish`.
    #[error("{transformer} has already finished; create a new transformer for a new stream")]
    StreamFinished { transformer: &'static str },

    /// An event does not have the shape the transformer needs.
    #[error("invalid event: {0}")]
    InvalidEvent(String),

    /// An `LMOutput` does not have the expected shape.
    #[error("invalid LMOutput: {0}")]
    InvalidOutput(String),

    /// The validation transformer found required output types missing.
    #[error("output validation failed: expected {mode} of [{required}] but found [{found}]")]
    ValidationFailed {
        mode: &'static str,
        required: String,
        found: String,
    },
}

impl TransformError {
    /// The stable machine-readable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidOption { .. } => "INVALID_OPTION",
            Self::EmptyEventType { .. } => "EMPTY_EVENT_TYPE",
            Self::UnknownTransformer { .. } => "UNKNOWN_TRANSFORMER",
            Self::InvalidConfig(_) => "INVALID_CONFIG",
            Self::StreamFinished { .. } => "STREAM_FINISHED",
            Self::InvalidEvent(_) => "INVALID_EVENT",
            Self::InvalidOutput(_) => "INVALID_OUTPUT",
            Self::ValidationFailed { .. } => "VALIDATION_FAILED",
        }
    }

    pub(crate) fn option(option: &str, reason: impl Into<String>) -> Self {
        Self::InvalidOption {
            option: option.to_owned(),
            reason: reason.into(),
        }
    }
}

/// An option the options reader refused (`crate::options`), as the transformer's error.
impl From<crate::options::OptionError> for TransformError {
    fn from(e: crate::options::OptionError) -> Self {
        Self::InvalidOption {
            option: e.option,
            reason: e.reason,
        }
    }
}

/// Result alias for the transformer domain.
pub type Result<T, E = TransformError> = std::result::Result<T, E>;
