//! The citations a request asks for (`citations: {enforce, ...}`), read with Citeformer's
//! citation options.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::cite::{CiteOptions, Enforce, ParseOptions, Policy};

use super::RequestError;

/// The citations a request asks for: `enforce` and Citeformer's citation options, read as
/// `citationGrammar` reads them (`policy`, `markerStyle`, `sourceCount`, and the grammar's
/// bounds such as `maxSentences`), unknown keys refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CiteRequest {
    pub options: CiteOptions,
    pub enforce: Enforce,
}

impl CiteRequest {
    /// Reads `{enforce, ...citation options}`.
    pub fn from_value(value: &Value) -> Result<Self, RequestError> {
        let Value::Object(map) = value else {
            return Err(RequestError::InvalidOption {
                option: "citations",
                reason: "expected an object {enforce, policy, markerStyle, sourceCount}".into(),
            });
        };
        let (options, enforce) = CiteOptions::with_enforce(map).map_err(cite_error)?;
        Ok(Self {
            options,
            enforce: enforce.unwrap_or_default(),
        })
    }

    /// How the answer's markers are read.
    pub fn parse_options(&self) -> ParseOptions {
        self.options.parse_options()
    }
}

// Read through the options reader citationGrammar uses (one reader for citation options; a
// derived reader would cost the module a copy of its own).
impl<'de> Deserialize<'de> for CiteRequest {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let value = Value::deserialize(d)?;
        Self::from_value(&value).map_err(serde::de::Error::custom)
    }
}

impl Serialize for CiteRequest {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let o = &self.options;
        let value = json!({
            "enforce": self.enforce.name(),
            "policy": o.policy.map(Policy::name),
            "markerStyle": o.marker_style.name(),
            "sourceCount": o.source_count,
            "maxContentChars": o.max_content_chars,
            "maxSentences": o.max_sentences,
            "maxCitesPerSentence": o.max_cites_per_sentence,
        });
        value.serialize(s)
    }
}

pub(super) fn cite_error(e: crate::cite::CiteError) -> RequestError {
    RequestError::InvalidOption {
        option: "citations",
        reason: e.to_string(),
    }
}
