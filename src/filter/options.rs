//! The relevance components' plain options: one struct for all seven, each taking its own keys,
//! read by [`crate::options::derived::read_taking`] (a key the component does not take, or a value of
//! the wrong type or range, refused naming the key), defaults filled in. The JS-only options
//! (invokers, callbacks, a `ContextConfig`) stay in JS.

use serde::de::{self, Deserializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::lm::{formatter_schema, preset, relevance_schema};
use crate::chunk::MetadataMap;
use crate::options::derived::{count, read_taking};
use crate::options::OptionError;

const DEFAULT_THRESHOLD: f64 = 0.5;
const DEFAULT_BATCH_SIZE: u32 = 5;
/// HTTP requests in flight at most (the decision models' default: one bound for both).
const DEFAULT_MAX_CONCURRENCY: u32 = crate::provider::DEFAULT_MAX_CONCURRENCY as u32;

/// Every relevance component's plain options, defaults filled in by [`settings`] (`null`: not
/// one of the component's options, or none). One struct for all of them (one derived struct
/// each cost 8.6 KB of the core module, gzip); which keys each takes is [`KEYS`].
#[derive(Debug, Default, Deserialize, Serialize, PartialEq)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct Settings {
    #[serde(default, deserialize_with = "unit")]
    pub threshold: Option<f64>,
    #[serde(default, deserialize_with = "at_least_one")]
    pub batch_size: Option<u32>,
    #[serde(default, deserialize_with = "at_least_one")]
    pub max_concurrency: Option<u32>,
    #[serde(default)]
    pub on_failure_keep_all: Option<bool>,
    #[serde(default, deserialize_with = "text")]
    pub system_template: Option<String>,
    #[serde(default, deserialize_with = "text")]
    pub user_template: Option<String>,
    /// Read: absent is `None`, `null` (no structured output) `Some(Null)`.
    #[serde(default, deserialize_with = "given")]
    pub response_schema: Option<Value>,
    #[serde(default)]
    pub metadata: Option<Vec<String>>,
    #[serde(default)]
    pub chunk_format: Option<String>,
    #[serde(default, deserialize_with = "text")]
    pub reference_metadata: Option<String>,
    #[serde(default)]
    pub relevance_question: Option<Value>,
    #[serde(default)]
    pub stringify: Option<bool>,
    #[serde(default)]
    pub streamable: Option<bool>,
    #[serde(default)]
    pub format_chunk_metadata_map: Option<MetadataMap>,
}

const FORMAT: &str =
    "stringify streamable formatChunkMetadataMap formatChunkFunc formatReferencesFunc";
const LM: &str =
    "batchSize maxConcurrency systemTemplate userTemplate responseSchema fallbackLms contextConfig";
const DM: &str = "threshold relevanceQuestion batchSize maxConcurrency contextConfig";

/// Each component's options (its JS-only ones too, which JS keeps: invokers, callbacks, a
/// `ContextConfig`), and those of `GenerationResult.verify` (a threshold on the same scale, and
/// the judge, a JS callback).
const KEYS: [(&str, [&str; 2]); 8] = [
    ("NoOpReferenceFormatter", [FORMAT, ""]),
    ("SimilarityRelevanceFilter", ["threshold contextConfig", ""]),
    ("SimilarityReferenceFormatter", ["threshold contextConfig", FORMAT]),
    ("LMRelevanceFilter", [LM, "onFailureKeepAll metadata chunkFormat"]),
    ("LMReferenceFormatter", [LM, "referenceMetadata stringify streamable formatChunkMetadataMap formatChunkFunc formatReferencesFunc"]),
    ("DMRelevanceFilter", [DM, ""]),
    ("DMReferenceFormatter", [DM, FORMAT]),
    ("verify", ["threshold judge", ""]),
];

/// A threshold: a number from 0 to 1, `null` as absent.
fn unit<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    match Option::<f64>::deserialize(d)? {
        Some(n) if !(0.0..=1.0).contains(&n) => {
            Err(de::Error::custom("must be a number from 0 to 1"))
        }
        n => Ok(n),
    }
}

/// A batch size or concurrency: a whole number ≥ 1, `null` as absent.
fn at_least_one<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match count(d)? {
        Some(0) => Err(de::Error::custom("must be a whole number ≥ 1")),
        n => Ok(n),
    }
}

/// A template or key: a string with more than white space, `null` as absent.
fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    match Option::<String>::deserialize(d)? {
        Some(s) if s.trim().is_empty() => Err(de::Error::custom("must be a non-empty string")),
        s => Ok(s),
    }
}

/// Any value, `null` included (absent is `None`, `null` is `Some(Value::Null)`).
fn given<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// The options of the component `kind` (its class name, e.g. `LMRelevanceFilter`), read and
/// with defaults filled; `owner` names it in errors. A key `kind` does not take is refused
/// first, then the values are read.
pub(crate) fn settings(
    kind: &str,
    owner: &str,
    map: &Map<String, Value>,
) -> Result<Settings, OptionError> {
    let refuse = |option: &str, reason: String| OptionError {
        option: option.to_owned(),
        reason,
    };
    let Some((_, lists)) = KEYS.iter().find(|(k, _)| *k == kind) else {
        return Err(refuse("kind", format!("no relevance component {kind:?}")));
    };
    let mut s: Settings = read_taking(owner, map, lists)?;
    let takes = |key: &str| lists.iter().any(|l| l.split_whitespace().any(|t| t == key));
    if takes("threshold") {
        s.threshold.get_or_insert(DEFAULT_THRESHOLD);
    }
    if takes("batchSize") {
        s.batch_size.get_or_insert(DEFAULT_BATCH_SIZE);
        s.max_concurrency.get_or_insert(DEFAULT_MAX_CONCURRENCY);
    }
    if takes("stringify") {
        s.stringify.get_or_insert(true);
        s.streamable.get_or_insert(true);
    }
    if takes("onFailureKeepAll") {
        s.on_failure_keep_all.get_or_insert(true);
    }
    if takes("systemTemplate") {
        let formatter = takes("referenceMetadata");
        let key = s
            .reference_metadata
            .get_or_insert_with(|| "file_name".to_owned());
        let default = if formatter {
            formatter_schema(key)
        } else {
            relevance_schema()
        };
        if !formatter {
            s.reference_metadata = None;
        }
        s.response_schema = match s.response_schema.take() {
            Some(Value::Null) => None,
            given => Some(given.unwrap_or(default)),
        };
        if let Some(p) = preset(if formatter {
            "reference-formatter"
        } else {
            "relevance-filter"
        }) {
            // A system template of one's own that already shows the chunks, with the preset's
            // user message, would send them twice: such a template needs its user message too.
            if let (Some(system), None) = (&s.system_template, &s.user_template) {
                if let Some(name) = ["{chunks}", "{context}"]
                    .into_iter()
                    .find(|name| system.contains(name))
                {
                    return Err(refuse(
                        "userTemplate",
                        format!(
                            "is needed with a systemTemplate showing {name} (the default user \
                             message would send the chunks again)"
                        ),
                    ));
                }
            }
            s.system_template.get_or_insert_with(|| p.system.to_owned());
            s.user_template.get_or_insert_with(|| p.user.to_owned());
        }
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_system_template_showing_the_chunks_needs_its_user_template() {
        for (kind, name) in [
            ("LMRelevanceFilter", "{chunks}"),
            ("LMRelevanceFilter", "{context}"),
            ("LMReferenceFormatter", "{context}"),
        ] {
            let system = format!("Judge these: {name}");
            let err = of(kind, json!({ "systemTemplate": system })).unwrap_err();
            assert_eq!(err.option, "userTemplate", "{kind} {name}");
            assert!(err.reason.contains(name), "{}", err.reason);
            let both = of(
                kind,
                json!({ "systemTemplate": system, "userTemplate": "Go." }),
            )
            .unwrap();
            assert_eq!(both.user_template.as_deref(), Some("Go."));
        }
        let own = of(
            "LMRelevanceFilter",
            json!({ "systemTemplate": "Be strict." }),
        )
        .unwrap();
        assert_eq!(
            own.user_template.as_deref(),
            preset("relevance-filter").map(|p| p.user)
        );
    }

    fn of(kind: &str, v: Value) -> Result<Settings, OptionError> {
        settings(kind, kind, v.as_object().unwrap())
    }

    #[test]
    fn defaults_filled_and_bad_options_named() {
        let s = of("LMRelevanceFilter", json!({})).unwrap();
        assert_eq!((s.batch_size, s.max_concurrency), (Some(5), Some(10)));
        assert_eq!(s.response_schema, Some(relevance_schema()));
        assert!(s.system_template.is_some() && s.threshold.is_none());
        let s = of("LMRelevanceFilter", json!({"responseSchema": null})).unwrap();
        assert_eq!(s.response_schema, None);
        let s = of("LMReferenceFormatter", json!({"referenceMetadata": "doc"})).unwrap();
        assert_eq!(s.response_schema, Some(formatter_schema("doc")));
        assert_eq!(
            of("DMRelevanceFilter", json!({})).unwrap().threshold,
            Some(0.5)
        );
        for (kind, bad, key) in [
            (
                "SimilarityRelevanceFilter",
                json!({"treshold": 0.5}),
                "treshold",
            ),
            (
                "SimilarityRelevanceFilter",
                json!({"threshold": 2}),
                "threshold",
            ),
            (
                "SimilarityRelevanceFilter",
                json!({"stringify": true}),
                "stringify",
            ),
            ("DMRelevanceFilter", json!({"batchSize": 0}), "batchSize"),
            (
                "DMReferenceFormatter",
                json!({"maxConcurrency": 1.5}),
                "maxConcurrency",
            ),
            (
                "LMRelevanceFilter",
                json!({"userTemplate": " "}),
                "userTemplate",
            ),
            ("LMRelevanceFilter", json!({"metadata": [1]}), "metadata"),
            (
                "LMReferenceFormatter",
                json!({"onFailureKeepAll": true}),
                "onFailureKeepAll",
            ),
            (
                "NoOpReferenceFormatter",
                json!({"streamable": "yes"}),
                "streamable",
            ),
        ] {
            let e = of(kind, bad).unwrap_err();
            assert_eq!(e.option, key, "{kind}: {}", e.reason);
        }
    }
}
