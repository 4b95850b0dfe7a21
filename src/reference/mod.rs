//! References: the list of cited sources, rendered in a citation style.
//!
//! Source metadata is a CSL-JSON item. Rendering with citeflow's own CSL 1.0.2 processor
#![cfg_attr(feature = "csl", doc = "([`engine`], in src/csl/)")]
#![cfg_attr(not(feature = "csl"), doc = "(`engine`, in src/csl/)")]
//! is behind the `csl` feature and ships as the separate `citeflow/csl` wasm module.

mod bundled;
#[cfg(feature = "csl")]
mod csl;
/// citeflow's own CSL processor (src/csl/).
#[cfg(feature = "csl")]
#[path = "../csl/mod.rs"]
pub mod engine;
#[cfg(feature = "csl")]
mod source;
#[cfg(feature = "csl")]
mod style_guard;

/// The style used when none is named.
pub const DEFAULT_STYLE: &str = "apa-7";

pub use bundled::{
    bundled_style, bundled_style_file, bundled_style_names, check_style, is_style_xml, UnknownStyle,
};
#[cfg(all(feature = "csl", not(feature = "wasm-csl-module")))]
pub use csl::{compiled_style, render_references};
#[cfg(feature = "csl")]
pub use csl::{
    processor, render_references_with, unpack_sources, RenderOptions, StyleLoader, StyleSource,
    MAX_RENDERED_SOURCES,
};
#[cfg(feature = "csl")]
pub use style_guard::{MAX_MACRO_EXPANSIONS, MAX_XML_DEPTH};

use serde::{Deserialize, Serialize};
use thiserror::Error;

/// One entry of a reference list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Reference {
    /// 1-based position of the source in the list given to the model.
    pub source_id: u32,
    /// The style's own in-text citation for this source alone: "(Poe, 1845)", "\[1\]".
    pub inline_marker: String,
    /// The rendered bibliography entry (text, or escaped HTML).
    pub entry: String,
}

/// Output format of rendered references.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RefFormat {
    #[default]
    Text,
    /// HTML with every piece of metadata escaped and only http(s) links.
    Html,
}

/// What went wrong while rendering references.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum ReferenceError {
    #[error("sources[{index}]: {reason}")]
    InvalidSource { index: usize, reason: String },
    #[error("{0}")]
    UnknownStyle(UnknownStyle),
    #[error("the bundled style {name:?} is not loaded yet: `await loadStyle({name:?})` of \"citeflow/csl\" first, or use the async renderReferences of \"citeflow\"")]
    StyleNotLoaded { name: String },
    #[error("invalid CSL style XML: {0}")]
    InvalidStyle(String),
    #[error("invalid CSL locale XML: {0}")]
    InvalidLocale(String),
    #[error("invalid option `{option}`: {reason}")]
    InvalidOption { option: String, reason: String },
    #[error("there are no sources to render")]
    NoSources,
    #[error("{count} sources to render, more than the limit of {limit} in one call")]
    TooManySources { count: usize, limit: usize },
}

impl ReferenceError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidSource { .. } => "INVALID_SOURCE",
            Self::UnknownStyle(_) => "UNKNOWN_STYLE",
            Self::StyleNotLoaded { .. } => "STYLE_NOT_LOADED",
            Self::InvalidStyle(_) => "INVALID_STYLE",
            Self::InvalidLocale(_) => "INVALID_LOCALE",
            Self::InvalidOption { .. } => "INVALID_OPTION",
            Self::NoSources => "NO_SOURCES",
            Self::TooManySources { .. } => "TOO_MANY_SOURCES",
        }
    }
}
