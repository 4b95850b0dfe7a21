//! Citations against the shared fixtures, and the property that the streaming parser finds
//! the same citations for any split of the input, passing all text through.

use citeflow::cite::{
    deduplicate_adjacent_cites, parse_citations, Citation, CitationParser, MarkerStyle,
    ParseOptions,
};
use citeflow::event::Event;
use citeflow::transform::OutputTransformer;
use proptest::prelude::*;

#[path = "support/streams.rs"]
mod streams;
use serde_json::Value;
use streams::{piece, stream_citations};

fn fixtures() -> Value {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/citations.json"
    ))
    .unwrap();
    serde_json::from_str(&text).unwrap()
}

fn options(case: &Value) -> ParseOptions {
    ParseOptions {
        marker_style: MarkerStyle::parse(case["markerStyle"].as_str().unwrap()).unwrap(),
        source_count: case
            .get("sourceCount")
            .and_then(Value::as_u64)
            .map(|n| n as u32),
    }
}

fn slice16(text: &str, span: [usize; 2]) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    String::from_utf16(&units[span[0]..span[1]]).unwrap()
}

/// Streams `pieces` through a CitationParser: the citations, and the text that came out.
fn stream(options: ParseOptions, pieces: &[&str]) -> (Vec<Citation>, String) {
    let (cites, text) = stream_citations(options, pieces);
    let cites = cites
        .into_iter()
        .map(|v| serde_json::from_value(v).unwrap())
        .collect();
    (cites, text)
}

#[test]
fn parse_fixtures_hold_whole_and_split_anywhere() {
    for case in fixtures()["parse"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        let text = case["text"].as_str().unwrap();
        let opts = options(case);
        let got = parse_citations(text, opts);
        let want: Vec<(u64, String, bool)> = case["citations"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                (
                    c[0].as_u64().unwrap(),
                    c[1].as_str().unwrap().to_owned(),
                    c[2].as_bool().unwrap(),
                )
            })
            .collect();
        let got_triples: Vec<(u64, String, bool)> = got
            .iter()
            .map(|c| (u64::from(c.source_id), c.marker.clone(), c.valid))
            .collect();
        assert_eq!(got_triples, want, "{name}");
        for c in &got {
            assert_eq!(slice16(text, c.span), c.marker, "{name}: span");
        }
        for a in 0..=text.len() {
            if !text.is_char_boundary(a) {
                continue;
            }
            let (cites, out) = stream(opts, &[&text[..a], &text[a..]]);
            assert_eq!(cites, got, "{name} split at {a}");
            assert_eq!(out, text, "{name} split at {a}: text");
        }
    }
}

#[test]
fn dedup_fixtures_hold() {
    for case in fixtures()["dedup"].as_array().unwrap() {
        let style = MarkerStyle::parse(case["markerStyle"].as_str().unwrap()).unwrap();
        assert_eq!(
            deduplicate_adjacent_cites(case["text"].as_str().unwrap(), style),
            case["expected"].as_str().unwrap()
        );
    }
}

const PIECES: &[&str] = &[
    "[", "]", "1", "2", "12", ",", ", ", " ", "-", "(", ")", "{", "}", "^", "`", "```", "~~~",
    "\n", "://", "http", ":", "a", "é", "😀", "[^1]", "[1]", "(2)",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_split_finds_the_same_citations(
        parts in prop::collection::vec(piece(PIECES), 0..40),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
        style in prop::sample::select(MarkerStyle::ALL.to_vec()),
        sources in prop::option::of(0u32..20),
    ) {
        let text = parts.concat();
        let opts = ParseOptions { marker_style: style, source_count: sources };
        let whole = parse_citations(&text, opts);
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (text.len() + 1)).filter(|&c| text.is_char_boundary(c)).collect();
        bounds.extend([0, text.len()]);
        bounds.sort_unstable();
        bounds.dedup();
        let pieces: Vec<&str> = bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect();
        let (cites, out) = stream(opts, &pieces);
        prop_assert_eq!(&cites, &whole);
        prop_assert_eq!(out, text.clone());
        for c in &whole {
            prop_assert_eq!(slice16(&text, c.span), c.marker.clone());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(384))]

    /// A block's citations come before its `response_end`, for any split of its text and
    /// however the text ends (a marker last, the common case, included): a UI or an adapter
    /// closing the block has them all. And they are the citations of the whole text.
    #[test]
    fn a_blocks_citations_come_before_its_end(
        parts in prop::collection::vec(piece(PIECES), 0..30),
        cuts in prop::collection::vec(any::<usize>(), 0..8),
        style in prop::sample::select(MarkerStyle::ALL.to_vec()),
        trailing in prop::sample::select(vec!["", " [2]", "[1]", " (1)", " ^2", "{3}"]),
    ) {
        let text = parts.concat() + trailing;
        let opts = ParseOptions { marker_style: style, source_count: Some(5) };
        let whole = parse_citations(&text, opts);
        let bounds = streams::cut_bounds(&text, &cuts);
        let mut parser = CitationParser::new(opts);
        let mut events = parser.push(Event::text("response_start", Some("b".into()), "")).unwrap();
        for w in bounds.windows(2) {
            events.extend(parser.push(Event::text("response", Some("b".into()), &text[w[0]..w[1]])).unwrap());
        }
        events.extend(parser.push(Event::text("response_end", Some("b".into()), "")).unwrap());
        let end = events.len() - 1;
        prop_assert_eq!(events[end].kind.as_str(), "response_end");
        events.extend(parser.finish().unwrap());
        prop_assert_eq!(events.len() - 1, end, "nothing after the block's end");
        let cites: Vec<Citation> = events
            .iter()
            .filter(|e| e.kind == "citation")
            .map(|e| serde_json::from_value(e.value.clone()).unwrap())
            .collect();
        prop_assert_eq!(cites, whole);
    }
}
