//! [`OutputTransformerConfig`]: transformers described as data (`{type, kwargs}`), so that
//! invokers and chains can be configured from JSON.

use std::borrow::Cow;

use serde_json::{json, Map, Value};

use super::{
    json_kind, EventFilterOutputTransformer, IdentityOutputTransformer, JsonOutputTransformer,
    OutputTransformer, ThinkTagOptions, ThinkTagOutputTransformer, ValidationMode,
    ValidationOutputTransformer,
};
#[cfg(not(feature = "lean-stream"))]
use crate::cite::CitedAnswer;
use crate::cite::{CitationParser, CiteError, CiteOptions, MarkerScanner};
#[cfg(not(feature = "lean-stream"))]
use crate::engine::EventStage;
use crate::engine::Stage;
use crate::error::{Result, TransformError};
use crate::event::ItemKind;
use crate::options;
use crate::options::reader::{
    boolean, fields, object, optional, string, strings, Keys, OptionEntries, OptionValue,
};
use crate::text::{cat, quoted};

#[cfg(all(target_arch = "wasm32", feature = "wasm-stream-module"))]
mod js;
mod tags;

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
        self.names().0
    }

    /// The name's camelCase spelling, which [`Self::parse`] accepts too.
    pub fn camel_name(self) -> &'static str {
        self.names().1
    }

    /// Both spellings, written out (no case conversion linked into the streaming module;
    /// a test holds the camelCase ones to the snake_case ones).
    fn names(self) -> (&'static str, &'static str) {
        match self {
            Self::Identity => ("identity", "identity"),
            Self::Json => ("json", "json"),
            Self::ThinkTag => ("think_tag", "thinkTag"),
            Self::EventFilter => ("event_filter", "eventFilter"),
            Self::Validation => ("validation", "validation"),
            Self::Citations => ("citations", "citations"),
            Self::CitedAnswer => ("cited_answer", "citedAnswer"),
        }
    }

    /// Whether this build holds the stage: the lean streaming module (`lean-stream`) leaves
    /// out those that need JSON trees (JSON extraction, validation, cited answers), which the
    /// full streaming module holds.
    pub fn in_this_build(self) -> bool {
        !(cfg!(feature = "lean-stream")
            && matches!(self, Self::Json | Self::Validation | Self::CitedAnswer))
    }

    /// Accepts the canonical name or its camelCase spelling.
    pub fn parse(name: &str) -> Result<Self> {
        // `black_box`: the compiler sees the kinds and would unroll this search into two
        // string comparisons per kind, each inline (1.1 KB of the streaming module's code).
        let kinds: &[Self] = std::hint::black_box(&Self::ALL);
        for &kind in kinds {
            let (snake, camel) = kind.names();
            if snake == name || camel == name {
                return Ok(kind);
            }
        }
        Err(unknown(name))
    }
}

/// An unknown transformer's error (made out of line: no caller's path holds it).
#[cold]
#[inline(never)]
fn unknown(name: &str) -> TransformError {
    TransformError::UnknownTransformer {
        name: name.to_owned(),
        supported: SUPPORTED.to_owned(),
    }
}

/// A config that is neither a type name nor a `{type, kwargs}` object (`kind`: what it is).
#[cold]
#[inline(never)]
fn not_a_config(kind: &str) -> TransformError {
    TransformError::InvalidConfig(cat(&[
        "expected a type name or a {type, kwargs} object, got ",
        kind,
    ]))
}

/// The canonical names, as an unknown transformer's error lists them.
const SUPPORTED: &str =
    "identity, json, think_tag, event_filter, validation, citations, cited_answer";

/// Reads the options of a transformer that takes none: any key is refused, naming it.
fn nothing<E: OptionEntries>(owner: &str, entries: E) -> Result<()> {
    Ok(fields(owner, entries, &[], |_, _| Ok(()))?)
}

/// Think-tag options: `tags` as `[open, close]` pairs, `{open, close}` objects or bare names
/// (`"reasoning"` means `<reasoning>` / `</reasoning>`), `startInThinking`, `idPrefix`.
fn think_tag_from<E: OptionEntries>(entries: E) -> Result<ThinkTagOptions> {
    const KEYS: &Keys = &[
        ("tags", 0),
        ("startInThinking", 1),
        ("start_in_thinking", 1),
        ("idPrefix", 2),
        ("id_prefix", 2),
    ];
    let mut options = ThinkTagOptions::default();
    fields(
        ThinkTagOutputTransformer::NAME,
        entries,
        KEYS,
        |slot, read| {
            match slot {
                0 => {
                    if let Some(tags) = optional(read, tags::tag_list)? {
                        options.tags = tags;
                    }
                }
                1 => options.start_in_thinking = optional(read, boolean)?.unwrap_or(false),
                _ => options.id_prefix = optional(read, string)?,
            }
            Ok(())
        },
    )?;
    Ok(options)
}

/// Event-filter options: `eventTypes` (required).
fn event_types_from<E: OptionEntries>(entries: E) -> Result<Vec<String>> {
    const KEYS: &Keys = &[("eventTypes", 0), ("event_types", 0)];
    let mut types = None;
    fields("EventFilterOutputTransformer", entries, KEYS, |_, read| {
        types = optional(read, strings)?;
        Ok(())
    })?;
    types.ok_or_else(|| TransformError::option("eventTypes", "is required"))
}

/// Validation options: `requiredTypes` (text / thinking / structured, required) and `mode`.
fn validation_from<E: OptionEntries>(entries: E) -> Result<(Vec<ItemKind>, ValidationMode)> {
    const KEYS: &Keys = &[("requiredTypes", 0), ("required_types", 0), ("mode", 1)];
    let (mut names, mut mode) = (None, None);
    fields(
        "ValidationOutputTransformer",
        entries,
        KEYS,
        |slot, read| {
            match slot {
                0 => names = optional(read, strings)?,
                _ => mode = optional(read, string)?,
            }
            Ok(())
        },
    )?;
    let names = names.ok_or_else(|| TransformError::option("requiredTypes", "is required"))?;
    let kinds = names
        .iter()
        .map(|n| {
            ItemKind::parse(n).ok_or_else(|| {
                TransformError::option(
                    "requiredTypes",
                    cat(&[&quoted(n), " is not one of text, thinking, structured"]),
                )
            })
        })
        .collect::<Result<_>>()?;
    let mode = match mode {
        None => ValidationMode::default(),
        Some(m) => ValidationMode::parse(&m).ok_or_else(|| {
            TransformError::option("mode", cat(&[&quoted(&m), " is not \"all\" or \"any\""]))
        })?,
    };
    Ok((kinds, mode))
}

/// Parses think-tag options: `tags` as `[open, close]` pairs, `{open, close}` objects or bare
/// names (`"reasoning"` means `<reasoning>` / `</reasoning>`), `startInThinking`, `idPrefix`.
pub fn think_tag_options(map: &Map<String, Value>) -> Result<ThinkTagOptions> {
    think_tag_from(options::entries(map))
}

/// Parses event-filter options: `eventTypes` (required).
pub fn event_types(map: &Map<String, Value>) -> Result<Vec<String>> {
    event_types_from(options::entries(map))
}

/// Parses validation options: `requiredTypes` (text / thinking / structured) and `mode`.
pub fn validation_options(map: &Map<String, Value>) -> Result<(Vec<ItemKind>, ValidationMode)> {
    validation_from(options::entries(map))
}

/// The marker options of the citation stages.
fn cite_options<E: OptionEntries>(entries: E) -> Result<CiteOptions> {
    CiteOptions::from_entries(entries).map_err(|e| match e {
        CiteError::InvalidOption { option, reason } => {
            TransformError::InvalidOption { option, reason }
        }
        other => TransformError::InvalidConfig(other.message()),
    })
}

/// A transformer's options, read and typed: what every form of config (JSON, or JS values
/// read in place) is read into, and what the transformers and stages are built from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum StageSpec {
    Identity,
    Json,
    ThinkTag(ThinkTagOptions),
    EventFilter(Vec<String>),
    Validation(Vec<ItemKind>, ValidationMode),
    Citations(CiteOptions),
    CitedAnswer(CiteOptions),
}

impl StageSpec {
    /// Reads the options of a `kind` transformer from `entries`.
    pub(crate) fn read<E: OptionEntries>(kind: TransformerKind, entries: E) -> Result<Self> {
        Ok(match kind {
            TransformerKind::Identity => {
                nothing("IdentityOutputTransformer", entries)?;
                Self::Identity
            }
            TransformerKind::Json => {
                nothing("JSONOutputTransformer", entries)?;
                Self::Json
            }
            TransformerKind::ThinkTag => Self::ThinkTag(think_tag_from(entries)?),
            TransformerKind::EventFilter => Self::EventFilter(event_types_from(entries)?),
            TransformerKind::Validation => {
                let (kinds, mode) = validation_from(entries)?;
                Self::Validation(kinds, mode)
            }
            TransformerKind::Citations => Self::Citations(cite_options(entries)?),
            TransformerKind::CitedAnswer => Self::CitedAnswer(cite_options(entries)?),
        })
    }

    pub(crate) fn kind(&self) -> TransformerKind {
        match self {
            Self::Identity => TransformerKind::Identity,
            Self::Json => TransformerKind::Json,
            Self::ThinkTag(_) => TransformerKind::ThinkTag,
            Self::EventFilter(_) => TransformerKind::EventFilter,
            Self::Validation(..) => TransformerKind::Validation,
            Self::Citations(_) => TransformerKind::Citations,
            Self::CitedAnswer(_) => TransformerKind::CitedAnswer,
        }
    }

    /// Builds the transformer as a stage of the streaming engine: the streaming
    /// transformers natively, the others through their event API. The lean streaming module
    /// (`lean-stream`) holds no stage that needs JSON trees ([`TransformerKind::in_this_build`]).
    pub(crate) fn build_stage(&self) -> Result<Box<dyn Stage>> {
        Ok(match self {
            Self::Identity => Box::new(IdentityOutputTransformer::default()),
            Self::ThinkTag(o) => Box::new(ThinkTagOutputTransformer::new(o.clone())?),
            Self::EventFilter(types) => Box::new(EventFilterOutputTransformer::new(types)?),
            Self::Citations(o) => Box::new(CitationParser::new(o.parse_options())),
            #[cfg(not(feature = "lean-stream"))]
            Self::CitedAnswer(o) => Box::new(CitedAnswer::new(o.parse_options())),
            #[cfg(not(feature = "lean-stream"))]
            Self::Json | Self::Validation(..) => Box::new(EventStage(self.build()?)),
            #[cfg(feature = "lean-stream")]
            Self::CitedAnswer(_) | Self::Json | Self::Validation(..) => {
                return Err(self.not_in_this_build())
            }
        })
    }

    /// The refusal of a stage this build leaves out ([`TransformerKind::in_this_build`]).
    #[cfg(feature = "lean-stream")]
    fn not_in_this_build(&self) -> TransformError {
        TransformError::InvalidConfig(cat(&[
            "the ",
            self.kind().name(),
            " stage is in the full streaming module, not this one",
        ]))
    }

    /// Checks what the transformer's constructor checks, without building it (so that a
    /// module checks every config, whichever stages it holds).
    pub(crate) fn check(&self) -> Result<()> {
        match self {
            Self::ThinkTag(o) => ThinkTagOutputTransformer::new(o.clone()).map(drop),
            Self::EventFilter(types) => EventFilterOutputTransformer::new(types).map(drop),
            Self::Validation(kinds, _) => ValidationOutputTransformer::check_required(kinds),
            Self::Identity | Self::Json | Self::Citations(_) | Self::CitedAnswer(_) => Ok(()),
        }
    }

    /// Builds the transformer.
    pub(crate) fn build(&self) -> Result<Box<dyn OutputTransformer>> {
        Ok(match self {
            Self::Identity => Box::new(IdentityOutputTransformer::default()),
            Self::Json => Box::new(JsonOutputTransformer::default()),
            Self::ThinkTag(o) => Box::new(ThinkTagOutputTransformer::new(o.clone())?),
            Self::EventFilter(types) => Box::new(EventFilterOutputTransformer::new(types)?),
            Self::Validation(kinds, mode) => {
                Box::new(ValidationOutputTransformer::new(kinds.clone(), *mode)?)
            }
            Self::Citations(o) => Box::new(CitationParser::new(o.parse_options())),
            #[cfg(not(feature = "lean-stream"))]
            Self::CitedAnswer(o) => Box::new(CitedAnswer::new(o.parse_options())),
            #[cfg(feature = "lean-stream")]
            Self::CitedAnswer(_) => return Err(self.not_in_this_build()),
        })
    }

    /// The strings a stage answers to: for a think-tag stage every tag (open and close) and
    /// for a citation stage its trigger characters (what can change the stage while it holds
    /// nothing back); for an event filter the base types it keeps, sorted; none for other
    /// stages (see the streaming module's `EngineCore.stageTriggers`).
    #[cfg_attr(
        not(all(target_arch = "wasm32", feature = "wasm-stream-module")),
        allow(dead_code)
    )]
    pub(crate) fn triggers(&self) -> Vec<String> {
        match self {
            Self::ThinkTag(o) => o
                .tags
                .iter()
                .flat_map(|pair| [pair.open.clone(), pair.close.clone()])
                .collect(),
            Self::Citations(o) => MarkerScanner::triggers(o.marker_style)
                .into_iter()
                .map(|b| char::from(b).to_string())
                .collect(),
            // Checked when read: the filter builds.
            Self::EventFilter(types) => EventFilterOutputTransformer::new(types)
                .map(|f| f.allowed_event_types().map(str::to_owned).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

/// A config object, `{type, kwargs}`, from either source: its type name and its kwargs'
/// entries (`None` when not given or `null`); any other key refused, naming it.
fn described<E: OptionEntries>(mut entries: E) -> Result<(String, Option<E>)> {
    let refused = |option: &str, reason: &str| {
        TransformError::InvalidConfig(cat(&[
            "`",
            option,
            "`: ",
            reason,
            " (transformer config options)",
        ]))
    };
    let (mut kind, mut kwargs) = (None, None);
    while let Some((key, value)) = entries.next_entry() {
        let key = key.as_ref();
        let value = || value.and_then(OptionValue::read);
        match key {
            "type" => {
                kind = Some(
                    value()
                        .and_then(string)
                        .map_err(|e| refused(key, e.text()))?,
                )
            }
            "kwargs" => {
                kwargs = value()
                    .and_then(object)
                    .map_err(|e| refused(key, e.text()))?
            }
            _ => {
                let why = cat(&["unknown field `", key, "`, expected `type` or `kwargs`"]);
                return Err(refused(key, &why));
            }
        }
    }
    let kind = kind.ok_or_else(|| refused("options", "missing field `type`"))?;
    Ok((kind, kwargs))
}

/// A transformer described as data.
#[derive(Debug, Clone)]
pub struct OutputTransformerConfig {
    pub kind: TransformerKind,
    pub kwargs: Map<String, Value>,
    /// The options already read, for a config read from JS values in place (its `kwargs`
    /// are then empty); `None` for one read from or written as JSON.
    spec: Option<StageSpec>,
}

/// Two configs are the same transformer with the same options.
impl PartialEq for OutputTransformerConfig {
    fn eq(&self, other: &Self) -> bool {
        self.kind == other.kind && self.kwargs == other.kwargs && self.spec == other.spec
    }
}

impl OutputTransformerConfig {
    fn of<const N: usize>(kind: TransformerKind, kwargs: [(&str, Value); N]) -> Self {
        Self::new(
            kind,
            kwargs.into_iter().map(|(k, v)| (k.to_owned(), v)).collect(),
        )
    }

    /// A config of `kind` with these options (read when it is built).
    pub fn new(kind: TransformerKind, kwargs: Map<String, Value>) -> Self {
        Self {
            kind,
            kwargs,
            spec: None,
        }
    }

    /// A config whose options are read already.
    #[cfg_attr(
        not(all(target_arch = "wasm32", feature = "wasm-stream-module")),
        allow(dead_code)
    )]
    pub(crate) fn from_spec(spec: StageSpec) -> Self {
        Self {
            kind: spec.kind(),
            kwargs: Map::new(),
            spec: Some(spec),
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
            Value::String(name) => Self::new(TransformerKind::parse(name)?, Map::new()),
            Value::Object(obj) => {
                let (kind, kwargs) = described(options::entries(obj))?;
                let kwargs = kwargs.map(|k| k.map.clone()).unwrap_or_default();
                Self::new(TransformerKind::parse(&kind)?, kwargs)
            }
            other => return Err(not_a_config(json_kind(other))),
        };
        config.spec()?.check()?;
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

    /// The options, typed: those read already, or the kwargs read now.
    fn spec(&self) -> Result<Cow<'_, StageSpec>> {
        Ok(match &self.spec {
            Some(spec) => Cow::Borrowed(spec),
            #[cfg(not(all(target_arch = "wasm32", feature = "wasm-stream-module")))]
            None => Cow::Owned(StageSpec::read(self.kind, options::entries(&self.kwargs))?),
            // The streaming module reads every config from JS values (`from_js`), never from
            // JSON: its JSON options reader is left out of it.
            #[cfg(all(target_arch = "wasm32", feature = "wasm-stream-module"))]
            None => {
                return Err(TransformError::InvalidConfig(
                    "this module reads configs from JS values only".to_owned(),
                ))
            }
        })
    }

    /// Builds the transformer as a stage of the streaming engine: the streaming
    /// transformers natively, the others through their event API.
    pub fn build_stage(&self) -> Result<Box<dyn Stage>> {
        self.spec()?.build_stage()
    }

    /// Builds the transformer.
    pub fn build(&self) -> Result<Box<dyn OutputTransformer>> {
        self.spec()?.build()
    }
}

#[cfg(test)]
mod differential;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transform::TagPair;

    #[test]
    fn names_in_both_spellings() {
        let camel = |snake: &str| {
            let mut parts = snake.split('_');
            let mut out = parts.next().unwrap_or_default().to_owned();
            for part in parts {
                let mut chars = part.chars();
                out.extend(chars.next().map(|c| c.to_ascii_uppercase()));
                out.push_str(chars.as_str());
            }
            out
        };
        let names: Vec<_> = TransformerKind::ALL.iter().map(|k| k.name()).collect();
        assert_eq!(SUPPORTED, names.join(", "));
        for kind in TransformerKind::ALL {
            assert_eq!(kind.camel_name(), camel(kind.name()));
            assert_eq!(TransformerKind::parse(kind.name()).unwrap(), kind);
            assert_eq!(TransformerKind::parse(kind.camel_name()).unwrap(), kind);
        }
    }

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
