//! `EventFilterCore`: answers "is this event type kept?"; the shim caches the answers per
//! type, so events pass through as the very objects the caller pushed.

use wasm_bindgen::prelude::*;

use crate::options::js_value::with_cause;
use crate::transform::{EventFilterOutputTransformer, OutputTransformer, OutputTransformerConfig};

#[wasm_bindgen]
pub struct EventFilterCore {
    inner: EventFilterOutputTransformer,
}

#[wasm_bindgen]
impl EventFilterCore {
    #[wasm_bindgen(constructor)]
    pub fn new(options: JsValue) -> Result<EventFilterCore, JsValue> {
        let types =
            OutputTransformerConfig::event_types_js(&options).map_err(|e| with_cause(e.into()))?;
        Ok(Self {
            inner: EventFilterOutputTransformer::new(&types)?,
        })
    }

    pub fn accepts(&self, kind: &str) -> bool {
        self.inner.accepts(kind)
    }

    #[wasm_bindgen(js_name = allowedEventTypes)]
    pub fn allowed_event_types(&self) -> Vec<String> {
        self.inner
            .allowed_event_types()
            .map(str::to_owned)
            .collect()
    }

    #[wasm_bindgen(js_name = ensureOpen)]
    pub fn ensure_open(&self) -> Result<(), JsValue> {
        Ok(self.inner.ensure_open()?)
    }

    pub fn finish(&mut self) -> Result<(), JsValue> {
        self.inner.finish()?;
        Ok(())
    }
}
