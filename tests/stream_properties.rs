//! Every stream machine gives the same result for any split of its input: cut at arbitrary
//! points (markers and tags included, multi-byte and astral-plane text included), with empty
//! chunks inserted anywhere, or fed whole. Machines: the citation parser, the think-tag
//! splitter (default and custom tags, astral ones among them), the event filter, the JSON
//! transformer and a chain of them.

use citeflow::cite::{parse_citations, CitationParser, MarkerStyle, ParseOptions};
use citeflow::event::{items_from_events, Event, LmOutput};
use citeflow::transform::{
    EventFilterOutputTransformer, JsonOutputTransformer, OutputTransformer, OutputTransformerChain,
    TagPair, ThinkTagOptions, ThinkTagOutputTransformer,
};
use proptest::prelude::*;

#[path = "support/streams.rs"]
mod streams;
use serde_json::Value;
use streams::{cases, cut_bounds, piece, stream_citations, THINK_PIECES};

// ---------------------------------------------------------------------------------------
// Splitting

/// `text` cut at the char boundaries among `cuts` (taken modulo its length), with an empty
/// chunk inserted before the pieces whose index (modulo the piece count + 1) is in `empties`.
fn pieces<'a>(text: &'a str, cuts: &[usize], empties: &[usize]) -> Vec<&'a str> {
    let bounds = cut_bounds(text, cuts);
    let parts: Vec<&str> = bounds.windows(2).map(|w| &text[w[0]..w[1]]).collect();
    let empties_before = |i: usize| {
        empties
            .iter()
            .filter(|&&e| e % (parts.len() + 1) == i)
            .count()
    };
    let mut out = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        out.extend(std::iter::repeat_n("", empties_before(i)));
        out.push(*part);
    }
    out.extend(std::iter::repeat_n("", empties_before(parts.len())));
    out
}

/// Every char boundary of `text` as a single cut (the exhaustive form of [`pieces`]).
fn every_single_cut(text: &str) -> impl Iterator<Item = [&str; 2]> {
    (0..=text.len())
        .filter(|&a| text.is_char_boundary(a))
        .map(move |a| [&text[..a], &text[a..]])
}

fn cuts() -> impl Strategy<Value = (Vec<usize>, Vec<usize>)> {
    (
        prop::collection::vec(any::<usize>(), 0..12),
        prop::collection::vec(any::<usize>(), 0..4),
    )
}

fn from_pieces(alphabet: &'static [&'static str], max: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(piece(alphabet), 0..max).prop_map(|v| v.concat())
}

/// Runs events through a transformer, finishing it.
fn run(t: &mut dyn OutputTransformer, input: impl IntoIterator<Item = Event>) -> Vec<Event> {
    let mut out = Vec::new();
    for e in input {
        out.extend(t.push(e).unwrap());
    }
    out.extend(t.finish().unwrap());
    out
}

fn is_content(kind: &str) -> bool {
    !kind.ends_with("_start") && !kind.ends_with("_end")
}

/// What a UI shows: adjacent text content events of the same type and id merged, empty
/// text content events dropped (they carry nothing).
fn merged(events: &[Event]) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        if is_content(&e.kind) && e.text_value() == Some("") {
            continue;
        }
        if let Some(last) = out.last_mut() {
            if is_content(&e.kind) && last.kind == e.kind && last.id == e.id {
                if let (Value::String(a), Some(b)) = (&mut last.value, e.text_value()) {
                    a.push_str(b);
                    continue;
                }
            }
        }
        out.push(e.clone());
    }
    out
}

// ---------------------------------------------------------------------------------------
// The citation parser

const CITE_PIECES: &[&str] = &[
    "[",
    "]",
    "1",
    "2",
    "12",
    "0",
    "4294967296",
    "99999999999",
    ",",
    ", ",
    "; ",
    " ",
    "-",
    "–",
    "(",
    ")",
    "{",
    "}",
    "^",
    "`",
    "```",
    "~~~",
    "\n",
    "\n\n",
    "://",
    "http",
    ":",
    "a",
    ".",
    "é",
    "😀",
    "\u{a0}",
    "[^1]",
    "[1]",
    "(2)",
    "{3}",
    "^4",
    "[1, 2]",
    "[2-3]",
    "[4294967296]",
    "[1, 99999999999999999999]",
];

fn cite_options() -> impl Strategy<Value = ParseOptions> {
    (
        prop::sample::select(MarkerStyle::ALL.to_vec()),
        prop_oneof![Just(None), (0u32..20).prop_map(Some), Just(Some(u32::MAX))],
    )
        .prop_map(|(marker_style, source_count)| ParseOptions {
            marker_style,
            source_count,
        })
}

fn utf16_slice(text: &str, span: &Value) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let (a, b) = (span[0].as_u64().unwrap(), span[1].as_u64().unwrap());
    String::from_utf16(&units[a as usize..b as usize]).unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn citation_parser_any_split_with_empty_chunks(
        text in from_pieces(CITE_PIECES, 40),
        (cuts, empties) in cuts(),
        options in cite_options(),
    ) {
        let whole: Vec<Value> = parse_citations(&text, options)
            .iter()
            .map(|c| serde_json::to_value(c).unwrap())
            .collect();
        let (fed_whole, out) = stream_citations(options, &[&text]);
        prop_assert_eq!(&fed_whole, &whole);
        prop_assert_eq!(&out, &text);
        let (split, out) = stream_citations(options, &pieces(&text, &cuts, &empties));
        prop_assert_eq!(&split, &whole);
        prop_assert_eq!(&out, &text);
        for c in &whole {
            prop_assert_eq!(utf16_slice(&text, &c["span"]), c["marker"].as_str().unwrap());
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Every marker cut at every position.
    #[test]
    fn citation_parser_every_single_cut(
        text in from_pieces(CITE_PIECES, 16),
        options in cite_options(),
    ) {
        let (whole, _) = stream_citations(options, &[&text]);
        for cut in every_single_cut(&text) {
            let (split, out) = stream_citations(options, &cut);
            prop_assert_eq!(&split, &whole, "cut {:?}", cut);
            prop_assert_eq!(&out, &text);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The think-tag splitter

fn tag_sets() -> impl Strategy<Value = Vec<TagPair>> {
    prop::sample::select(vec![
        vec![TagPair::default()],
        vec![TagPair::xml("think"), TagPair::xml("thinking")],
        vec![TagPair::new("[[", "]]"), TagPair::new("[[[", "]]]")],
        vec![TagPair::new("😀", "🙃")],
        vec![TagPair::new("😀", "😀😀")],
        vec![TagPair::xml("😀"), TagPair::default()],
        vec![TagPair::new("é", "😀")],
    ])
}

fn think_options() -> impl Strategy<Value = ThinkTagOptions> {
    (tag_sets(), any::<bool>()).prop_map(|(tags, start_in_thinking)| ThinkTagOptions {
        tags,
        start_in_thinking,
        id_prefix: Some("t".into()),
    })
}

fn think(options: &ThinkTagOptions, chunks: &[&str]) -> Vec<Event> {
    let mut t = ThinkTagOutputTransformer::new(options.clone()).unwrap();
    run(&mut t, chunks.iter().map(|c| Event::response(*c)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn think_tags_any_split_with_empty_chunks(
        text in from_pieces(THINK_PIECES, 40),
        (cuts, empties) in cuts(),
        options in think_options(),
    ) {
        let whole = think(&options, &[&text]);
        let split = think(&options, &pieces(&text, &cuts, &empties));
        prop_assert_eq!(merged(&split), merged(&whole));
        let items = ThinkTagOutputTransformer::new(options.clone())
            .unwrap()
            .transform(LmOutput::from_text(text.clone()))
            .unwrap()
            .outputs;
        prop_assert_eq!(items, items_from_events(&split));
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(48)))]

    /// Every tag cut at every position.
    #[test]
    fn think_tags_every_single_cut(
        text in from_pieces(THINK_PIECES, 16),
        options in think_options(),
    ) {
        let whole = merged(&think(&options, &[&text]));
        for cut in every_single_cut(&text) {
            prop_assert_eq!(merged(&think(&options, &cut)), whole.clone(), "cut {:?}", cut);
        }
    }
}

// ---------------------------------------------------------------------------------------
// The event filter, the JSON transformer and a chain

const KINDS: &[&str] = &[
    "response",
    "response_start",
    "response_end",
    "thinking",
    "thinking_start",
    "thinking_end",
    "status",
    "citation",
    "activity_start",
    "_start",
    "",
];

const JSON_PIECES: &[&str] = &[
    "{",
    "}",
    "\"",
    "a",
    "\"k\"",
    ":",
    "1",
    ",",
    "[",
    "]",
    " ",
    "é",
    "😀",
    "\\",
    "null",
    "```json\n",
    "```",
];

/// A stream of events: text events of the listed kinds, each text a few pieces long.
fn events() -> impl Strategy<Value = Vec<(String, String)>> {
    prop::collection::vec(
        (
            prop::sample::select(KINDS).prop_map(str::to_owned),
            from_pieces(JSON_PIECES, 6),
        ),
        0..12,
    )
}

/// Each text content event split into pieces at the given cuts (with empty pieces); starts,
/// ends and citations (whose value is one thing, not a stream) are kept whole.
fn split_events(stream: &[(String, String)], cuts: &[usize], empties: &[usize]) -> Vec<Event> {
    stream
        .iter()
        .flat_map(|(kind, text)| {
            if is_content(kind) && kind != "citation" {
                pieces(text, cuts, empties)
                    .into_iter()
                    .map(|p| Event::text(kind, Some("e".into()), p))
                    .collect()
            } else {
                vec![Event::text(kind, Some("e".into()), text.as_str())]
            }
        })
        .collect()
}

fn whole_events(stream: &[(String, String)]) -> Vec<Event> {
    split_events(stream, &[], &[])
}

/// Text events merged, and the JSON events (citations, structured) apart and without their
/// ids: the JSON transformer's ids are unique per instance, and where a citation falls among
/// text pieces depends on the split, not what it says.
fn canonical(events: &[Event]) -> (Vec<Event>, Vec<(String, Value)>) {
    let (json, text): (Vec<Event>, Vec<Event>) = events
        .iter()
        .cloned()
        .partition(|e| e.kind == "citation" || e.kind == "structured");
    (
        merged(&text),
        json.into_iter().map(|e| (e.kind, e.value)).collect(),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn event_filter_any_split(
        stream in events(),
        allowed in prop::collection::vec(prop::sample::select(&KINDS[..9]), 0..4),
        (cuts, empties) in cuts(),
    ) {
        let filter = || EventFilterOutputTransformer::new(&allowed).unwrap();
        let whole = run(&mut filter(), whole_events(&stream));
        let split = run(&mut filter(), split_events(&stream, &cuts, &empties));
        prop_assert_eq!(merged(&split), merged(&whole));
        for e in &split {
            prop_assert!(filter().accepts(&e.kind));
        }
    }

    #[test]
    fn json_transformer_any_split(
        stream in events(),
        (cuts, empties) in cuts(),
    ) {
        let whole = run(&mut JsonOutputTransformer::default(), whole_events(&stream));
        let split = run(&mut JsonOutputTransformer::default(), split_events(&stream, &cuts, &empties));
        prop_assert_eq!(canonical(&split), canonical(&whole));
    }

    #[test]
    fn chain_any_split(
        text in from_pieces(&[
            "<think>", "</think>", "<th", "ink>", "</", "[1]", "[", "]", "2", "[99999999999]", "{", "}",
            "\"k\"", ":", "1", " ", "é", "😀", "`", "\n", "://", "x",
        ], 40),
        keep_thinking in any::<bool>(),
        (cuts, empties) in cuts(),
        options in cite_options(),
    ) {
        let chain = || {
            let mut kinds = vec!["response"];
            if keep_thinking {
                kinds.push("thinking");
            }
            OutputTransformerChain::new(vec![
                Box::new(ThinkTagOutputTransformer::new(ThinkTagOptions {
                    id_prefix: Some("t".into()),
                    ..ThinkTagOptions::default()
                }).unwrap()),
                Box::new(EventFilterOutputTransformer::new(&kinds).unwrap()),
                Box::new(CitationParser::new(options)),
                Box::new(JsonOutputTransformer::default()),
            ])
        };
        let whole = run(&mut chain(), [Event::response(text.as_str())]);
        let split = run(
            &mut chain(),
            pieces(&text, &cuts, &empties).into_iter().map(Event::response),
        );
        prop_assert_eq!(canonical(&split), canonical(&whole));
    }
}
