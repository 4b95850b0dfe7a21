//! The streaming engine gives the same events as its stages chained one by one (the
//! transformers' event API), for any split of its input: text chunks, or provider SSE bytes
//! cut anywhere. And what it packs for JS (words and one string) decodes to those events.

use citeflow::cite::citation::Citation;
use citeflow::cite::{MarkerScanner, MarkerStyle};
use citeflow::engine::{ops, Step, StreamEngine};
use citeflow::event::Event;
use citeflow::provider::{ProviderByteStream, StreamFormat};
use citeflow::transform::{OutputTransformer, OutputTransformerChain, OutputTransformerConfig};
use proptest::prelude::*;
use serde_json::{json, Value};

#[path = "support/ops_decode.rs"]
mod ops_decode;
use ops_decode::{decode, NoHandles};
#[path = "support/streams.rs"]
mod streams;
use streams::{cases, cut_bounds, piece, THINK_PIECES};

const CITE_PIECES: &[&str] = &[
    "[", "]", "1", "2", "[1]", "(2)", " ", ".", "é", "😀", "[1, 2]", "\n\n",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop_oneof![piece(THINK_PIECES), piece(CITE_PIECES)], 0..40)
        .prop_map(|v| v.concat())
}

fn configs(filter: bool) -> Vec<OutputTransformerConfig> {
    let mut c = vec![
        OutputTransformerConfig::from_value(
            &json!({"type": "think_tag", "kwargs": {"idPrefix": "t"}}),
        )
        .unwrap(),
        OutputTransformerConfig::from_value(
            &json!({"type": "citations", "kwargs": {"sourceCount": 2}}),
        )
        .unwrap(),
    ];
    if filter {
        c.push(OutputTransformerConfig::event_filter(&[
            "response", "citation", "usage",
        ]));
    }
    c
}

fn chain(filter: bool) -> OutputTransformerChain {
    OutputTransformerChain::from_configs(&configs(filter)).unwrap()
}

fn is_content(kind: &str) -> bool {
    !kind.ends_with("_start") && !kind.ends_with("_end")
}

/// Adjacent text of one block merged, empty text dropped: what a UI shows. Citation events
/// come apart, in order (where one falls between text depends on where the chunks end).
fn merged(events: &[Event]) -> (Vec<Event>, Vec<Event>) {
    let cites = events
        .iter()
        .filter(|e| e.kind == "citation")
        .cloned()
        .collect();
    let mut out: Vec<Event> = Vec::new();
    for e in events.iter().filter(|e| e.kind != "citation") {
        if is_content(&e.kind) && e.text_value() == Some("") {
            continue;
        }
        if let Some(last) = out.last_mut() {
            if is_content(&e.kind)
                && last.kind == e.kind
                && last.id == e.id
                && last.extra == e.extra
            {
                if let (Value::String(a), Some(b)) = (&mut last.value, e.text_value()) {
                    a.push_str(b);
                    continue;
                }
            }
        }
        out.push(e.clone());
    }
    (out, cites)
}

fn chunks<'a>(text: &'a str, cuts: &[usize]) -> Vec<&'a str> {
    cut_bounds(text, cuts)
        .windows(2)
        .map(|w| &text[w[0]..w[1]])
        .collect()
}

/// Runs text chunks through an engine, checking each step's encoding against its events.
fn engine_text(chunks: &[&str], filter: bool) -> Vec<Event> {
    let mut engine = StreamEngine::new(None, &configs(filter)).unwrap();
    let mut enc = ops::Encoder::default();
    let mut ids = vec![None];
    let mut all = Vec::new();
    let mut check = |step: Step<'_>, all: &mut Vec<Event>| {
        enc.encode(step);
        assert_eq!(enc.words[3] & ops::HOLDS != 0, step.holds);
        assert_eq!(enc.words[3] & ops::TAKES_SHOWN != 0, step.takes_shown);
        let events: Vec<Event> = step
            .pieces
            .iter()
            .map(|p| step.cx.event(p.clone()))
            .collect();
        assert_eq!(
            merged(&decode(&enc, &mut ids, &mut NoHandles)),
            merged(&events)
        );
        all.extend(events);
    };
    for chunk in chunks {
        check(engine.push_text(chunk, Some("m")).unwrap(), &mut all);
    }
    check(engine.finish().unwrap(), &mut all);
    all
}

fn chained(events: impl IntoIterator<Item = Event>, filter: bool) -> Vec<Event> {
    let mut c = chain(filter);
    let mut out = Vec::new();
    for e in events {
        out.extend(c.push(e).unwrap());
    }
    out.extend(c.finish().unwrap());
    out
}

/// An OpenAI-style SSE body with one delta per chunk.
fn openai_body(chunks: &[&str]) -> String {
    let mut body = String::new();
    for c in chunks {
        let data = json!({"id": "c1", "choices": [{"index": 0, "delta": {"content": c}}]});
        body.push_str(&format!("data: {data}\n\n"));
    }
    let last = json!({"id": "c1", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 3}});
    body.push_str(&format!("data: {last}\n\ndata: [DONE]\n\n"));
    body
}

/// Text (thinking and response) in `events`, in UTF-8 bytes.
fn text_bytes(events: &[Event]) -> usize {
    events
        .iter()
        .filter(|e| is_content(&e.kind))
        .filter_map(Event::text_value)
        .map(str::len)
        .sum()
}

/// What a step or a run released: text bytes (thinking and response) and citation events.
fn released(events: &[Event]) -> (usize, usize) {
    let cites = events.iter().filter(|e| e.kind == "citation").count();
    (text_bytes(events), cites)
}

fn step_events(step: &Step<'_>) -> Vec<Event> {
    step.pieces
        .iter()
        .map(|p| step.cx.event(p.clone()))
        .collect()
}

fn engine_of(stages: &[OutputTransformerConfig], chunks: &[&str]) -> StreamEngine {
    let mut engine = StreamEngine::new(None, stages).unwrap();
    for chunk in chunks {
        engine.push_text(chunk, None).unwrap();
    }
    engine
}

/// After every step, the engine says it holds something back when finishing there would
/// release more (text, or citations) than it has released so far; with `exact`, only then.
/// And when it says it holds nothing, a chunk that holds no trigger is released whole as
/// text (a block may open first, after a thinking block closed) and nothing else: what a JS
/// fast path relies on.
fn check_holds(stages: &[OutputTransformerConfig], chunks: &[&str], exact: bool) {
    let mut engine = StreamEngine::new(None, stages).unwrap();
    let (mut text, mut cites) = (0, 0);
    for (i, chunk) in chunks.iter().enumerate() {
        let prefix = &chunks[..=i];
        let step = engine.push_text(chunk, None).unwrap();
        let holds = step.holds;
        let (t, c) = released(&step_events(&step));
        (text, cites) = (text + t, cites + c);
        let mut whole = engine_of(stages, prefix);
        let all = whole.finish_events().unwrap();
        let (t, c) = released(&all);
        let more = t > 0 || c > 0;
        if exact {
            assert_eq!(holds, more, "after {prefix:?}");
        } else {
            assert!(holds || !more, "after {prefix:?}");
        }
        if !holds {
            let mut next = engine_of(stages, prefix);
            let quiet = next.push_text("ab", None).unwrap();
            let events = step_events(&quiet);
            assert!(
                events
                    .iter()
                    .all(|e| e.kind != "citation" && !e.kind.ends_with("_end")),
                "after {prefix:?}: {events:?}"
            );
            assert_eq!(released(&events), (2, 0), "after {prefix:?}");
        }
    }
}

/// Pieces for text a fast path may show: plain words and spaces, and what changes the
/// scanner's state around them (code, fences, URLs, line starts, links, markers).
const SHOWN_PIECES: &[&str] = &[
    "ab",
    "x y",
    " ab",
    " ",
    "  ",
    "[1]",
    "[1]",
    "[",
    "]",
    "2",
    "`",
    "``",
    "```",
    "~~~",
    "\n",
    ":",
    "http://a.b/",
    "http://a.b/",
    "[2](u)",
    "[1]:",
    "é",
    // Simple markers with the character that decides them (see `simple_marker`).
    "[1] ",
    "[2]x",
    "[0].",
    "[3] a",
    "[007] ",
    "[123456789],",
];

/// Chunks of one to three pieces each (cut at random places, most chunks would hold a trigger).
fn shown_chunks() -> impl Strategy<Value = Vec<String>> {
    let chunk =
        prop::collection::vec(prop::sample::select(SHOWN_PIECES), 1..3).prop_map(|v| v.concat());
    prop::collection::vec(chunk, 0..30)
}

/// What a JS fast path may pass by its length: ASCII, none of the scanner's triggers, not
/// only spaces.
fn passable(chunk: &str) -> bool {
    let triggers = MarkerScanner::triggers(MarkerStyle::Bracket);
    chunk.is_ascii()
        && chunk.bytes().any(|b| b != b' ')
        && !chunk.bytes().any(|b| triggers.contains(&b))
}

/// A chunk the JS fast path decides itself (pkg/src/simple_markers.js) while the engine takes
/// shown text: a simple marker (an opener, one to nine ASCII digits, the closer) that the next
/// character, neither `(` nor `:`, makes a citation, then ASCII text with none of the
/// scanner's triggers. Its marker's length and id.
fn simple_marker(chunk: &str) -> Option<(usize, u32)> {
    let digits = chunk.strip_prefix('[')?;
    let n = digits.bytes().take_while(u8::is_ascii_digit).count();
    let rest = digits.get(n..)?.strip_prefix(']')?;
    let triggers = MarkerScanner::triggers(MarkerStyle::Bracket);
    let simple = (1..=9).contains(&n)
        && !rest.is_empty()
        && rest.is_ascii()
        && !rest.starts_with('(')
        && !rest.bytes().any(|b| triggers.contains(&b));
    if !simple {
        return None;
    }
    let id = digits.get(..n)?.parse().ok()?;
    Some((n + 2, id))
}

/// Every chunk pushed, against chunks the engine said it could take passed by their length
/// (shown by the caller, as a JS fast path does, which also decides simple markers itself and
/// makes their citations): the same text and the same citations.
fn check_shown(chunks: &[&str]) {
    let mut whole = StreamEngine::new(None, &[cite_config()]).unwrap();
    let mut expected = Vec::new();
    for chunk in chunks {
        expected.extend(whole.push_text_events(chunk, None).unwrap());
    }
    expected.extend(whole.finish_events().unwrap());

    let mut engine = StreamEngine::new(None, &[cite_config()]).unwrap();
    let mut got = Vec::new();
    let (mut takes, mut shown, mut at) = (false, 0, 0);
    for chunk in chunks {
        let offset = at;
        at += chunk.encode_utf16().count();
        if takes && passable(chunk) {
            shown += chunk.len();
            got.push(Event::text("response", None, *chunk));
            continue;
        }
        if let Some((len, id)) = simple_marker(chunk).filter(|_| takes) {
            shown += chunk.len();
            got.push(Event::text("response", None, *chunk));
            let marker = chunk[..len].to_owned();
            let cite =
                Citation::at_marker(id, marker, [offset, offset + len], (1..=2).contains(&id));
            got.push(Event::json("citation", None, cite.to_json()));
            continue;
        }
        if shown > 0 {
            assert!(
                engine.pass_shown(std::mem::take(&mut shown)).unwrap(),
                "{chunks:?}"
            );
        }
        let step = engine.push_text(chunk, None).unwrap();
        assert!(!(step.takes_shown && step.holds), "{chunks:?}");
        takes = step.takes_shown;
        got.extend(step_events(&step));
    }
    if shown > 0 {
        assert!(engine.pass_shown(shown).unwrap());
    }
    got.extend(engine.finish_events().unwrap());
    assert_eq!(merged(&got), merged(&expected), "{chunks:?}");
}

#[test]
fn shown_text_is_passed_by_length_only_where_reading_it_would_do_the_same() {
    check_shown(&["see http://a.b/", "c", " then [1]."]);
    check_shown(&["x\n", "  ", "```", "\ncode [1]\n```", " [2]"]);
    // In a URL a space in shown text would end it: the engine does not take text there.
    let mut engine = StreamEngine::new(None, &[cite_config()]).unwrap();
    assert!(
        !engine
            .push_text("see http://a.b/", None)
            .unwrap()
            .takes_shown
    );
    assert!(!engine.pass_shown(3).unwrap());
    // Nor while a marker is undecided, nor with more than one stage, nor after finishing.
    assert!(!engine.push_text(" [", None).unwrap().takes_shown);
    assert!(!engine.pass_shown(3).unwrap());
    let mut two = StreamEngine::new(None, &[think_config(), cite_config()]).unwrap();
    assert!(!two.push_text("a", None).unwrap().takes_shown);
    assert!(!two.pass_shown(1).unwrap());
    // A count from outside may be anything: offsets saturate, nothing panics.
    let mut big = StreamEngine::new(None, &[cite_config()]).unwrap();
    assert!(big.push_text("a", None).unwrap().takes_shown);
    assert!(big.pass_shown(usize::MAX).unwrap());
    assert!(big.pass_shown(usize::MAX).unwrap());
    let cites = big.push_text_events(" [1].", None).unwrap();
    assert!(cites.iter().any(|e| e.kind == "citation"));
    let mut done = StreamEngine::new(None, &[cite_config()]).unwrap();
    assert!(done.push_text("a", None).unwrap().takes_shown);
    done.finish().unwrap();
    assert_eq!(done.pass_shown(1).unwrap_err().code(), "STREAM_FINISHED");
}

/// What the JS fast path relies on to hold a marker's start itself (pkg/src/citation_parser.js):
/// while the engine takes shown text, its scanner is in plain text with nothing undecided, so
/// an opener, then ASCII digits and perhaps the closer, at the end of a chunk is held back and
/// the text before it released. Inside code the engine does not take shown text.
#[test]
fn while_shown_text_is_taken_a_marker_start_at_the_end_is_held() {
    for start in ["[", "[1", "[12", "[123456789", "[0]", "[3]", "[12]"] {
        for before in [
            "a",
            "x [1] y",
            "`code` then",
            "see http://a.b/ and",
            "a\n\n",
        ] {
            let mut engine = StreamEngine::new(None, &[cite_config()]).unwrap();
            if !engine.push_text(before, None).unwrap().takes_shown {
                continue;
            }
            let step = engine.push_text(&format!(" {start}"), None).unwrap();
            assert!(step.holds, "{before:?} then {start:?}");
            let events = step_events(&step);
            let text: String = events.iter().filter_map(|e| e.value.as_str()).collect();
            assert_eq!(text, " ", "{before:?} then {start:?}");
        }
    }
    for code in ["`code", "```\nfenced"] {
        let mut engine = StreamEngine::new(None, &[cite_config()]).unwrap();
        assert!(
            !engine.push_text(code, None).unwrap().takes_shown,
            "{code:?}"
        );
    }
}

fn think_config() -> OutputTransformerConfig {
    OutputTransformerConfig::from_value(&json!("think_tag")).unwrap()
}

fn cite_config() -> OutputTransformerConfig {
    OutputTransformerConfig::from_value(&json!({"type": "citations", "kwargs": {"sourceCount": 2}}))
        .unwrap()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(256)))]

    #[test]
    fn the_engine_says_when_it_holds_text_back(
        text in text(), cuts in prop::collection::vec(any::<usize>(), 0..12)
    ) {
        let chunks = chunks(&text, &cuts);
        check_holds(&[think_config()], &chunks, true);
        check_holds(&[cite_config()], &chunks, true);
        // A block's end releases a marker's start the citation stage still holds undecided.
        check_holds(&[think_config(), cite_config()], &chunks, false);
    }

    #[test]
    fn shown_text_passed_by_length_gives_the_same_citations(
        chunks in shown_chunks()
    ) {
        check_shown(&chunks.iter().map(String::as_str).collect::<Vec<_>>());
    }

    #[test]
    fn text_in_any_split_gives_the_chained_events(
        text in text(), cuts in prop::collection::vec(any::<usize>(), 0..12), filter in any::<bool>()
    ) {
        let expected = merged(&chained([Event::text("response", Some("m".into()), text.clone())], filter));
        let got = merged(&engine_text(&chunks(&text, &cuts), filter));
        prop_assert_eq!(got, expected);
    }

    #[test]
    fn sse_bytes_cut_anywhere_give_the_chained_events(
        text in text(),
        deltas in prop::collection::vec(any::<usize>(), 0..8),
        cuts in prop::collection::vec(any::<usize>(), 0..12),
        filter in any::<bool>(),
    ) {
        let body = openai_body(&chunks(&text, &deltas));
        let mut decoder = ProviderByteStream::new(StreamFormat::OpenAi);
        let mut events = decoder.push(body.as_bytes()).unwrap();
        events.extend(decoder.finish().unwrap());
        // The chain's events, with the provider's usage last (the engine holds it until the end).
        let mut expected = chained(events, filter);
        let usage: Vec<Event> = expected.iter().filter(|e| e.kind == "usage").cloned().collect();
        expected.retain(|e| e.kind != "usage");
        expected.extend(usage);
        let expected = merged(&expected);

        let bytes = body.as_bytes();
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        bounds.extend([0, bytes.len()]);
        bounds.sort_unstable();
        let mut engine = StreamEngine::new(Some(StreamFormat::OpenAi), &configs(filter)).unwrap();
        let mut got = Vec::new();
        for w in bounds.windows(2) {
            got.extend(engine.push_bytes_events(&bytes[w[0]..w[1]]).unwrap());
        }
        got.extend(engine.finish_events().unwrap());
        prop_assert_eq!(engine.finish_reason(), Some("stop"));
        prop_assert_eq!(merged(&got), expected);
    }
}

#[test]
fn events_with_fields_of_their_own_keep_them() {
    // The citation parser keeps a response event's fields on the text it releases.
    let mut engine = StreamEngine::new(None, &configs(false)[1..]).unwrap();
    let mut event = Event::text("response", Some("r".into()), "Water [1].");
    event.extra.insert("level".into(), json!(2));
    let mut got = engine.push_event_events(event).unwrap();
    got.extend(
        engine
            .push_event_events(Event::json("status", None, json!({"ok": true})))
            .unwrap(),
    );
    got.extend(engine.finish_events().unwrap());
    let cites: Vec<&Event> = got.iter().filter(|e| e.kind == "citation").collect();
    assert_eq!(cites.len(), 1);
    assert!(got
        .iter()
        .any(|e| e.kind == "status" && e.value["ok"] == true));
    assert!(got
        .iter()
        .filter(|e| e.kind == "response")
        .all(|e| e.extra.get("level") == Some(&json!(2))));
}

#[test]
fn misuse_is_an_error_with_a_code() {
    let mut engine = StreamEngine::new(None, &configs(false)).unwrap();
    assert_eq!(
        engine.push_bytes(b"data: x\n\n").unwrap_err().code(),
        "INVALID_EVENT"
    );
    engine.finish().unwrap();
    assert_eq!(
        engine.push_text("a", None).unwrap_err().code(),
        "STREAM_FINISHED"
    );
    assert_eq!(engine.finish().unwrap_err().code(), "STREAM_FINISHED");
    let mut truncated = StreamEngine::new(Some(StreamFormat::OpenAi), &[]).unwrap();
    truncated
        .push_bytes(b"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
        .unwrap();
    assert_eq!(truncated.finish().unwrap_err().code(), "STREAM_TRUNCATED");
}
