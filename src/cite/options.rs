//! Reading citation options from JSON-like maps (what JS callers pass).

use crate::event::json_text;
use serde_json::{Map, Value};

use super::citation::ParseOptions;
use super::error::{CiteError, Result};
use super::grammar::{GrammarFormat, GrammarOptions, DEFAULT_MAX_CONTENT_CHARS};
use super::marker::MarkerStyle;
use super::policy::Policy;

const KEYS: [&str; 7] = [
    "markerStyle",
    "sourceCount",
    "policy",
    "maxContentChars",
    "format",
    "maxSentences",
    "maxCitesPerSentence",
];

/// Checked citation options; which ones a function reads is up to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CiteOptions {
    pub marker_style: MarkerStyle,
    pub source_count: Option<u32>,
    pub policy: Option<Policy>,
    pub max_content_chars: Option<usize>,
    pub format: Option<GrammarFormat>,
    pub max_sentences: Option<u32>,
    pub max_cites_per_sentence: Option<u32>,
}

/// A count option that must fit 32 bits.
fn count32(map: &Map<String, Value>, key: &str) -> Result<Option<u32>> {
    count(map, key)?
        .map(|n| u32::try_from(n).map_err(|_| CiteError::option(key, "is too large")))
        .transpose()
}

fn string<'a>(map: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(CiteError::option(
            key,
            format!("expected a string, got {}", json_text(other)),
        )),
    }
}

fn count(map: &Map<String, Value>, key: &str) -> Result<Option<u64>> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Number(n)) => match (n.as_u64(), n.as_f64()) {
            (Some(v), _) => Ok(Some(v)),
            (None, Some(f)) if f >= 0.0 && f.fract() == 0.0 && f <= u32::MAX as f64 => {
                Ok(Some(f as u64))
            }
            _ => Err(CiteError::option(
                key,
                format!("expected a whole number ≥ 0, got {n}"),
            )),
        },
        Some(other) => Err(CiteError::option(
            key,
            format!("expected a whole number ≥ 0, got {}", json_text(other)),
        )),
    }
}

impl CiteOptions {
    /// Reads `markerStyle`, `sourceCount`, `policy`, `maxContentChars`, `format`,
    /// `maxSentences` and `maxCitesPerSentence`; any
    /// other key is an error (a misspelt option must not be ignored).
    pub fn from_map(map: &Map<String, Value>) -> Result<Self> {
        if let Some(unknown) = map.keys().find(|k| !KEYS.contains(&k.as_str())) {
            return Err(CiteError::option(
                unknown,
                format!("no such option; the options are {}", KEYS.join(", ")),
            ));
        }
        let source_count = count32(map, "sourceCount")?;
        Ok(Self {
            marker_style: string(map, "markerStyle")?
                .map(MarkerStyle::parse)
                .transpose()?
                .unwrap_or_default(),
            source_count,
            policy: string(map, "policy")?.map(Policy::parse).transpose()?,
            max_content_chars: count(map, "maxContentChars")?
                .map(|n| {
                    usize::try_from(n)
                        .map_err(|_| CiteError::option("maxContentChars", "is too large"))
                })
                .transpose()?,
            format: string(map, "format")?
                .map(GrammarFormat::parse)
                .transpose()?,
            max_sentences: count32(map, "maxSentences")?,
            max_cites_per_sentence: count32(map, "maxCitesPerSentence")?,
        })
    }

    pub fn parse_options(&self) -> ParseOptions {
        ParseOptions {
            marker_style: self.marker_style,
            source_count: self.source_count,
        }
    }

    /// Grammar options; `sourceCount` is required.
    pub fn grammar_options(&self) -> Result<GrammarOptions> {
        Ok(GrammarOptions {
            policy: self.policy.unwrap_or_default(),
            marker_style: self.marker_style,
            source_count: self
                .source_count
                .ok_or_else(|| CiteError::option("sourceCount", "is required"))?,
            max_content_chars: self.max_content_chars.unwrap_or(DEFAULT_MAX_CONTENT_CHARS),
            format: self.format.unwrap_or_default(),
            max_sentences: self.max_sentences,
            max_cites_per_sentence: self.max_cites_per_sentence,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(v: Value) -> Result<CiteOptions> {
        CiteOptions::from_map(v.as_object().unwrap())
    }

    #[test]
    fn reads_and_rejects() {
        let o = read(json!({"markerStyle": "paren", "sourceCount": 3.0, "policy": "quotes_only"}))
            .unwrap();
        assert_eq!(
            (o.marker_style, o.source_count, o.policy),
            (MarkerStyle::Paren, Some(3), Some(Policy::QuotesOnly))
        );
        for bad in [
            json!({"sourceCount": -1}),
            json!({"sourceCount": 1.5}),
            json!({"sourceCount": true}),
            json!({"markerStyle": "angle"}),
            json!({"sourcecount": 3}),
        ] {
            assert_eq!(
                read(bad.clone()).unwrap_err().code(),
                "INVALID_OPTION",
                "{bad}"
            );
        }
        assert!(read(json!({})).unwrap().grammar_options().is_err());
    }
}
