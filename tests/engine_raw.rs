//! Events the engine's provider decoding makes (usage, a tool's input and its deltas, providers'
//! own citations) cross to JS as their value's text (the `RAW` op, no JSON tree built): decoded
//! as the JS face decodes it, every step gives the events the engine's event API gives, for the
//! provider fixtures cut anywhere, through stages that take them as they are.

use citeflow::engine::{ops, StreamEngine};
use citeflow::event::Event;
use citeflow::provider::StreamFormat;
use citeflow::transform::OutputTransformerConfig;
use serde_json::{json, Value};

#[path = "support/ops_decode.rs"]
mod ops_decode;
use ops_decode::{decode, NoHandles};
#[path = "support/streams.rs"]
mod streams;
use streams::provider_cases;

fn stages(n: usize) -> Vec<OutputTransformerConfig> {
    let cfg = |v: Value| OutputTransformerConfig::from_value(&v).unwrap();
    match n {
        0 => vec![],
        1 => vec![
            cfg(json!({"type": "think_tag", "kwargs": {"idPrefix": "t"}})),
            cfg(json!({"type": "citations", "kwargs": {"sourceCount": 2}})),
        ],
        2 => vec![OutputTransformerConfig::event_filter(&[
            "response", "usage", "citation",
        ])],
        _ => vec![cfg(json!({"type": "identity"}))],
    }
}

/// The events of `bytes` cut at `cut`, through the encoding (`encoded`) or the event API; the
/// error code the stream ended with, if any; and how many `RAW` ops the encoding held.
fn run(
    format: StreamFormat,
    n: usize,
    bytes: &[u8],
    cut: usize,
    encoded: bool,
) -> (Vec<Event>, Option<&'static str>, usize) {
    let mut engine = StreamEngine::new(Some(format), &stages(n)).unwrap();
    let mut enc = ops::Encoder::default();
    let mut ids = vec![None];
    let mut out = Vec::new();
    let mut raw = 0;
    let (head, tail) = bytes.split_at(cut);
    // `None`: the end of the stream.
    for input in [Some(head), Some(tail), None] {
        let step = match (input, encoded) {
            (Some([]), _) => continue,
            (Some(piece), true) => engine.push_bytes(piece).map(|step| enc.encode(step)),
            (Some(piece), false) => engine.push_bytes_events(piece).map(|e| out.extend(e)),
            (None, true) => engine.finish().map(|step| enc.encode(step)),
            (None, false) => engine.finish_events().map(|e| out.extend(e)),
        };
        if let Err(e) = step {
            return (out, Some(e.code()), raw);
        }
        if encoded {
            raw += enc.words.iter().filter(|&&w| w == ops::RAW).count();
            out.extend(decode(&enc, &mut ids, &mut NoHandles));
        }
    }
    (out, None, raw)
}

/// Adjacent text of one block merged (the encoding merges what one step releases).
fn merged(events: Vec<Event>) -> Vec<Event> {
    let mut out: Vec<Event> = Vec::new();
    for e in events {
        if let Some(last) = out.last_mut() {
            let text =
                |e: &Event| (e.kind == "response" || e.kind == "thinking") && e.extra.is_empty();
            if text(last) && text(&e) && last.kind == e.kind && last.id == e.id {
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

#[test]
fn events_the_core_makes_cross_as_their_text_and_decode_to_the_same_events() {
    let mut raw_ops = 0;
    for case in provider_cases() {
        let name = case["name"].as_str().unwrap();
        let format = StreamFormat::parse(case["format"].as_str().unwrap()).unwrap();
        let bytes = case["sse"].as_str().unwrap().as_bytes();
        for n in 0..4 {
            for cut in (0..=bytes.len()).step_by(7) {
                let (events, error, raw) = run(format, n, bytes, cut, true);
                let (want, want_error, _) = run(format, n, bytes, cut, false);
                assert_eq!(error, want_error, "{name}, stages {n}, cut {cut}");
                assert_eq!(
                    merged(events),
                    merged(want),
                    "{name}, stages {n}, cut {cut}"
                );
                raw_ops += raw;
            }
        }
    }
    assert!(raw_ops > 0, "no fixture made an event the RAW op carries");
}

/// The one event order: whatever stages run, a provider's `usage` comes last, after the end of
/// every block (a think-tag stage ends its open block only when the stream ends) and after
/// what the stages release at the end.
#[test]
fn usage_comes_last_whatever_the_stages() {
    let mut checked = 0;
    for case in provider_cases() {
        let name = case["name"].as_str().unwrap();
        let format = StreamFormat::parse(case["format"].as_str().unwrap()).unwrap();
        let bytes = case["sse"].as_str().unwrap().as_bytes();
        for n in 0..4 {
            for cut in (0..=bytes.len()).step_by(11) {
                let (events, error, _) = run(format, n, bytes, cut, false);
                if error.is_some() {
                    continue;
                }
                let Some(at) = events.iter().position(|e| e.kind == "usage") else {
                    continue;
                };
                let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
                assert_eq!(
                    at,
                    events.len() - 1,
                    "{name}, stages {n}, cut {cut}: {kinds:?}"
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 0, "no fixture reported usage");
}
