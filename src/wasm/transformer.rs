//! `normalizeConfig`, which checks a config and returns its canonical form; `stageConfig`, the
//! engine config of one transformer's options; `stageTriggers`, what can change a quiet stage;
//! `fullModuleStages`, the stages this module leaves to the full streaming module.
//!
//! Configs and options are read from the JS values in place, into typed options
//! ([`crate::options::js_value`]): no JSON copy of them on the way.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use crate::options::js_value::{set, with_cause};
use crate::transform::{unique_prefix, OutputTransformerConfig, TransformerKind};

/// A config read from JS (see [`OutputTransformerConfig::from_js`]); its error as a JS error
/// (with the caller's exception as `cause` when a getter or trap threw).
pub(super) fn config(
    value: &JsValue,
    kept: Option<&Object>,
) -> Result<OutputTransformerConfig, JsValue> {
    OutputTransformerConfig::from_js(value, kept).map_err(|e| with_cause(e.into()))
}

/// `{type, kwargs}`, made here (nothing of the caller's runs).
fn described(kind: TransformerKind, kwargs: &Object) -> JsValue {
    let out: JsValue = Object::new().into();
    set(&out, "type", &JsValue::from_str(kind.name()));
    set(&out, "kwargs", kwargs);
    out
}

/// Checks a config (a type name, `{type, kwargs}`, or a config object) and returns
/// `{type, kwargs}` with the canonical type name and the kwargs as read (a new object with
/// the keys given, but those whose value JSON leaves out).
#[wasm_bindgen(js_name = normalizeConfig)]
pub fn normalize_config(value: JsValue) -> Result<JsValue, JsValue> {
    let kwargs = Object::new();
    let config = config(&value, Some(&kwargs))?;
    Ok(described(config.kind, &kwargs))
}

/// The engine config (`{type, kwargs}`) of one transformer from its options (`undefined` and
/// `null` mean none), checked. A think-tag config gets its block id prefix here, so that the
/// JS face knows which blocks are its own.
#[wasm_bindgen(js_name = stageConfig)]
pub fn stage_config(kind: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let kind = TransformerKind::parse(kind)?;
    let kwargs = Object::new();
    let id_prefix = OutputTransformerConfig::check_js(kind, &options, &kwargs, "id_prefix")
        .map_err(|e| with_cause(e.into()))?;
    if kind == TransformerKind::ThinkTag {
        let prefix = id_prefix.unwrap_or_else(|| unique_prefix("tt"));
        set(&kwargs, "idPrefix", &JsValue::from_str(&prefix));
    }
    Ok(described(kind, &kwargs))
}

/// The strings that can change a think-tag or citation stage while it holds nothing back:
/// every tag (open and close) of a think-tag stage, the trigger characters of a citation
/// stage (none for other stages). A chunk in which none of them starts, and no end of which
/// begins one, passes through such a stage as text of its open block (the JS face's fast
/// path for short chunks).
#[wasm_bindgen(js_name = stageTriggers)]
pub fn stage_triggers(config_value: JsValue) -> Result<Vec<String>, JsValue> {
    Ok(config(&config_value, None)?.triggers())
}

/// The names (both spellings) of the stages this module does not hold (the lean streaming
/// module's are in the full one; none in the full module): an engine with any of them runs
/// there.
#[wasm_bindgen(js_name = fullModuleStages)]
pub fn full_module_stages() -> Vec<String> {
    TransformerKind::ALL
        .into_iter()
        .filter(|k| !k.in_this_build())
        .flat_map(|k| [k.name().to_owned(), k.camel_name()])
        .collect()
}
