//! Errors of the citation domain.

use crate::text::{cat, display_by_message, invalid_option};

/// What went wrong while parsing, checking or exporting citations.
#[derive(Debug, Clone, PartialEq)]
pub enum CiteError {
    /// An option has a value that cannot be used.
    InvalidOption { option: String, reason: String },

    /// A grammar was asked for with no sources to cite.
    NoSources,

    /// `push` or `finish` after `finish`.
    StreamFinished,

    /// An event does not have the shape the parser needs.
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

    /// What went wrong, in words (its `Display`), composed without `core::fmt`.
    #[cold]
    #[inline(never)]
    pub fn message(&self) -> String {
        match self {
            Self::InvalidOption { option, reason } => invalid_option(option, reason),
            Self::NoSources => {
                "a citation grammar needs at least one source (sourceCount is 0)".to_owned()
            }
            Self::StreamFinished => {
                "CitationParser has already finished; create a new parser for a new stream"
                    .to_owned()
            }
            Self::InvalidEvent(why) => cat(&["invalid event: ", why]),
        }
    }

    pub(crate) fn option(option: &str, reason: impl Into<String>) -> Self {
        Self::InvalidOption {
            option: option.to_owned(),
            reason: reason.into(),
        }
    }
}

display_by_message!(CiteError);

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
