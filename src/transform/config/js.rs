//! Configs read straight from JS values (the streaming module): a type name or `{type,
//! kwargs}`, its options read in place by [`crate::options::js_value`] into the typed
//! [`StageSpec`], with the codes and messages of [`OutputTransformerConfig::from_value`].

use js_sys::Object;
use wasm_bindgen::JsValue;

use super::{OutputTransformerConfig, StageSpec, TransformerKind};
use crate::error::{Result, TransformError};
use crate::options::js_value::{forget_thrown, is_plain_object, json_form, kind_of, Entries};
use crate::options::Refusal;
use crate::text::cat;

/// Who takes the options of a `kind` transformer, as messages name it.
fn owner(kind: TransformerKind) -> &'static str {
    match kind {
        TransformerKind::ThinkTag => super::ThinkTagOutputTransformer::NAME,
        TransformerKind::Citations => "CitationParser",
        _ => kind.name(),
    }
}

/// An options object's entries ([`Entries::options`]), its error as the transformer's.
fn options_of(kind: TransformerKind, options: &JsValue) -> Result<Entries> {
    Ok(Entries::options(owner(kind), options)?)
}

impl OutputTransformerConfig {
    /// Reads a config from a type name or a `{type, kwargs}` object and checks its options,
    /// as [`OutputTransformerConfig::from_value`] does; `kept`, when given, gets the kwargs
    /// as read (for the canonical form).
    pub(crate) fn from_js(value: &JsValue, kept: Option<&Object>) -> Result<Self> {
        forget_thrown();
        let config = |e: Refusal| TransformError::InvalidConfig(cat(&["the config ", e.text()]));
        let value = &json_form(value.clone()).map_err(config)?;
        let spec = if let Some(name) = value.as_string() {
            StageSpec::read(TransformerKind::parse(&name)?, Entries::none())?
        } else if is_plain_object(value).map_err(config)? {
            let (kind, kwargs) = super::described(Entries::object(value.clone()).map_err(config)?)?;
            let kind = TransformerKind::parse(&kind)?;
            let entries = kwargs.unwrap_or_else(Entries::none);
            let entries = match kept {
                Some(kept) => entries.keeping(kept.clone(), ""),
                None => entries,
            };
            StageSpec::read(kind, entries)?
        } else {
            return Err(super::not_a_config(kind_of(value)));
        };
        spec.check()?;
        Ok(Self::from_spec(spec))
    }

    /// Reads and checks the options of a `kind` transformer, read in place, setting each entry
    /// read on `kept` (but `leave_out`).
    pub(crate) fn read_js(
        kind: TransformerKind,
        options: &JsValue,
        kept: &Object,
        leave_out: &'static str,
    ) -> Result<StageSpec> {
        let spec = StageSpec::read(
            kind,
            options_of(kind, options)?.keeping(kept.clone(), leave_out),
        )?;
        spec.check()?;
        Ok(spec)
    }
}
