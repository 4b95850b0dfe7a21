//! Conversions across the boundary, with one serializer configuration for all of them.

use serde::{de::DeserializeOwned, Serialize};
use serde_json::{Map, Value};
use wasm_bindgen::JsValue;

use super::errors::js_error;
use crate::error::TransformError;
use crate::event::LmOutput;

/// Plain objects for maps, numbers for 64-bit integers: what JS code expects.
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    value
        .serialize(&serde_wasm_bindgen::Serializer::json_compatible())
        .unwrap_or_else(|e| conversion_error(&e))
}

/// The same through JSON text and the engine's native `JSON.parse`: faster for many small
/// objects (a chunk's events: measured 1 text decode instead of four per event).
#[cfg_attr(feature = "wasm-csl-module", allow(dead_code))]
pub fn to_js_json<T: Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .map_err(|e| e.to_string())
        .and_then(|json| js_sys::JSON::parse(&json).map_err(|_| "JSON.parse failed".to_owned()))
        .unwrap_or_else(|e| conversion_error(&e))
}

fn conversion_error(e: &dyn std::fmt::Display) -> JsValue {
    js_error(
        "INTERNAL",
        &format!("could not convert a result to JS: {e}"),
    )
}

pub fn from_js<T: DeserializeOwned>(value: JsValue, code: &str, what: &str) -> Result<T, JsValue> {
    serde_wasm_bindgen::from_value(value)
        .map_err(|e| js_error(code, &format!("invalid {what}: {e}")))
}

/// The same through a JSON value, so that serde sees every key: serde-wasm-bindgen reads only
/// a struct's declared fields, which would let `deny_unknown_fields` pass misspelt options.
#[cfg_attr(feature = "wasm-csl-module", allow(dead_code))]
pub fn from_js_strict<T: DeserializeOwned>(
    value: JsValue,
    code: &str,
    what: &str,
) -> Result<T, JsValue> {
    let value: Value = from_js(value, code, what)?;
    serde_json::from_value(value).map_err(|e| js_error(code, &format!("invalid {what}: {e}")))
}

/// An options object: `undefined` and `null` mean no options.
#[cfg_attr(feature = "wasm-csl-module", allow(dead_code))]
pub fn options(value: JsValue, owner: &str) -> Result<Map<String, Value>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Map::new());
    }
    match from_js::<Value>(value, "INVALID_OPTION", &format!("{owner} options"))? {
        Value::Object(map) => Ok(map),
        _ => Err(
            TransformError::option("options", format!("{owner} options must be an object")).into(),
        ),
    }
}

#[cfg_attr(feature = "wasm-csl-module", allow(dead_code))]
pub fn output(value: JsValue) -> Result<LmOutput, JsValue> {
    from_js(value, "INVALID_OUTPUT", "LMOutput")
}
