//! Citation functions and `CitationParserCore`, the parser behind the JS `CitationParser`.

use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::cite::{self, CitationParser, CiteOptions, Released};
use crate::transform::OutputTransformer;

fn text_arg(value: &JsValue, name: &str) -> Result<String, JsValue> {
    value.as_string().ok_or_else(|| {
        let got = if value.is_undefined() {
            "undefined".to_owned()
        } else {
            format!("{:?}", value.js_typeof().as_string().unwrap_or_default())
        };
        js_error(
            "INVALID_TEXT",
            &format!("`{name}` must be a string, got {got}"),
        )
    })
}

fn options(value: JsValue) -> Result<CiteOptions, JsValue> {
    Ok(CiteOptions::from_map(&convert::options(
        value, "citation",
    )?)?)
}

#[wasm_bindgen(js_name = parseCitations)]
pub fn parse_citations(text: JsValue, opts: JsValue) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    Ok(convert::to_js(&cite::parse_citations(
        &text,
        options(opts)?.parse_options(),
    )))
}

#[wasm_bindgen(js_name = deduplicateAdjacentCites)]
pub fn deduplicate_adjacent_cites(text: JsValue, opts: JsValue) -> Result<String, JsValue> {
    let text = text_arg(&text, "text")?;
    Ok(cite::deduplicate_adjacent_cites(
        &text,
        options(opts)?.marker_style,
    ))
}

#[wasm_bindgen(js_name = checkPolicy)]
pub fn check_policy(text: JsValue, opts: JsValue) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let o = options(opts)?;
    Ok(convert::to_js(&cite::check_policy(
        &text,
        o.policy.unwrap_or_default(),
        o.parse_options(),
    )))
}

#[wasm_bindgen(js_name = citationGrammar)]
pub fn citation_grammar(opts: JsValue) -> Result<String, JsValue> {
    Ok(cite::citation_grammar(options(opts)?.grammar_options()?)?)
}

/// `[{span, text}]` per sentence, spans in UTF-16 units.
#[wasm_bindgen(js_name = splitSentences)]
pub fn split_sentences(text: JsValue) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let mut units = crate::utf16::Utf16Cursor::new(&text);
    let sentences: Vec<serde_json::Value> = cite::split_sentences(&text)
        .into_iter()
        .map(|r| serde_json::json!({ "span": [units.to_utf16(r.start), units.to_utf16(r.end)], "text": &text[r] }))
        .collect();
    Ok(convert::to_js(&sentences))
}

#[wasm_bindgen]
pub struct CitationParserCore {
    inner: CitationParser,
}

/// `units16 * 2 + 1` when citations are waiting in `takeCitations`: one number back per chunk.
fn pack(released: Released, has_citations: bool) -> f64 {
    released.units16 as f64 * 2.0 + f64::from(u8::from(has_citations))
}

#[wasm_bindgen]
impl CitationParserCore {
    #[wasm_bindgen(constructor)]
    pub fn new(opts: JsValue) -> Result<CitationParserCore, JsValue> {
        Ok(Self {
            inner: CitationParser::new(options(opts)?.parse_options()),
        })
    }

    #[wasm_bindgen(js_name = pushText)]
    pub fn push_text(&mut self, chunk: &str) -> Result<f64, JsValue> {
        let released = self.inner.feed_text(chunk)?;
        Ok(pack(released, self.inner.has_citations()))
    }

    pub fn flush(&mut self) -> f64 {
        pack(self.inner.flush_text(), false)
    }

    pub fn finish(&mut self) -> Result<f64, JsValue> {
        let released = self.inner.finish_text()?;
        Ok(pack(released, self.inner.has_citations()))
    }

    #[wasm_bindgen(js_name = takeCitations)]
    pub fn take_citations(&mut self) -> JsValue {
        convert::to_js(&self.inner.take_citations())
    }

    #[wasm_bindgen(js_name = ensureOpen)]
    pub fn ensure_open(&self) -> Result<(), JsValue> {
        Ok(self.inner.ensure_open()?)
    }

    pub fn transform(&mut self, output: JsValue) -> Result<JsValue, JsValue> {
        Ok(convert::to_js(
            &self.inner.transform(convert::output(output)?)?,
        ))
    }
}
