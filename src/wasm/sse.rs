//! `SseDecoderCore`: the SSE decoder behind the JS `SSEDecoder`, its messages made as JS
//! objects here. (The JS `ProviderStreamDecoder` runs on the streaming engine: its events
//! cross as every engine's do.)

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::errors::js_error;
use crate::error::TransformError;
use crate::options::js_value::{set, with_cause, Entries};
use crate::options::reader::{fields, number, optional, Keys};
use crate::options::OptionError;
use crate::provider::{SseDecoder, SseError, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES};

/// A byte limit from JS: a whole number ≥ 1 (up to 2^32 − 1), or the default.
fn limit(value: Option<f64>, default: usize, name: &str) -> Result<usize, JsValue> {
    match value {
        None => Ok(default),
        Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= f64::from(u32::MAX) => Ok(n as usize),
        Some(n) => Err(js_error(
            "INVALID_OPTION",
            &format!("{name} must be a whole number ≥ 1, got {}", shown(n)),
        )),
    }
}

/// A refused number as the message shows it: a whole one as an integer, any other by what it
/// is. (`{n}` of an `f64` would link `core::fmt`'s float formatting, ~28 KB before gzip, into
/// the streaming module for this one message.)
fn shown(n: f64) -> String {
    /// 2^53: below it every whole `f64` converts to `i64` exactly.
    const EXACT: f64 = 9_007_199_254_740_992.0;
    if n.is_nan() {
        "NaN".to_owned()
    } else if n.fract() == 0.0 && n.abs() < EXACT {
        (n as i64).to_string()
    } else if n.fract() == 0.0 || n.is_infinite() {
        "a very large number".to_owned()
    } else {
        "a number with a fraction".to_owned()
    }
}

/// `SSEDecoder`'s options `{maxLineBytes?, maxEventBytes?}`, read by the options reader
/// (unknown keys and wrong types refused, naming the key); the ranges are [`limit`]'s.
fn limits(options: &JsValue) -> Result<[Option<f64>; 2], OptionError> {
    const KEYS: &Keys = &[("maxLineBytes", 0), ("maxEventBytes", 1)];
    let (mut line, mut event) = (None, None);
    let entries = Entries::options(OWNER, options)?;
    fields(OWNER, entries, KEYS, |slot, read| {
        let limit = optional(read, number)?;
        match slot {
            0 => line = limit,
            _ => event = limit,
        }
        Ok(())
    })?;
    Ok([line, event])
}

const OWNER: &str = "SSEDecoder";

#[wasm_bindgen]
pub struct SseDecoderCore {
    inner: SseDecoder,
}

#[wasm_bindgen]
impl SseDecoderCore {
    /// From `SSEDecoder`'s options `{maxLineBytes?, maxEventBytes?}`.
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<SseDecoderCore, JsValue> {
        let [line, event] =
            limits(&options).map_err(|e| with_cause(TransformError::from(e).into()))?;
        let line = limit(line, DEFAULT_MAX_LINE_BYTES, "maxLineBytes")?;
        let event = limit(event, DEFAULT_MAX_EVENT_BYTES, "maxEventBytes")?;
        Ok(Self {
            inner: SseDecoder::new(line).with_max_event_bytes(event),
        })
    }

    /// Messages completed by these bytes: `{event?, data, id?, retry?}` objects, made here.
    pub fn push(&mut self, bytes: &[u8]) -> Result<Array, JsValue> {
        let out = Array::new();
        self.inner.push_with(bytes, &mut |m| {
            let message: JsValue = Object::new().into();
            if let Some(event) = m.event {
                set(&message, "event", &JsValue::from_str(event));
            }
            set(&message, "data", &JsValue::from_str(m.data));
            if let Some(id) = m.id {
                set(&message, "id", &JsValue::from_str(id));
            }
            if let Some(retry) = m.retry {
                // A JS number, as JSON.parse would read it.
                set(&message, "retry", &JsValue::from_f64(retry as f64));
            }
            out.push(&message);
            Ok::<(), SseError>(())
        })?;
        Ok(out)
    }

    pub fn finish(&mut self) -> Result<(), JsValue> {
        Ok(self.inner.finish()?)
    }
}
