//! Provider streams: SSE bytes split anywhere → SSE messages → events, against fixtures.

use citeflow::event::Event;
use citeflow::provider::stream::MAX_CONTENT_BLOCKS;
use citeflow::provider::{
    ProviderByteStream, ProviderStreamDecoder, SseDecoder, SseMessage, StreamFormat,
};
use proptest::prelude::*;
use serde_json::Value;

#[path = "support/streams.rs"]
mod streams;
use streams::{piece, provider_cases as cases};

/// Events decoded from `pieces`, and the error code the stream ended with, if any; the same
/// from the decoder as the lean streaming module runs it (no `fast_delta` reader).
fn decode(format: StreamFormat, pieces: &[&[u8]]) -> (Vec<Event>, Option<&'static str>) {
    let full = decode_with(ProviderStreamDecoder::new(format), pieces);
    let lean = decode_with(ProviderStreamDecoder::without_fast_reader(format), pieces);
    assert_eq!(lean, full, "the lean decoder");
    full
}

fn decode_with(
    mut provider: ProviderStreamDecoder,
    pieces: &[&[u8]],
) -> (Vec<Event>, Option<&'static str>) {
    let mut sse = SseDecoder::default();
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

/// A streamed citation's `url` is only an http(s) URL; any other is `rawUrl` (and, naming no
/// page, names no source), as in a whole answer.
#[test]
fn streamed_urls_that_are_not_http_are_raw_urls() {
    let openai = [
        r#"{"choices":[{"index":0,"delta":{"content":"see x"}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"annotations":[{"type":"url_citation","url_citation":{"start_index":4,"end_index":5,"url":"javascript:alert(1)","title":"X"}}]}}]}"#,
        r#"{"choices":[{"index":0,"delta":{"annotations":[{"type":"url_citation","url_citation":{"start_index":0,"end_index":3,"url":"https://e.org/","title":"E"}}]}}]}"#,
    ]
    .map(|d| format!("data: {d}\n\n"))
    .concat()
        + "data: [DONE]\n\n";
    let anthropic = [
        r#"{"type":"message_start","message":{"id":"m"}}"#,
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"","citations":[]}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"web_search_result_location","url":"data:text/html,<b>x</b>","title":"D","cited_text":"x"}}}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"abc"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"message_stop"}"#,
    ]
    .map(|d| format!("data: {d}\n\n"))
    .concat();
    for (format, sse, want) in [
        (
            StreamFormat::OpenAi,
            openai,
            vec![
                serde_json::json!({"sourceId": 0, "marker": "", "span": [4, 5], "valid": false,
                    "documentTitle": "X", "rawUrl": "javascript:alert(1)", "location": "url_citation", "covers": "link"}),
                serde_json::json!({"sourceId": 1, "marker": "", "span": [0, 3], "valid": true,
                    "documentTitle": "E", "url": "https://e.org/", "location": "url_citation", "covers": "link"}),
            ],
        ),
        (
            StreamFormat::Anthropic,
            anthropic,
            vec![
                serde_json::json!({"sourceId": 0, "marker": "", "span": [0, 3], "valid": false,
                "citedText": "x", "documentTitle": "D", "rawUrl": "data:text/html,<b>x</b>",
                "location": "web_search_result_location", "covers": "claim"}),
            ],
        ),
    ] {
        let (events, error) = decode(format, &[sse.as_bytes()]);
        assert_eq!(error, None);
        let citations: Vec<Value> = events
            .into_iter()
            .filter(|e| e.kind == "citation")
            .map(|e| e.value)
            .collect();
        assert_eq!(citations, want, "{format:?}");
    }
}

#[test]
fn content_blocks_are_bounded_whatever_their_indexes() {
    let mut d = ProviderStreamDecoder::new(StreamFormat::Anthropic);
    let start = |index: u64| SseMessage {
        event: None,
        data: format!(
            r#"{{"type":"content_block_start","index":{index},"content_block":{{"type":"text"}}}}"#
        ),
        id: None,
        retry: None,
    };
    for i in 0..MAX_CONTENT_BLOCKS as u64 {
        d.push(&start(u64::MAX - i)).unwrap();
    }
    // A block index seen before is the same block, not a new one.
    d.push(&start(u64::MAX)).unwrap();
    let error = d.push(&start(0)).unwrap_err();
    assert_eq!(error.code(), "INVALID_PROVIDER_DATA");
}

/// Pieces of hostile streams: every line ending, BOM, multi-byte characters, valid and invalid
/// provider JSON, error events, absurd block indexes.
const PIECES: &[&str] = &[
    "data: ",
    "data:",
    "event: e",
    "id: 1",
    "retry: 5",
    ": c",
    "\r",
    "\n",
    "\r\n",
    "\u{feff}",
    "x",
    "é",
    "😀",
    "[DONE]",
    "{",
    r#"{"choices":[{"index":0,"delta":{"content":"a"}}]}"#,
    r#"{"choices":[{"index":0,"delta":{"content":[{"type":"text","text":"p"}]},"finish_reason":"stop"}]}"#,
    r#"{"type":"content_block_start","index":4294967295,"content_block":{"type":"text"}}"#,
    r#"{"type":"content_block_delta","index":18446744073709551615,"delta":{"type":"text_delta","text":"t"}}"#,
    r#"{"type":"content_block_stop","index":1500000000}"#,
    r#"{"type":"message_stop"}"#,
    r#"{"error":{"message":"m","code":7}}"#,
    r#"{"usage":{"__proto__":{"x":1}}}"#,
];

fn as_pairs(events: &[Event]) -> Vec<(String, Value)> {
    events
        .iter()
        .map(|e| (e.kind.clone(), e.value.clone()))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Any byte split (through UTF-8 characters and CRLF pairs), with empty chunks anywhere,
    /// gives the same events and the same error; nothing panics.
    #[test]
    fn any_split_with_empty_chunks_decodes_the_same(
        parts in prop::collection::vec(piece(PIECES), 0..40),
        cuts in prop::collection::vec(any::<usize>(), 0..10),
        empties in prop::collection::vec(any::<usize>(), 0..4),
        anthropic in any::<bool>(),
    ) {
        let format = if anthropic { StreamFormat::Anthropic } else { StreamFormat::OpenAi };
        let text = parts.concat();
        let bytes = text.as_bytes();
        let whole = decode(format, &[bytes]);
        let mut bounds: Vec<usize> = cuts.iter().map(|c| c % (bytes.len() + 1)).collect();
        bounds.extend([0, bytes.len()]);
        bounds.sort_unstable();
        bounds.dedup();
        let mut pieces: Vec<&[u8]> = bounds
            .windows(2)
            .filter_map(|w| bytes.get(w[0]..w[1]))
            .collect();
        for e in &empties {
            pieces.insert(e % (pieces.len() + 1), b"");
        }
        let (events, error) = decode(format, &pieces);
        prop_assert_eq!(as_pairs(&events), as_pairs(&whole.0));
        prop_assert_eq!(error, whole.1);
        // The one-step decoder agrees whenever the stream is well formed.
        let mut stream = ProviderByteStream::new(format);
        let mut one_step = Vec::new();
        let mut failed = false;
        for piece in &pieces {
            match stream.push(piece) {
                Ok(e) => one_step.extend(e),
                Err(_) => { failed = true; break; }
            }
        }
        if !failed && whole.1.is_none() {
            one_step.extend(stream.finish().unwrap_or_default());
            prop_assert_eq!(as_pairs(&one_step), as_pairs(&whole.0));
        }
    }
}
