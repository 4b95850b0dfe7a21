//! ThinkTagOutputTransformer against the shared fixtures, and the property that any split of
//! the input gives the same merged events as the whole.

use citeflow::event::{items_from_events, Event, LmOutput, OutputItem};
use citeflow::transform::{OutputTransformer, ThinkTagOptions, ThinkTagOutputTransformer};
use proptest::prelude::*;

#[path = "support/streams.rs"]
mod streams;
use serde_json::Value;
use streams::{cut_bounds, piece, THINK_PIECES};

fn fixtures() -> Vec<Value> {
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/think_tag.json"
    ))
    .unwrap();
    let doc: Value = serde_json::from_str(&text).unwrap();
    doc["cases"].as_array().unwrap().clone()
}

fn options(case: &Value) -> ThinkTagOptions {
    let map = case
        .get("options")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let mut opts = citeflow::transform::think_tag_options(&map).unwrap();
    opts.id_prefix = Some("t".into());
    opts
}

fn run(opts: &ThinkTagOptions, input: &[Event]) -> Vec<Event> {
    let mut t = ThinkTagOutputTransformer::new(opts.clone()).unwrap();
    let mut out = Vec::new();
    for e in input {
        out.extend(t.push(e.clone()).unwrap());
    }
    out.extend(t.finish().unwrap());
    out
}

fn input_events(case: &Value) -> Vec<Event> {
    case["input"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| match v {
            Value::String(s) => Event::response(s.as_str()),
            other => serde_json::from_value(other.clone()).unwrap(),
        })
        .collect()
}

/// Every start..end block shares one id, and blocks have distinct ids.
fn assert_block_ids(events: &[Event], name: &str) {
    let mut seen = std::collections::HashSet::new();
    let mut open: Option<&str> = None;
    for e in events
        .iter()
        .filter(|e| e.id.as_deref().is_some_and(|id| id.starts_with("t-")))
    {
        let id = e.id.as_deref().unwrap();
        if e.kind.ends_with("_start") {
            assert!(
                open.is_none() && seen.insert(id),
                "{name}: block {id} reopened or nested"
            );
            open = Some(id);
        } else {
            assert_eq!(open, Some(id), "{name}: {} outside its block", e.kind);
            if e.kind.ends_with("_end") {
                open = None;
            }
        }
    }
    assert!(open.is_none(), "{name}: a block was left open");
}

#[test]
fn fixtures_hold() {
    for case in fixtures() {
        let name = case["name"].as_str().unwrap();
        let opts = options(&case);
        let events = run(&opts, &input_events(&case));
        let got: Vec<(String, Value)> = events
            .iter()
            .map(|e| (e.kind.clone(), e.value.clone()))
            .collect();
        let want: Vec<(String, Value)> = case["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].clone()))
            .collect();
        assert_eq!(got, want, "{name}");
        assert_block_ids(&events, name);

        if let Some(items) = case.get("items") {
            let text: String = case["input"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            let mut t = ThinkTagOutputTransformer::new(opts.clone()).unwrap();
            let whole = t.transform(LmOutput::from_text(text)).unwrap();
            let want: Vec<OutputItem> = serde_json::from_value(items.clone()).unwrap();
            assert_eq!(whole.outputs, want, "{name} (whole)");
            assert_eq!(items_from_events(&events), want, "{name} (stream items)");
        }
    }
}

/// Merges adjacent content events of the same type and id: what a UI shows.
fn merged(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        if let Some(last) = out.last_mut() {
            let content = !e.kind.ends_with("_start") && !e.kind.ends_with("_end");
            if content && last.kind == e.kind && last.id == e.id {
                if let (Value::String(a), Some(b)) = (&mut last.value, e.text_value()) {
                    a.push_str(b);
                    continue;
                }
            }
        }
        out.push(e);
    }
    out
}

fn split_text(text: &str, cuts: &[usize]) -> Vec<Event> {
    let bounds = cut_bounds(text, cuts);
    bounds
        .windows(2)
        .map(|w| Event::response(&text[w[0]..w[1]]))
        .collect()
}

#[test]
fn every_fixture_split_at_every_boundary_matches_the_whole() {
    for case in fixtures() {
        let name = case["name"].as_str().unwrap();
        let opts = options(&case);
        let pieces = input_events(&case);
        let whole = merged(run(&opts, &pieces));
        if case["input"]
            .as_array()
            .unwrap()
            .iter()
            .all(Value::is_string)
        {
            let text: String = case["input"]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_str().unwrap())
                .collect();
            assert_eq!(
                merged(run(&opts, &[Event::response(text.as_str())])),
                whole,
                "{name} unsplit"
            );
            for a in 0..=text.len() {
                for b in a..=text.len() {
                    let split = split_text(&text, &[a, b]);
                    assert_eq!(
                        merged(run(&opts, &split)),
                        whole,
                        "{name} split at {a}, {b}"
                    );
                }
            }
        }
    }
}

fn transcript() -> impl Strategy<Value = String> {
    prop::collection::vec(piece(THINK_PIECES), 0..40).prop_map(|v| v.concat())
}

fn any_options() -> impl Strategy<Value = ThinkTagOptions> {
    let tag_sets = prop::sample::select(vec![
        vec![citeflow::transform::TagPair::default()],
        vec![
            citeflow::transform::TagPair::xml("think"),
            citeflow::transform::TagPair::xml("thinking"),
        ],
        vec![
            citeflow::transform::TagPair::new("[[", "]]"),
            citeflow::transform::TagPair::new("[[[", "]]]"),
        ],
        // Tags that share starts, overlap and repeat their first characters: a shorter tag
        // found first waits for a longer one, or one that begins earlier, to be ruled out.
        vec![
            citeflow::transform::TagPair::new("<think><", "</think>"),
            citeflow::transform::TagPair::new("<", "k>"),
            citeflow::transform::TagPair::new("<t<t<", "hink"),
        ],
        vec![
            citeflow::transform::TagPair::new("<<<<<<<<<<<<think>", "</</</think>"),
            citeflow::transform::TagPair::xml("thinking"),
        ],
    ]);
    (tag_sets, any::<bool>()).prop_map(|(tags, start_in_thinking)| ThinkTagOptions {
        tags,
        start_in_thinking,
        id_prefix: Some("t".into()),
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_split_gives_the_whole_result(text in transcript(), cuts in prop::collection::vec(any::<usize>(), 0..12), opts in any_options()) {
        let whole = run(&opts, &[Event::response(text.as_str())]);
        let split = run(&opts, &split_text(&text, &cuts));
        prop_assert_eq!(merged(split.clone()), merged(whole.clone()));
        assert_block_ids(&split, "property");
        // Nothing is lost or invented: the visible text is the input minus the tags.
        let mut t = ThinkTagOutputTransformer::new(opts.clone()).unwrap();
        let items = t.transform(LmOutput::from_text(text.clone())).unwrap().outputs;
        prop_assert_eq!(items, items_from_events(&whole));
    }

    #[test]
    fn held_back_text_is_bounded_by_the_longest_tag(text in transcript(), cuts in prop::collection::vec(any::<usize>(), 0..12)) {
        let mut t = ThinkTagOutputTransformer::new(ThinkTagOptions::default()).unwrap();
        for e in split_text(&text, &cuts) {
            t.push(e).unwrap();
            let s = t.splitter();
            prop_assert!(s.window().len() - s.hold_from() < "</think>".len());
        }
    }
}

#[test]
fn misuse_is_an_error_not_a_panic() {
    let mut t = ThinkTagOutputTransformer::default();
    let bad = Event::json("response", None, serde_json::json!({"x": 1}));
    assert_eq!(t.push(bad).unwrap_err().code(), "INVALID_EVENT");
    t.push(Event::response("still works")).unwrap();
    t.finish().unwrap();
    assert_eq!(
        t.push(Event::response("late")).unwrap_err().code(),
        "STREAM_FINISHED"
    );
    assert_eq!(t.finish().unwrap_err().code(), "STREAM_FINISHED");
}
