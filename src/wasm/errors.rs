//! One place that turns core errors into JS `Error`s with a stable `code`.

use js_sys::{Error, Reflect};
use wasm_bindgen::JsValue;

use crate::cite::CiteError;
use crate::error::TransformError;

/// Name of every error citeflow throws; `error.code` tells them apart.
const ERROR_NAME: &str = "CiteflowError";

/// A JS `Error` with `name` "CiteflowError" and the given `code`.
pub fn js_error(code: &str, message: &str) -> JsValue {
    let error = Error::new(message);
    error.set_name(ERROR_NAME);
    // Setting a property on a fresh Error object cannot fail.
    let _ = Reflect::set(&error, &JsValue::from_str("code"), &JsValue::from_str(code));
    error.into()
}

impl From<TransformError> for JsValue {
    fn from(err: TransformError) -> Self {
        js_error(err.code(), &err.to_string())
    }
}

impl From<CiteError> for JsValue {
    fn from(err: CiteError) -> Self {
        js_error(err.code(), &err.to_string())
    }
}
