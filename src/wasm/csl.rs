//! The CSL module's JS face (`citeflow/csl`): reference rendering with citeflow's own CSL engine.

use serde::Deserialize;
use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::reference::{self, RefFormat, RenderOptions, StyleSource};

#[derive(Deserialize, Default)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Options {
    /// A bundled style name, or a CSL style as XML.
    style: Option<String>,
    /// A CSL locale as XML.
    locale: Option<String>,
    format: Option<RefFormat>,
}

/// `citations`: Citation objects or source ids (1-based), in order of citation; `null` or
/// `undefined` renders every source.
fn cited(value: JsValue) -> Result<Option<Vec<u32>>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let list: Vec<Value> = convert::from_js(
        value,
        "INVALID_OPTION",
        "citations (an array of Citation objects or source ids)",
    )?;
    let ids = list
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_u64()
                .or_else(|| v.get("sourceId").and_then(Value::as_u64))
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| js_error("INVALID_OPTION", &format!("citations[{i}] must be a source id or a Citation with a numeric sourceId")))
        })
        .collect::<Result<_, _>>()?;
    Ok(Some(ids))
}

#[wasm_bindgen(js_name = renderReferences)]
pub fn render_references(
    sources: JsValue,
    citations: JsValue,
    options: JsValue,
) -> Result<JsValue, JsValue> {
    if !convert::is_array(&sources) {
        return Err(js_error(
            "INVALID_SOURCE",
            "`sources` must be an array of CSL-JSON items (or {content, metadata} sources)",
        ));
    }
    let sources: Vec<Value> = convert::from_js(sources, "INVALID_SOURCE", "sources")?;
    let options: Options = if options.is_undefined() || options.is_null() {
        Options::default()
    } else {
        convert::from_js(options, "INVALID_OPTION", "renderReferences options")?
    };
    let style = match options.style {
        Some(s) if s.trim_start().starts_with('<') => StyleSource::Xml(s),
        Some(name) => StyleSource::Name(name),
        None => StyleSource::Name(reference::DEFAULT_STYLE.into()),
    };
    let render = RenderOptions {
        style,
        locale_xml: options.locale,
        format: options.format.unwrap_or_default(),
    };
    Ok(convert::to_js(&reference::render_references(
        &sources,
        cited(citations)?.as_deref(),
        &render,
    )?))
}

#[wasm_bindgen(js_name = bundledStyleNames)]
pub fn bundled_style_names() -> Vec<String> {
    reference::bundled_style_names()
        .into_iter()
        .map(str::to_owned)
        .collect()
}
