//! Events their caller keeps (handles): pushing any sequence of events as handles, with the
//! caller's handle table run as the JS face runs it (an object comes back as itself, or as a
//! copy with a new `value`; every handle the step does not keep is freed), gives the same
//! events as pushing them whole, for every stage combination that takes handles and any split
//! of the text. And the core reads a kept event's fields by the same rules as a whole one.

use std::collections::BTreeMap;

use citeflow::engine::{ops, Cx, EventView, Field, KeptEvent, Kind, Piece, StreamEngine};
use citeflow::event::{Event, ValueType};
use citeflow::transform::OutputTransformerConfig;
use proptest::prelude::*;
use serde_json::{json, Map, Value};

#[path = "support/ops_decode.rs"]
mod ops_decode;
use ops_decode::{decode, Kept};

const TEXT_PIECES: &[&str] = &[
    "<think>", "</think>", "<th", "ink>", "a", "b c", "é", "😀", "[", "]", "1", "2", "[1]", " ",
    ".", "\n\n",
];

fn text() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(TEXT_PIECES), 0..6).prop_map(|v| v.concat())
}

fn id() -> impl Strategy<Value = Option<String>> {
    prop::option::of(prop::sample::select(&["r1", "r2", "call_1"][..]).prop_map(str::to_owned))
}

fn with_extra(mut e: Event, n: u32) -> Event {
    e.extra.insert("n".into(), json!(n));
    e
}

/// Events of every kind the stages treat apart: plain text, response text with fields of its
/// own, block starts and ends (plain and not), JSON events, other types, and (rarely) a
/// response whose value is not a string.
fn event() -> impl Strategy<Value = Event> {
    prop_oneof![
        4 => (text(), id()).prop_map(|(t, id)| Event::text("response", id, t)),
        3 => (text(), id(), 0..3u32).prop_map(|(t, id, n)| with_extra(Event::text("response", id, t), n)),
        1 => (text(), id()).prop_map(|(t, id)| Event::json("response", id, Value::String(t))),
        1 => (text(), id()).prop_map(|(t, id)| Event::text("thinking", id, t)),
        1 => (prop::sample::select(&["response_start", "response_end", "thinking_start", "thinking_end"][..]), id())
            .prop_map(|(k, id)| Event::text(k, id, "")),
        1 => (prop::sample::select(&["response_start", "response_end"][..]), id(), 0..2u32)
            .prop_map(|(k, id, n)| with_extra(Event::text(k, id, ""), n)),
        1 => (prop::sample::select(&["response_end", "thinking_start"][..]), text())
            .prop_map(|(k, t)| Event::text(k, None, format!("x{t}"))),
        2 => id().prop_map(|id| Event::json("tool_call", id, json!({"name": "search", "arguments": {"k": 5}}))),
        1 => Just(Event::json("usage", None, json!({"inputTokens": 3}))),
        1 => text().prop_map(|t| Event::text("status", None, t)),
        1 => Just(Event::json("citation", None, json!({"sourceId": 1}))),
        1 => Just(Event::json("structured", None, json!({"a": [1]}))),
    ]
}

fn rare_bad_response() -> impl Strategy<Value = Event> {
    prop_oneof![
        Just(Event::json("response", None, json!({"no": "text"}))),
        Just(Event::json("response", None, Value::Null)),
        Just(Event::json("response", Some("r1".into()), json!(7))),
    ]
}

fn cfg(v: Value) -> OutputTransformerConfig {
    OutputTransformerConfig::from_value(&v).unwrap()
}

/// Every stage combination that takes handles.
fn stages(n: usize) -> Vec<OutputTransformerConfig> {
    let think = || cfg(json!({"type": "think_tag", "kwargs": {"idPrefix": "t"}}));
    let cite = || cfg(json!({"type": "citations", "kwargs": {"sourceCount": 2}}));
    let filter =
        || OutputTransformerConfig::event_filter(&["response", "citation", "tool_call", "status"]);
    match n {
        0 => vec![think()],
        1 => vec![cite()],
        2 => vec![filter()],
        3 => vec![think(), cite()],
        4 => vec![cite(), think()],
        5 => vec![think(), cite(), filter()],
        6 => vec![cite(), cite()],
        _ => vec![filter(), cite(), think()],
    }
}

const COMBINATIONS: usize = 8;

/// What the JS face reads of an event object: its fields and their kinds.
fn kept(handle: u32, e: &Event) -> KeptEvent<'_> {
    KeptEvent {
        handle,
        ty: Field::Text(&e.kind),
        id: e.id.as_deref().map_or(Field::Null, Field::Text),
        value: match &e.value {
            Value::String(s) => Field::Text(s),
            Value::Null => Field::Null,
            Value::Array(_) => Field::Other("an array"),
            Value::Object(_) => Field::Other("an object"),
            _ => Field::Other("a number"),
        },
        value_type: Field::Text(match e.value_type {
            ValueType::Text => "text",
            ValueType::Json => "json",
        }),
        extra: !e.extra.is_empty(),
    }
}

/// The JS face's handle table: slots reused, freed after each step unless kept.
#[derive(Default)]
struct Table {
    objects: Vec<Option<Event>>,
    free: Vec<u32>,
    sent: Vec<u32>,
    most: usize,
}

impl Table {
    fn hold(&mut self, e: Event) -> u32 {
        let h = self.free.pop().unwrap_or(self.objects.len() as u32);
        if h as usize == self.objects.len() {
            self.objects.push(None);
        }
        self.objects[h as usize] = Some(e);
        self.sent.push(h);
        let live = self.objects.len() - self.free.len();
        self.most = self.most.max(live);
        h
    }
}

impl Kept for Table {
    fn get(&self, h: u32) -> Event {
        self.objects[h as usize]
            .clone()
            .expect("the engine gave back a freed handle")
    }

    fn release(&mut self, kept: &[u32]) {
        for h in std::mem::take(&mut self.sent) {
            if !kept.contains(&h) {
                self.objects[h as usize] = None;
                self.free.push(h);
            }
        }
        self.sent = kept.to_vec();
    }
}

/// The events (or the first error's code) of pushing events whole (`kept: false`) or as
/// handles, through the encoding and the table; and the most events the table held at once.
fn run(n: usize, events: &[Event], as_handles: bool) -> (Result<Vec<Event>, &'static str>, usize) {
    let mut engine = StreamEngine::new(None, &stages(n)).unwrap();
    assert!(engine.takes_handles());
    let mut enc = ops::Encoder::default();
    let mut ids = vec![None];
    let mut table = Table::default();
    let mut out = Vec::new();
    for e in events {
        let step = if as_handles {
            let h = table.hold(e.clone());
            engine.push_kept(kept(h, e))
        } else {
            engine.push_event(e.clone())
        };
        match step {
            Ok(step) => enc.encode(step),
            Err(err) => return (Err(err.code()), table.most),
        }
        out.extend(decode(&enc, &mut ids, &mut table));
    }
    match engine.finish() {
        Ok(step) => enc.encode(step),
        Err(err) => return (Err(err.code()), table.most),
    }
    out.extend(decode(&enc, &mut ids, &mut table));
    (Ok(out), table.most)
}

fn whole(n: usize, events: &[Event]) -> Result<Vec<Event>, &'static str> {
    run(n, events, false).0
}

fn as_handles(n: usize, events: &[Event]) -> (Result<Vec<Event>, &'static str>, usize) {
    run(n, events, true)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(400))]

    #[test]
    fn handles_give_the_events_whole_events_give(
        events in prop::collection::vec(event(), 0..24),
        n in 0..COMBINATIONS,
    ) {
        let (handles, most) = as_handles(n, &events);
        prop_assert_eq!(handles, whole(n, &events));
        // A handle is kept only while a stage may give it back: the pushed one, and at most
        // one template per stage.
        prop_assert!(most <= 1 + stages(n).len(), "{most} handles kept at once");
    }

    #[test]
    fn refusals_are_the_same(
        before in prop::collection::vec(event(), 0..6),
        bad in rare_bad_response(),
        after in prop::collection::vec(event(), 0..4),
        n in 0..COMBINATIONS,
    ) {
        let events: Vec<Event> = before.into_iter().chain([bad]).chain(after).collect();
        prop_assert_eq!(as_handles(n, &events).0, whole(n, &events));
    }
}

#[test]
fn the_identity_stage_takes_handles() {
    let mut engine = StreamEngine::new(None, &[cfg(json!({"type": "identity"}))]).unwrap();
    assert!(engine.takes_handles());
    let e = Event::json("tool_call", None, json!({}));
    assert!(engine.push_kept(kept(0, &e)).is_ok());
}

#[test]
fn an_engine_with_a_stage_that_needs_whole_events_takes_no_handles() {
    for stage in [
        json!({"type": "json"}),
        json!({"type": "validation", "kwargs": {"requiredTypes": ["text"]}}),
        json!({"type": "cited_answer", "kwargs": {"sourceCount": 2}}),
    ] {
        let mut engine = StreamEngine::new(None, &[stages(0).remove(0), cfg(stage)]).unwrap();
        assert!(!engine.takes_handles());
        let e = Event::json("tool_call", None, json!({}));
        let refused = engine.push_kept(kept(0, &e)).err().map(|e| e.code());
        assert_eq!(refused, Some("INVALID_EVENT"));
    }
}

/// A JSON object's fields as the JS face reads them (`undefined` for a missing key).
fn field(map: &Map<String, Value>, key: &str) -> Field<'static> {
    match map.get(key) {
        None => Field::Absent,
        Some(Value::Null) => Field::Null,
        Some(Value::String(s)) => Field::Text(Box::leak(s.clone().into_boxed_str())),
        Some(Value::Bool(_)) => Field::Other("a boolean"),
        Some(Value::Number(_)) => Field::Other("a number"),
        Some(Value::Array(_)) => Field::Other("an array"),
        Some(Value::Object(_)) => Field::Other("an object"),
    }
}

fn view_of(map: &Map<String, Value>) -> Result<EventView<'static>, String> {
    let known = ["type", "id", "value", "valueType"];
    let event = KeptEvent {
        handle: 0,
        ty: field(map, "type"),
        id: field(map, "id"),
        value: field(map, "value"),
        value_type: field(map, "valueType"),
        extra: map.keys().any(|k| !known.contains(&k.as_str())),
    };
    event.view().map_err(|e| e.to_string())
}

fn json_field() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(Value::Null),
        Just(json!(1)),
        Just(json!(true)),
        Just(json!([1])),
        Just(json!({"a": 1})),
        prop::sample::select(
            &[
                "",
                "response",
                "thinking",
                "response_start",
                "thinking_end",
                "tool_call",
                "text",
                "json",
                "xml",
                "x",
            ][..]
        )
        .prop_map(Value::from),
    ]
}

proptest! {
    /// A kept event is read by the rules of a whole one: refused with the same message, or
    /// given the same piece (typed the same, or generic with the same type, id and text).
    #[test]
    fn kept_events_are_read_as_whole_ones(
        fields in prop::collection::btree_map(
            prop::sample::select(&["type", "id", "value", "valueType", "n"][..]),
            json_field(),
            0..5,
        ),
    ) {
        let map: Map<String, Value> = fields
            .into_iter()
            .map(|(k, v): (&str, Value)| (k.to_owned(), v))
            .collect::<BTreeMap<_, _>>()
            .into_iter()
            .collect();
        let whole = Event::from_json(Value::Object(map.clone()));
        let view = view_of(&map);
        match (&whole, &view) {
            // With several wrong fields, which is named first depends on the keys' order: the
            // kept event's message is the one its field alone gives.
            (Err(_), Err(b)) => {
                let alone: Vec<String> = map
                    .iter()
                    .filter_map(|(k, v)| Event::from_json(json!({ k: v })).err())
                    .map(|e| format!("invalid event: {e}"))
                    .collect();
                prop_assert!(alone.contains(b), "{b} not in {alone:?}");
            }
            (Ok(event), Ok(view)) => {
                let (mut cx_a, mut cx_b) = (Cx::default(), Cx::default());
                let a = cx_a.piece(event.clone()).unwrap();
                let b = cx_b.kept_piece(7, *view);
                let generic = |p: &Piece, cx: &Cx| {
                    p.generic(cx).map(|g| (g.ty.to_owned(), g.response_text().ok().map(str::to_owned)))
                };
                match generic(&a, &cx_a) {
                    None => prop_assert_eq!(cx_a.event(a.clone()), cx_b.event(b)),
                    Some((ty, text)) => {
                        let (ty_b, text_b) = generic(&b, &cx_b).unwrap_or_default();
                        prop_assert_eq!(&ty, &ty_b);
                        if ty == "response" {
                            prop_assert_eq!(text, text_b);
                        }
                    }
                }
                prop_assert_eq!(
                    Cx::is_plain_response(*view),
                    matches!(a, Piece::Text { kind: Kind::Response, .. })
                );
            }
            _ => prop_assert!(false, "{map:?}: whole {whole:?}, kept {view:?}"),
        }
    }
}
