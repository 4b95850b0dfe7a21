//! What several stream test files share: the pieces transcripts are built from, and running
//! the citation parser over chunks.
#![allow(dead_code)] // each test crate uses its own part

use citeflow::cite::{CitationParser, ParseOptions};
use citeflow::event::Event;
use citeflow::transform::OutputTransformer;
use serde_json::Value;

/// The number of cases per property: `n` (kept small for `cargo test` on a small machine),
/// or `CITEFLOW_PROPTEST_CASES` for a longer hunt.
pub fn cases(n: u32) -> u32 {
    std::env::var("CITEFLOW_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

/// Pieces think-tag transcripts are made of: tags whole and cut, look-alikes, multi-byte and
/// astral-plane characters, emoji tags.
pub const THINK_PIECES: &[&str] = &[
    "<think>",
    "</think>",
    "<thinking>",
    "</thinking>",
    "<th",
    "ink>",
    "</",
    "<",
    ">",
    "/",
    "think",
    "a",
    "b c",
    "é",
    "😀",
    "🙃",
    "😀😀",
    "<😀>",
    "</😀>",
    "<😀",
    "\n",
    "[[",
    "]]",
    "[[[",
];

/// U+FEFF (a byte-order mark when it comes first, which a default JS `TextDecoder` drops) and
/// the 66 noncharacters (U+FDD0..U+FDEF, the last two code points of every plane): text that
/// decoders are tempted to treat specially. Every split-invariance alphabet draws from them.
pub const ODD_CHARACTERS: &[&str] = &[
    "\u{FEFF}",
    "\u{FDD0}",
    "\u{FDD1}",
    "\u{FDD2}",
    "\u{FDD3}",
    "\u{FDD4}",
    "\u{FDD5}",
    "\u{FDD6}",
    "\u{FDD7}",
    "\u{FDD8}",
    "\u{FDD9}",
    "\u{FDDA}",
    "\u{FDDB}",
    "\u{FDDC}",
    "\u{FDDD}",
    "\u{FDDE}",
    "\u{FDDF}",
    "\u{FDE0}",
    "\u{FDE1}",
    "\u{FDE2}",
    "\u{FDE3}",
    "\u{FDE4}",
    "\u{FDE5}",
    "\u{FDE6}",
    "\u{FDE7}",
    "\u{FDE8}",
    "\u{FDE9}",
    "\u{FDEA}",
    "\u{FDEB}",
    "\u{FDEC}",
    "\u{FDED}",
    "\u{FDEE}",
    "\u{FDEF}",
    "\u{FFFE}",
    "\u{FFFF}",
    "\u{1FFFE}",
    "\u{1FFFF}",
    "\u{2FFFE}",
    "\u{2FFFF}",
    "\u{3FFFE}",
    "\u{3FFFF}",
    "\u{4FFFE}",
    "\u{4FFFF}",
    "\u{5FFFE}",
    "\u{5FFFF}",
    "\u{6FFFE}",
    "\u{6FFFF}",
    "\u{7FFFE}",
    "\u{7FFFF}",
    "\u{8FFFE}",
    "\u{8FFFF}",
    "\u{9FFFE}",
    "\u{9FFFF}",
    "\u{AFFFE}",
    "\u{AFFFF}",
    "\u{BFFFE}",
    "\u{BFFFF}",
    "\u{CFFFE}",
    "\u{CFFFF}",
    "\u{DFFFE}",
    "\u{DFFFF}",
    "\u{EFFFE}",
    "\u{EFFFF}",
    "\u{FFFFE}",
    "\u{FFFFF}",
    "\u{10FFFE}",
    "\u{10FFFF}",
];

/// A piece of `alphabet`, or now and then (one time in ten) an odd character.
pub fn piece(
    alphabet: &'static [&'static str],
) -> impl proptest::strategy::Strategy<Value = &'static str> + Clone {
    use proptest::prelude::*;
    prop_oneof![
        9 => prop::sample::select(alphabet),
        1 => prop::sample::select(ODD_CHARACTERS),
    ]
}

/// Streams `chunks` through a CitationParser: the citation events' values, and the text.
pub fn stream_citations(options: ParseOptions, chunks: &[&str]) -> (Vec<Value>, String) {
    let mut p = CitationParser::new(options);
    let mut events = Vec::new();
    for chunk in chunks {
        events.extend(p.push(Event::response(*chunk)).unwrap());
    }
    events.extend(p.finish().unwrap());
    let cites = events
        .iter()
        .filter(|e| e.kind == "citation")
        .map(|e| e.value.clone())
        .collect();
    let text = events
        .iter()
        .filter(|e| e.kind == "response")
        .map(|e| e.text_value().unwrap())
        .collect();
    (cites, text)
}

/// The char boundaries of `text` among `cuts` (taken modulo its length + 1), with 0 and the
/// end, sorted and unique: where a property test splits a transcript.
pub fn cut_bounds(text: &str, cuts: &[usize]) -> Vec<usize> {
    let mut bounds: Vec<usize> = cuts
        .iter()
        .map(|c| c % (text.len() + 1))
        .filter(|&c| text.is_char_boundary(c))
        .collect();
    bounds.extend([0, text.len()]);
    bounds.sort_unstable();
    bounds.dedup();
    bounds
}

/// The provider stream fixtures (tests/fixtures/provider_streams.json): `{name, format, sse,
/// events, error?}` each.
pub fn provider_cases() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/provider_streams.json"
    ))
    .unwrap();
    serde_json::from_str::<Value>(&text).unwrap()["cases"]
        .as_array()
        .unwrap()
        .clone()
}
