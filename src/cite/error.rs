//! Errors of the citation domain.

use thiserror::Error;

/// What went wrong while parsing, checking or exporting citations.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CiteError {
    /// An option has a value that cannot be used.
    #[error("invalid option `{option}`: {reason}")]
    InvalidOption { option: String, reason: String },

    /// A grammar was asked for with no sources to cite.
    #[error("a citation grammar needs at least one source (sourceCount is 0)")]
    NoSources,

    /// `push` or `finish` after `finish`.
    #[error("CitationParser has already finished; create a new parser for a new stream")]
    StreamFinished,

    /// An event does not have the shape the parser needs.
    #[error("invalid event: {0}")]
    InvalidEvent(String),
}

impl CiteError {
    /// The stable machine-readable code of this error.
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidOption { .. } => "INVALID_OPTION",
            Self::NoSources => "NO_SOURCES",
            Self::StreamFinished => "STREAM_FINISHED",
            Self::InvalidEvent(_) => "INVALID_EVENT",
        }
    }

    pub(crate) fn option(option: &str, reason: impl Into<String>) -> Self {
        Self::InvalidOption {
            option: option.to_owned(),
            reason: reason.into(),
        }
    }
}

/// An option the options reader refused (`crate::options`), as the citation error.
impl From<crate::options::OptionError> for CiteError {
    fn from(e: crate::options::OptionError) -> Self {
        Self::InvalidOption {
            option: e.option,
            reason: e.reason,
        }
    }
}

pub type Result<T, E = CiteError> = std::result::Result<T, E>;
