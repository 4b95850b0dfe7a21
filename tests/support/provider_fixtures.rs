//! Recorded provider answers (`tests/fixtures/providers/<provider>/`, where each came from in
//! `SOURCES.md`) decoded as citeflow decodes them, and the properties every one must have:
//! the same events for every split of the bytes, spans inside the answer text on character
//! boundaries, and a whole answer that reads as the stream of it does.

#![allow(dead_code)]

use std::path::PathBuf;

use citeflow::event::{items_from_events, Event, LmOutput, OutputItem};
use citeflow::provider::{parse_response, ProviderByteStream, Provider, StreamFormat};
use serde_json::Value;

/// A recorded file of a provider's directory.
pub fn fixture(provider: &str, name: &str) -> Vec<u8> {
    let path: PathBuf = [
        env!("CARGO_MANIFEST_DIR"),
        "tests/fixtures/providers",
        provider,
        name,
    ]
    .iter()
    .collect();
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The events of a stream of `format` given in `pieces`, and the error code it ended with.
pub fn decode(format: &str, pieces: &[&[u8]]) -> (Vec<Event>, Option<&'static str>) {
    let format = StreamFormat::parse(format).expect("a stream format");
    let mut stream = ProviderByteStream::new(format);
    let mut events = Vec::new();
    for piece in pieces {
        match stream.push(piece) {
            Ok(mut more) => events.append(&mut more),
            Err(e) => return (events, Some(e.code())),
        }
    }
    match stream.finish() {
        Ok(mut more) => {
            events.append(&mut more);
            (events, None)
        }
        Err(e) => (events, Some(e.code())),
    }
}

/// A small deterministic random source (xorshift), so a failing cut can be replayed.
pub struct Cuts(u64);

impl Cuts {
    pub fn new(seed: u64) -> Self {
        Self(seed | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// `k` sorted cut positions in `0..=len`.
    pub fn positions(&mut self, len: usize, k: usize) -> Vec<usize> {
        let mut at: Vec<usize> = (0..k)
            .map(|_| (self.next() % (len as u64 + 1)) as usize)
            .collect();
        at.sort_unstable();
        at
    }
}

/// `bytes` cut at `at` (sorted).
pub fn pieces<'a>(bytes: &'a [u8], at: &[usize]) -> Vec<&'a [u8]> {
    let mut out = Vec::with_capacity(at.len() + 1);
    let mut from = 0;
    for &cut in at {
        out.push(&bytes[from..cut]);
        from = cut;
    }
    out.push(&bytes[from..]);
    out
}

/// How many random k-cuts each recorded stream gets (`CITEFLOW_FIXTURE_CUTS` to change).
pub fn random_cuts() -> usize {
    std::env::var("CITEFLOW_FIXTURE_CUTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2000)
}

/// The events of the recorded stream whole, checked equal to those of every 2-cut of its bytes
/// and of [`random_cuts`] random k-cuts (k up to 12: inside multi-byte characters, between CR
/// and LF, wherever they fall).
pub fn decode_every_split(format: &str, bytes: &[u8]) -> (Vec<Event>, Option<&'static str>) {
    let whole = decode(format, &[bytes]);
    for cut in 0..=bytes.len() {
        let got = decode(format, &pieces(bytes, &[cut]));
        assert_eq!(got, whole, "{format}: the stream cut at byte {cut}");
    }
    let mut cuts = Cuts::new(bytes.len() as u64 ^ 0x9e37_79b9_7f4a_7c15);
    for round in 0..random_cuts() {
        let k = 2 + round % 11;
        let at = cuts.positions(bytes.len(), k);
        let got = decode(format, &pieces(bytes, &at));
        assert_eq!(got, whole, "{format}: the stream cut at {at:?}");
    }
    whole
}

/// The answer text (the `response` events joined) of `events`.
pub fn answer_text(events: &[Event]) -> String {
    items_from_events(events)
        .into_iter()
        .filter_map(|item| match item {
            OutputItem::Text(t) => Some(t),
            _ => None,
        })
        .collect()
}

/// The values of the `citation` events.
pub fn citations(events: &[Event]) -> Vec<Value> {
    events
        .iter()
        .filter(|e| e.kind == "citation")
        .map(|e| e.value.clone())
        .collect()
}

/// The value of the one `sources` event (`Null` when there is none); more than one fails.
pub fn sources(events: &[Event]) -> Value {
    let all: Vec<&Event> = events.iter().filter(|e| e.kind == "sources").collect();
    assert!(all.len() <= 1, "one sources event per answer, got {}", all.len());
    all.first().map_or(Value::Null, |e| e.value.clone())
}

/// The UTF-16 slice `[start, end)` of `text`, checked to be inside it and on character
/// boundaries (no surrogate pair split).
pub fn slice16(text: &str, span: &Value) -> String {
    let units: Vec<u16> = text.encode_utf16().collect();
    let start = span[0].as_u64().expect("span start") as usize;
    let end = span[1].as_u64().expect("span end") as usize;
    assert!(start <= end && end <= units.len(), "span {span} outside a text of {} units", units.len());
    for at in [start, end] {
        if let Some(u) = units.get(at) {
            assert!(!(0xDC00..0xE000).contains(u), "span {span} splits a surrogate pair");
        }
    }
    String::from_utf16(&units[start..end]).expect("whole characters")
}

/// Every citation's span checked against `text` ([`slice16`]); the slices.
pub fn check_spans(text: &str, citations: &[Value]) -> Vec<String> {
    citations.iter().map(|c| slice16(text, &c["span"])).collect()
}

/// Events in the one order every decoder keeps: no block event after `sources`, a `citation`
/// or `usage`, and `usage` last when there is one; at most one `sources`.
pub fn check_order(events: &[Event]) {
    let tail = events
        .iter()
        .position(|e| matches!(e.kind.as_str(), "sources" | "citation" | "usage"));
    if let Some(tail) = tail {
        for e in &events[tail..] {
            assert!(
                matches!(e.kind.as_str(), "sources" | "citation" | "usage"),
                "{} after the answer's sources, citations or usage",
                e.kind
            );
        }
    }
    if let Some(u) = events.iter().position(|e| e.kind == "usage") {
        assert_eq!(u, events.len() - 1, "usage is the last event");
    }
    sources(events);
}

/// The whole answer `body` of `provider` read as `invoke()` reads it.
pub fn whole(provider: Provider, body: &[u8]) -> LmOutput {
    let body = std::str::from_utf8(body).expect("a UTF-8 body");
    parse_response(provider, body, false).expect("a whole answer")
}

/// A whole answer's text items joined.
pub fn output_text(output: &LmOutput) -> String {
    output
        .outputs
        .iter()
        .filter_map(|item| match item {
            OutputItem::Text(t) => Some(t.as_str()),
            _ => None,
        })
        .collect()
}
