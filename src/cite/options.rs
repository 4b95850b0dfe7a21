//! Citation options (what JS callers pass to the citation functions, Citeformer, the
//! citation stages and invokers' `citations`), read by the one options reader
//! (`crate::options`).

use serde::de::DeserializeOwned;
use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::{Map, Value};

use super::citation::ParseOptions;
use super::enforce::Enforce;
use super::error::{CiteError, Result};
use super::grammar::{GrammarFormat, GrammarOptions, DEFAULT_MAX_CONTENT_CHARS};
use super::marker::MarkerStyle;
use super::policy::Policy;
use crate::options::reader::{choice, count, fields, optional, Keys, OptionEntries};
use crate::options::{self, named};

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

impl CiteOptions {
    /// Reads `markerStyle`, `sourceCount`, `policy`, `maxContentChars`, `format`,
    /// `maxSentences` and `maxCitesPerSentence`; any other key is an error (a misspelt option
    /// must not be ignored).
    pub fn from_map(map: &Map<String, Value>) -> Result<Self> {
        Self::from_entries(options::entries(map))
    }

    /// [`CiteOptions::from_map`] from either source of options ([`crate::options::reader`]).
    pub(crate) fn from_entries<E: OptionEntries>(entries: E) -> Result<Self> {
        match Self::with_enforce_from(entries)? {
            (options, None) => Ok(options),
            (_, Some(_)) => Err(CiteError::option(
                "enforce",
                "is an option of an invoker's `citations`, not of these citation options",
            )),
        }
    }

    /// The options and `enforce` (an invoker's `citations` option).
    pub fn with_enforce(map: &Map<String, Value>) -> Result<(Self, Option<Enforce>)> {
        Self::with_enforce_from(options::entries(map))
    }

    /// The keys as given (camelCase), `null` as absent. `enforce` is read here too (one
    /// reader, one list of keys) but only an invoker's `citations` takes it.
    fn with_enforce_from<E: OptionEntries>(entries: E) -> Result<(Self, Option<Enforce>)> {
        const KEYS: &Keys = &[
            ("markerStyle", 0),
            ("sourceCount", 1),
            ("policy", 2),
            ("maxContentChars", 3),
            ("format", 4),
            ("maxSentences", 5),
            ("maxCitesPerSentence", 6),
            ("enforce", 7),
        ];
        let mut o = Self::default();
        let mut enforce = None;
        fields("citation", entries, KEYS, |slot, read| {
            match slot {
                0 => o.marker_style = optional(read, choice)?.unwrap_or_default(),
                1 => o.source_count = optional(read, count)?,
                2 => o.policy = optional(read, choice)?,
                // A u32 fits usize on every target this builds for (32 and 64 bits).
                3 => o.max_content_chars = optional(read, count)?.map(|n| n as usize),
                4 => o.format = optional(read, choice)?,
                5 => o.max_sentences = optional(read, count)?,
                6 => o.max_cites_per_sentence = optional(read, count)?,
                _ => enforce = optional(read, choice)?,
            }
            Ok(())
        })?;
        Ok((o, enforce))
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

/// `new Citeformer({...})`'s options, their plain data checked here; the JS-only values
/// (`lmInvoker`, an object with methods, and `toCslItem`, a function) are checked by the JS face,
/// which does not pass them, and are listed only so that a misspelt key's error names them.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CiteformerFields {
    #[serde(default)]
    #[allow(dead_code)] // named for the error message; checked in JS
    lm_invoker: Option<IgnoredAny>,
    #[serde(default)]
    style: Option<String>,
    #[serde(default, deserialize_with = "named")]
    citation_policy: Option<Policy>,
    #[serde(default, deserialize_with = "named")]
    marker_style: Option<MarkerStyle>,
    #[serde(default)]
    #[allow(dead_code)] // named for the error message; checked in JS
    to_csl_item: Option<IgnoredAny>,
    #[serde(default)]
    deduplicate_cites: Option<bool>,
    #[serde(default, deserialize_with = "named")]
    enforce: Option<Enforce>,
}

/// A Citeformer's checked options, defaults filled in.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CiteformerOptions {
    pub style: String,
    pub citation_policy: Policy,
    pub marker_style: MarkerStyle,
    pub deduplicate_cites: bool,
    pub enforce: Enforce,
}

impl CiteformerOptions {
    pub fn from_map(map: &Map<String, Value>) -> Result<Self> {
        let f: CiteformerFields = read("Citeformer", map)?;
        Ok(Self {
            style: f
                .style
                .unwrap_or_else(|| crate::reference::DEFAULT_STYLE.to_owned()),
            citation_policy: f.citation_policy.unwrap_or_default(),
            marker_style: f.marker_style.unwrap_or_default(),
            deduplicate_cites: f.deduplicate_cites.unwrap_or(true),
            enforce: f.enforce.unwrap_or_default(),
        })
    }
}

/// A Citeformer call's options (`generate`, `stream`, `request`): the plain data checked here;
/// `prompt` (its own error code), `sources` and `modelOptions` (the model's, which may hold an
/// `AbortSignal`) are read by the JS face and listed only so that a misspelt key's error names
/// them. What is not given stays `None` (the Citeformer's own value).
#[derive(Debug, Clone, PartialEq, Default, Deserialize, serde::Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CallOptions {
    #[serde(default, skip_serializing)]
    prompt: Option<IgnoredAny>,
    #[serde(default, skip_serializing)]
    sources: Option<IgnoredAny>,
    #[serde(default, deserialize_with = "named")]
    pub policy: Option<Policy>,
    #[serde(default, deserialize_with = "named")]
    pub marker_style: Option<MarkerStyle>,
    #[serde(default, deserialize_with = "named")]
    pub enforce: Option<Enforce>,
    #[serde(default, skip_serializing)]
    model_options: Option<IgnoredAny>,
}

impl CallOptions {
    pub fn from_map(map: &Map<String, Value>) -> Result<Self> {
        read("Citeformer call", map)
    }
}

fn read<T: DeserializeOwned>(owner: &str, map: &Map<String, Value>) -> Result<T> {
    Ok(options::read(owner, map)?)
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

    #[test]
    fn names_the_refused_key_and_why() {
        let o = read(
            json!({"markerStyle": "caret", "maxSentences": 4, "format": "jsonSchema",
            "policy": "quotesOnly", "maxContentChars": null}),
        )
        .unwrap();
        assert_eq!(o.marker_style, MarkerStyle::Caret);
        assert_eq!(o.max_sentences, Some(4));
        assert_eq!(o.format, Some(GrammarFormat::JsonSchema));
        assert_eq!(o.policy, Some(Policy::QuotesOnly));
        for (bad, key, why) in [
            (json!({"stlye": "paren"}), "stlye", "markerStyle"),
            (json!({"sourceCount": "3"}), "sourceCount", "a whole number"),
            (
                json!({"maxSentences": 1.5}),
                "maxSentences",
                "a whole number",
            ),
            (json!({"sourceCount": 5e9}), "sourceCount", "a whole number"),
            (json!({"policy": 1}), "policy", "invalid type"),
            (json!({"markerStyle": "angle"}), "markerStyle", "bracket"),
            (json!({"enforce": "tool"}), "enforce", "invoker"),
        ] {
            match read(bad.clone()).unwrap_err() {
                CiteError::InvalidOption { option, reason } => {
                    assert_eq!(option, key, "{bad}");
                    assert!(reason.contains(why), "{bad}: {reason}");
                }
                other => panic!("{bad}: {other}"),
            }
        }
        let (_, enforce) =
            CiteOptions::with_enforce(json!({"enforce": "tool"}).as_object().unwrap()).unwrap();
        assert_eq!(enforce, Some(Enforce::Tool));
    }
}
