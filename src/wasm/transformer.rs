//! `normalizeConfig`, which checks a config and returns its canonical form; one transformer's
//! options read into its typed options and engine config (for `EngineCore.forStage`);
//! `fullModuleStages`, the stages this module leaves to the full streaming module.
//!
//! Configs and options are read from the JS values in place, into typed options
//! ([`crate::options::js_value`]): no JSON copy of them on the way.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use crate::options::js_value::{set, with_cause};
use crate::transform::config::StageSpec;
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

/// One transformer's options read once: the typed options (a think-tag stage's id prefix
/// made when none was given) and the engine config, `{type, kwargs}`, that reads the same.
pub(super) fn stage_of(kind: &str, options: &JsValue) -> Result<(StageSpec, JsValue), JsValue> {
    let kind = TransformerKind::parse(kind)?;
    let kwargs = Object::new();
    let mut spec = OutputTransformerConfig::read_js(kind, options, &kwargs, "id_prefix")
        .map_err(|e| with_cause(e.into()))?;
    if let StageSpec::ThinkTag(o) = &mut spec {
        let prefix = o.id_prefix.take().unwrap_or_else(|| unique_prefix("tt"));
        set(&kwargs, "idPrefix", &JsValue::from_str(&prefix));
        o.id_prefix = Some(prefix);
    }
    Ok((spec, described(kind, &kwargs)))
}

/// The names (both spellings) of the stages this module does not hold, and `format:<name>` for
/// each provider stream format it does not read (the lean streaming
/// module's are in the full one; none in the full module), separated by commas: an engine
/// with any of them runs there. (One string, not a list: a `Vec<String>` return and the
/// iterator making it measured 1.7 KB of the lean module's code.)
#[wasm_bindgen(js_name = fullModuleStages)]
pub fn full_module_stages() -> String {
    let mut names = String::new();
    // And the stream formats it does not read, as `format:<name>`.
    #[cfg(feature = "lean-stream")]
    names.push_str(crate::provider::FULL_MODULE_FORMATS);
    for kind in TransformerKind::ALL {
        if !kind.in_this_build() {
            for name in [kind.name(), kind.camel_name()] {
                if !names.is_empty() {
                    names.push(',');
                }
                names.push_str(name);
            }
        }
    }
    names
}
