//! Google Gemini: the recorded answers (tests/fixtures/providers/google) decoded streamed and
//! whole, hostile chunks, and the requests citeflow builds.

#[path = "support/provider_fixtures.rs"]
mod provider_fixtures;

use citeflow::event::{items_from_events, Event, OutputItem};
use citeflow::provider::{
    answer_failure, build_request, classify_failure, parse_response, CiteRequest, LmRequest,
    Message, ModelId, Provider, STRUCTURED_NOTE,
};
use provider_fixtures::{
    answer_text, check_order, check_spans, citations, decode, fixture, output_text, pieces,
    random_cuts, slice16, sources, whole, Cuts,
};
use serde_json::{json, Map, Value};

const STREAMS: [&str; 3] = [
    "web-search-grounding.sse",
    "file-search-grounding-gemini3.sse",
    "thought-summaries.sse",
];

/// The JSON chunks of a recorded stream, read independently of the decoder.
fn chunks(name: &str) -> Vec<Value> {
    let bytes = fixture("google", name);
    let text = String::from_utf8(bytes).unwrap().replace("\r\n", "\n");
    text.split("\n\n")
        .flat_map(|block| block.lines())
        .filter_map(|line| line.strip_prefix("data:"))
        .map(|data| serde_json::from_str(data.trim()).unwrap())
        .collect()
}

/// The `groundingSupports` of the last chunk (or of a whole answer) that has any.
fn supports(values: &[Value]) -> Vec<Value> {
    values
        .iter()
        .rev()
        .find_map(|v| {
            v.pointer("/candidates/0/groundingMetadata/groundingSupports")
                .and_then(Value::as_array)
                .cloned()
        })
        .unwrap_or_default()
}

/// The citations' slices of `text` equal the segments Gemini says they cover, one citation
/// per (support, chunk index), in order.
fn slices_are_the_segments(text: &str, cited: &[Value], supports: &[Value]) {
    let mut want = Vec::new();
    for support in supports {
        for index in support["groundingChunkIndices"].as_array().unwrap() {
            let segment = support["segment"]["text"].as_str().unwrap().to_owned();
            want.push((segment, index.as_u64().unwrap() + 1));
        }
    }
    let got: Vec<(String, u64)> = cited
        .iter()
        .map(|c| (slice16(text, &c["span"]), c["sourceId"].as_u64().unwrap()))
        .collect();
    assert_eq!(got, want);
}

/// The harness's `decode_every_split` check within this file's time budget (the recordings are large
/// for a debug build): 2-cuts at every byte of a line end, a multi-byte character or the
/// bytes around them, and at every 16th byte elsewhere; then random k-cuts.
fn decode_many_splits(bytes: &[u8]) -> (Vec<Event>, Option<&'static str>) {
    let whole = decode("google", &[bytes]);
    let near = |i: usize| {
        bytes[i.saturating_sub(3)..(i + 3).min(bytes.len())]
            .iter()
            .any(|&b| b == b'\r' || b == b'\n' || b >= 0x80)
    };
    for cut in (0..=bytes.len()).filter(|&i| i % 16 == 0 || i == bytes.len() || near(i)) {
        let got = decode("google", &pieces(bytes, &[cut]));
        assert_eq!(got, whole, "the stream cut at byte {cut}");
    }
    let mut cuts = Cuts::new(bytes.len() as u64);
    for round in 0..random_cuts().min(200) {
        let at = cuts.positions(bytes.len(), 2 + round % 11);
        assert_eq!(
            decode("google", &pieces(bytes, &at)),
            whole,
            "the stream cut at {at:?}"
        );
    }
    whole
}

#[test]
fn every_recorded_stream_decodes_whatever_its_splits() {
    for name in STREAMS {
        let bytes = fixture("google", name);
        let (events, error) = decode_many_splits(&bytes);
        assert_eq!(error, None, "{name}");
        check_order(&events);
        let text = answer_text(&events);
        let cited = citations(&events);
        check_spans(&text, &cited);
        slices_are_the_segments(&text, &cited, &supports(&chunks(name)));
        // The text is every non-thought text part, joined.
        let parts: String = chunks(name)
            .iter()
            .flat_map(|c| {
                c["candidates"][0]["content"]["parts"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default()
            })
            .filter(|p| p["thought"] != true)
            .filter_map(|p| p["text"].as_str().map(str::to_owned))
            .collect();
        assert_eq!(text, parts, "{name}");
        assert_eq!(events.last().unwrap().kind, "usage", "{name}");
    }
}

#[test]
fn web_search_stream() {
    let (events, _) = decode("google", &[&fixture("google", "web-search-grounding.sse")]);
    let text = answer_text(&events);
    assert!(text.starts_with("### Weather in San Francisco is Mild and Partly Cloudy Today\n\n"));
    assert!(text.ends_with("The chance of rain remains low throughout the day."));
    let list = sources(&events);
    assert_eq!(list.as_array().unwrap().len(), 5);
    assert_eq!(
        list[1],
        json!({"sourceId": 2, "kind": "web", "url": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQE9XF-Y6nU0j1wObrFC2SexrS5DFq99jug8F3RhftMwfKdkLkcSVMWq_H3qgRJRC02Lp0nIyyB7EtTA9TkUIOV4vzEh0VmWYIkoeQRmbB3K6IaR4luRiN1n0lni5mP4x4JjiXd7y8V__w50hGwbk3k=", "title": "timeanddate.com"})
    );
    let cited = citations(&events);
    // 8 supports, one of them citing two chunks.
    assert_eq!(cited.len(), 9);
    // The first support: the text before byte 235 is ASCII; bytes 235..375 hold four `°`
    // (2 bytes, 1 UTF-16 unit each), so the span is units 235..371.
    let first = &cited[0];
    assert_eq!(
        slice16(&text, &first["span"]),
        "As of Tuesday afternoon, the temperature is around 69°F (21°C), with a real feel of about 76°F (24°C) and humidity at approximately 68%."
    );
    assert_eq!(first["span"], json!([235, 371]));
    assert_eq!(
        (
            first["sourceId"].clone(),
            first["location"].clone(),
            first["covers"].clone(),
            first["valid"].clone(),
            first["marker"].clone()
        ),
        (
            json!(1),
            json!("web"),
            json!("claim"),
            json!(true),
            json!("")
        )
    );
    assert_eq!(
        first["documentTitle"],
        "Weather information for San Francisco, CA, US"
    );
    assert!(first.get("citedText").is_none());
    assert_eq!(
        [cited[6]["sourceId"].clone(), cited[7]["sourceId"].clone()],
        [json!(5), json!(2)]
    );
    assert_eq!(cited[6]["span"], cited[7]["span"]);
    let usage = &events.last().unwrap().value;
    assert_eq!(usage["inputTokens"], 119);
    assert_eq!(usage["outputTokens"], 653);
    assert_eq!(usage["totalTokens"], 772);
    assert_eq!(usage["reasoningTokens"], 412);
    assert_eq!(usage["raw"]["toolUsePromptTokenCount"], 102);
}

#[test]
fn web_search_whole() {
    let body = fixture("google", "web-search-grounding.json");
    let out = whole(Provider::Google, &body);
    let text = output_text(&out);
    assert!(text.starts_with("## Weather in San Francisco is Mild and Partly Cloudy\n\n"));
    assert_eq!(out.outputs.len(), 1);
    let cited = out.extra["citations"].as_array().unwrap().clone();
    assert_eq!(cited.len(), 6);
    let recorded: Value = serde_json::from_slice(&body).unwrap();
    slices_are_the_segments(&text, &cited, &supports(&[recorded]));
    // `°` is 2 bytes and 1 unit: the first support's end, byte 216, is unit 215.
    assert_eq!(cited[0]["span"], json!([55, 215]));
    assert_eq!(cited[1]["span"], json!([216, 270]));
    assert_eq!(
        cited[2],
        json!({"sourceId": 2, "marker": "", "span": [272, 433], "valid": true,
            "documentTitle": "weather.gov",
            "url": "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AUZIYQF_uqo2G5Goeww8iF1L_dYa2sqWGhzu_UnxEZd1gQ7ZNuXEVVVYEEYcx_La3kuODFm0dPUhHeF4qGP1c6kJ86i4SKfvRqFitMCvNiDx07eC5iM7axwepoTv3FeUdIRC-ou1P-6DDykZ4QzcxcrKISa_1Q==",
            "location": "web", "covers": "claim"})
    );
    let list = out.extra["sources"].as_array().unwrap();
    assert_eq!(list.len(), 3);
    assert_eq!(
        list[0],
        json!({"sourceId": 1, "kind": "web", "url": "https://www.google.com/search?q=weather+in+San Francisco, CA,+US", "title": "Weather information for San Francisco, CA, US"})
    );
    let usage = &out.extra["usage"];
    assert_eq!(
        (
            usage["inputTokens"].clone(),
            usage["outputTokens"].clone(),
            usage["totalTokens"].clone(),
            usage["reasoningTokens"].clone()
        ),
        (json!(136), json!(414), json!(550), json!(213))
    );
    assert!(usage.get("cachedInputTokens").is_none());
    assert_eq!(usage["raw"], recorded_usage(&body));
    assert_eq!(out.extra["finishReason"], "STOP");
}

fn recorded_usage(body: &[u8]) -> Value {
    serde_json::from_slice::<Value>(body).unwrap()["usageMetadata"].clone()
}

#[test]
fn file_search_whole_and_stream() {
    let body = fixture("google", "file-search-grounding-gemini3.json");
    let out = whole(Provider::Google, &body);
    let text = output_text(&out);
    assert!(text.starts_with("The capital of France is **Paris**. It is the country's most"));
    let cited = out.extra["citations"].as_array().unwrap();
    assert_eq!(
        cited.as_slice(),
        [
            json!({"sourceId": 1, "marker": "", "span": [0, 35], "valid": true, "location": "retrievedContext", "covers": "claim"})
        ]
    );
    assert_eq!(
        slice16(&text, &cited[0]["span"]),
        "The capital of France is **Paris**."
    );
    assert_eq!(
        out.extra["sources"],
        json!([{"sourceId": 1, "kind": "retrievedContext", "snippet": "Paris is the capital of France. The Eiffel Tower is a famous landmark in Paris.\n"}])
    );
    let usage = &out.extra["usage"];
    assert_eq!(
        (
            usage["inputTokens"].clone(),
            usage["outputTokens"].clone(),
            usage["totalTokens"].clone()
        ),
        (json!(534), json!(198), json!(732))
    );

    let (events, error) = decode(
        "google",
        &[&fixture("google", "file-search-grounding-gemini3.sse")],
    );
    assert_eq!(error, None);
    let text = answer_text(&events);
    let cited = citations(&events);
    assert_eq!(cited.len(), 1);
    assert_eq!(
        slice16(&text, &cited[0]["span"]),
        "The capital of France is **Paris**."
    );
    // The toolCall / toolResponse parts carry no text: nothing but the answer.
    assert!(items_from_events(&events)
        .iter()
        .all(|i| matches!(i, OutputItem::Text(_))));
    let usage = &events.last().unwrap().value;
    assert_eq!(
        (usage["inputTokens"].clone(), usage["totalTokens"].clone()),
        (json!(1198), json!(1767))
    );
}

#[test]
fn thought_summaries_are_thinking() {
    let out = whole(
        Provider::Google,
        &fixture("google", "thought-summaries-gemini3.json"),
    );
    match out.outputs.as_slice() {
        [OutputItem::Thinking(t), OutputItem::Text(a)] => {
            assert!(t.starts_with("**A Safe Street-Crossing Guide: My Thought Process**"));
            assert!(a.starts_with("Crossing the street safely is a fundamental skill"));
        }
        other => panic!("{other:?}"),
    }
    assert!(out.extra.get("citations").is_none() && out.extra.get("sources").is_none());
    assert_eq!(out.extra["usage"]["outputTokens"], 1737);
    assert_eq!(out.extra["usage"]["reasoningTokens"], 1001);
    assert_eq!(out.extra["usage"]["inputTokens"], 29);

    let (events, _) = decode("google", &[&fixture("google", "thought-summaries.sse")]);
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e.kind.as_str())
        .filter(|k| k.ends_with("_start") || k.ends_with("_end"))
        .collect();
    assert_eq!(
        kinds,
        [
            "thinking_start",
            "thinking_end",
            "response_start",
            "response_end"
        ]
    );
    let thinking: String = events
        .iter()
        .filter(|e| e.kind == "thinking")
        .filter_map(|e| e.text_value())
        .collect();
    assert!(thinking.starts_with("**Clarifying User Goals**"));
    assert!(thinking.contains("**Crafting Safe Instructions**"));
    assert!(
        events
            .iter()
            .all(|e| e.id.as_deref() == Some("beHBaJfEMIi-qtsP3769-Q8") || e.id.is_none()),
        "ids are the responseId"
    );
}

/// A recorded stream's chunks put into one whole answer, as `generateContent` would send
/// it: every part in order, the last chunk's finish reason, grounding and usage.
fn whole_of(name: &str) -> String {
    let all = chunks(name);
    let mut parts = Vec::new();
    let mut candidate = Map::new();
    let mut top = Map::new();
    for chunk in &all {
        let c = &chunk["candidates"][0];
        parts.extend(
            c["content"]["parts"]
                .as_array()
                .cloned()
                .unwrap_or_default(),
        );
        for key in ["finishReason", "groundingMetadata"] {
            if let Some(v) = c
                .get(key)
                .filter(|v| v.as_object().is_none_or(|o| !o.is_empty()))
            {
                candidate.insert(key.into(), v.clone());
            }
        }
        for key in ["usageMetadata", "responseId", "modelVersion"] {
            if let Some(v) = chunk.get(key) {
                top.insert(key.into(), v.clone());
            }
        }
    }
    candidate.insert("content".into(), json!({"role": "model", "parts": parts}));
    top.insert("candidates".into(), json!([candidate]));
    Value::Object(top).to_string()
}

/// The fixtures' stream and whole recordings are different answers (other runs, other text),
/// so "streamed == whole" is checked against each stream made whole.
#[test]
fn a_stream_and_the_same_answer_whole_agree() {
    for name in STREAMS {
        let (events, _) = decode("google", &[&fixture("google", name)]);
        let out = parse_response(Provider::Google, &whole_of(name), false).unwrap();
        assert_eq!(out.outputs, items_from_events(&events), "{name}");
        let of = |kind: &str| -> Vec<Value> {
            events
                .iter()
                .filter(|e| e.kind == kind)
                .map(|e| e.value.clone())
                .collect()
        };
        assert_eq!(
            out.extra.get("citations").cloned().unwrap_or(json!([])),
            json!(of("citation")),
            "{name}"
        );
        assert_eq!(
            out.extra.get("sources").cloned().unwrap_or(Value::Null),
            sources(&events),
            "{name}"
        );
        assert_eq!(out.extra["usage"], of("usage")[0], "{name}");
        assert_eq!(out.extra["finishReason"], "STOP");
    }
}

// ---- hostile and hand-built input (the bodies below are built here, not recorded) ----

fn sse(chunks: &[Value]) -> Vec<u8> {
    chunks
        .iter()
        .map(|c| format!("data: {c}\r\n\r\n"))
        .collect::<String>()
        .into_bytes()
}

fn text_chunk(text: &str) -> Value {
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}}], "responseId": "r1"})
}

/// A last chunk citing segments given as (start byte, end byte, chunk indices).
fn grounded_end(
    text: &str,
    segments: &[(Option<u64>, Option<u64>, Vec<u64>)],
    chunks: usize,
) -> Value {
    let supports: Vec<Value> = segments
        .iter()
        .map(|(s, e, idx)| {
            let mut segment = Map::new();
            if let Some(s) = s {
                segment.insert("startIndex".into(), json!(s));
            }
            if let Some(e) = e {
                segment.insert("endIndex".into(), json!(e));
            }
            json!({"segment": segment, "groundingChunkIndices": idx})
        })
        .collect();
    let grounding_chunks: Vec<Value> = (0..chunks)
        .map(|i| json!({"web": {"uri": format!("https://example.com/{i}"), "title": format!("t{i}")}}))
        .collect();
    json!({"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
        "groundingMetadata": {"groundingChunks": grounding_chunks, "groundingSupports": supports}}],
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7}, "responseId": "r1"})
}

fn decode_chunks(chunks: &[Value]) -> (Vec<Event>, Option<&'static str>) {
    let bytes = sse(chunks);
    let got = decode_every_split_small(&bytes);
    check_order(&got.0);
    got
}

/// Every 2-cut of a small built stream gives the same events (the harness's
/// `decode_every_split`, without its random cuts).
fn decode_every_split_small(bytes: &[u8]) -> (Vec<Event>, Option<&'static str>) {
    let whole = decode("google", &[bytes]);
    for cut in 0..=bytes.len() {
        assert_eq!(
            decode("google", &[&bytes[..cut], &bytes[cut..]]),
            whole,
            "cut at {cut}"
        );
    }
    whole
}

/// The text of `s` from byte `a` to `b`, as the segment text Gemini would send.
fn bytes_of(s: &str, a: usize, b: usize) -> &str {
    &s[a..b]
}

#[test]
fn multibyte_text_around_and_inside_cited_segments() {
    // CJK, emoji (astral, with a skin-tone modifier), combining marks and RTL text, split
    // across chunks mid-sentence; each segment's byte offsets computed from the text.
    let pieces = [
        "東京タワーは333 mです。",
        "Emoji 😀👍🏽 here. Cafe\u{301} na\u{308}ive. ",
        "שלום עולם مرحبا. End.",
    ];
    let text: String = pieces.concat();
    let find = |s: &str| {
        let a = text.find(s).unwrap();
        (a, a + s.len())
    };
    let segments = [
        "東京タワーは333 mです。",
        "😀👍🏽 here.",
        "Cafe\u{301} na\u{308}ive.",
        "שלום עולם مرحبا.",
        "End.",
    ];
    let spans: Vec<(Option<u64>, Option<u64>, Vec<u64>)> = segments
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (a, b) = find(s);
            (
                Some(a as u64).filter(|&a| a > 0),
                Some(b as u64),
                vec![i as u64 % 2, 1],
            )
        })
        .collect();
    let mut chunks: Vec<Value> = pieces[..2].iter().map(|p| text_chunk(p)).collect();
    chunks.push(grounded_end(pieces[2], &spans, 2));
    let (events, error) = decode_chunks(&chunks);
    assert_eq!(error, None);
    let got = answer_text(&events);
    assert_eq!(got, text);
    let cited = citations(&events);
    assert_eq!(cited.len(), 10);
    for (i, pair) in cited.chunks(2).enumerate() {
        let (a, b) = find(segments[i]);
        for c in pair {
            assert_eq!(slice16(&got, &c["span"]), bytes_of(&text, a, b));
        }
        assert_eq!(pair[0]["sourceId"], json!(i as u64 % 2 + 1));
        assert_eq!(pair[1]["sourceId"], 2);
    }
    // The same answer whole.
    let mut body = grounded_end(&text, &spans, 2);
    body["usageMetadata"] =
        json!({"promptTokenCount": 3, "candidatesTokenCount": 4, "totalTokenCount": 7});
    let out = parse_response(Provider::Google, &body.to_string(), false).unwrap();
    assert_eq!(out.extra["citations"], json!(cited));
}

#[test]
fn offsets_out_of_range_inside_characters_or_reversed() {
    let text = "a😀b東c"; // bytes: a=0, 😀=1..5, b=5, 東=6..9, c=9, end=10
    let segments = vec![
        (Some(2), Some(7), vec![0]), // inside 😀 .. inside 東 → snapped to starts
        (Some(9), Some(1000), vec![0]), // past the end → the end
        (Some(5), Some(1), vec![0]), // reversed → empty at the start
        (Some(u64::MAX), Some(u64::MAX), vec![0]),
        (None, None, vec![0]),                 // both absent: empty at 0
        (Some(0), Some(1), vec![7, u64::MAX]), // no such chunk: no source
    ];
    let (events, error) = decode_chunks(&[grounded_end(text, &segments, 1)]);
    assert_eq!(error, None);
    let cited = citations(&events);
    let spans: Vec<Value> = cited.iter().map(|c| c["span"].clone()).collect();
    assert_eq!(
        spans,
        [
            json!([1, 4]),
            json!([5, 6]),
            json!([3, 3]),
            json!([6, 6]),
            json!([0, 0]),
            json!([0, 1]),
            json!([0, 1])
        ]
    );
    check_spans(text, &cited);
    assert_eq!(cited[5]["sourceId"], 0);
    assert_eq!(cited[5]["valid"], false);
    assert!(cited[5].get("url").is_none());
}

#[test]
fn huge_index_lists_are_bounded() {
    let indices: Vec<u64> = vec![0; 5000];
    let segments: Vec<(Option<u64>, Option<u64>, Vec<u64>)> = (0..10)
        .map(|_| (Some(0), Some(1), indices.clone()))
        .collect();
    let (events, error) = decode("google", &[&sse(&[grounded_end("abc", &segments, 1)])]);
    assert_eq!(error, None);
    let n = citations(&events).len();
    assert!(n <= 4096, "{n} citations");
    // 2000 chunks: 1024 listed.
    let (events, _) = decode(
        "google",
        &[&sse(&[grounded_end(
            "abc",
            &[(Some(0), Some(1), vec![1500])],
            2000,
        )])],
    );
    assert_eq!(sources(&events).as_array().unwrap().len(), 1024);
    assert_eq!(citations(&events)[0]["valid"], false);
}

#[test]
fn bad_data_errors_and_truncation() {
    let code = |body: &[u8]| decode("google", &[body]).1;
    for bad in [
        &b"data: {not json\r\n\r\n"[..],
        b"data: [1, 2]\r\n\r\n",
        b"data: {\"candidates\": {\"a\": 1}}\r\n\r\n",
        b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": 5}]}}]}\r\n\r\n",
        b"data: {\"candidates\": [{\"content\": {\"parts\": [{\"text\": \"a\", \"thought\": \"yes\"}]}}]}\r\n\r\n",
        b"data: {\"candidates\": [{\"finishReason\": \"STOP\", \"groundingMetadata\": {\"groundingSupports\": [{\"segment\": {\"startIndex\": -1}}]}}]}\r\n\r\n",
        b"data: {\"candidates\": [{\"finishReason\": \"STOP\", \"groundingMetadata\": {\"groundingChunks\": [{\"web\": {\"uri\": 3}}]}}]}\r\n\r\n",
        b"data: {\"usageMetadata\": 7}\r\n\r\n",
    ] {
        assert_eq!(code(bad), Some("INVALID_PROVIDER_DATA"), "{}", String::from_utf8_lossy(bad));
    }
    // No finishReason: cut short.
    assert_eq!(code(&sse(&[text_chunk("Hello")])), Some("STREAM_TRUNCATED"));
    assert_eq!(code(b""), Some("STREAM_TRUNCATED"));
    // An in-stream error.
    let error = json!({"error": {"code": 500, "message": "An internal error has occurred.", "status": "INTERNAL"}});
    let (events, code) = decode("google", &[&sse(&[text_chunk("Hel")]), &sse(&[error])]);
    assert_eq!(code, Some("PROVIDER_ERROR"));
    assert_eq!(answer_text(&events), "Hel");
    // A whole body without a finish reason, or not JSON.
    for body in [text_chunk("Hello").to_string(), "{".into(), String::new()] {
        assert_eq!(
            parse_response(Provider::Google, &body, false)
                .unwrap_err()
                .code(),
            "INVALID_PROVIDER_DATA",
            "{body}"
        );
    }
}

#[test]
fn a_blocked_prompt_ends_the_answer_with_its_reason() {
    let blocked = json!({"promptFeedback": {"blockReason": "PROHIBITED_CONTENT"},
        "usageMetadata": {"promptTokenCount": 9, "totalTokenCount": 9}, "responseId": "r"});
    let (events, error) = decode("google", &[&sse(std::slice::from_ref(&blocked))]);
    assert_eq!(error, None);
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].value["inputTokens"], 9);
    let out = parse_response(Provider::Google, &blocked.to_string(), false).unwrap();
    assert!(out.outputs.is_empty());
    assert_eq!(out.extra["finishReason"], "PROHIBITED_CONTENT");
}

#[test]
fn a_structured_whole_answer_is_json() {
    let body = json!({"candidates": [{"content": {"parts": [{"text": "{\"a\": [1, "}, {"text": "2]}"}]}, "finishReason": "STOP"}]});
    let out = parse_response(Provider::Google, &body.to_string(), true).unwrap();
    assert_eq!(out.outputs, [OutputItem::Structured(json!({"a": [1, 2]}))]);
}

#[test]
fn errors_give_gemini_status_as_code() {
    let body = r#"{"error": {"code": 400, "message": "API key not valid. Please pass a valid API key.", "status": "INVALID_ARGUMENT"}}"#;
    let f = classify_failure("google", 400, body, None);
    assert_eq!(
        (f.code.as_deref(), f.retryable),
        (Some("INVALID_ARGUMENT"), false)
    );
    assert_eq!(f.message, "API key not valid. Please pass a valid API key.");
    let f = answer_failure(
        "google",
        200,
        r#"{"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}"#,
    )
    .unwrap();
    assert_eq!(
        (f.code.as_deref(), f.retryable),
        (Some("UNAVAILABLE"), true)
    );
    // The array form Gemini sends for some failures.
    let f = classify_failure("google", 429, &format!("[{body}]"), None);
    assert_eq!(f.code.as_deref(), Some("INVALID_ARGUMENT"));
    // Other providers keep the numeric code.
    let f = classify_failure("openrouter", 400, body, None);
    assert_eq!(f.code.as_deref(), Some("400"));
}

// ---- requests ----

fn req(stream: bool) -> LmRequest {
    LmRequest {
        messages: vec![
            Message {
                role: "system".into(),
                content: "Be brief.".into(),
            },
            Message {
                role: "user".into(),
                content: "Hi".into(),
            },
            Message {
                role: "assistant".into(),
                content: "Hello.".into(),
            },
            Message {
                role: "user".into(),
                content: "Why?".into(),
            },
        ],
        stream,
        ..Default::default()
    }
}

fn build(model: &str, r: &LmRequest) -> (String, Vec<(String, String)>, Value) {
    let id = ModelId::parse(model).unwrap();
    let http = build_request(&id, r, Some("AIza-secret"), None).unwrap();
    (
        http.url,
        http.headers,
        serde_json::from_str(&http.body).unwrap(),
    )
}

#[test]
fn plain_and_streamed_requests() {
    let (url, headers, body) = build("google/gemini-2.5-pro", &req(false));
    assert_eq!(
        url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-pro:generateContent"
    );
    assert!(!url.contains("AIza"));
    assert!(headers.contains(&("x-goog-api-key".into(), "AIza-secret".into())));
    assert!(headers
        .iter()
        .all(|(k, v)| k == "x-goog-api-key" || !v.contains("AIza")));
    assert_eq!(
        body,
        json!({
            "contents": [
                {"role": "user", "parts": [{"text": "Hi"}]},
                {"role": "model", "parts": [{"text": "Hello."}]},
                {"role": "user", "parts": [{"text": "Why?"}]},
            ],
            "systemInstruction": {"parts": [{"text": "Be brief."}]},
        })
    );
    let r = LmRequest {
        temperature: Some(0.5),
        max_tokens: Some(100),
        ..req(true)
    };
    let (url, _, body) = build("google/models/gemini-2.5-flash", &r);
    assert_eq!(url, "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse");
    assert_eq!(
        body["generationConfig"],
        json!({"temperature": 0.5, "maxOutputTokens": 100})
    );
    let id = ModelId::parse("google/gemini-2.5-flash").unwrap();
    let local = build_request(&id, &req(false), None, Some("http://localhost:9/v1beta/")).unwrap();
    assert_eq!(
        local.url,
        "http://localhost:9/v1beta/models/gemini-2.5-flash:generateContent"
    );
    assert!(local.headers.iter().all(|(k, _)| k != "x-goog-api-key"));
}

#[test]
fn response_schema_and_citation_schema_requests() {
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
    let r = LmRequest {
        response_schema: Some(schema.clone()),
        ..req(false)
    };
    let (_, _, body) = build("google/gemini-2.5-pro", &r);
    assert_eq!(
        body["generationConfig"],
        json!({"responseMimeType": "application/json", "responseJsonSchema": schema})
    );
    assert!(body["generationConfig"].get("responseSchema").is_none());

    for enforce in ["auto", "schema"] {
        let r = LmRequest {
            citations: Some(
                CiteRequest::from_value(&json!({"enforce": enforce, "sourceCount": 3})).unwrap(),
            ),
            ..req(true)
        };
        let (_, _, body) = build("google/gemini-2.5-pro", &r);
        let config = &body["generationConfig"];
        assert_eq!(config["responseMimeType"], "application/json");
        let sent = &config["responseJsonSchema"];
        assert_eq!(
            sent["properties"]["segments"]["items"]["properties"]["citations"]["items"]["enum"],
            json!([1, 2, 3])
        );
        assert_eq!(sent["additionalProperties"], false);
        assert!(body["systemInstruction"]["parts"][0]["text"]
            .as_str()
            .unwrap()
            .ends_with(STRUCTURED_NOTE));
    }
    let r = LmRequest {
        citations: Some(
            CiteRequest::from_value(&json!({"enforce": "prompt", "sourceCount": 3})).unwrap(),
        ),
        ..req(false)
    };
    let (_, _, body) = build("google/gemini-2.5-pro", &r);
    assert!(body.get("generationConfig").is_none());
    // Only system messages: a structured note has nowhere else to go, the request no content.
    let only_system = LmRequest {
        messages: vec![Message {
            role: "system".into(),
            content: "x".into(),
        }],
        ..Default::default()
    };
    let id = ModelId::parse("google/g").unwrap();
    assert_eq!(
        build_request(&id, &only_system, None, None)
            .unwrap_err()
            .code(),
        "INVALID_OPTION"
    );
}

#[test]
fn refused_options_and_model_names() {
    let id = ModelId::parse("google/gemini-2.5-pro").unwrap();
    for r in [
        LmRequest {
            logprobs: Some(true),
            ..req(false)
        },
        LmRequest {
            top_logprobs: Some(3),
            ..req(false)
        },
        LmRequest {
            grammar: Some("root ::= \"a\"".into()),
            ..req(false)
        },
        LmRequest {
            messages: vec![Message {
                role: "tool".into(),
                content: "x".into(),
            }],
            ..req(false)
        },
    ] {
        assert_eq!(
            build_request(&id, &r, None, None).unwrap_err().code(),
            "INVALID_OPTION",
            "{r:?}"
        );
    }
    for enforce in ["grammar", "tool"] {
        assert!(
            CiteRequest::from_value(&json!({"enforce": enforce, "sourceCount": 1}))
                .ok()
                .and_then(|c| build_request(
                    &id,
                    &LmRequest {
                        citations: Some(c),
                        ..req(false)
                    },
                    None,
                    None
                )
                .ok())
                .is_none()
        );
    }
    for model in [
        "google/a?key=x",
        "google/../x",
        "google/models/",
        "google/a#b",
        "google/a b",
        "google/a:b",
        "google/a%2F",
    ] {
        let id = ModelId::parse(model).unwrap();
        assert_eq!(
            build_request(&id, &req(false), None, None)
                .unwrap_err()
                .code(),
            "INVALID_MODEL_ID",
            "{model}"
        );
    }
    let (url, _, _) = build("google/tunedModels/my-model", &req(false));
    assert!(url.ends_with("/tunedModels/my-model:generateContent"));
}
