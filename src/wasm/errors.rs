//! One place that turns core errors into JS `Error`s with a stable `code`.

use js_sys::{Error, Reflect};
use wasm_bindgen::JsValue;

use crate::chunk::ChunkError;
use crate::cite::CiteError;
use crate::engine::EngineError;
use crate::error::TransformError;
use crate::filter::{FilterError, SimilarityError};
use crate::provider::{RequestError, SseError, StreamError};
use crate::reference::ReferenceError;

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

/// The same with `cause` set: an exception thrown by the caller's own code (a getter, a
/// `Proxy` trap, `toJSON`), kept as it was.
pub fn js_error_with_cause(code: &str, message: &str, cause: JsValue) -> JsValue {
    let error = js_error(code, message);
    // A fresh Error object: defining a property cannot fail or run user code.
    let _ = Reflect::set(&error, &JsValue::from_str("cause"), &cause);
    error
}

/// Every core error type has a stable `code()`; each becomes a JS error the same way.
macro_rules! js_errors_from {
    ($($error:ty),+ $(,)?) => {
        $(impl From<$error> for JsValue {
            fn from(err: $error) -> Self {
                js_error(err.code(), &err.to_string())
            }
        })+
    };
}

js_errors_from!(
    EngineError,
    TransformError,
    CiteError,
    RequestError,
    ReferenceError,
    SseError,
    StreamError,
    ChunkError,
    SimilarityError,
    FilterError,
);
