//! One place that turns core errors into JS `Error`s with a stable `code`.

use js_sys::Error;
use wasm_bindgen::prelude::*;

use crate::chunk::ChunkError;
use crate::cite::CiteError;
use crate::engine::EngineError;
use crate::error::TransformError;
use crate::filter::{FilterError, SimilarityError};
use crate::provider::{RequestError, SseError, StreamError};
use crate::reference::ReferenceError;

/// Name of every error citeflow throws; `error.code` tells them apart.
const ERROR_NAME: &str = "CiteflowError";

#[wasm_bindgen]
extern "C" {
    /// `Reflect.set`, typed to return a value: its import then has the signature of another
    /// (`Reflect.apply`'s), and V8 compiles one JS wrapper per distinct import signature when
    /// it compiles the module (~70 µs each; `error.name = …` and a boolean result would be
    /// two more). Its result is not used.
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = set)]
    fn js_set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<JsValue, JsValue>;
}

/// Sets an own property of a fresh Error object (which cannot fail or run user code).
pub(super) fn set(error: &JsValue, key: &str, value: &JsValue) {
    let _ = js_set(error, &JsValue::from_str(key), value);
}

/// A JS `Error` with `name` "CiteflowError" and the given `code`.
pub fn js_error(code: &str, message: &str) -> JsValue {
    let error: JsValue = Error::new(message).into();
    set(&error, "name", &JsValue::from_str(ERROR_NAME));
    set(&error, "code", &JsValue::from_str(code));
    error
}

/// The same with `cause` set: an exception thrown by the caller's own code (a getter, a
/// `Proxy` trap, `toJSON`), kept as it was.
pub fn js_error_with_cause(code: &str, message: &str, cause: JsValue) -> JsValue {
    let error = js_error(code, message);
    set(&error, "cause", &cause);
    error
}

/// Every core error type has a stable `code()`; each becomes a JS error the same way, its
/// message from `message()` where it composes one without `core::fmt` (the streaming
/// modules' errors, [`crate::text`]), else from its `Display`.
macro_rules! js_errors_from {
    ($text:ident: $($error:ty),+ $(,)?) => {
        $(impl From<$error> for JsValue {
            fn from(err: $error) -> Self {
                js_error(err.code(), &err.$text())
            }
        })+
    };
}

js_errors_from!(message: EngineError, TransformError, CiteError, SseError, StreamError);
js_errors_from!(
    to_string: RequestError,
    ReferenceError,
    ChunkError,
    SimilarityError,
    FilterError,
);
