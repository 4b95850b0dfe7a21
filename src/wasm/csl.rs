//! The CSL module's JS face (`citeflow/csl`): reference rendering with citeflow's own CSL engine.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::reference::engine::sort;
use crate::reference::{self, RenderOptions};

/// `renderReferences` options (see [`RenderOptions::from_map`]); `undefined` and `null` mean
/// the defaults.
fn render_options(value: JsValue) -> Result<RenderOptions, JsValue> {
    match convert::options_to_json(&value, "INVALID_OPTION", "renderReferences options")? {
        Value::Null => Ok(RenderOptions::default()),
        Value::Object(map) => Ok(RenderOptions::from_map(&map)?),
        _ => Err(js_error(
            "INVALID_OPTION",
            "invalid renderReferences options: expected an object",
        )),
    }
}

/// `citations`: Citation objects or source ids (1-based), in order of citation; `null` or
/// `undefined` renders every source.
fn cited(value: JsValue) -> Result<Option<Vec<u32>>, JsValue> {
    let what = "citations (an array of Citation objects or source ids)";
    let list = match convert::js_to_json(&value, "INVALID_OPTION", what)? {
        Value::Null => return Ok(None),
        Value::Array(list) => list,
        _ => return Err(js_error("INVALID_OPTION", &format!("invalid {what}"))),
    };
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

/// `styles`: the package's loader of bundled styles, `(file) => xml | undefined` (pkg/src/csl.js),
/// asked only for a style not parsed yet. This module carries no style XML itself.
/// `collate`: the host's collation, `(lang, texts) => Uint32Array` of ranks (`Intl.Collator`,
/// pkg/src/csl.js), asked once per sort with every text key.
/// `packed`, `numbers`: the same sources packed by JS in one piece
/// ([`reference::unpack_sources`]), or `undefined` where JS could not pack them (then the
/// sources are read value by value, which names what is wrong with them).
#[wasm_bindgen(js_name = renderReferences)]
pub fn render_references(
    sources: JsValue,
    packed: Option<String>,
    numbers: Option<Vec<f64>>,
    citations: JsValue,
    options: JsValue,
    styles: &js_sys::Function,
    collate: &js_sys::Function,
) -> Result<JsValue, JsValue> {
    let unpacked = packed
        .as_deref()
        .and_then(|tape| reference::unpack_sources(tape, numbers.as_deref().unwrap_or(&[])));
    let sources = match unpacked {
        Some(sources) => sources,
        None => read_sources(&sources)?,
    };
    let render = render_options(options)?;
    // A loader that throws (it is ours, but the file may be missing) reads as "not loaded".
    let load = |file: &str| {
        styles
            .call1(&JsValue::NULL, &JsValue::from_str(file))
            .ok()
            .and_then(|xml| xml.as_string())
    };
    let cited = cited(citations)?;
    let refs = sort::with_collator(host_collation(collate.clone()), || {
        reference::render_references_with(&sources, cited.as_deref(), &render, &load)
    });
    Ok(convert::to_js(&refs?))
}

/// The sources read value by value.
fn read_sources(sources: &JsValue) -> Result<Vec<Value>, JsValue> {
    if !convert::is_array(sources) {
        return Err(js_error(
            "INVALID_SOURCE",
            "`sources` must be an array of CSL-JSON items (or {content, metadata} sources)",
        ));
    }
    match convert::js_to_json(sources, "INVALID_SOURCE", "sources")? {
        Value::Array(sources) => Ok(sources),
        _ => Err(js_error("INVALID_SOURCE", "`sources` must be an array")),
    }
}

/// The host's collation, which sorting asks for the duration of one call (a collator that
/// throws or answers something else leaves the texts in code point order). It may call
/// `renderReferences` again (a page that patched `Intl.Collator`): that call renders with its
/// own collation and this one's is back when it returns ([`sort::with_collator`]).
fn host_collation(collate: js_sys::Function) -> sort::Collator {
    std::rc::Rc::new(move |lang: &str, texts: &[String]| {
        let texts: js_sys::Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let ranks = collate
            .call2(&JsValue::NULL, &JsValue::from_str(lang), &texts)
            .ok()?;
        let ranks = ranks.dyn_into::<js_sys::Uint32Array>().ok()?;
        // Read one by one: `to_vec` brings an assertion and its formatting along.
        Some((0..ranks.length()).map(|i| ranks.get_index(i)).collect())
    })
}

/// The file of a bundled style (`gen/styles/<file>.js` in the package), for JS to load it:
/// `undefined` names the default style; an unknown name is UNKNOWN_STYLE.
#[wasm_bindgen(js_name = bundledStyleFile)]
pub fn bundled_style_file(name: Option<String>) -> Result<String, JsValue> {
    reference::bundled_style(name.as_deref().unwrap_or(reference::DEFAULT_STYLE))
        .map(str::to_owned)
        .map_err(|e| js_error(reference::UnknownStyle::CODE, e.message()))
}

#[wasm_bindgen(js_name = bundledStyleNames)]
pub fn bundled_style_names() -> Vec<String> {
    reference::bundled_style_names()
        .into_iter()
        .map(str::to_owned)
        .collect()
}
