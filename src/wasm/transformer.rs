//! `TransformerCore`: any transformer built from a config, with events converted at the
//! boundary; and `normalizeConfig`, which checks a config and returns its canonical form.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert;
use crate::event::Event;
use crate::transform::{OutputTransformer, OutputTransformerConfig};

#[wasm_bindgen]
pub struct TransformerCore {
    inner: Box<dyn OutputTransformer>,
}

fn config(value: JsValue) -> Result<OutputTransformerConfig, JsValue> {
    let value: Value = convert::from_js(value, "INVALID_CONFIG", "output transformer config")?;
    Ok(OutputTransformerConfig::from_value(&value)?)
}

/// Checks a config (a type name, `{type, kwargs}`, or a config object) and returns
/// `{type, kwargs}` with the canonical type name.
#[wasm_bindgen(js_name = normalizeConfig)]
pub fn normalize_config(value: JsValue) -> Result<JsValue, JsValue> {
    Ok(convert::to_js(&config(value)?.to_value()))
}

#[wasm_bindgen]
impl TransformerCore {
    #[wasm_bindgen(constructor)]
    pub fn new(config_value: JsValue) -> Result<TransformerCore, JsValue> {
        Ok(Self {
            inner: config(config_value)?.build()?,
        })
    }

    pub fn transform(&mut self, output: JsValue) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(
            &self.inner.transform(convert::output(output)?)?,
        ))
    }

    pub fn push(&mut self, event: JsValue) -> Result<JsValue, JsValue> {
        let event: Event = convert::from_js(event, "INVALID_EVENT", "event")?;
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
