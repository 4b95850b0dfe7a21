//! Provider streams: SSE bytes split anywhere → SSE messages → events, against fixtures.

use citeflow::event::Event;
use citeflow::provider::{ProviderStreamDecoder, SseDecoder, StreamFormat};
use serde_json::Value;

fn cases() -> Vec<Value> {
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

/// Events decoded from `pieces`, and the error code the stream ended with, if any.
fn decode(format: StreamFormat, pieces: &[&[u8]]) -> (Vec<Event>, Option<&'static str>) {
    let mut sse = SseDecoder::default();
    let mut provider = ProviderStreamDecoder::new(format);
    let mut events = Vec::new();
    for piece in pieces {
        for message in sse.push(piece).unwrap() {
            match provider.push(&message) {
                Ok(e) => events.extend(e),
                Err(err) => return (events, Some(err.code())),
            }
        }
    }
    if let Err(err) = sse.finish() {
        return (events, Some(err.code()));
    }
    match provider.finish() {
        Ok(e) => events.extend(e),
        Err(err) => return (events, Some(err.code())),
    }
    (events, None)
}

#[test]
fn fixtures_decode_the_same_for_any_split() {
    for case in cases() {
        let name = case["name"].as_str().unwrap();
        let format = StreamFormat::parse(case["format"].as_str().unwrap()).unwrap();
        let bytes = case["sse"].as_str().unwrap().as_bytes();
        let want: Vec<(String, Value)> = case["events"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| (e[0].as_str().unwrap().to_owned(), e[1].clone()))
            .collect();
        let want_error = case.get("error").and_then(Value::as_str);
        for cut in 0..=bytes.len() {
            let (head, tail) = bytes.split_at(cut);
            // Empty chunks (a fetch body may deliver them) change nothing either.
            for pieces in [vec![head, tail], vec![head, b"", b"", tail, b""]] {
                let (events, error) = decode(format, &pieces);
                let got: Vec<(String, Value)> = events
                    .iter()
                    .map(|e| (e.kind.clone(), e.value.clone()))
                    .collect();
                assert_eq!(got, want, "{name} split at {cut}");
                assert_eq!(error, want_error, "{name} split at {cut}");
            }
        }
    }
}

#[test]
fn anthropic_blocks_share_ids() {
    let case = cases()
        .into_iter()
        .find(|c| c["format"] == "anthropic")
        .unwrap();
    let (events, _) = decode(
        StreamFormat::Anthropic,
        &[case["sse"].as_str().unwrap().as_bytes()],
    );
    let ids: Vec<Option<&str>> = events
        .iter()
        .filter(|e| e.kind.starts_with("thinking"))
        .map(|e| e.id.as_deref())
        .collect();
    assert_eq!(ids, [Some("msg_01-0"); 3]);
}
