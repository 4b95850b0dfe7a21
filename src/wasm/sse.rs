//! `SseDecoderCore`: the SSE decoder behind the JS `SSEDecoder`, its messages made as JS
//! objects here. (The JS `ProviderStreamDecoder` runs on the streaming engine: its events
//! cross as every engine's do.)

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::error::TransformError;
use crate::options::js_value::{set, with_cause, Entries};
use crate::options::reader::{fields, optional, whole_from, Keys};
use crate::options::OptionError;
use crate::provider::{SseDecoder, SseError, DEFAULT_MAX_EVENT_BYTES, DEFAULT_MAX_LINE_BYTES};

/// `SSEDecoder`'s options `{maxLineBytes?, maxEventBytes?}`, read by the options reader
/// (unknown keys, wrong types and limits below 1 refused, naming the key).
fn limits(options: &JsValue) -> Result<[Option<u32>; 2], OptionError> {
    const KEYS: &Keys = &[("maxLineBytes", 0), ("maxEventBytes", 1)];
    let (mut line, mut event) = (None, None);
    let entries = Entries::options(OWNER, options)?;
    fields(OWNER, entries, KEYS, |slot, read| {
        let limit = optional(read, |read| {
            whole_from(read, 1, "a whole number of bytes from 1 to 4294967295")
        })?;
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
        let bytes = |limit: Option<u32>, default| limit.map_or(default, |n| n as usize);
        Ok(Self {
            inner: SseDecoder::new(bytes(line, DEFAULT_MAX_LINE_BYTES))
                .with_max_event_bytes(bytes(event, DEFAULT_MAX_EVENT_BYTES)),
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
