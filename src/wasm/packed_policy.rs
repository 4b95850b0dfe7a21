//! A policy report as numbers and one string, which the JS face turns into the report's
//! objects (`pkg/src/policy_report.js`): a whole answer's report has a sentence object and a
//! citation object per marker, and building them from words in JS costs a fraction of
//! JSON's round trip (serialising here, `JSON.parse` there), while each sentence's text is a
//! slice of the string JS passed in, not a copy.
//!
//! Words (`u32`): `ok, sentence count, policy start, policy end`, then per sentence
//! `span start, span end, ok, problem start, problem end, citation count` (problem start
//! [`NONE`] when there is none), followed by its citations, each
//! `sourceId, span start, span end, valid, marker start, marker end`. Spans are UTF-16 units
//! of the text; the other starts and ends UTF-16 units of the string beside the words.

use wasm_bindgen::prelude::*;

use crate::cite::{Citation, PolicyReport};

/// The problem start of a sentence without a problem.
const NONE: u32 = u32::MAX;

#[derive(Default)]
struct Packer {
    words: Vec<u32>,
    extra: String,
    units: usize,
}

impl Packer {
    fn word(&mut self, n: usize) -> Option<()> {
        self.words
            .push(u32::try_from(n).ok().filter(|&w| w != NONE)?);
        Some(())
    }

    /// Appends `s` to the string and its UTF-16 range to the words.
    fn string(&mut self, s: &str) -> Option<()> {
        let start = self.units;
        self.extra.push_str(s);
        self.units += if s.is_ascii() {
            s.len()
        } else {
            s.encode_utf16().count()
        };
        self.word(start)?;
        self.word(self.units)
    }

    fn citation(&mut self, citation: &Citation) -> Option<()> {
        // Written out field by field: a field added to `Citation` must be packed too.
        let Citation {
            source_id,
            marker,
            span,
            valid,
            cited_text: None,
            source_span: None,
            document_title: None,
            url: None,
            location: None,
        } = citation
        else {
            return None;
        };
        self.words.push(*source_id);
        self.word(span[0])?;
        self.word(span[1])?;
        self.words.push(u32::from(*valid));
        self.string(marker)
    }
}

/// `[words, string]` for `report` of `text`, or none when JS slicing its own string would not
/// give each sentence's text: `text` has U+FFFD, which is what a lone surrogate in the JS
/// string became on the way in.
pub fn pack(text: &str, report: &PolicyReport) -> Option<JsValue> {
    if text.contains('\u{FFFD}') {
        return None;
    }
    let mut p = Packer::default();
    p.words.push(u32::from(report.ok));
    p.word(report.sentences.len())?;
    p.string(report.policy.name())?;
    for s in &report.sentences {
        p.word(s.span[0])?;
        p.word(s.span[1])?;
        p.words.push(u32::from(s.ok));
        match &s.problem {
            Some(problem) => p.string(problem)?,
            None => p.words.extend([NONE, NONE]),
        }
        p.word(s.citations.len())?;
        for c in &s.citations {
            p.citation(c)?;
        }
    }
    let words = js_sys::Uint32Array::from(p.words.as_slice());
    Some(js_sys::Array::of2(&words, &JsValue::from_str(&p.extra)).into())
}
