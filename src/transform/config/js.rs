//! Configs read straight from JS values (the streaming module): a type name or `{type,
//! kwargs}`, its options read in place by [`crate::options::js_value`] into the typed
//! [`StageSpec`], with the codes and messages of [`OutputTransformerConfig::from_value`].

use js_sys::Object;
use serde::Deserialize;
use wasm_bindgen::JsValue;

use super::{OutputTransformerConfig, StageSpec, TransformerKind};
use crate::error::{Result, TransformError};
use crate::options::js_value::{json_form, kind_of, Entries};
use crate::options::{OptionError, Source};

/// The error of the config object itself (not of its options), as `from_value` words it.
fn invalid(e: &OptionError) -> TransformError {
    TransformError::InvalidConfig(format!("`{}`: {}", e.option, e.reason))
}

const OWNER: &str = "transformer config";

/// `{type, kwargs}`'s type name and kwargs (`undefined` when not given), read once each.
fn described(object: &JsValue) -> Result<(String, JsValue)> {
    let refused = |option: &str, reason: String| {
        invalid(&OptionError {
            option: option.to_owned(),
            reason: format!("{reason} ({OWNER} options)"),
        })
    };
    let mut entries = Entries::options(OWNER, object).map_err(|e| invalid(&e))?;
    let (mut kind, mut kwargs) = (None, JsValue::UNDEFINED);
    while let Some((key, value)) = entries.next_entry() {
        match key.as_str() {
            "type" => {
                kind = Some(String::deserialize(value).map_err(|e| refused(&key, e.to_string()))?)
            }
            "kwargs" => {
                // An object, or none: read as the JSON reader reads it (`toJSON` first).
                let value = value
                    .into_inner()
                    .and_then(json_form)
                    .map_err(|e| refused(&key, e.to_string()))?;
                if !value.is_null() && kind_of(&value) != "an object" {
                    let kind = kind_of(&value);
                    return Err(refused(
                        &key,
                        format!("invalid type: {kind}, expected a map"),
                    ));
                }
                kwargs = value;
            }
            _ => {
                return Err(refused(
                    &key,
                    format!("unknown field `{key}`, expected `type` or `kwargs`"),
                ))
            }
        }
    }
    let kind = kind.ok_or_else(|| refused("options", "missing field `type`".to_owned()))?;
    Ok((kind, kwargs))
}

/// The options of a `kind` transformer, read in place; each entry read is also set on `kept`
/// when given (but `leave_out`).
pub(crate) fn spec_of(
    kind: TransformerKind,
    options: &JsValue,
    kept: Option<(&Object, &'static str)>,
) -> Result<StageSpec> {
    let owner = match kind {
        TransformerKind::ThinkTag => super::ThinkTagOutputTransformer::NAME,
        TransformerKind::Citations => "CitationParser",
        _ => kind.name(),
    };
    let entries = Entries::options(owner, options).map_err(|e| TransformError::InvalidOption {
        option: e.option,
        reason: e.reason,
    })?;
    let entries = match kept {
        Some((object, leave_out)) => entries.keeping(object.clone(), leave_out),
        None => entries,
    };
    StageSpec::read(kind, entries)
}

impl OutputTransformerConfig {
    /// Reads a config from a type name or a `{type, kwargs}` object and checks its options,
    /// as [`OutputTransformerConfig::from_value`] does; `kept`, when given, gets the kwargs
    /// as read (for the canonical form).
    pub(crate) fn from_js(value: &JsValue, kept: Option<&Object>) -> Result<Self> {
        let kept = kept.map(|k| (k, ""));
        let value = &json_form(value.clone())
            .map_err(|e| TransformError::InvalidConfig(format!("the config {e}")))?;
        let spec = if let Some(name) = value.as_string() {
            spec_of(TransformerKind::parse(&name)?, &JsValue::UNDEFINED, None)?
        } else if value.is_object() && kind_of(value) == "an object" {
            let (kind, kwargs) = described(value)?;
            spec_of(TransformerKind::parse(&kind)?, &kwargs, kept)?
        } else {
            return Err(TransformError::InvalidConfig(format!(
                "expected a type name or a {{type, kwargs}} object, got {}",
                kind_of(value)
            )));
        };
        spec.build()?;
        Ok(Self::from_spec(spec))
    }
}

impl OutputTransformerConfig {
    /// Checks the options of a `kind` transformer, read in place, setting each entry read on
    /// `kept` (but `leave_out`); the think-tag id prefix they give, if any.
    pub(crate) fn check_js(
        kind: TransformerKind,
        options: &JsValue,
        kept: &Object,
        leave_out: &'static str,
    ) -> Result<Option<String>> {
        let spec = spec_of(kind, options, Some((kept, leave_out)))?;
        spec.build()?;
        Ok(match spec {
            StageSpec::ThinkTag(o) => o.id_prefix,
            _ => None,
        })
    }

    /// What can change the stage while it holds nothing back ([`StageSpec::triggers`]).
    pub(crate) fn triggers(&self) -> Vec<String> {
        self.spec
            .as_ref()
            .map(StageSpec::triggers)
            .unwrap_or_default()
    }
}

impl OutputTransformerConfig {
    /// An event filter's `eventTypes`, from its options read in place.
    pub(crate) fn event_types_js(options: &JsValue) -> Result<Vec<String>> {
        match spec_of(TransformerKind::EventFilter, options, None)? {
            StageSpec::EventFilter(types) => Ok(types),
            _ => Err(TransformError::InvalidConfig(
                "not an event filter".to_owned(),
            )),
        }
    }
}
