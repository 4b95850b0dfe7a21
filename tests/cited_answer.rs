//! Citations enforced by a schema or a forced tool: the cited answer's JSON, streamed from an
//! OpenAI-style server (content deltas) or Anthropic (tool input deltas) or whole, becomes the
//! same marked text and the same citation events, for every split of the input.

#[path = "support/streams.rs"]
mod streams;

use citeflow::cite::{parse_citations, Citation, CitedAnswer, MarkerStyle, ParseOptions};
use citeflow::engine::StreamEngine;
use citeflow::event::{Event, OutputItem};
use citeflow::provider::{cited_output, parse_response, CiteRequest, Provider, StreamFormat};
use citeflow::transform::{OutputTransformer, OutputTransformerConfig};
use proptest::prelude::*;
use serde_json::{json, Value};

fn options(style: MarkerStyle) -> ParseOptions {
    ParseOptions {
        marker_style: style,
        source_count: Some(3),
    }
}

/// Text and citations of a stream of events.
fn answer(events: &[Event]) -> (String, Vec<Citation>) {
    let text = events
        .iter()
        .filter(|e| e.kind == "response")
        .filter_map(|e| e.text_value())
        .collect();
    let cites = events
        .iter()
        .filter(|e| e.kind == "citation")
        .map(|e| serde_json::from_value(e.value.clone()).unwrap())
        .collect();
    (text, cites)
}

/// The stage over pieces of JSON text.
fn run(style: MarkerStyle, pieces: &[&str]) -> Result<(String, Vec<Citation>), String> {
    let mut stage = CitedAnswer::new(options(style));
    let mut events = Vec::new();
    for p in pieces {
        events.extend(
            stage
                .push(Event::response(*p))
                .map_err(|e| e.code().to_owned())?,
        );
    }
    events.extend(stage.finish().map_err(|e| e.code().to_owned())?);
    Ok(answer(&events))
}

const ANSWER: &str = r#"{"segments": [{"text": "The Eiffel Tower was completed in 1889.", "citations": [1]}, {"text": "It is 330 m tall, \"taller\" than 3.5 m!", "citations": [2, 2, 3]}, {"text": "Nobody cited this", "citations": []}]}"#;

#[test]
fn markers_go_before_the_closing_punctuation() {
    let (text, cites) = run(MarkerStyle::Bracket, &[ANSWER]).unwrap();
    assert_eq!(
        text,
        "The Eiffel Tower was completed in 1889 [1]. It is 330 m tall, \"taller\" than 3.5 m [2] [3]! Nobody cited this"
    );
    assert_eq!(cites, parse_citations(&text, options(MarkerStyle::Bracket)));
    assert_eq!(
        cites.iter().map(|c| c.source_id).collect::<Vec<_>>(),
        [1, 2, 3]
    );
    let (caret, _) = run(MarkerStyle::Caret, &[ANSWER]).unwrap();
    assert!(caret.starts_with("The Eiffel Tower was completed in 1889 ^1."));
}

#[test]
fn ids_out_of_range_or_huge_are_invalid_citations() {
    let json = r#"{"segments":[{"text":"A.","citations":[7, 99999999999999999999999, "2"]}]}"#;
    let (text, cites) = run(MarkerStyle::Bracket, &[json]).unwrap();
    assert_eq!(text, "A [7] [99999999999999999999999] [2].");
    assert_eq!(
        cites
            .iter()
            .map(|c| (c.source_id, c.valid))
            .collect::<Vec<_>>(),
        [(7, false), (0, false), (2, true)]
    );
}

/// `(sourceId, marker, valid)` of each citation, checking that its span slices its marker out
/// of the text.
fn cited(text: &str, cites: &[Citation]) -> Vec<(u32, String, bool)> {
    let units: Vec<u16> = text.encode_utf16().collect();
    cites
        .iter()
        .map(|c| {
            let shown = String::from_utf16(&units[c.span[0]..c.span[1]]).unwrap();
            assert_eq!(shown, c.marker, "{text}");
            (c.source_id, c.marker.clone(), c.valid)
        })
        .collect()
}

/// Every id a model writes comes back: a whole number (written any way JSON allows, or as a
/// string holding one) as that source; anything else as an invalid citation (source id 0)
/// whose marker shows the id as written, unless that text would read as a valid marker itself.
#[test]
fn every_id_comes_back_valid_or_not() {
    let json = r#"{"segments":[{"text":"A.","citations":[2.0, -1, 1.5, 1e300, true, null, [1], {"a": [2, 3]}, "2", "x", 20e-1, 0, 99999999999999999999999, " 3 ", 0.3e1, false, [], {}]}]}"#;
    let (text, cites) = run(MarkerStyle::Bracket, &[json]).unwrap();
    assert_eq!(
        text,
        r#"A [2] [-1] [1.5] [1e300] [true] [null] [?] [?] ["x"] [0] [99999999999999999999999] [3] [false] [[]] [{}]."#
    );
    let invalid = |m: &str| (0, m.to_owned(), false);
    assert_eq!(
        cited(&text, &cites),
        [
            (2, "[2]".to_owned(), true),
            invalid("[-1]"),
            invalid("[1.5]"),
            invalid("[1e300]"),
            invalid("[true]"),
            invalid("[null]"),
            invalid("[?]"),
            invalid("[?]"),
            invalid(r#"["x"]"#),
            invalid("[0]"),
            invalid("[99999999999999999999999]"),
            (3, "[3]".to_owned(), true),
            invalid("[false]"),
            invalid("[[]]"),
            invalid("[{}]"),
        ]
    );
    // No marker the stage writes reads as a valid citation of another source.
    let reread = parse_citations(&text, options(MarkerStyle::Bracket));
    assert!(reread
        .iter()
        .all(|c| !c.valid || [2, 3].contains(&c.source_id)));
    // The same whatever the split, one character at a time included.
    let chars: Vec<String> = json.chars().map(String::from).collect();
    let pieces: Vec<&str> = chars.iter().map(String::as_str).collect();
    assert_eq!(run(MarkerStyle::Bracket, &pieces).unwrap(), (text, cites));
}

/// Caret markers have no closer: `^1.5` would read as `^1`, so it shows as `^?`.
#[test]
fn an_invalid_id_never_plants_a_valid_marker() {
    let json = r#"{"segments":[{"text":"A","citations":[1.5, "x", 1e300, "(2)", "{2}"]}]}"#;
    for (style, want) in [
        (MarkerStyle::Caret, r#"A ^? ^"x" ^? ^"(2)" ^"{2}""#),
        (MarkerStyle::Paren, r#"A (1.5) ("x") (1e300) (?) ("{2}")"#),
        (MarkerStyle::Curly, r#"A {1.5} {"x"} {1e300} {"(2)"} {?}"#),
    ] {
        let (text, cites) = run(style, &[json]).unwrap();
        assert_eq!(text, want);
        assert!(cited(&text, &cites)
            .iter()
            .all(|(id, _, valid)| (*id, *valid) == (0, false)));
        let reread = parse_citations(&text, options(style));
        assert!(reread.iter().all(|c| !c.valid), "{style:?}: {reread:?}");
    }
}

/// A `citations` value that is not an array is one id; long ids are cut (memory stays bounded)
/// and numbers of any length are read exactly.
#[test]
fn odd_citation_values_come_back_too() {
    let long_string = format!(r#""{}""#, "abcdefghij".repeat(10));
    let two = format!("2.{}", "0".repeat(1000));
    let one = format!("1{}e-1000", "0".repeat(1000));
    let not_whole = format!("1{}1e-1000", "0".repeat(999));
    let json = format!(
        r#"{{"segments":[{{"text":"A","citations":2}},{{"text":"B","citations":null}},{{"text":"C","citations":[{long_string},{two},{one},{not_whole}]}}]}}"#
    );
    let (text, cites) = run(MarkerStyle::Bracket, &[&json]).unwrap();
    let cut = format!("[\"{}…]", &"abcdefghij".repeat(4)[..31]);
    let not_whole_cut = format!("[{}…]", &not_whole[..32]);
    assert_eq!(
        text,
        format!("A [2] B [null] C {cut} [2] [1] {not_whole_cut}")
    );
    assert_eq!(
        cites
            .iter()
            .map(|c| (c.source_id, c.valid))
            .collect::<Vec<_>>(),
        [
            (2, true),
            (0, false),
            (0, false),
            (2, true),
            (1, true),
            (0, false)
        ]
    );
}

/// Past [`MAX_CITES_PER_SEGMENT`] distinct ids, the rest of a segment's ids come back as one
/// invalid citation `[…]` (they are held until the segment ends, so they are not kept).
#[test]
fn ids_past_the_limit_come_back_as_one_invalid_citation() {
    use citeflow::cite::structured::MAX_CITES_PER_SEGMENT;
    let ids: Vec<String> = (1..=MAX_CITES_PER_SEGMENT + 6)
        .map(|i| i.to_string())
        .collect();
    let json = format!(
        r#"{{"segments":[{{"text":"A","citations":[{}]}}]}}"#,
        ids.join(",")
    );
    let (text, cites) = run(MarkerStyle::Bracket, &[&json]).unwrap();
    assert_eq!(cites.len(), MAX_CITES_PER_SEGMENT + 1);
    assert!(text.ends_with(&format!("[{MAX_CITES_PER_SEGMENT}] […]")));
    let last = cites.last().unwrap();
    assert_eq!(
        (last.source_id, last.marker.as_str(), last.valid),
        (0, "[…]", false)
    );
}

/// Numbers are read as JSON writes them: a malformed one is an error, not an id.
#[test]
fn malformed_numbers_are_errors() {
    for bad in [
        "01", "1.", ".5", "1e", "1e+", "-", "--1", "1..2", "1.5.2", "0x10", "1-2", "+1",
    ] {
        let json = format!(r#"{{"segments":[{{"text":"A","citations":[{bad}]}}]}}"#);
        assert_eq!(
            run(MarkerStyle::Bracket, &[&json]).unwrap_err(),
            "INVALID_OUTPUT",
            "{bad}"
        );
    }
}

#[test]
fn prose_passes_through_the_marker_parser() {
    let (text, cites) = run(MarkerStyle::Bracket, &["  Water boils [", "1]."]).unwrap();
    assert_eq!(text, "  Water boils [1].");
    assert_eq!(cites, parse_citations(&text, options(MarkerStyle::Bracket)));
}

#[test]
fn a_cut_or_broken_answer_is_a_coded_error() {
    assert_eq!(
        run(MarkerStyle::Bracket, &[r#"{"segments":[{"text":"Half"#]).unwrap_err(),
        "INVALID_OUTPUT"
    );
    assert_eq!(
        run(MarkerStyle::Bracket, &[r#"{"segments": [1,]]}"#]).unwrap_err(),
        "INVALID_OUTPUT"
    );
}

fn openai_sse(pieces: &[&str]) -> String {
    let mut sse = String::new();
    for p in pieces {
        let chunk = json!({"id": "chatcmpl-s", "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": null}]});
        sse.push_str(&format!("data: {chunk}\n\n"));
    }
    sse.push_str("data: {\"id\":\"chatcmpl-s\",\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n");
    sse
}

fn anthropic_sse(pieces: &[&str]) -> String {
    let mut events = vec![
        json!({"type": "message_start", "message": {"id": "msg_s", "usage": {"input_tokens": 9, "output_tokens": 1}}}),
        json!({"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "cited_answer", "input": {}}}),
    ];
    for p in pieces {
        events.push(json!({"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": p}}));
    }
    events.push(json!({"type": "content_block_stop", "index": 0}));
    events.push(json!({"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 30}}));
    events.push(json!({"type": "message_stop"}));
    events
        .iter()
        .map(|e| format!("event: {}\ndata: {e}\n\n", e["type"].as_str().unwrap()))
        .collect()
}

/// An engine reading `format`'s stream through the cited-answer stage, fed in `cuts`.
fn engine_events(format: StreamFormat, sse: &str, cuts: &[usize]) -> Vec<Event> {
    let stage = OutputTransformerConfig::from_value(
        &json!({"type": "cited_answer", "kwargs": {"markerStyle": "bracket", "sourceCount": 3}}),
    )
    .unwrap();
    let mut engine = StreamEngine::new(Some(format), &[stage]).unwrap();
    let bytes = sse.as_bytes();
    let mut events = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain([bytes.len()].iter()) {
        let cut = cut.clamp(at, bytes.len());
        events.extend(engine.push_bytes_events(&bytes[at..cut]).unwrap());
        at = cut;
    }
    events.extend(engine.finish_events().unwrap());
    events
}

/// The JSON cut into deltas the way a server sends tokens.
fn deltas(json: &str, every: usize) -> Vec<String> {
    let chars: Vec<char> = json.chars().collect();
    chars.chunks(every).map(|c| c.iter().collect()).collect()
}

#[test]
fn every_wire_format_streamed_and_whole_gives_one_answer() {
    let want = run(MarkerStyle::Bracket, &[ANSWER]).unwrap();
    let pieces = deltas(ANSWER, 7);
    let pieces: Vec<&str> = pieces.iter().map(String::as_str).collect();

    let openai = engine_events(StreamFormat::OpenAi, &openai_sse(&pieces), &[]);
    assert_eq!(answer(&openai), want);
    let kinds: Vec<&str> = openai.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"response_start"));
    assert_eq!(kinds.last(), Some(&"response_end"));

    let anthropic = engine_events(StreamFormat::Anthropic, &anthropic_sse(&pieces), &[]);
    assert_eq!(answer(&anthropic), want);
    let kinds: Vec<&str> = anthropic.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"response_start"));
    assert!(!kinds.contains(&"structured") && !kinds.contains(&"structured_delta"));
    assert_eq!(kinds.iter().filter(|k| **k == "response_end").count(), 1);

    let cite =
        CiteRequest::from_value(&json!({"markerStyle": "bracket", "sourceCount": 3})).unwrap();
    let whole_openai =
        json!({"choices": [{"message": {"content": ANSWER}, "finish_reason": "stop"}]});
    let whole_anthropic = json!({"content": [{"type": "tool_use", "id": "t", "name": "cited_answer", "input": serde_json::from_str::<Value>(ANSWER).unwrap()}], "stop_reason": "tool_use"});
    for (provider, body) in [
        (Provider::Openai, whole_openai),
        (Provider::Anthropic, whole_anthropic),
    ] {
        let output = parse_response(provider, &body.to_string(), true).unwrap();
        let output = cited_output(output, &cite).unwrap();
        assert_eq!(output.outputs, [OutputItem::Text(want.0.clone())]);
        assert_eq!(
            output.extra["citations"],
            serde_json::to_value(&want.1).unwrap()
        );
    }
}

/// `json` cut at the places `cuts` pick (those inside a character left out).
fn cut_at<'a>(json: &'a str, cuts: &[prop::sample::Index]) -> Vec<&'a str> {
    let mut at: Vec<usize> = cuts
        .iter()
        .map(|i| i.index(json.len() + 1))
        .filter(|&i| json.is_char_boundary(i))
        .collect();
    at.sort_unstable();
    let mut pieces = Vec::new();
    let mut from = 0;
    for cut in at.iter().copied().chain([json.len()]) {
        pieces.push(&json[from..cut]);
        from = cut;
    }
    pieces
}

fn segment() -> impl Strategy<Value = (String, Vec<u64>)> {
    let words = proptest::sample::select(
        &[
            "Water", "boils", "at", "3.5", "m", "é", "😀", "\"q\"", "\n", "a.b", "ok!", "?", ".",
            " ", "",
        ][..],
    );
    (
        proptest::collection::vec(words, 0..6).prop_map(|w| w.join(" ")),
        proptest::collection::vec(1u64..6, 0..4),
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(streams::cases(256)))]

    /// Any split of the answer (bytes of an SSE body included) gives the same text and
    /// citations, and the citations are what the marker parser reads in that text.
    #[test]
    fn any_split_gives_the_same_answer(
        segments in proptest::collection::vec(segment(), 0..5),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        pretty in any::<bool>(),
    ) {
        let value = json!({"segments": segments.iter().map(|(t, c)| json!({"text": t, "citations": c})).collect::<Vec<_>>()});
        let json = if pretty { serde_json::to_string_pretty(&value).unwrap() } else { value.to_string() };
        let whole = run(MarkerStyle::Bracket, &[&json]).unwrap();
        let pieces = cut_at(&json, &cuts);
        prop_assert_eq!(&run(MarkerStyle::Bracket, &pieces).unwrap(), &whole);
        prop_assert_eq!(&whole.1, &parse_citations(&whole.0, options(MarkerStyle::Bracket)));
        let sse = openai_sse(&pieces);
        let byte_cuts: Vec<usize> = cuts.iter().map(|i| i.index(sse.len() + 1)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
        prop_assert_eq!(&answer(&engine_events(StreamFormat::OpenAi, &sse, &byte_cuts)), &whole);
        let sse = anthropic_sse(&pieces);
        prop_assert_eq!(&answer(&engine_events(StreamFormat::Anthropic, &sse, &byte_cuts)), &whole);
    }
}

/// Ids a model may write, valid or not: whole numbers written every way, strings, literals,
/// fractions, negative and huge numbers, arrays and objects (markers inside included), long ones.
const IDS: &[&str] = &[
    "1",
    "2",
    "2.0",
    "20e-1",
    "0.3e1",
    "\"2\"",
    "\" 3 \"",
    "0",
    "-0",
    "-1",
    "1.5",
    "1e300",
    "4294967296",
    "99999999999999999999999",
    "true",
    "false",
    "null",
    "\"x\"",
    "\"[2]\"",
    "\"\\u00e9\\ud83d\\ude00\"",
    "[1]",
    "[]",
    "{}",
    "{\"a\": [2, {\"b\": null}]}",
    "[[[\"deep\"]]]",
    "\"a long id that is cut after thirty-two characters\"",
    "2.000000000000000000000000000000000000000000000",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(streams::cases(256)))]

    /// Whatever ids a segment lists, each distinct one comes back as one citation whose span
    /// slices its marker out of the text, no marker the stage writes reads as a valid citation
    /// it did not make, and any split of the answer (bytes of an SSE body included) gives the
    /// same text and citations.
    #[test]
    fn every_id_comes_back_whatever_the_split(
        segments in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(IDS), 0..6), 1..4),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        style in proptest::sample::select(MarkerStyle::ALL.to_vec()),
    ) {
        let json = format!(
            r#"{{"segments": [{}]}}"#,
            segments
                .iter()
                .map(|ids| format!(r#"{{"text": "S.", "citations": [{}]}}"#, ids.join(", ")))
                .collect::<Vec<_>>()
                .join(", ")
        );
        let whole = run(style, &[&json]).unwrap();
        // Each segment's ids, read alone, counted once each (by value: `2`, `2.0` and `"2"` are one).
        let distinct: usize = segments
            .iter()
            .map(|ids| {
                let mut seen: Vec<String> = Vec::new();
                for id in ids {
                    let value: Value = serde_json::from_str(id).unwrap();
                    let key = match value.as_f64() {
                        Some(n) if n.fract() == 0.0 && (0.0..4294967296.0).contains(&n) => (n as u64).to_string(),
                        _ => match value.as_str().map(|s| s.trim().parse::<f64>()) {
                            Some(Ok(n)) if n.fract() == 0.0 && (0.0..4294967296.0).contains(&n) => (n as u64).to_string(),
                            _ => id.to_string(),
                        },
                    };
                    if !seen.contains(&key) {
                        seen.push(key);
                    }
                }
                seen.len()
            })
            .sum();
        prop_assert_eq!(whole.1.len(), distinct);
        let units: Vec<u16> = whole.0.encode_utf16().collect();
        for c in &whole.1 {
            prop_assert_eq!(String::from_utf16(&units[c.span[0]..c.span[1]]).unwrap(), c.marker.clone());
        }
        let made: Vec<u32> = whole.1.iter().filter(|c| c.valid).map(|c| c.source_id).collect();
        for c in parse_citations(&whole.0, options(style)) {
            prop_assert!(!c.valid || made.contains(&c.source_id), "{:?} in {:?}", c, whole.0);
        }
        let pieces = cut_at(&json, &cuts);
        prop_assert_eq!(&run(style, &pieces).unwrap(), &whole);
        if style == MarkerStyle::Bracket {
            let sse = anthropic_sse(&pieces);
            let byte_cuts: Vec<usize> = cuts.iter().map(|i| i.index(sse.len() + 1)).collect::<std::collections::BTreeSet<_>>().into_iter().collect();
            prop_assert_eq!(&answer(&engine_events(StreamFormat::Anthropic, &sse, &byte_cuts)), &whole);
        }
    }
}

/// Pieces hostile answers are made of: the schema's keys and brackets, escapes cut anywhere,
/// surrogates, numbers past u64, literals, junk.
const HOSTILE: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "\"",
    "\\",
    "\\u",
    "d83d",
    "\\ude00",
    "\\ud83d",
    "u00e9",
    "\"segments\"",
    "\"text\"",
    "\"citations\"",
    "\"other\"",
    "1",
    "99999999999999999999999",
    "-2",
    "1.5e3",
    "2.0",
    "20e-1",
    "1e300",
    "-0",
    "0.",
    "e",
    "01",
    "\"2\"",
    "true",
    "nul",
    "null",
    " ",
    "\n",
    "é",
    "😀",
    "[1]",
    ".",
    "x",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(streams::cases(512)))]

    /// Whatever the answer holds, the stage never panics, fails only with INVALID_OUTPUT, and
    /// gives the same outcome for any split.
    #[test]
    fn hostile_answers_are_coded_errors_whatever_the_split(
        pieces in proptest::collection::vec(proptest::sample::select(HOSTILE), 0..40),
        cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..8),
        style in proptest::sample::select(MarkerStyle::ALL.to_vec()),
    ) {
        let json: String = pieces.concat();
        let whole = run(style, &[&json]);
        if let Err(code) = &whole {
            prop_assert_eq!(code.as_str(), "INVALID_OUTPUT");
        }
        let split = cut_at(&json, &cuts);
        prop_assert_eq!(run(style, &split), whole);
    }
}

/// What an engine over `format`'s stream with `stages` gives for `sse` fed in `cuts`: its
/// events, or its error's code.
fn engine_outcome(
    format: StreamFormat,
    stages: &[OutputTransformerConfig],
    sse: &str,
    cuts: &[usize],
) -> Result<Vec<Event>, &'static str> {
    let mut engine = StreamEngine::new(Some(format), stages).unwrap();
    let bytes = sse.as_bytes();
    let mut events = Vec::new();
    let mut at = 0;
    for &cut in cuts.iter().chain([bytes.len()].iter()) {
        let cut = cut.clamp(at, bytes.len());
        events.extend(
            engine
                .push_bytes_events(&bytes[at..cut])
                .map_err(|e| e.code())?,
        );
        at = cut;
    }
    events.extend(engine.finish_events().map_err(|e| e.code())?);
    Ok(events)
}

/// A structured answer (a forced tool's input) that is not JSON is the model's output gone
/// wrong, not the provider's envelope: INVALID_OUTPUT, whether a cited-answer stage reads it
/// as it streams or only the decoder checks it at the block's end, wherever the network cuts
/// the body. Errors are reported in stream order whatever the split: a provider message that
/// is not JSON after the input is INVALID_PROVIDER_DATA unless a stage found the input's fault
/// first.
#[test]
fn a_bad_tool_input_has_one_code_whatever_the_split() {
    let cited = OutputTransformerConfig::from_value(
        &json!({"type": "cited_answer", "kwargs": {"sourceCount": 3}}),
    )
    .unwrap();
    // Each input, and whether the stage finds its fault as it streams.
    let bad_inputs: [(&[&str], bool); 3] = [
        (&[r#"{"segments": [1,]]}"#], true),
        (
            &[r#"{"segments": [{"text": "a", "cit"#, r#"ations": [01]}]}"#],
            true,
        ),
        // A raw control character in a string: only the decoder's check at the end refuses it.
        (
            &[
                r#"{"segments": [{"text": "a"#,
                "\u{1}",
                r#"b", "citations": [1]}]}"#,
            ],
            false,
        ),
    ];
    for (pieces, stage_sees) in bad_inputs {
        let sse = anthropic_sse(pieces);
        // A message that is not JSON before the block's end: the provider's data.
        let stop = sse.find("event: content_block_stop").unwrap();
        let broken = format!(
            "{}event: ping\ndata: {{not json\n\n{}",
            &sse[..stop],
            &sse[stop..]
        );
        let envelope = if stage_sees {
            "INVALID_OUTPUT"
        } else {
            "INVALID_PROVIDER_DATA"
        };
        for (stages, body, want) in [
            (&[cited.clone()][..], &sse, "INVALID_OUTPUT"),
            (&[][..], &sse, "INVALID_OUTPUT"),
            (&[cited.clone()][..], &broken, envelope),
            (&[][..], &broken, "INVALID_PROVIDER_DATA"),
        ] {
            for cut in 0..=body.len() {
                let got = engine_outcome(StreamFormat::Anthropic, stages, body, &[cut]);
                assert_eq!(
                    got.err(),
                    Some(want),
                    "{pieces:?}, {} stages, cut at {cut}",
                    stages.len()
                );
            }
        }
    }
}

/// A whole answer gives the code its stream gives: a structured answer that is not JSON, or a
/// cited answer that is not the expected JSON, is INVALID_OUTPUT; a body that is not the
/// provider's JSON stays INVALID_PROVIDER_DATA.
#[test]
fn whole_answers_give_the_streams_code() {
    let cite =
        CiteRequest::from_value(&json!({"markerStyle": "bracket", "sourceCount": 3})).unwrap();
    let openai = |content: &str| {
        json!({"choices": [{"message": {"content": content}, "finish_reason": "stop"}]}).to_string()
    };
    let code = |provider, body: &str, cited: bool| {
        parse_response(provider, body, true)
            .and_then(|output| {
                if cited {
                    cited_output(output, &cite)
                } else {
                    Ok(output)
                }
            })
            .map(|_| ())
            .map_err(|e| e.code())
    };
    assert_eq!(
        code(Provider::Openai, &openai(r#"{"segments": [1,]]}"#), false),
        Err("INVALID_OUTPUT")
    );
    assert_eq!(
        code(Provider::Openai, &openai(r#"{"segments": [1,]]}"#), true),
        Err("INVALID_OUTPUT")
    );
    assert_eq!(
        code(
            Provider::Openai,
            &openai(r#"{"segments": [{"text": "cut"#),
            true
        ),
        Err("INVALID_OUTPUT")
    );
    assert_eq!(
        code(Provider::Openai, "{not json", true),
        Err("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        code(Provider::Anthropic, r#"{"content": 1}"#, true),
        Err("INVALID_PROVIDER_DATA")
    );
}
