//! OpenAI's and xAI's Responses API: the recorded answers of
//! `tests/fixtures/providers/openai-responses` and `tests/fixtures/providers/xai` decoded,
//! streamed and whole, with their text, citations, sources and usage checked against the
//! recordings; streamed equals whole (each recorded stream's `response.completed` carries the
//! whole Response object); hostile input; the requests.

#[path = "support/provider_fixtures.rs"]
mod provider_fixtures;

use citeflow::event::{items_from_events, Event, OutputItem};
use citeflow::provider::{
    build_request, parse_response, CiteRequest, LmRequest, Message, ModelId, Provider,
};
use provider_fixtures::*;
use serde_json::{json, Value};

const OPENAI: &str = "openai-responses";
const XAI: &str = "xai";

/// A recorded stream decoded whole, at every cut near a line break, inside every non-ASCII
/// character, at a stride through the rest, and at random k-cuts: the same events each time
/// (the harness's every-2-cut check, bounded so that the file runs in seconds in debug).
fn decode_split(format: &str, bytes: &[u8]) -> Vec<Event> {
    let whole = decode(format, &[bytes]);
    assert_eq!(whole.1, None, "{format}: the recorded stream fails");
    let mut at: Vec<usize> = (0..=bytes.len()).step_by(61).collect();
    for (i, b) in bytes.iter().enumerate() {
        if *b == b'\n' || !b.is_ascii() {
            at.extend(i.saturating_sub(1)..=(i + 2).min(bytes.len()));
        }
    }
    at.sort_unstable();
    at.dedup();
    for cut in at {
        let got = decode(format, &pieces(bytes, &[cut]));
        assert_eq!(got, whole, "{format}: the stream cut at byte {cut}");
    }
    let mut cuts = Cuts::new(bytes.len() as u64 ^ 0x9e37_79b9_7f4a_7c15);
    for round in 0..random_cuts().min(150) {
        let at = cuts.positions(bytes.len(), 2 + round % 11);
        let got = decode(format, &pieces(bytes, &at));
        assert_eq!(got, whole, "{format}: the stream cut at {at:?}");
    }
    check_order(&whole.0);
    whole.0
}

/// The `response` object of a recorded stream's `response.completed` event (the whole
/// answer), as a whole body.
fn completed_body(bytes: &[u8]) -> String {
    let text = std::str::from_utf8(bytes).unwrap();
    let line = text
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .find(|d| d.contains("\"response.completed\""))
        .expect("a response.completed event");
    let event: Value = serde_json::from_str(line).unwrap();
    event["response"].to_string()
}

fn usage_event(events: &[Event]) -> Value {
    events
        .iter()
        .find(|e| e.kind == "usage")
        .map_or(Value::Null, |e| e.value.clone())
}

/// The stream and the whole Response its `response.completed` carries give the same items,
/// citations, sources, usage and finish reason.
fn stream_equals_whole(provider: Provider, format: &str, bytes: &[u8], events: &[Event]) {
    let whole = parse_response(provider, &completed_body(bytes), false).unwrap();
    assert_eq!(whole.outputs, items_from_events(events), "{format}: items");
    let field = |k: &str| whole.extra.get(k).cloned().unwrap_or(Value::Null);
    let cited = citations(events);
    let cited = if cited.is_empty() {
        Value::Null
    } else {
        Value::Array(cited)
    };
    assert_eq!(field("citations"), cited, "{format}: citations");
    assert_eq!(field("sources"), sources(events), "{format}: sources");
    assert_eq!(field("usage"), usage_event(events), "{format}: usage");
    assert_eq!(field("finishReason"), json!("completed"));
}

const BRITANNICA: &str = "https://www.britannica.com/place/Mount-Columbia?utm_source=openai";
const BRITANNICA_TITLE: &str = "Mount Columbia | mountain, Alberta, Canada | Britannica";

#[test]
fn openai_web_search_stream() {
    let bytes = fixture(OPENAI, "web-search-url-citation.sse");
    let events = decode_split(OPENAI, &bytes);
    let text = answer_text(&events);
    assert_eq!(text, "The tallest mountain in Alberta is **Mount Columbia** (3,747 m / 12,294 ft). ([britannica.com](https://www.britannica.com/place/Mount-Columbia?utm_source=openai))");
    let cited = citations(&events);
    assert_eq!(
        check_spans(&text, &cited),
        [format!("([britannica.com]({BRITANNICA}))")]
    );
    assert_eq!(
        cited,
        [
            json!({"sourceId": 1, "marker": "", "span": [77, 162], "valid": true,
            "documentTitle": BRITANNICA_TITLE, "url": BRITANNICA, "location": "url_citation", "covers": "link"})
        ]
    );
    assert_eq!(
        sources(&events),
        json!([{"sourceId": 1, "kind": "url_citation", "url": BRITANNICA, "title": BRITANNICA_TITLE}])
    );
    let usage = usage_event(&events);
    assert_eq!(
        [
            &usage["inputTokens"],
            &usage["outputTokens"],
            &usage["totalTokens"],
            &usage["cachedInputTokens"],
            &usage["reasoningTokens"]
        ],
        [
            &json!(12243),
            &json!(140),
            &json!(12383),
            &json!(0),
            &json!(100)
        ]
    );
    assert_eq!(
        usage["raw"]["output_tokens_details"]["reasoning_tokens"],
        100
    );
    stream_equals_whole(Provider::OpenaiResponses, OPENAI, &bytes, &events);
}

#[test]
fn openai_offsets_count_code_points() {
    // `’` (one code point, three UTF-8 bytes, one UTF-16 unit) before the cited link: the
    // recorded start_index 94 is the link's start counted in characters.
    let bytes = fixture(OPENAI, "web-search-url-citation-nonascii.sse");
    let events = decode_split(OPENAI, &bytes);
    let text = answer_text(&events);
    assert!(text.starts_with("Alberta’s tallest mountain"));
    let cited = citations(&events);
    assert_eq!(cited.len(), 1);
    assert_eq!(cited[0]["span"], json!([94, 179]));
    assert_eq!(
        check_spans(&text, &cited),
        [format!("([britannica.com]({BRITANNICA}))")]
    );
    assert_eq!(usage_event(&events)["reasoningTokens"], 34);
    stream_equals_whole(Provider::OpenaiResponses, OPENAI, &bytes, &events);
}

#[test]
fn openai_file_citation_stream_is_a_point() {
    let bytes = fixture(OPENAI, "file-search-file-citation.sse");
    let events = decode_split(OPENAI, &bytes);
    let text = answer_text(&events);
    assert_eq!(text, "The capital of France is Paris.");
    let cited = citations(&events);
    assert_eq!(check_spans(&text, &cited), [""]);
    // The annotation came before the last delta ("."); its index 30 is after "Paris".
    assert_eq!(
        cited,
        [
            json!({"sourceId": 1, "marker": "", "span": [30, 30], "valid": true,
            "documentTitle": "tmp8l5_2pzy.txt", "location": "file_citation", "covers": "point"})
        ]
    );
    assert_eq!(
        sources(&events),
        json!([{"sourceId": 1, "kind": "file_citation", "title": "tmp8l5_2pzy.txt", "providerId": "file-9RhPAs9YqVajpGXRfcgavJ"}])
    );
    assert_eq!(usage_event(&events)["inputTokens"], 1177);
    stream_equals_whole(Provider::OpenaiResponses, OPENAI, &bytes, &events);
}

#[test]
fn openai_reasoning_summary_is_thinking() {
    let bytes = fixture(OPENAI, "reasoning-summary.sse");
    let events = decode_split(OPENAI, &bytes);
    // The answer is a function call (not read): thinking only, no text.
    assert_eq!(
        items_from_events(&events),
        [OutputItem::Thinking("**Calculating step-by-step using calculator**\n\nI'll compute 12 plus 7, then multiply the result by 3, and finally multiply that by 10, reporting the final product.".into())]
    );
    assert_eq!(answer_text(&events), "");
    assert!(citations(&events).is_empty() && sources(&events).is_null());
    assert_eq!(usage_event(&events)["totalTokens"], 162);
    stream_equals_whole(Provider::OpenaiResponses, OPENAI, &bytes, &events);
}

#[test]
fn xai_stream_sources_have_no_position() {
    // start_index = end_index = 0 and the URL as title: sources, no citation.
    let bytes = fixture(XAI, "web-search-url-citation.sse");
    let events = decode_split(XAI, &bytes);
    assert_eq!(answer_text(&events), "**xAI**");
    assert!(citations(&events).is_empty());
    let listed = sources(&events);
    let urls: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["url"].as_str().unwrap())
        .collect();
    assert_eq!(
        urls,
        [
            "https://x.ai/",
            "https://x.ai/news",
            "https://play.google.com/store/apps/details?id=ai.x.grok",
            "https://x.ai/grok",
            "https://x.com/xai",
            "https://x.ai/api",
            "https://docs.aimlapi.com/api-references/text-models-llm/xai",
            "https://en.wikipedia.org/wiki/XAI_(company)",
            "https://x.ai/legal/terms-of-service",
        ]
    );
    assert_eq!(
        listed[8],
        json!({"sourceId": 9, "kind": "url_citation", "url": "https://x.ai/legal/terms-of-service"})
    );
    let usage = usage_event(&events);
    assert_eq!(
        [
            &usage["inputTokens"],
            &usage["cachedInputTokens"],
            &usage["outputTokens"],
            &usage["totalTokens"]
        ],
        [&json!(4144), &json!(1920), &json!(49), &json!(4193)]
    );
    assert_eq!(usage["raw"]["cost_in_usd_ticks"], 132865000);
    stream_equals_whole(Provider::Xai, XAI, &bytes, &events);
}

fn whole_of(provider: Provider, dir: &str, name: &str) -> (String, Vec<Value>, Value, Value) {
    let out = whole(provider, &fixture(dir, name));
    let text = output_text(&out);
    let cited = out
        .extra
        .get("citations")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    let listed = out.extra.get("sources").cloned().unwrap_or(Value::Null);
    let usage = out.extra.get("usage").cloned().unwrap_or(Value::Null);
    assert_eq!(out.extra["finishReason"], "completed");
    (text, cited, listed, usage)
}

#[test]
fn openai_whole_web_search() {
    let (text, cited, listed, usage) = whole_of(
        Provider::OpenaiResponses,
        OPENAI,
        "web-search-url-citation.json",
    );
    assert!(text.starts_with("The tallest mountain in Alberta is **Mount Columbia**, which rises"));
    assert_eq!(
        check_spans(&text, &cited),
        [format!("([britannica.com]({BRITANNICA}))")]
    );
    assert_eq!(cited[0]["span"], json!([126, 211]));
    assert_eq!(cited[0]["covers"], "link");
    assert_eq!(
        listed,
        json!([{"sourceId": 1, "kind": "url_citation", "url": BRITANNICA, "title": BRITANNICA_TITLE}])
    );
    assert_eq!(
        [&usage["inputTokens"], &usage["reasoningTokens"]],
        [&json!(8530), &json!(49)]
    );
}

#[test]
fn openai_whole_file_citation() {
    let (text, cited, listed, usage) = whole_of(
        Provider::OpenaiResponses,
        OPENAI,
        "file-search-file-citation.json",
    );
    // Index 137 is before the final "." (as the stream's 30 is): the place after "city".
    assert_eq!(text.chars().count(), 138);
    assert!(slice16(&text, &json!([0, 137])).ends_with("of the city"));
    assert_eq!(
        cited,
        [
            json!({"sourceId": 1, "marker": "", "span": [137, 137], "valid": true,
            "documentTitle": "tmp2zuepgia.txt", "location": "file_citation", "covers": "point"})
        ]
    );
    assert_eq!(listed[0]["providerId"], "file-U6Ke78qu8nkANsrCrjoYBr");
    assert_eq!(usage["outputTokens"], 55);
}

#[test]
fn openai_whole_container_file_citation_spans_the_link_target() {
    let (text, cited, listed, usage) = whole_of(
        Provider::OpenaiResponses,
        OPENAI,
        "code-interpreter-container-file-citation.json",
    );
    // The span is the link target the model wrote, inside `[Download the file](…)`.
    assert_eq!(
        check_spans(&text, &cited),
        ["sandbox:/mnt/data/two_dice_sums_10000.txt"]
    );
    assert_eq!(
        cited,
        [
            json!({"sourceId": 1, "marker": "", "span": [195, 236], "valid": true,
            "documentTitle": "two_dice_sums_10000.txt", "location": "container_file_citation", "covers": "link"})
        ]
    );
    assert_eq!(
        listed,
        json!([{"sourceId": 1, "kind": "container_file_citation", "title": "two_dice_sums_10000.txt",
            "providerId": "cfile_6903bf45e3288191af3d56e6d23c3a4d"}])
    );
    assert_eq!(
        [&usage["outputTokens"], &usage["reasoningTokens"]],
        [&json!(1928), &json!(1792)]
    );
}

#[test]
fn xai_whole_citations_are_sources_only() {
    let (text, cited, listed, usage) = whole_of(Provider::Xai, XAI, "web-search-url-citation.json");
    assert!(text.starts_with("xAI is an American artificial intelligence company"));
    assert!(cited.is_empty());
    assert_eq!(
        listed,
        json!([
            {"sourceId": 1, "kind": "url_citation", "url": "https://www.ibm.com/think/topics/explainable-ai"},
            {"sourceId": 2, "kind": "url_citation", "url": "https://x.ai/company"},
            {"sourceId": 3, "kind": "url_citation", "url": "https://en.wikipedia.org/wiki/XAI_%28company%29"},
            {"sourceId": 4, "kind": "url_citation", "url": "https://x.ai/"},
            {"sourceId": 5, "kind": "url_citation", "url": "https://www.owkin.com/a-z-of-ai-for-healthcare/xai"},
        ])
    );
    assert_eq!(
        [
            &usage["inputTokens"],
            &usage["cachedInputTokens"],
            &usage["reasoningTokens"]
        ],
        [&json!(1941), &json!(947), &json!(380)]
    );

    let (text, cited, listed, usage) = whole_of(Provider::Xai, XAI, "x-search-url-citation.json");
    assert!(text.starts_with("### What People Are Saying About AI on X"));
    assert!(cited.is_empty());
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 20);
    assert_eq!(
        listed[0]["url"],
        "https://x.com/i/status/1982033415697514642"
    );
    assert_eq!(
        listed[19],
        json!({"sourceId": 20, "kind": "url_citation", "url": "https://x.com/i/status/1982892944261582868"})
    );
    assert_eq!(usage["totalTokens"], 10202);
}

// ---- Hand-built streams and bodies (not recordings): hostile input, text in many scripts.

/// SSE of these JSON messages, each with its `event:` line when `typed`.
fn sse(messages: &[Value], typed: bool) -> Vec<u8> {
    let mut out = String::new();
    for m in messages {
        if typed {
            out.push_str(&format!("event: {}\n", m["type"].as_str().unwrap_or("x")));
        }
        out.push_str(&format!("data: {m}\n\n"));
    }
    out.into_bytes()
}

fn delta(part: u64, text: &str) -> Value {
    json!({"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": part, "delta": text})
}

fn note(part: u64, index: u64, annotation: Value) -> Value {
    json!({"type": "response.output_text.annotation.added", "item_id": "msg_1", "output_index": 0,
        "content_index": part, "annotation_index": index, "annotation": annotation})
}

fn url(start: u64, end: u64, url: &str) -> Value {
    json!({"type": "url_citation", "start_index": start, "end_index": end, "url": url, "title": "T"})
}

fn completed() -> Value {
    json!({"type": "response.completed", "response": {"id": "resp_1", "status": "completed", "output": [],
        "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}}})
}

fn run(messages: &[Value]) -> (Vec<Event>, Option<&'static str>) {
    decode(OPENAI, &[&sse(messages, true)])
}

#[test]
fn scripts_before_inside_and_after_cited_spans() {
    // Built text: CJK, emoji (astral, ZWJ sequences, skin tones), combining marks, RTL.
    let pieces = [
        "東京タワー😀 ",
        "[שלום](https://a.example/)",
        " e\u{301}👨‍👩‍👧",
        "مرحبا [x](https://b.example/) 👍🏽",
    ];
    let joined: String = pieces.concat();
    let first = "東京タワー😀 ".chars().count() as u64;
    let link_a = "[שלום](https://a.example/)".chars().count() as u64;
    let b_start =
        joined.chars().count() as u64 - "[x](https://b.example/) 👍🏽".chars().count() as u64;
    let b_end = b_start + "[x](https://b.example/)".chars().count() as u64;
    let mut messages: Vec<Value> = pieces.iter().map(|p| delta(0, p)).collect();
    messages.push(note(0, 0, url(first, first + link_a, "https://a.example/")));
    messages.push(note(0, 1, url(b_start, b_end, "https://b.example/")));
    messages.push(completed());
    let (events, err) = run(&messages);
    assert_eq!(err, None);
    let text = answer_text(&events);
    assert_eq!(text, joined);
    let cited = citations(&events);
    assert_eq!(
        check_spans(&text, &cited),
        ["[שלום](https://a.example/)", "[x](https://b.example/)"]
    );
    // Every split of the built stream gives the same.
    let bytes = sse(&messages, false);
    let events2 = decode(OPENAI, &[&bytes]).0;
    for cut in 0..=bytes.len() {
        assert_eq!(decode(OPENAI, &pieces_of(&bytes, cut)).0, events2);
    }
}

fn pieces_of(bytes: &[u8], cut: usize) -> Vec<&[u8]> {
    vec![&bytes[..cut], &bytes[cut..]]
}

#[test]
fn two_message_items_offsets_are_per_part() {
    // Built: two message items, each annotation counting its own part's characters.
    let messages = [
        json!({"type": "response.output_text.delta", "item_id": "m1", "content_index": 0, "delta": "Ünïcode 😀 first "}),
        json!({"type": "response.output_text.annotation.added", "item_id": "m1", "content_index": 0, "annotation_index": 0,
            "annotation": {"type": "url_citation", "start_index": 8, "end_index": 9, "url": "https://a.example/"}}),
        json!({"type": "response.output_text.delta", "item_id": "m2", "content_index": 0, "delta": "second 🎉 [s](https://b.example/)"}),
        json!({"type": "response.output_text.annotation.added", "item_id": "m2", "content_index": 0, "annotation_index": 0,
            "annotation": {"type": "url_citation", "start_index": 9, "end_index": 32, "url": "https://b.example/"}}),
        // An index past its own part stops at the part's end, not in the next part.
        json!({"type": "response.output_text.annotation.added", "item_id": "m1", "content_index": 0, "annotation_index": 1,
            "annotation": {"type": "file_citation", "index": 999, "file_id": "f1", "filename": "a.txt"}}),
        completed(),
    ];
    let (events, err) = run(&messages);
    assert_eq!(err, None);
    let text = answer_text(&events);
    let cited = citations(&events);
    assert_eq!(
        check_spans(&text, &cited),
        ["😀", "", "[s](https://b.example/)"]
    );
    assert_eq!(cited[1]["span"], json!([17, 17]));
    assert_eq!(slice16(&text, &json!([0, 17])), "Ünïcode 😀 first ");
    // Sources in annotation order, part by part (file f1 is m1's second annotation).
    let listed = sources(&events);
    assert_eq!(listed[1]["providerId"], "f1");
    assert_eq!(cited[2]["sourceId"], 3);
    // The same answer whole.
    let body = json!({"id": "r", "status": "completed", "output": [
        {"id": "m1", "type": "message", "content": [{"type": "output_text", "text": "Ünïcode 😀 first ", "annotations": [
            {"type": "url_citation", "start_index": 8, "end_index": 9, "url": "https://a.example/"},
            {"type": "file_citation", "index": 999, "file_id": "f1", "filename": "a.txt"}]}]},
        {"id": "m2", "type": "message", "content": [{"type": "output_text", "text": "second 🎉 [s](https://b.example/)", "annotations": [
            {"type": "url_citation", "start_index": 9, "end_index": 32, "url": "https://b.example/"}]}]}],
        "usage": {"input_tokens": 5, "output_tokens": 2, "total_tokens": 7}});
    let out = parse_response(Provider::OpenaiResponses, &body.to_string(), false).unwrap();
    assert_eq!(output_text(&out), text);
    assert_eq!(out.extra["citations"], Value::Array(cited));
    assert_eq!(out.extra["sources"], listed);
}

#[test]
fn hostile_offsets_stay_in_the_text() {
    // Built: offsets inside no character (code points cannot split one), past the end,
    // start > end, a URL that is no web page.
    let messages = [
        delta(0, "a😀b"),
        note(0, 0, url(1, 2, "https://a.example/")),
        note(0, 1, url(2, 99, "https://b.example/")),
        note(0, 2, url(3, 1, "https://c.example/")),
        note(0, 3, url(u64::MAX - 1, u64::MAX, "https://d.example/")),
        note(0, 4, url(0, 1, "javascript:alert(1)")),
        completed(),
    ];
    let (events, err) = run(&messages);
    assert_eq!(err, None);
    let text = answer_text(&events);
    let cited = citations(&events);
    assert_eq!(check_spans(&text, &cited), ["a", "😀", "b", ""]);
    let unsafe_url = cited.iter().find(|c| c["rawUrl"].is_string()).unwrap();
    assert_eq!(
        (&unsafe_url["sourceId"], &unsafe_url["valid"]),
        (&json!(0), &json!(false))
    );
    assert!(unsafe_url.get("url").is_none());
    // start > end: no position, a source only.
    assert_eq!(sources(&events).as_array().unwrap().len(), 5);
}

#[test]
fn many_annotations_are_bounded() {
    let mut messages = vec![delta(0, "x")];
    for i in 0..3000u64 {
        messages.push(note(0, i, url(0, 1, &format!("https://a.example/{i}"))));
    }
    messages.push(completed());
    let (events, err) = run(&messages);
    assert_eq!(err, None);
    assert_eq!(citations(&events).len(), 1024);
}

#[test]
fn bad_data_and_errors() {
    let code = |messages: &[Value]| run(messages).1;
    assert_eq!(
        decode(OPENAI, &[b"data: {not json\n\n"]).1,
        Some("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        decode(OPENAI, &[b"data: [1]\n\n"]).1,
        Some("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        decode(OPENAI, &[b"data: {\"delta\": \"x\"}\n\n"]).1,
        Some("INVALID_PROVIDER_DATA")
    );
    // The type from the `event:` line when the JSON has none.
    let untyped = b"event: response.output_text.delta\ndata: {\"delta\": \"hi\"}\n\n";
    assert_eq!(decode(OPENAI, &[untyped]).1, Some("STREAM_TRUNCATED"));
    for bad in [
        json!({"type": "response.output_text.delta", "delta": 3}),
        json!({"type": 7}),
        note(0, 0, json!({"type": "url_citation", "url": 5})),
        note(
            0,
            0,
            json!({"type": "url_citation", "url": "https://a/", "start_index": "1"}),
        ),
        note(0, 0, json!({"type": "file_citation", "index": 1})),
        json!({"type": "response.output_text.annotation.added"}),
        json!({"type": "response.completed"}),
        json!({"type": "response.completed", "response": {"status": "completed", "usage": [1]}}),
    ] {
        assert_eq!(
            code(&[delta(0, "x"), bad.clone(), completed()]),
            Some("INVALID_PROVIDER_DATA"),
            "{bad}"
        );
    }
    // Cut before the end marker.
    assert_eq!(code(&[delta(0, "x")]), Some("STREAM_TRUNCATED"));
    assert_eq!(code(&[]), Some("STREAM_TRUNCATED"));
    // The provider's errors.
    let error = json!({"type": "error", "code": "rate_limit_exceeded", "message": "slow down"});
    assert_eq!(code(&[delta(0, "x"), error]), Some("PROVIDER_ERROR"));
    let failed = json!({"type": "response.failed", "response": {"status": "failed", "error": {"code": "server_error", "message": "oops"}}});
    assert_eq!(code(&[failed]), Some("PROVIDER_ERROR"));
    // Unknown event types are skipped; an incomplete answer ends with its reason.
    let incomplete = json!({"type": "response.incomplete", "response": {"status": "incomplete",
        "incomplete_details": {"reason": "max_output_tokens"}, "usage": null}});
    let messages = [
        json!({"type": "response.something_new", "x": 1}),
        delta(0, "cut"),
        incomplete,
    ];
    let format = citeflow::provider::StreamFormat::parse(OPENAI).unwrap();
    let mut stream = citeflow::provider::ProviderByteStream::new(format);
    let events = stream.push(&sse(&messages, true)).unwrap();
    assert!(stream.finish().unwrap().is_empty());
    assert_eq!(stream.finish_reason(), Some("max_output_tokens"));
    assert_eq!(answer_text(&events), "cut");
    assert!(events.iter().all(|e| e.kind != "usage"));
}

#[test]
fn whole_bad_bodies() {
    let read =
        |body: &str| parse_response(Provider::OpenaiResponses, body, false).map_err(|e| e.code());
    assert_eq!(read("{").unwrap_err(), "INVALID_PROVIDER_DATA");
    assert_eq!(read("[]").unwrap_err(), "INVALID_PROVIDER_DATA");
    assert_eq!(
        read(r#"{"output": 3}"#).unwrap_err(),
        "INVALID_PROVIDER_DATA"
    );
    assert_eq!(
        read(
            r#"{"output": [{"type": "message", "content": [{"type": "output_text", "text": 1}]}]}"#
        )
        .unwrap_err(),
        "INVALID_PROVIDER_DATA"
    );
    assert_eq!(read(r#"{"output": [{"type": "message", "content": [{"type": "output_text", "text": "a", "annotations": {}}]}]}"#).unwrap_err(), "INVALID_PROVIDER_DATA");
    assert_eq!(
        read(r#"{"status": "failed", "error": {"message": "no"}}"#).unwrap_err(),
        "INVALID_PROVIDER_DATA"
    );
    // A structured answer: the text is the JSON.
    let body = r#"{"status": "completed", "output": [{"type": "message", "content": [{"type": "output_text", "text": "{\"a\": 1}"}]}]}"#;
    let out = parse_response(Provider::Xai, body, true).unwrap();
    assert_eq!(out.outputs, [OutputItem::Structured(json!({"a": 1}))]);
    let cut = r#"{"status": "incomplete", "incomplete_details": {"reason": "max_output_tokens"}, "output": [{"type": "message", "content": [{"type": "output_text", "text": "{\"a\""}]}]}"#;
    assert_eq!(
        parse_response(Provider::Xai, cut, true).unwrap_err().code(),
        "INVALID_OUTPUT"
    );
    assert_eq!(
        parse_response(Provider::Xai, cut, false).unwrap().extra["finishReason"],
        "max_output_tokens"
    );
}

// ---- Requests.

fn req(stream: bool) -> LmRequest {
    LmRequest {
        messages: vec![
            Message {
                role: "system".into(),
                content: "Be brief.".into(),
            },
            Message {
                role: "system".into(),
                content: "Cite.".into(),
            },
            Message {
                role: "user".into(),
                content: "Hi".into(),
            },
            Message {
                role: "assistant".into(),
                content: "Hello".into(),
            },
            Message {
                role: "user".into(),
                content: "Why?".into(),
            },
        ],
        temperature: Some(0.2),
        max_tokens: Some(300),
        stream,
        ..Default::default()
    }
}

fn body_of(model: &str, req: &LmRequest) -> (String, Vec<(String, String)>, Value) {
    let http = build_request(
        &ModelId::parse(model).unwrap(),
        req,
        Some("sk-secret"),
        None,
    )
    .unwrap();
    assert!(!http.url.contains("sk-secret") && !http.body.contains("sk-secret"));
    (
        http.url,
        http.headers,
        serde_json::from_str(&http.body).unwrap(),
    )
}

#[test]
fn requests() {
    let (url, headers, body) = body_of("openai-responses/gpt-5.2", &req(false));
    assert_eq!(url, "https://api.openai.com/v1/responses");
    assert!(headers.contains(&("authorization".into(), "Bearer sk-secret".into())));
    assert!(headers.contains(&("content-type".into(), "application/json".into())));
    assert_eq!(
        body,
        json!({"model": "gpt-5.2", "instructions": "Be brief.\n\nCite.",
            "input": [{"role": "user", "content": "Hi"}, {"role": "assistant", "content": "Hello"}, {"role": "user", "content": "Why?"}],
            "temperature": 0.2, "max_output_tokens": 300})
    );
    let (url, _, body) = body_of("xai/grok-4", &req(true));
    assert_eq!(url, "https://api.x.ai/v1/responses");
    assert_eq!(
        (&body["model"], &body["stream"]),
        (&json!("grok-4"), &json!(true))
    );

    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false});
    let structured = LmRequest {
        response_schema: Some(schema.clone()),
        ..req(false)
    };
    let (_, _, body) = body_of("openai-responses/m", &structured);
    assert_eq!(
        body["text"],
        json!({"format": {"type": "json_schema", "name": "response", "schema": schema, "strict": true}})
    );

    let cited = LmRequest {
        citations: Some(CiteRequest::from_value(&json!({"sourceCount": 3})).unwrap()),
        ..req(true)
    };
    for model in ["openai-responses/m", "xai/m"] {
        let (_, _, body) = body_of(model, &cited);
        assert_eq!(body["text"]["format"]["name"], "cited_answer");
        assert_eq!(body["text"]["format"]["type"], "json_schema");
        assert_eq!(body["text"]["format"]["strict"], true);
        assert!(body["text"]["format"]["schema"].is_object());
        // The note on the structured answer ends the instructions.
        assert!(body["instructions"]
            .as_str()
            .unwrap()
            .starts_with("Be brief.\n\nCite."));
        assert!(body["instructions"].as_str().unwrap().len() > "Be brief.\n\nCite.".len());
    }
    let prompt = LmRequest {
        citations: Some(
            CiteRequest::from_value(&json!({"sourceCount": 3, "enforce": "prompt"})).unwrap(),
        ),
        ..req(false)
    };
    assert!(body_of("xai/m", &prompt).2.get("text").is_none());

    // Custom base; no key, no header.
    let http = build_request(
        &ModelId::parse("xai/m").unwrap(),
        &req(false),
        None,
        Some("http://localhost:9/v1/"),
    )
    .unwrap();
    assert_eq!(http.url, "http://localhost:9/v1/responses");
    assert!(http.headers.iter().all(|(k, _)| k != "authorization"));
}

#[test]
fn refused_options() {
    let id = ModelId::parse("openai-responses/m").unwrap();
    let refused = |r: LmRequest| build_request(&id, &r, None, None).unwrap_err().code();
    assert_eq!(
        refused(LmRequest {
            logprobs: Some(true),
            ..req(false)
        }),
        "INVALID_OPTION"
    );
    assert_eq!(
        refused(LmRequest {
            top_logprobs: Some(2),
            ..req(false)
        }),
        "INVALID_OPTION"
    );
    assert_eq!(
        refused(LmRequest {
            grammar: Some("root ::= \"a\"".into()),
            ..req(false)
        }),
        "INVALID_OPTION"
    );
    for enforce in ["grammar", "tool"] {
        let r = LmRequest {
            citations: Some(
                CiteRequest::from_value(&json!({"sourceCount": 2, "enforce": enforce})).unwrap(),
            ),
            ..req(false)
        };
        assert_eq!(refused(r), "INVALID_OPTION");
    }
}
