//! `TransformerCore`: any transformer built from a config, with events converted at the
//! boundary; `normalizeConfig`, which checks a config and returns its canonical form;
//! `stageConfig`, the engine config of one transformer's options; `stageTriggers`, what can
//! change a quiet stage; `transformOutput`, a transformer applied to a whole output.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert;
use crate::cite::{CiteOptions, MarkerScanner};
use crate::event::Event;
use crate::transform::{
    think_tag_options, unique_prefix, OutputTransformer, OutputTransformerConfig,
    ThinkTagOutputTransformer, TransformerKind,
};

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

/// The engine config (`{type, kwargs}`) of one transformer from its options (`undefined` and
/// `null` mean none), checked. A think-tag config gets its block id prefix here, so that the
/// JS face knows which blocks are its own.
#[wasm_bindgen(js_name = stageConfig)]
pub fn stage_config(kind: &str, options: JsValue) -> Result<JsValue, JsValue> {
    let kind = TransformerKind::parse(kind)?;
    let owner = match kind {
        TransformerKind::ThinkTag => ThinkTagOutputTransformer::NAME,
        TransformerKind::Citations => "CitationParser",
        _ => kind.name(),
    };
    let mut kwargs = convert::options(options, owner)?;
    if kind == TransformerKind::ThinkTag && think_tag_options(&kwargs)?.id_prefix.is_none() {
        kwargs.remove("id_prefix");
        kwargs.insert("idPrefix".into(), Value::String(unique_prefix("tt")));
    }
    let config = OutputTransformerConfig { kind, kwargs };
    config.build()?;
    Ok(convert::to_js(&config.to_value()))
}

/// The strings that can change a think-tag or citation stage while it holds nothing back:
/// every tag (open and close) of a think-tag stage, the trigger characters of a citation
/// stage (none for other stages). A chunk in which none of them starts, and no end of which
/// begins one, passes through such a stage as text of its open block (the JS face's fast
/// path for short chunks).
#[wasm_bindgen(js_name = stageTriggers)]
pub fn stage_triggers(config_value: JsValue) -> Result<Vec<String>, JsValue> {
    let config = config(config_value)?;
    Ok(match config.kind {
        TransformerKind::ThinkTag => think_tag_options(&config.kwargs)?
            .tags
            .into_iter()
            .flat_map(|pair| [pair.open, pair.close])
            .collect(),
        TransformerKind::Citations => {
            MarkerScanner::triggers(CiteOptions::from_map(&config.kwargs)?.marker_style)
                .into_iter()
                .map(|b| char::from(b).to_string())
                .collect()
        }
        _ => Vec::new(),
    })
}

/// What the transformer `config` makes of a whole output.
#[wasm_bindgen(js_name = transformOutput)]
pub fn transform_output(config_value: JsValue, output: JsValue) -> Result<JsValue, JsValue> {
    let mut transformer = config(config_value)?.build()?;
    Ok(convert::to_js(
        &transformer.transform(convert::output(output)?)?,
    ))
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
