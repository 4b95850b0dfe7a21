//! `TransformerCore`: any transformer built from a config, with events converted at the
//! boundary, and `transformOutput`, a transformer applied to a whole output. Both go through
//! JSON trees, so they are in the full streaming module only (not with `lean-stream`).

use wasm_bindgen::prelude::*;

use super::convert;
use super::transformer::config;
use crate::event::Event;
use crate::transform::OutputTransformer;

#[wasm_bindgen]
pub struct TransformerCore {
    inner: Box<dyn OutputTransformer>,
}

/// What the transformer `config` makes of a whole output.
#[wasm_bindgen(js_name = transformOutput)]
pub fn transform_output(config_value: JsValue, output: JsValue) -> Result<JsValue, JsValue> {
    let mut transformer = config(&config_value, None)?.build()?;
    Ok(convert::to_js(
        &transformer.transform(convert::output(output)?)?,
    ))
}

#[wasm_bindgen]
impl TransformerCore {
    #[wasm_bindgen(constructor)]
    pub fn new(config_value: JsValue) -> Result<TransformerCore, JsValue> {
        Ok(Self {
            inner: config(&config_value, None)?.build()?,
        })
    }

    pub fn transform(&mut self, output: JsValue) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(
            &self.inner.transform(convert::output(output)?)?,
        ))
    }

    pub fn push(&mut self, event: JsValue) -> Result<JsValue, JsValue> {
        let event: Event = convert::event(event)?;
        Ok(convert::to_js(&self.inner.push(event)?))
    }

    pub fn finish(&mut self) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(&self.inner.finish()?))
    }

    #[wasm_bindgen(js_name = ensureOpen)]
    pub fn ensure_open(&self) -> Result<(), JsValue> {
        Ok(self.inner.ensure_open()?)
    }
}
