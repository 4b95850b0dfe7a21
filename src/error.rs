//! Errors of the output-transformer domain.
//!
//! Every variant has a stable [`TransformError::code`] that the JS binding copies onto the
//! thrown `Error` as `error.code`, so callers can branch on it without parsing messages.

use crate::text::{cat, decimal, invalid_option, quoted};

/// What went wrong while configuring or running an output transformer.
#[derive(Debug, Clone, PartialEq)]
pub enum TransformError {
    /// An option has a value the transformer cannot use.
    InvalidOption { option: String, reason: String },

    /// An event filter was given an empty or blank event type.
    EmptyEventType { index: usize, got: String },

    /// A config names a transformer type that does not exist.
    UnknownTransformer { name: String, supported: String },

    /// A config has the wrong shape.
    InvalidConfig(String),

    /// `push` or `finish` was called after `finish`.
    StreamFinished { transformer: &'static str },

    /// An event does not have the shape the transformer needs.
    InvalidEvent(String),

    /// An `LMOutput` does not have the expected shape.
    InvalidOutput(String),

    /// The validation transformer found required output types missing.
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

    /// What went wrong, in words (its `Display`), composed without `core::fmt`.
    #[cold]
    #[inline(never)]
    pub fn message(&self) -> String {
        match self {
            Self::InvalidOption { option, reason } => invalid_option(option, reason),
            Self::EmptyEventType { index, got } => cat(&[
                "event type cannot be empty or blank (got ",
                &quoted(got),
                " at index ",
                decimal(*index).as_str(),
                ")",
            ]),
            Self::UnknownTransformer { name, supported } => cat(&[
                "unknown output transformer type ",
                &quoted(name),
                "; supported types: ",
                supported,
            ]),
            Self::InvalidConfig(why) => cat(&["invalid output transformer config: ", why]),
            Self::StreamFinished { transformer } => cat(&[
                transformer,
                " has already finished; create a new transformer for a new stream",
            ]),
            Self::InvalidEvent(why) => cat(&["invalid event: ", why]),
            Self::InvalidOutput(why) => cat(&["invalid LMOutput: ", why]),
            Self::ValidationFailed {
                mode,
                required,
                found,
            } => cat(&[
                "output validation failed: expected ",
                mode,
                " of [",
                required,
                "] but found [",
                found,
                "]",
            ]),
        }
    }

    pub(crate) fn option(option: &str, reason: impl Into<String>) -> Self {
        Self::InvalidOption {
            option: option.to_owned(),
            reason: reason.into(),
        }
    }
}

crate::text::display_by_message!(TransformError);

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
