//! Cohere v2 chat: the recorded streams and whole answers (tests/fixtures/providers/cohere,
//! see SOURCES.md) decoded as citeflow decodes them, hostile input, and the requests.

#[path = "support/provider_fixtures.rs"]
mod provider_fixtures;

use citeflow::event::OutputItem;
use citeflow::provider::{
    build_request, CiteRequest, LmRequest, Message, ModelId, Provider, STRUCTURED_NOTE,
};
use provider_fixtures::*;
use serde_json::{json, Value};

const STREAMS: [&str; 2] = ["stream-citation-tool.sse", "stream-citation-csv-tool.sse"];
const WHOLES: [&str; 3] = [
    "citations-document.json",
    "citations-document-custom.json",
    "citations-tool.json",
];

/// The `citations` objects of a recorded stream's `citation-start` messages, in order.
fn recorded_stream_citations(bytes: &[u8]) -> Vec<Value> {
    std::str::from_utf8(bytes)
        .unwrap()
        .lines()
        .filter_map(|l| l.strip_prefix("data: "))
        .filter_map(|d| serde_json::from_str::<Value>(d).ok())
        .filter(|v| v["type"] == "citation-start")
        .map(|v| v["delta"]["message"]["citations"].clone())
        .collect()
}

/// The events of `body` (a stream), with no error.
fn decoded(body: &str) -> Vec<citeflow::event::Event> {
    let (events, error) = decode("cohere", &[body.as_bytes()]);
    assert_eq!(error, None, "{body}");
    check_order(&events);
    events
}

fn usage(events: &[citeflow::event::Event]) -> Value {
    events
        .iter()
        .find(|e| e.kind == "usage")
        .map_or(Value::Null, |e| e.value.clone())
}

#[test]
fn recorded_streams_decode_the_same_at_every_split() {
    for name in STREAMS {
        let bytes = fixture("cohere", name);
        let (events, error) = decode_every_split("cohere", &bytes);
        assert_eq!(error, None, "{name}");
        check_order(&events);
        let text = answer_text(&events);
        let cites = citations(&events);
        let slices = check_spans(&text, &cites);
        // Cohere gives the cited answer text with each citation: the span slices to it.
        let recorded = recorded_stream_citations(&bytes);
        assert_eq!(recorded.len(), cites.len(), "{name}");
        for (slice, c) in slices.iter().zip(&recorded) {
            assert_eq!(slice, c["text"].as_str().unwrap(), "{name}");
        }
    }
}

#[test]
fn the_tool_stream_reads_concretely() {
    let events =
        decoded(std::str::from_utf8(&fixture("cohere", "stream-citation-tool.sse")).unwrap());
    let text = answer_text(&events);
    assert_eq!(text, "The value of magic_function(3) is 5.");
    assert_eq!(
        citations(&events),
        [json!({
            "sourceId": 1, "marker": "", "span": [34, 35], "valid": true,
            "location": "citation", "covers": "claim",
        })]
    );
    assert_eq!(
        sources(&events),
        json!([{"sourceId": 1, "kind": "tool", "providerId": "magic_function_yypdfpdj7gx6:0"}])
    );
    assert_eq!(
        usage(&events),
        json!({
            "inputTokens": 865, "outputTokens": 57, "totalTokens": 922,
            "raw": {"billed_units": {"input_tokens": 62, "output_tokens": 13},
                    "tokens": {"input_tokens": 865, "output_tokens": 57}},
        })
    );
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds.first(), Some(&"response_start"));
    assert_eq!(
        &kinds[kinds.len() - 4..],
        ["response_end", "sources", "citation", "usage"]
    );
    assert!(events
        .iter()
        .all(|e| e.id.as_deref() == Some("95cca98f-632d-4b46-81eb-465fad856e2f")));

    let events =
        decoded(std::str::from_utf8(&fixture("cohere", "stream-citation-csv-tool.sse")).unwrap());
    let text = answer_text(&events);
    assert_eq!(
        text,
        "The person who bought the most number of tickets to Finding Nemo is Penelope."
    );
    assert_eq!(check_spans(&text, &citations(&events)), ["Penelope."]);
    assert_eq!(
        sources(&events)[0]["providerId"],
        "python_interpreter_763j04yaqafd:0"
    );
}

#[test]
fn recorded_whole_answers_read_concretely() {
    let doc = whole(
        Provider::Cohere,
        &fixture("cohere", "citations-document.json"),
    );
    let text = output_text(&doc);
    assert_eq!(
        text,
        "The key benefits mentioned in this document are:\n1. Automation of tasks\n2. Better decision-making\n3. Cost reduction"
    );
    let cites: Vec<Value> = doc.extra["citations"].as_array().unwrap().clone();
    assert_eq!(
        check_spans(&text, &cites),
        [
            "Automation of tasks",
            "Better decision-making",
            "Cost reduction"
        ]
    );
    let spans: Vec<&Value> = cites.iter().map(|c| &c["span"]).collect();
    assert_eq!(
        spans,
        [&json!([52, 71]), &json!([75, 97]), &json!([101, 115])]
    );
    for c in &cites {
        assert_eq!(
            (
                &c["sourceId"],
                &c["location"],
                &c["covers"],
                &c["documentTitle"]
            ),
            (
                &json!(1),
                &json!("TEXT_CONTENT"),
                &json!("claim"),
                &json!("benefits.txt")
            )
        );
    }
    assert_eq!(
        doc.extra["sources"],
        json!([{
            "sourceId": 1, "kind": "document", "title": "benefits.txt", "providerId": "doc:0",
            "snippet": "AI provides: 1. Automation of tasks 2. Better decision-making 3. Cost reduction",
        }])
    );
    let usage = &doc.extra["usage"];
    assert_eq!(
        (
            &usage["inputTokens"],
            &usage["outputTokens"],
            &usage["totalTokens"],
            &usage["cachedInputTokens"]
        ),
        (&json!(1683), &json!(62), &json!(1745), &json!(992))
    );
    assert_eq!(usage["raw"]["billed_units"]["input_tokens"], 39);
    assert_eq!(doc.extra["finishReason"], "COMPLETE");

    let custom = whole(
        Provider::Cohere,
        &fixture("cohere", "citations-document-custom.json"),
    );
    let text = output_text(&custom);
    let cites = custom.extra["citations"].as_array().unwrap().clone();
    assert_eq!(check_spans(&text, &cites), ["Barack Obama."]);
    // This recorded citation has no `type`.
    assert_eq!(cites[0]["location"], "citation");
    assert_eq!(
        custom.extra["sources"],
        json!([{"sourceId": 1, "kind": "document", "providerId": "doc-2",
                "snippet": "Barack Obama is the founder of Cohere!"}])
    );
    assert_eq!(custom.extra["usage"]["inputTokens"], 735);
    assert!(custom.extra["usage"].get("cachedInputTokens").is_none());

    let tool = whole(Provider::Cohere, &fixture("cohere", "citations-tool.json"));
    let text = output_text(&tool);
    assert_eq!(text, "The value of magic_function(3) is 5.");
    let cites = tool.extra["citations"].as_array().unwrap().clone();
    assert_eq!(check_spans(&text, &cites), ["5"]);
    assert_eq!(tool.extra["sources"][0]["kind"], "tool");
    assert_eq!(
        tool.extra["sources"][0]["providerId"],
        "d86e6098-21e1-44c7-8431-40cfc6d35590:0"
    );
}

/// Every recorded whole answer's citations, checked against their `text`.
#[test]
fn recorded_whole_citations_slice_to_their_text() {
    for name in WHOLES {
        let bytes = fixture("cohere", name);
        let recorded: Value = serde_json::from_slice(&bytes).unwrap();
        let output = whole(Provider::Cohere, &bytes);
        let text = output_text(&output);
        let cites = output.extra["citations"].as_array().unwrap().clone();
        let slices = check_spans(&text, &cites);
        let wanted: Vec<&str> = recorded["message"]["citations"]
            .as_array()
            .unwrap()
            .iter()
            .flat_map(|c| {
                let n = c["sources"].as_array().map_or(1, |s| s.len().max(1));
                std::iter::repeat_n(c["text"].as_str().unwrap(), n)
            })
            .collect();
        assert_eq!(slices, wanted, "{name}");
    }
}

/// One SSE message as Cohere frames it.
fn sse(kind: &str, data: &Value) -> String {
    format!("event: {kind}\ndata: {data}\n\n")
}

/// A stream built from a recorded whole answer, faithfully: `message-start` with its id, its
/// text in `content-delta` pieces of 5 characters, each citation as `citation-start` /
/// `citation-end` after the text, `message-end` with its finish reason and usage, `[DONE]`.
fn stream_of(whole: &Value) -> String {
    let mut out = sse(
        "message-start",
        &json!({"id": whole["id"], "type": "message-start",
                "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "",
                                      "tool_calls": [], "citations": []}}}),
    );
    for (i, item) in whole["message"]["content"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        out += &sse(
            "content-start",
            &json!({"type": "content-start", "index": i,
                    "delta": {"message": {"content": {"type": "text", "text": ""}}}}),
        );
        let chars: Vec<char> = item["text"].as_str().unwrap().chars().collect();
        for piece in chars.chunks(5) {
            let piece: String = piece.iter().collect();
            out += &sse(
                "content-delta",
                &json!({"type": "content-delta", "index": i,
                        "delta": {"message": {"content": {"text": piece}}}}),
            );
        }
    }
    for (i, c) in whole["message"]["citations"]
        .as_array()
        .unwrap()
        .iter()
        .enumerate()
    {
        out += &sse(
            "citation-start",
            &json!({"type": "citation-start", "index": i,
                    "delta": {"message": {"citations": c}}}),
        );
        out += &sse("citation-end", &json!({"type": "citation-end", "index": i}));
    }
    for i in 0..whole["message"]["content"].as_array().unwrap().len() {
        out += &sse("content-end", &json!({"type": "content-end", "index": i}));
    }
    out += &sse(
        "message-end",
        &json!({"type": "message-end",
                "delta": {"finish_reason": whole["finish_reason"], "usage": whole["usage"]}}),
    );
    out + "data: [DONE]\n\n"
}

/// The events of a built stream, checked equal for 300 random cuts of its bytes (fewer than
/// the recordings get: these streams are built, and longer).
fn some_splits(bytes: &[u8]) -> (Vec<citeflow::event::Event>, Option<&'static str>) {
    let whole = decode("cohere", &[bytes]);
    let mut cuts = Cuts::new(bytes.len() as u64);
    for round in 0..300 {
        let at = cuts.positions(bytes.len(), 1 + round % 12);
        assert_eq!(
            decode("cohere", &pieces(bytes, &at)),
            whole,
            "cut at {at:?}"
        );
    }
    whole
}

#[test]
fn a_whole_answer_and_its_stream_agree() {
    for name in WHOLES {
        let bytes = fixture("cohere", name);
        let recorded: Value = serde_json::from_slice(&bytes).unwrap();
        let output = whole(Provider::Cohere, &bytes);
        let body = stream_of(&recorded);
        let (events, error) = some_splits(body.as_bytes());
        assert_eq!(error, None, "{name}");
        check_order(&events);
        assert_eq!(answer_text(&events), output_text(&output), "{name}");
        assert_eq!(
            Value::Array(citations(&events)),
            output.extra["citations"],
            "{name}"
        );
        assert_eq!(sources(&events), output.extra["sources"], "{name}");
        assert_eq!(usage(&events), output.extra["usage"], "{name}");
    }
}

/// A stream of these message JSON texts, with `event:` lines from their `type`.
fn stream(messages: &[Value]) -> String {
    messages
        .iter()
        .map(|m| sse(m["type"].as_str().unwrap_or("x"), m))
        .collect()
}

fn start() -> Value {
    json!({"id": "m1", "type": "message-start", "delta": {"message": {"role": "assistant"}}})
}

fn text_start(index: u64) -> Value {
    json!({"type": "content-start", "index": index,
           "delta": {"message": {"content": {"type": "text", "text": ""}}}})
}

fn delta(index: u64, text: &str) -> Value {
    json!({"type": "content-delta", "index": index,
           "delta": {"message": {"content": {"text": text}}}})
}

fn cite(citation: Value) -> Value {
    json!({"type": "citation-start", "index": 0, "delta": {"message": {"citations": citation}}})
}

fn end() -> Value {
    json!({"type": "message-end", "delta": {"finish_reason": "COMPLETE"}})
}

/// Code point offsets of `part` in `text` (its first occurrence).
fn code_points(text: &str, part: &str) -> [usize; 2] {
    let at = text.find(part).unwrap();
    let start = text[..at].chars().count();
    [start, start + part.chars().count()]
}

// Hand-built bodies (not recordings): every kind of wide character before, inside and after
// a cited segment, the offsets counted in code points as Cohere counts them.
#[test]
fn wide_characters_around_cited_segments() {
    let cases = [
        ("東京タワーは333 mです。", "333 m"),
        ("東京タワーは333 mです。", "東京タワー"),
        ("a😀b 👍🏽 cited 😀 tail", "👍🏽 cited 😀"),
        (
            "e\u{301}te\u{301} de\u{301}ja\u{300} vu",
            "de\u{301}ja\u{300}",
        ),
        ("שלום עולם hello مرحبا", "עולם hello مر"),
        ("plain then 𝕏𝕐", "𝕏𝕐"),
    ];
    for (text, cited) in cases {
        let [s, e] = code_points(text, cited);
        // The text in pieces that cut between any characters.
        let chars: Vec<char> = text.chars().collect();
        let mut messages = vec![start(), text_start(0)];
        for piece in chars.chunks(3) {
            messages.push(delta(0, &piece.iter().collect::<String>()));
        }
        messages.push(cite(
            json!({"start": s, "end": e, "text": cited, "type": "TEXT_CONTENT",
            "sources": [{"type": "document", "id": "d", "document": {"title": "T"}}]}),
        ));
        messages.push(end());
        let events = decoded(&stream(&messages));
        let got = answer_text(&events);
        assert_eq!(got, text);
        assert_eq!(check_spans(&got, &citations(&events)), [cited], "{text}");
    }
}

#[test]
fn citations_count_from_their_content_item() {
    // Built: a thinking item, then two text items; the second citation names item 2.
    let messages = vec![
        start(),
        json!({"type": "content-start", "index": 0,
               "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}}}),
        json!({"type": "content-delta", "index": 0,
               "delta": {"message": {"content": {"thinking": "Let me see."}}}}),
        json!({"type": "content-end", "index": 0}),
        text_start(1),
        delta(1, "Tokyo 東京 is big. "),
        text_start(2),
        delta(2, "Ōsaka is too."),
        cite(
            json!({"start": 6, "end": 8, "text": "東京", "content_index": 1,
                    "sources": [{"type": "document", "id": "a"}]}),
        ),
        cite(
            json!({"start": 0, "end": 5, "text": "Ōsaka", "content_index": 2,
                    "sources": [{"type": "document", "id": "b"}, {"type": "document", "id": "a"}]}),
        ),
        cite(
            json!({"start": 0, "end": 3, "text": "Let", "content_index": 0,
                    "type": "THINKING_CONTENT", "sources": [{"type": "document", "id": "c"}]}),
        ),
        end(),
    ];
    let events = decoded(&stream(&messages));
    let outputs = citeflow::event::items_from_events(&events);
    assert_eq!(outputs[0], OutputItem::Thinking("Let me see.".into()));
    let text = answer_text(&events);
    assert_eq!(text, "Tokyo 東京 is big. Ōsaka is too.");
    let cites = citations(&events);
    assert_eq!(check_spans(&text, &cites), ["東京", "Ōsaka", "Ōsaka"]);
    let ids: Vec<&Value> = cites.iter().map(|c| &c["sourceId"]).collect();
    assert_eq!(ids, [&json!(1), &json!(2), &json!(1)]);
    // The thinking citation cites no answer text: neither it nor its source is listed.
    assert_eq!(sources(&events).as_array().unwrap().len(), 2);
}

#[test]
fn the_tool_plan_is_thinking() {
    let messages = vec![
        start(),
        json!({"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will look."}}}),
        json!({"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls":
            {"id": "c", "type": "function", "function": {"name": "f", "arguments": ""}}}}}),
        json!({"type": "tool-call-end", "index": 0}),
        end(),
    ];
    let events = decoded(&stream(&messages));
    let kinds: Vec<&str> = events.iter().map(|e| e.kind.as_str()).collect();
    assert_eq!(kinds, ["thinking_start", "thinking", "thinking_end"]);
    let whole = citeflow::provider::parse_response(
        Provider::Cohere,
        r#"{"id":"x","finish_reason":"TOOL_CALL","message":{"role":"assistant","tool_plan":"I will look.","tool_calls":[]}}"#,
        false,
    )
    .unwrap();
    assert_eq!(whole.outputs, [OutputItem::Thinking("I will look.".into())]);
}

#[test]
fn hostile_streams() {
    let code = |messages: &[Value]| decode("cohere", &[stream(messages).as_bytes()]).1;
    let raw = |body: &str| decode("cohere", &[body.as_bytes()]).1;
    assert_eq!(raw("data: {not json\n\n"), Some("INVALID_PROVIDER_DATA"));
    assert_eq!(raw("data: [1, 2]\n\n"), Some("INVALID_PROVIDER_DATA"));
    assert_eq!(
        code(&[
            start(),
            json!({"type": "content-delta", "index": 0,
                               "delta": {"message": {"content": {"text": 5}}}})
        ]),
        Some("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        code(&[
            start(),
            json!({"type": "content-delta", "index": "0",
                               "delta": {"message": {"content": {"text": "a"}}}})
        ]),
        Some("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        code(&[
            start(),
            delta(0, "a"),
            cite(json!({"start": "0", "end": 1}))
        ]),
        Some("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        code(&[
            start(),
            delta(0, "a"),
            cite(json!({"start": 0, "end": 1, "sources": {}}))
        ]),
        Some("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        code(&[start(), delta(0, "a"), cite(json!(7))]),
        Some("INVALID_PROVIDER_DATA")
    );
    assert_eq!(
        code(&[
            start(),
            json!({"type": "message-end", "delta": {"usage": "lots"}})
        ]),
        Some("INVALID_PROVIDER_DATA")
    );
    // No message-end: the answer is incomplete, whatever came before.
    assert_eq!(
        code(&[start(), delta(0, "Hello")]),
        Some("STREAM_TRUNCATED")
    );
    assert_eq!(
        raw(&(stream(&[start(), delta(0, "Hi")]) + "data: [DONE]\n\n")),
        Some("STREAM_TRUNCATED")
    );
    assert_eq!(raw(""), Some("STREAM_TRUNCATED"));
    // Errors in the stream.
    assert_eq!(
        raw("event: error\ndata: {\"message\":\"overloaded\"}\n\n"),
        Some("PROVIDER_ERROR")
    );
    assert_eq!(
        raw("data: {\"message\":\"invalid request\"}\n\n"),
        Some("PROVIDER_ERROR")
    );
    assert_eq!(
        code(&[
            start(),
            delta(0, "a"),
            json!({"type": "message-end",
            "delta": {"finish_reason": "ERROR", "error": "the model failed"}})
        ]),
        Some("PROVIDER_ERROR")
    );
    let mut stream_decoder = citeflow::provider::ProviderByteStream::new(
        citeflow::provider::StreamFormat::parse("cohere").unwrap(),
    );
    let e = stream_decoder
        .push(b"event: error\ndata: {\"message\":\"overloaded\"}\n\n")
        .unwrap_err();
    assert_eq!(e.message(), "cohere stream error: overloaded");
}

#[test]
fn hostile_offsets_stay_inside_the_text() {
    let text = "a😀b 東京";
    for (s, e) in [
        (0u64, 999u64),
        (999, 9999),
        (5, 2),
        (u64::MAX, u64::MAX),
        (1, 2),
        (0, 0),
    ] {
        let messages = [
            start(),
            delta(0, text),
            cite(json!({"start": s, "end": e, "text": "",
                        "sources": [{"type": "document", "id": "d"}]})),
            // An item that names no content: offsets into the whole text.
            cite(
                json!({"start": s, "end": e, "text": "", "content_index": 77,
                        "sources": [{"type": "document", "id": "d"}]}),
            ),
            end(),
        ];
        let events = decoded(&stream(&messages));
        let cites = citations(&events);
        assert_eq!(cites.len(), 2);
        check_spans(text, &cites);
        for c in &cites {
            let [a, b] = [
                c["span"][0].as_u64().unwrap(),
                c["span"][1].as_u64().unwrap(),
            ];
            assert!(a <= b && b <= 7, "{s} {e}: {c}");
        }
    }
    // A citation of no source names none.
    let events = decoded(&stream(&[
        start(),
        delta(0, "abc"),
        cite(json!({"start": 0, "end": 3, "text": "abc", "sources": []})),
        end(),
    ]));
    assert_eq!(citations(&events)[0]["sourceId"], 0);
    assert_eq!(citations(&events)[0]["valid"], false);
    assert_eq!(sources(&events), Value::Null);
}

#[test]
fn huge_lists_are_bounded() {
    let many: Vec<Value> = (0..5000)
        .map(|i| json!({"type": "document", "id": format!("d{i}")}))
        .collect();
    let mut messages = vec![start(), delta(0, "abc")];
    messages.push(cite(
        json!({"start": 0, "end": 3, "text": "abc", "sources": many}),
    ));
    for _ in 0..1500 {
        messages.push(cite(json!({"start": 0, "end": 1, "text": "a",
                                  "sources": [{"type": "document", "id": "x"}]})));
    }
    messages.push(end());
    let events = decoded(&stream(&messages));
    let cites = citations(&events);
    assert!(cites.len() <= 1024 + 1024, "{}", cites.len());
    assert!(sources(&events).as_array().unwrap().len() <= 1024);
    // Many content items are refused rather than held.
    let mut items = vec![start()];
    for i in 0..5000 {
        items.push(delta(i, "x"));
    }
    assert_eq!(
        decode("cohere", &[stream(&items).as_bytes()]).1,
        Some("INVALID_PROVIDER_DATA")
    );
}

#[test]
fn hostile_whole_answers() {
    let read = |body: &str| citeflow::provider::parse_response(Provider::Cohere, body, false);
    for bad in [
        "not json",
        r#"{"message":"invalid api token"}"#,
        r#"{"message":{"content":"text"}}"#,
        r#"{"message":{"content":[{"type":"text","text":1}]}}"#,
        r#"{"message":{"content":[],"citations":{}}}"#,
        r#"{"message":{"content":[],"citations":[{"start":-1,"end":2}]}}"#,
        r#"{"message":{"content":[]},"usage":[1]}"#,
    ] {
        assert_eq!(
            read(bad).unwrap_err().code(),
            "INVALID_PROVIDER_DATA",
            "{bad}"
        );
    }
    // A structured answer's JSON text becomes a structured item.
    let out = citeflow::provider::parse_response(
        Provider::Cohere,
        r#"{"id":"x","finish_reason":"COMPLETE","message":{"role":"assistant","content":[{"type":"text","text":"{\"a\":1}"}]}}"#,
        true,
    )
    .unwrap();
    assert_eq!(out.outputs, [OutputItem::Structured(json!({"a": 1}))]);
}

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
        ],
        temperature: Some(0.3),
        max_tokens: Some(100),
        stream,
        ..Default::default()
    }
}

fn body_of(req: &LmRequest) -> (String, Vec<(String, String)>, Value) {
    let id = ModelId::parse("cohere/command-a-03-2025").unwrap();
    let http = build_request(&id, req, Some("co-key"), None).unwrap();
    (
        http.url,
        http.headers,
        serde_json::from_str(&http.body).unwrap(),
    )
}

#[test]
fn requests() {
    let (url, headers, body) = body_of(&req(false));
    assert_eq!(url, "https://api.cohere.com/v2/chat");
    assert!(headers.contains(&("authorization".into(), "Bearer co-key".into())));
    assert!(headers.contains(&("content-type".into(), "application/json".into())));
    assert!(!url.contains("co-key"));
    assert_eq!(
        body,
        json!({
            "model": "command-a-03-2025",
            "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
            "temperature": 0.3,
            "max_tokens": 100,
            "stream": false,
        })
    );
    let (_, _, body) = body_of(&req(true));
    assert_eq!(body["stream"], true);

    let schema = json!({"type": "object", "properties": {"a": {"type": "integer"}}});
    let (_, _, body) = body_of(&LmRequest {
        response_schema: Some(schema.clone()),
        ..req(false)
    });
    assert_eq!(
        body["response_format"],
        json!({"type": "json_object", "json_schema": schema})
    );

    let cited = |enforce: &str| LmRequest {
        citations: Some(
            CiteRequest::from_value(&json!({"enforce": enforce, "sourceCount": 2})).unwrap(),
        ),
        ..req(true)
    };
    let (_, _, body) = body_of(&cited("auto"));
    assert_eq!(body["response_format"]["type"], "json_object");
    assert_eq!(
        body["response_format"]["json_schema"],
        citeflow::cite::enforce::citation_schema(citeflow::cite::Policy::Required, 2)
    );
    assert!(body["messages"][0]["content"]
        .as_str()
        .unwrap()
        .ends_with(STRUCTURED_NOTE));
    let (_, _, body) = body_of(&cited("prompt"));
    assert!(body.get("response_format").is_none());
    assert_eq!(body["messages"][0]["content"], "Be brief.");

    let id = ModelId::parse("cohere/command-a-03-2025").unwrap();
    for refused in [
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
        cited("grammar"),
        cited("tool"),
    ] {
        let e = build_request(&id, &refused, None, None).unwrap_err();
        assert_eq!(e.code(), "INVALID_OPTION", "{refused:?}");
    }
    // A base URL of the caller's.
    let http = build_request(&id, &req(false), None, Some("http://localhost:9/v2/")).unwrap();
    assert_eq!(http.url, "http://localhost:9/v2/chat");
    assert!(!http.headers.iter().any(|(k, _)| k == "authorization"));
}
