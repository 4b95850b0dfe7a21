//! Whole-text results as numbers (and one string), which the JS face turns into their objects
//! (`pkg/src/packed.js`): a whole answer's citations or policy report has an object per
//! marker (and per sentence), and building them from words in JS costs a fraction of JSON's
//! round trip (serialising here, `JSON.parse` there), while each marker and each sentence's
//! text are slices of the string JS passed in, not copies. The words are written straight from
//! the scan (and the check's verdicts, [`each_verdict`]): no result is built here.
//!
//! A citation is four words, `sourceId, span start, span end, valid` (the marker is the text
//! at the span).
//!
//! [`citations`]: the citations of the text, one after another.
//!
//! [`policy`]: `ok, sentence count, policy start, policy end`, then per sentence
//! `span start, span end, ok, problem start, problem end, citation count` (problem start
//! [`NONE`] when there is none), followed by its citations.
//!
//! Spans are UTF-16 units of the text; the other starts and ends UTF-16 units of the string
//! beside the words.

use wasm_bindgen::prelude::*;

use crate::cite::policy::each_verdict;
use crate::cite::{Found, MarkerScanner, ParseOptions, Policy};

/// The problem start of a sentence without a problem.
use crate::abi::PACKED_NONE as NONE;

#[derive(Default)]
struct Packer {
    words: Vec<u32>,
    extra: String,
    units: usize,
    /// A number did not fit a word.
    overflow: bool,
}

impl Packer {
    fn word(&mut self, n: usize) {
        match u32::try_from(n).ok().filter(|&w| w != NONE) {
            Some(w) => self.words.push(w),
            None => self.overflow = true,
        }
    }

    /// Each citation of the marker group `f`.
    fn citations(&mut self, f: &Found, options: ParseOptions) {
        for (source_id, valid) in options.cited_ids(f) {
            self.words.push(source_id);
            self.word(f.span16.start);
            self.word(f.span16.end);
            self.words.push(u32::from(valid));
        }
    }

    /// Appends `s` to the string and its UTF-16 range to the words.
    fn string(&mut self, s: &str) {
        let start = self.units;
        self.extra.push_str(s);
        self.units += if s.is_ascii() {
            s.len()
        } else {
            s.encode_utf16().count()
        };
        self.word(start);
        self.word(self.units);
    }
}

/// The words of the citations in `text` (a `Uint32Array`), or none when JS slicing its own
/// string would not give each marker: `text` has U+FFFD, which is what a lone surrogate in the
/// JS string became on the way in (or a number does not fit a word).
pub fn citations(text: &str, options: ParseOptions) -> Option<JsValue> {
    if !super::citations::sliceable_in_js(text) {
        return None;
    }
    let mut p = Packer::default();
    for f in MarkerScanner::find_all(options.marker_style, options.source_count, text) {
        p.citations(&f, options);
    }
    (!p.overflow).then(|| js_sys::Uint32Array::from(p.words.as_slice()).into())
}

/// `[words, string]` for the check of `text` against `policy`, or none when JS slicing its own
/// string would not give each sentence's text (as for [`citations`]).
pub fn policy(text: &str, policy: Policy, options: ParseOptions) -> Option<JsValue> {
    if !super::citations::sliceable_in_js(text) {
        return None;
    }
    let mut p = Packer::default();
    p.words.extend([1, 0]);
    p.string(policy.name());
    let mut ok = true;
    let mut count = 0_usize;
    each_verdict(text, policy, options, |v| {
        count += 1;
        p.word(v.span16[0]);
        p.word(v.span16[1]);
        p.words.push(u32::from(v.problem.is_none()));
        match &v.problem {
            Some(problem) => {
                ok = false;
                p.string(problem);
            }
            None => p.words.extend([NONE, NONE]),
        }
        p.word(v.found.iter().map(|f| f.ids.len()).sum());
        for f in v.found {
            p.citations(f, options);
        }
    });
    let count = u32::try_from(count).ok().filter(|&n| n != NONE)?;
    if p.overflow {
        return None;
    }
    p.words
        .get_mut(..2)?
        .copy_from_slice(&[u32::from(ok), count]);
    let words = js_sys::Uint32Array::from(p.words.as_slice());
    Some(js_sys::Array::of2(&words, &JsValue::from_str(&p.extra)).into())
}
