//! `SseDecoderCore`: the SSE decoder behind the JS `SSEDecoder`.

use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::provider::{
    ProviderByteStream, ProviderStreamDecoder, SseDecoder, SseMessage, StreamFormat,
    DEFAULT_MAX_LINE_BYTES,
};

#[wasm_bindgen]
pub struct SseDecoderCore {
    inner: SseDecoder,
}

#[wasm_bindgen]
impl SseDecoderCore {
    #[wasm_bindgen(constructor)]
    pub fn new(max_line_bytes: Option<f64>) -> Result<SseDecoderCore, JsValue> {
        let max = match max_line_bytes {
            None => DEFAULT_MAX_LINE_BYTES,
            Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= u32::MAX as f64 => n as usize,
            Some(n) => {
                return Err(js_error(
                    "INVALID_OPTION",
                    &format!("maxLineBytes must be a whole number ≥ 1, got {n}"),
                ))
            }
        };
        Ok(Self {
            inner: SseDecoder::new(max),
        })
    }

    /// Messages completed by these bytes.
    pub fn push(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(&self.inner.push(bytes)?))
    }

    pub fn finish(&mut self) -> Result<(), JsValue> {
        Ok(self.inner.finish()?)
    }
}

/// Provider stream decoding behind the JS `ProviderStreamDecoder`.
#[wasm_bindgen]
pub struct ProviderStreamCore {
    inner: ProviderStreamDecoder,
}

#[wasm_bindgen]
impl ProviderStreamCore {
    #[wasm_bindgen(constructor)]
    pub fn new(format: &str) -> Result<ProviderStreamCore, JsValue> {
        Ok(Self {
            inner: ProviderStreamDecoder::new(stream_format(format)?),
        })
    }

    /// Events from one SSE message (`{event?, data, id?}`).
    pub fn push(&mut self, message: JsValue) -> Result<JsValue, JsValue> {
        let message: SseMessage =
            convert::from_js(message, "INVALID_EVENT", "SSE message {event?, data}")?;
        Ok(convert::to_js(&self.inner.push(&message)?))
    }

    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(&self.inner.finish()?))
    }

    #[wasm_bindgen(js_name = finishReason)]
    pub fn finish_reason(&self) -> Option<String> {
        self.inner.finish_reason().map(str::to_owned)
    }
}

/// Response body bytes → events in one step (`decodeProviderStream`).
#[wasm_bindgen]
pub struct ProviderBytesCore {
    inner: ProviderByteStream,
}

#[wasm_bindgen]
impl ProviderBytesCore {
    #[wasm_bindgen(constructor)]
    pub fn new(format: &str) -> Result<ProviderBytesCore, JsValue> {
        Ok(Self {
            inner: ProviderByteStream::new(stream_format(format)?),
        })
    }

    pub fn push(&mut self, bytes: &[u8]) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(&self.inner.push(bytes)?))
    }

    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(&self.inner.finish()?))
    }
}

fn stream_format(format: &str) -> Result<StreamFormat, JsValue> {
    StreamFormat::parse(format).ok_or_else(|| {
        js_error("UNKNOWN_PROVIDER", &format!("unknown stream format {format:?}; use \"openai\", \"openrouter\", \"openai-compatible\" or \"anthropic\""))
    })
}
