//! [`OutputTransformerConfig`]: transformers described as data (`{type, kwargs}`), so that
//! invokers and chains can be configured from JSON.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Map, Value};

use super::{
    json_kind, EventFilterOutputTransformer, IdentityOutputTransformer, JsonOutputTransformer,
    OutputTransformer, TagPair, ThinkTagOptions, ThinkTagOutputTransformer, ValidationMode,
    ValidationOutputTransformer,
};
use crate::cite::{CitationParser, CiteError, CiteOptions, CitedAnswer};
use crate::engine::{EventStage, Stage};
use crate::error::{Result, TransformError};
use crate::event::ItemKind;
use crate::options;

/// The transformer types a config can name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TransformerKind {
    Identity,
    Json,
    ThinkTag,
    EventFilter,
    Validation,
    /// The streaming citation parser ([`crate::cite::CitationParser`]).
    Citations,
    /// A cited answer's JSON as marked text and citations ([`crate::cite::CitedAnswer`]).
    CitedAnswer,
}

impl TransformerKind {
    pub const ALL: [TransformerKind; 7] = [
        Self::Identity,
        Self::Json,
        Self::ThinkTag,
        Self::EventFilter,
        Self::Validation,
        Self::Citations,
        Self::CitedAnswer,
    ];

    /// The canonical (snake_case) name, as the original library spells it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Identity => "identity",
            Self::Json => "json",
            Self::ThinkTag => "think_tag",
            Self::EventFilter => "event_filter",
            Self::Validation => "validation",
            Self::Citations => "citations",
            Self::CitedAnswer => "cited_answer",
        }
    }

    /// Accepts the canonical name or its camelCase spelling.
    pub fn parse(name: &str) -> Result<Self> {
        Self::ALL
            .into_iter()
            .find(|k| k.name() == name || camel(k.name()) == name)
            .ok_or_else(|| TransformError::UnknownTransformer {
                name: name.to_owned(),
                supported: Self::ALL.map(|k| k.name()).join(", "),
            })
    }
}

/// The camelCase spelling of a snake_case name (citeflow's own names, ASCII: no Unicode case
/// tables linked into the streaming module for them).
fn camel(snake: &str) -> String {
    let mut out = String::with_capacity(snake.len());
    let mut upper = false;
    for c in snake.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.push(c.to_ascii_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

/// Reads a transformer's options (see [`crate::options`]): snake_case or camelCase names,
/// `null` as absent, any other key refused.
fn kwargs<T: DeserializeOwned>(owner: &str, map: &Map<String, Value>) -> Result<T> {
    options::read(owner, map).map_err(|e| TransformError::InvalidOption {
        option: e.option,
        reason: e.reason,
    })
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ThinkTagKwargs {
    #[serde(default)]
    tags: Option<Vec<Value>>,
    #[serde(default, alias = "start_in_thinking")]
    start_in_thinking: Option<bool>,
    #[serde(default, alias = "id_prefix")]
    id_prefix: Option<String>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct EventFilterKwargs {
    #[serde(default, alias = "event_types")]
    event_types: Option<Vec<String>>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct ValidationKwargs {
    #[serde(default, alias = "required_types")]
    required_types: Option<Vec<String>>,
    #[serde(default)]
    mode: Option<String>,
}

/// Parses think-tag options: `tags` as `[open, close]` pairs, `{open, close}` objects or bare
/// names (`"reasoning"` means `<reasoning>` / `</reasoning>`), `startInThinking`, `idPrefix`.
pub fn think_tag_options(map: &Map<String, Value>) -> Result<ThinkTagOptions> {
    let kw: ThinkTagKwargs = kwargs(ThinkTagOutputTransformer::NAME, map)?;
    let mut options = ThinkTagOptions::default();
    if let Some(tags) = kw.tags {
        options.tags = tags
            .iter()
            .enumerate()
            .map(|(i, t)| tag_pair(i, t))
            .collect::<Result<_>>()?;
    }
    options.start_in_thinking = kw.start_in_thinking.unwrap_or(false);
    options.id_prefix = kw.id_prefix;
    Ok(options)
}

/// A tag pair given as `{open, close}`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct OpenClose {
    open: String,
    close: String,
}

fn tag_pair(index: usize, value: &Value) -> Result<TagPair> {
    let refused = |why: String| {
        TransformError::option(
            "tags",
            format!(
                "tag pair {index} must be a name, [open, close] or {{open, close}} of strings{why}"
            ),
        )
    };
    match value {
        Value::String(name) => Ok(TagPair::xml(name)),
        Value::Array(items) => match items.as_slice() {
            [Value::String(open), Value::String(close)] => Ok(TagPair::new(open, close)),
            _ => Err(refused(String::new())),
        },
        Value::Object(obj) => options::read::<OpenClose>("tag pair", obj)
            .map(|t| TagPair::new(&t.open, &t.close))
            .map_err(|e| refused(format!(" (`{}`: {})", e.option, e.reason))),
        _ => Err(refused(String::new())),
    }
}

/// Parses event-filter options: `eventTypes` (required).
pub fn event_types(map: &Map<String, Value>) -> Result<Vec<String>> {
    let kw: EventFilterKwargs = kwargs("EventFilterOutputTransformer", map)?;
    kw.event_types
        .ok_or_else(|| TransformError::option("eventTypes", "is required"))
}

/// Parses validation options: `requiredTypes` (text / thinking / structured) and `mode`.
pub fn validation_options(map: &Map<String, Value>) -> Result<(Vec<ItemKind>, ValidationMode)> {
    let kw: ValidationKwargs = kwargs("ValidationOutputTransformer", map)?;
    let names = kw
        .required_types
        .ok_or_else(|| TransformError::option("requiredTypes", "is required"))?;
    let kinds = names
        .iter()
        .map(|n| {
            ItemKind::parse(n).ok_or_else(|| {
                TransformError::option(
                    "requiredTypes",
                    format!("{n:?} is not one of text, thinking, structured"),
                )
            })
        })
        .collect::<Result<_>>()?;
    let mode = match kw.mode {
        None => ValidationMode::default(),
        Some(m) => ValidationMode::parse(&m).ok_or_else(|| {
            TransformError::option("mode", format!("{m:?} is not \"all\" or \"any\""))
        })?,
    };
    Ok((kinds, mode))
}

/// A transformer config object, `{type, kwargs}`, read by the one options reader.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Described {
    #[serde(rename = "type")]
    kind: String,
    #[serde(default)]
    kwargs: Option<Map<String, Value>>,
}

/// A transformer described as data.
#[derive(Debug, Clone, PartialEq)]
pub struct OutputTransformerConfig {
    pub kind: TransformerKind,
    pub kwargs: Map<String, Value>,
}

impl OutputTransformerConfig {
    fn of<const N: usize>(kind: TransformerKind, kwargs: [(&str, Value); N]) -> Self {
        Self {
            kind,
            kwargs: kwargs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        }
    }

    pub fn identity() -> Self {
        Self::of(TransformerKind::Identity, [])
    }

    pub fn json() -> Self {
        Self::of(TransformerKind::Json, [])
    }

    pub fn think_tag() -> Self {
        Self::of(TransformerKind::ThinkTag, [])
    }

    pub fn event_filter<S: AsRef<str>>(types: &[S]) -> Self {
        let types: Vec<&str> = types.iter().map(AsRef::as_ref).collect();
        Self::of(TransformerKind::EventFilter, [("eventTypes", json!(types))])
    }

    pub fn validation(required: &[ItemKind], mode: ValidationMode) -> Self {
        let names: Vec<&str> = required.iter().map(|k| k.name()).collect();
        Self::of(
            TransformerKind::Validation,
            [
                ("requiredTypes", json!(names)),
                ("mode", json!(mode.name())),
            ],
        )
    }

    /// Reads a config from a type name, a `{type, kwargs}` object, or a config already in
    /// that shape, and checks its options.
    pub fn from_value(value: &Value) -> Result<Self> {
        let config = match value {
            Value::String(name) => Self {
                kind: TransformerKind::parse(name)?,
                kwargs: Map::new(),
            },
            Value::Object(obj) => {
                let d: Described = options::read("transformer config", obj).map_err(|e| {
                    TransformError::InvalidConfig(format!("`{}`: {}", e.option, e.reason))
                })?;
                Self {
                    kind: TransformerKind::parse(&d.kind)?,
                    kwargs: d.kwargs.unwrap_or_default(),
                }
            }
            other => {
                return Err(TransformError::InvalidConfig(format!(
                    "expected a type name or a {{type, kwargs}} object, got {}",
                    json_kind(other)
                )))
            }
        };
        config.build()?;
        Ok(config)
    }

    /// `{type, kwargs}` with the canonical type name.
    pub fn to_value(&self) -> Value {
        // Built by hand: `json!` would serialize the map, linking a serializer into `Value`.
        let mut map = Map::new();
        map.insert("type".into(), Value::from(self.kind.name()));
        map.insert("kwargs".into(), Value::Object(self.kwargs.clone()));
        Value::Object(map)
    }

    /// The marker options of the citation stages.
    fn cite_options(&self) -> Result<CiteOptions> {
        CiteOptions::from_map(&self.kwargs).map_err(|e| match e {
            CiteError::InvalidOption { option, reason } => {
                TransformError::InvalidOption { option, reason }
            }
            other => TransformError::InvalidConfig(other.to_string()),
        })
    }

    /// The citation parser these options describe.
    fn build_citation_parser(&self) -> Result<CitationParser> {
        Ok(CitationParser::new(self.cite_options()?.parse_options()))
    }

    /// The cited-answer reader these options describe.
    fn build_cited_answer(&self) -> Result<CitedAnswer> {
        Ok(CitedAnswer::new(self.cite_options()?.parse_options()))
    }

    fn build_think_tag(&self) -> Result<ThinkTagOutputTransformer> {
        ThinkTagOutputTransformer::new(think_tag_options(&self.kwargs)?)
    }

    fn build_event_filter(&self) -> Result<EventFilterOutputTransformer> {
        EventFilterOutputTransformer::new(&event_types(&self.kwargs)?)
    }

    /// Builds the transformer as a stage of the streaming engine: the streaming
    /// transformers natively, the others through their event API.
    pub fn build_stage(&self) -> Result<Box<dyn Stage>> {
        Ok(match self.kind {
            TransformerKind::ThinkTag => Box::new(self.build_think_tag()?),
            TransformerKind::EventFilter => Box::new(self.build_event_filter()?),
            TransformerKind::Citations => Box::new(self.build_citation_parser()?),
            TransformerKind::CitedAnswer => Box::new(self.build_cited_answer()?),
            TransformerKind::Identity | TransformerKind::Json | TransformerKind::Validation => {
                Box::new(EventStage(self.build()?))
            }
        })
    }

    /// Builds the transformer.
    pub fn build(&self) -> Result<Box<dyn OutputTransformer>> {
        let no_options = |name: &str| match self.kwargs.keys().next() {
            Some(k) => Err(TransformError::option(
                k,
                format!("{name} takes no options"),
            )),
            None => Ok(()),
        };
        Ok(match self.kind {
            TransformerKind::Identity => {
                no_options("IdentityOutputTransformer")?;
                Box::new(IdentityOutputTransformer::default())
            }
            TransformerKind::Json => {
                no_options("JSONOutputTransformer")?;
                Box::new(JsonOutputTransformer::default())
            }
            TransformerKind::ThinkTag => Box::new(self.build_think_tag()?),
            TransformerKind::EventFilter => Box::new(self.build_event_filter()?),
            TransformerKind::Validation => {
                let (kinds, mode) = validation_options(&self.kwargs)?;
                Box::new(ValidationOutputTransformer::new(kinds, mode)?)
            }
            TransformerKind::Citations => Box::new(self.build_citation_parser()?),
            TransformerKind::CitedAnswer => Box::new(self.build_cited_answer()?),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_form() {
        let a = OutputTransformerConfig::from_value(&json!("think_tag")).unwrap();
        let b = OutputTransformerConfig::from_value(&json!({"type": "thinkTag"})).unwrap();
        assert_eq!(a, b);
        assert_eq!(a, OutputTransformerConfig::think_tag());
        let c = OutputTransformerConfig::from_value(
            &json!({"type": "event_filter", "kwargs": {"event_types": ["thinking"]}}),
        )
        .unwrap();
        assert_eq!(c.to_value()["type"], "event_filter");
        let round = OutputTransformerConfig::from_value(
            &OutputTransformerConfig::event_filter(&["x"]).to_value(),
        )
        .unwrap();
        assert_eq!(round, OutputTransformerConfig::event_filter(&["x"]));
    }

    #[test]
    fn bad_configs_name_the_problem() {
        let code = |v: Value| OutputTransformerConfig::from_value(&v).unwrap_err();
        let unknown = code(json!("magic"));
        assert_eq!(unknown.code(), "UNKNOWN_TRANSFORMER");
        assert!(unknown.to_string().contains("think_tag"));
        assert_eq!(code(json!(3)).code(), "INVALID_CONFIG");
        assert_eq!(code(json!({"kwargs": {}})).code(), "INVALID_CONFIG");
        assert_eq!(
            code(json!({"type": "json", "kwargs": {"x": 1}})).code(),
            "INVALID_OPTION"
        );
        assert_eq!(
            code(json!({"type": "event_filter"})).code(),
            "INVALID_OPTION"
        );
        assert_eq!(
            code(json!({"type": "event_filter", "kwargs": {"eventTypes": [""]}})).code(),
            "EMPTY_EVENT_TYPE"
        );
        assert_eq!(
            code(json!({"type": "think_tag", "kwargs": {"tags": [["<a>"]]}})).code(),
            "INVALID_OPTION"
        );
        // The config object and a `{open, close}` pair are read by the one options reader.
        let e = code(json!({"type": "json", "kwarg": {}}));
        assert_eq!(e.code(), "INVALID_CONFIG");
        assert!(e.to_string().contains("`kwarg`"), "{e}");
        assert_eq!(code(json!({"type": 3})).code(), "INVALID_CONFIG");
        assert_eq!(
            code(json!({"type": "json", "kwargs": 3})).code(),
            "INVALID_CONFIG"
        );
        let e =
            code(json!({"type": "think_tag", "kwargs": {"tags": [{"open": "<", "clos": ">"}]}}));
        assert_eq!(e.code(), "INVALID_OPTION");
        assert!(e.to_string().contains("`clos`"), "{e}");
        let e = code(json!({"type": "think_tag", "kwargs": {"tags": [{"open": "<", "close": 1}]}}));
        assert!(e.to_string().contains("`close`"), "{e}");
        assert_eq!(
            code(
                json!({"type": "validation", "kwargs": {"requiredTypes": ["text"], "mode": "some"}})
            )
            .code(),
            "INVALID_OPTION"
        );
    }

    #[test]
    fn options_in_either_spelling_and_the_refused_one_named() {
        let read = |kwargs: Value| think_tag_options(kwargs.as_object().unwrap());
        let camel = read(json!({"startInThinking": true, "idPrefix": "p"})).unwrap();
        let snake = read(json!({"start_in_thinking": true, "id_prefix": "p", "tags": null}));
        assert_eq!(camel, snake.unwrap());
        for (kwargs, option, said) in [
            (json!({"idPrefx": "p"}), "idPrefx", "idPrefix"),
            (
                json!({"idPrefix": "p", "start_in_thinking": "yes"}),
                "start_in_thinking",
                "a boolean",
            ),
        ] {
            let e = read(kwargs).unwrap_err();
            assert_eq!(e.code(), "INVALID_OPTION");
            assert!(e.to_string().contains(&format!("`{option}`")), "{e}");
            assert!(e.to_string().contains(said), "{e}");
        }
        let e = OutputTransformerConfig::from_value(
            &json!({"type": "json", "kwargs": {"strict": true}}),
        );
        assert!(e.unwrap_err().to_string().contains("`strict`"));
    }

    #[test]
    fn think_tag_names_expand_to_xml_pairs() {
        let opts = think_tag_options(
            json!({"tags": ["reasoning", {"open": "[[", "close": "]]"}]})
                .as_object()
                .unwrap(),
        )
        .unwrap();
        assert_eq!(
            opts.tags,
            vec![TagPair::xml("reasoning"), TagPair::new("[[", "]]")]
        );
    }
}
