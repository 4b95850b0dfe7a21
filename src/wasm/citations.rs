//! Citation functions over whole texts (the streaming `CitationParser` is a stage of the
//! engine, [`super::engine`]).

use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::cite::{self, CiteOptions};

/// Whether offsets into `text` slice the caller's JS string into the same pieces: not when
/// `text` has U+FFFD, which is what a lone surrogate in the JS string became on the way in.
/// (The packed results that JS builds from slices of its own string fall back to whole
/// strings then.)
pub(super) fn sliceable_in_js(text: &str) -> bool {
    text.is_ascii() || !text.contains('\u{FFFD}')
}

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

/// The citations of `text`; `packed`: as words where it can be ([`super::packed::citations`]),
/// else (and always without `packed`) as objects.
#[wasm_bindgen(js_name = parseCitations)]
pub fn parse_citations(
    text: JsValue,
    opts: JsValue,
    packed: Option<bool>,
) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let parse = options(opts)?.parse_options();
    Ok(packed
        .unwrap_or(false)
        .then(|| super::packed::citations(&text, parse))
        .flatten()
        .unwrap_or_else(|| convert::to_js(&cite::parse_citations(&text, parse))))
}

/// The deduplicated text; `edits`: as the edits that make it from `text` where it can be
/// ([`dedup_edits`]), else (and always without `edits`) as the string.
#[wasm_bindgen(js_name = deduplicateAdjacentCites)]
pub fn deduplicate_adjacent_cites(
    text: JsValue,
    opts: JsValue,
    edits: Option<bool>,
) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let style = options(opts)?.marker_style;
    Ok(edits
        .unwrap_or(false)
        .then(|| dedup_edits(&text, style))
        .flatten()
        .unwrap_or_else(|| cite::deduplicate_adjacent_cites(&text, style).into()))
}

/// `[words, string]`: per run the rewrite changes, `start, end` (UTF-16 units of the text)
/// and the range of its replacement in the string (UTF-16 units). The JS face builds the
/// result from slices of its own string, so no answer-sized string crosses back; none when
/// that would not give the same text (`text` has U+FFFD, which is what a lone surrogate in the
/// JS string became on the way in) or a number does not fit a word.
fn dedup_edits(text: &str, style: cite::MarkerStyle) -> Option<JsValue> {
    if !sliceable_in_js(text) {
        return None;
    }
    let mut words = Vec::new();
    let mut with = String::new();
    let mut units = 0;
    let mut fits = true;
    let mut word = |n: usize, words: &mut Vec<u32>| match u32::try_from(n) {
        Ok(n) => words.push(n),
        Err(_) => fits = false,
    };
    cite::dedup::each_rewrite(text, style, |first, last, replacement| {
        word(first.span16.start, &mut words);
        word(last.span16.end, &mut words);
        word(units, &mut words);
        with.push_str(replacement);
        units += replacement.encode_utf16().count();
        word(units, &mut words);
    });
    fits.then(|| {
        let words = js_sys::Uint32Array::from(words.as_slice());
        js_sys::Array::of2(&words, &JsValue::from_str(&with)).into()
    })
}

/// The policy report of `text`; `packed`: as words and a string where it can be
/// ([`super::packed::policy`]), else (and always without `packed`) as the report's objects.
#[wasm_bindgen(js_name = checkPolicy)]
pub fn check_policy(
    text: JsValue,
    opts: JsValue,
    packed: Option<bool>,
) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let o = options(opts)?;
    let (policy, parse) = (o.policy.unwrap_or_default(), o.parse_options());
    Ok(packed
        .unwrap_or(false)
        .then(|| super::packed::policy(&text, policy, parse))
        .flatten()
        .unwrap_or_else(|| convert::to_js(&cite::check_policy(&text, policy, parse))))
}

#[wasm_bindgen(js_name = citationGrammar)]
pub fn citation_grammar(opts: JsValue) -> Result<String, JsValue> {
    Ok(cite::citation_grammar(options(opts)?.grammar_options()?)?)
}

/// `new Citeformer({...})`'s plain options checked, defaults filled in: `{style, citationPolicy,
/// markerStyle, deduplicateCites, enforce}` (the JS face checks `lmInvoker` and `toCslItem`); a
/// style that is neither CSL XML nor a bundled name is UNKNOWN_STYLE here, before any model call.
#[wasm_bindgen(js_name = citeformerOptions)]
pub fn citeformer_options(opts: JsValue) -> Result<JsValue, JsValue> {
    let map = convert::options(opts, "Citeformer")?;
    let options = cite::CiteformerOptions::from_map(&map)?;
    crate::reference::check_style(&options.style)
        .map_err(|e| js_error(crate::reference::UnknownStyle::CODE, e.message()))?;
    Ok(convert::to_js(&options))
}

/// A Citeformer call's `{policy, markerStyle, enforce}` checked (absent ones `null`), every
/// other key but `prompt`, `sources` and `modelOptions` refused.
#[wasm_bindgen(js_name = citeformerCallOptions)]
pub fn citeformer_call_options(opts: JsValue) -> Result<JsValue, JsValue> {
    let map = convert::options(opts, "Citeformer call")?;
    Ok(convert::to_js(&cite::options::CallOptions::from_map(&map)?))
}

/// `[{span, text}]` per sentence, spans in UTF-16 units.
#[wasm_bindgen(js_name = splitSentences)]
pub fn split_sentences(text: JsValue) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let mut units = crate::utf16::Utf16Cursor::new(&text);
    let sentences: Vec<serde_json::Value> = cite::split_sentences(&text)
        .into_iter()
        .map(|r| {
            let span = [units.to_utf16(r.start), units.to_utf16(r.end)];
            serde_json::json!({ "span": span, "text": text.get(r).unwrap_or_default() })
        })
        .collect();
    Ok(convert::to_js(&sentences))
}

/// What `GenerationResult.verify` asks the judge (claims per citation, uncited sentences).
#[wasm_bindgen(js_name = verifyPlan)]
pub fn verify_plan(text: JsValue, opts: JsValue) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    Ok(convert::to_js(&cite::verify_plan(
        &text,
        options(opts)?.parse_options(),
    )))
}

/// The report of `verify`: the plan of `text` with the judge's scores (claims in order; the
/// uncited sentences' scores sentence by sentence, one per source).
#[wasm_bindgen(js_name = verifyReport)]
pub fn verify_report(
    text: JsValue,
    opts: JsValue,
    claim_scores: Vec<f64>,
    uncited_scores: Vec<f64>,
    threshold: f64,
) -> Result<JsValue, JsValue> {
    let text = text_arg(&text, "text")?;
    let o = options(opts)?;
    let plan = cite::verify_plan(&text, o.parse_options());
    let sources = o.source_count.unwrap_or(0) as usize;
    Ok(convert::to_js(&cite::verify_report(
        &plan,
        &claim_scores,
        &uncited_scores,
        sources,
        threshold,
    )))
}

/// Citeformer's system message for these sources, policy and marker style.
#[wasm_bindgen(js_name = citeformerInstructions)]
pub fn citeformer_instructions(sources: JsValue, opts: JsValue) -> Result<String, JsValue> {
    let sources = convert::js_to_json(&sources, "INVALID_SOURCE", "sources")?;
    let o = options(opts)?;
    Ok(cite::prompt::instructions(
        sources.as_array().map(Vec::as_slice).unwrap_or_default(),
        o.policy.unwrap_or_default(),
        o.marker_style,
    ))
}

/// The text of each source the model reads and verification judges against.
#[wasm_bindgen(js_name = sourceTexts)]
pub fn source_texts(sources: JsValue) -> Result<Vec<String>, JsValue> {
    let sources = convert::js_to_json(&sources, "INVALID_SOURCE", "sources")?;
    Ok(cite::prompt::source_texts(
        sources.as_array().map(Vec::as_slice).unwrap_or_default(),
    ))
}

/// The offline judge: share of the hypothesis's content words found in the premise.
#[wasm_bindgen(js_name = lexicalEntailment)]
pub fn lexical_entailment(premise: JsValue, hypothesis: JsValue) -> Result<f64, JsValue> {
    Ok(cite::lexical_entailment(
        &text_arg(&premise, "premise")?,
        &text_arg(&hypothesis, "hypothesis")?,
    ))
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CitedHtmlInput {
    text: String,
    #[serde(default)]
    citations: Vec<cite::MarkerLink>,
    #[serde(default)]
    references: Vec<cite::ListedReference>,
}

#[derive(serde::Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct CitedHtmlOptions {
    #[serde(default)]
    id_prefix: Option<String>,
}

/// Safe HTML of a cited answer `{text, citations, references}`, with options `{idPrefix}`.
#[wasm_bindgen(js_name = renderCitedHtml)]
pub fn render_cited_html(input: JsValue, options: JsValue) -> Result<String, JsValue> {
    let input: CitedHtmlInput = convert::options_as(input, "renderCitedHtml's result")?;
    let options: CitedHtmlOptions = convert::options_as(options, "renderCitedHtml")?;
    Ok(cite::render_cited_html(
        &input.text,
        &input.citations,
        &input.references,
        options.id_prefix.as_deref().unwrap_or(DEFAULT_ID_PREFIX),
    ))
}

/// The id prefix of reference list items: `ref-1`, `ref-2`, …
const DEFAULT_ID_PREFIX: &str = "ref-";
