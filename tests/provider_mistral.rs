//! Mistral (`mistral/<model>`): its recorded answers and the answer built from its citations
//! docs (tests/fixtures/providers/mistral, see SOURCES.md), streamed == whole, hostile
//! input, and its requests.

#[path = "support/provider_fixtures.rs"]
mod provider_fixtures;
#[path = "support/sampled_splits.rs"]
mod sampled_splits;

use citeflow::event::{Event, OutputItem};
use citeflow::provider::{
    build_request, parse_response, CiteRequest, LmRequest, Message, ModelId, Provider,
    STRUCTURED_NOTE,
};
use provider_fixtures::*;
use sampled_splits::decode_sampled_splits;
use serde_json::{json, Value};

const FORMAT: &str = "mistral";

fn stream(body: &str) -> (Vec<Event>, Option<&'static str>) {
    decode(FORMAT, &[body.as_bytes()])
}

fn sse(chunks: &[Value]) -> String {
    chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
}

fn usage(events: &[Event]) -> Value {
    events
        .iter()
        .find(|e| e.kind == "usage")
        .map_or(Value::Null, |e| e.value.clone())
}

fn thinking_text(events: &[Event]) -> String {
    events
        .iter()
        .filter(|e| e.kind == "thinking")
        .filter_map(|e| e.value.as_str())
        .collect()
}

/// The block events in order (starts and ends only).
fn blocks(events: &[Event]) -> Vec<&str> {
    events
        .iter()
        .map(|e| e.kind.as_str())
        .filter(|k| k.ends_with("_start") || k.ends_with("_end"))
        .collect()
}

#[test]
fn recorded_thinking_stream() {
    // 37 KB: every split would take minutes in a debug build. Every byte within 3 of a line
    // end and every 2nd byte otherwise in the first two messages (`""`, then `""` again),
    // in the two around the switch from thinking arrays to strings and in the last two
    // (finish_reason with usage, [DONE]); every 307th elsewhere; 30 random k-cuts.
    let bytes = fixture(FORMAT, "thinking-content-array.sse");
    let text = std::str::from_utf8(&bytes).unwrap();
    let switch = text.find("\"delta\":{\"content\":\"T").unwrap();
    let end = text.rfind("\"finish_reason\":\"stop\"").unwrap();
    let first = text.match_indices("\n\n").nth(1).unwrap().0;
    let line_end = |at: usize| {
        let window = bytes.get(at.saturating_sub(3)..(at + 3).min(bytes.len()));
        window.is_some_and(|w| w.contains(&b'\n'))
    };
    let window =
        |at: usize| at <= first + 2 || (switch - 150..switch + 50).contains(&at) || at + 150 >= end;
    let dense = |at: usize| window(at) && (at.is_multiple_of(2) || line_end(at));
    let (events, error) = decode_sampled_splits(FORMAT, &bytes, &dense, 307, 30);
    assert_eq!(error, None);
    check_order(&events);
    // `content` goes "", "", thinking chunks, then strings: one thinking block, one answer block.
    assert_eq!(
        blocks(&events),
        [
            "thinking_start",
            "thinking_end",
            "response_start",
            "response_end"
        ]
    );
    let thinking = thinking_text(&events);
    assert!(thinking.starts_with("Okay, the user is asking how to cross the street."));
    assert_eq!(thinking.chars().count(), 421);
    let text = answer_text(&events);
    assert!(
        text.starts_with("To cross the street safely, follow these steps:\n\n1. Look both ways")
    );
    assert!(text.ends_with("By following these steps, you can ensure a safe crossing."));
    assert!(citations(&events).is_empty());
    assert_eq!(sources(&events), Value::Null);
    assert_eq!(
        usage(&events),
        json!({"inputTokens": 10, "outputTokens": 232, "totalTokens": 242,
            "raw": {"prompt_tokens": 10, "total_tokens": 242, "completion_tokens": 232}})
    );
}

/// The answer of Mistral's citations docs (API-reference-derived, see SOURCES.md).
const NOBEL: &str = "The Nobel Peace Prize for 2024 was awarded to the Japan Confederation of A- and H-Bomb Sufferers Organizations (Nihon Hidankyo) for their activism against nuclear weapons, including efforts by survivors of the atomic bombings of Hiroshima and Nagasaki";

#[test]
fn reference_chunks_from_the_docs() {
    let at = NOBEL.encode_utf16().count();
    assert_eq!(at, 251);
    let want_citations = json!([{"sourceId": 1, "marker": "", "span": [at, at], "valid": true,
        "location": "reference", "covers": "point"}]);
    let want_sources = json!([{"sourceId": 1, "kind": "reference", "providerId": "0"}]);

    let (events, error) =
        decode_every_split(FORMAT, &fixture(FORMAT, "api-reference-references.sse"));
    assert_eq!(error, None);
    check_order(&events);
    let text = answer_text(&events);
    assert_eq!(text, format!("{NOBEL}."));
    let cites = citations(&events);
    assert_eq!(json!(cites), want_citations);
    // The point is where the reference came: right after "Nagasaki", before ".".
    assert_eq!(check_spans(&text, &cites), [""]);
    assert!(text.encode_utf16().take(at).eq(NOBEL.encode_utf16()));
    assert_eq!(sources(&events), want_sources);
    assert_eq!(usage(&events), Value::Null);

    // The whole answer it was built from reads the same.
    let out = whole(
        Provider::Mistral,
        &fixture(FORMAT, "api-reference-references.json"),
    );
    assert_eq!(output_text(&out), text);
    assert_eq!(out.extra["citations"], want_citations);
    assert_eq!(out.extra["sources"], want_sources);
    assert_eq!(out.extra["finishReason"], "stop");
    assert!(out.extra.get("usage").is_none());
}

#[test]
fn recorded_whole_answers() {
    let out = whole(Provider::Mistral, &fixture(FORMAT, "text.json"));
    let text = output_text(&out);
    assert!(text.starts_with("**Holiday Name: \"World Kindness Day of Sharing\"**"));
    assert!(text.ends_with("What would you share? 😊"));
    assert!(text.contains("something meaningful with others—whether"));
    assert!(out.extra.get("citations").is_none() && out.extra.get("sources").is_none());
    assert_eq!(
        out.extra["usage"],
        json!({"inputTokens": 13, "outputTokens": 434, "totalTokens": 447,
            "raw": {"prompt_tokens": 13, "total_tokens": 447, "completion_tokens": 434}})
    );
    assert_eq!(out.extra["finishReason"], "stop");

    let out = whole(
        Provider::Mistral,
        &fixture(FORMAT, "thinking-content-array.json"),
    );
    assert_eq!(out.outputs.len(), 2);
    let OutputItem::Thinking(thinking) = &out.outputs[0] else {
        panic!("thinking first: {:?}", out.outputs[0]);
    };
    assert!(thinking.starts_with("**Analogizing crossing a river**\n\nThe user is asking"));
    let text = output_text(&out);
    assert!(text.starts_with("Crossing a river is quite different from crossing a street"));
    assert!(text.ends_with("familiar with the area and the river's conditions. Stay safe!"));
    assert_eq!(out.extra["usage"]["inputTokens"], 664);
    assert_eq!(out.extra["usage"]["outputTokens"], 747);
    assert_eq!(out.extra["usage"]["totalTokens"], 1411);
}

/// A stream built from a whole body (the recorded Mistral stream and whole answers are
/// different answers): each content chunk its own delta (text cut into pieces of `size`
/// characters, as strings when `strings`), usage and `finish_reason` on the last chunk.
fn stream_of(body: &Value, size: usize, strings: bool) -> String {
    let message = &body["choices"][0]["message"];
    let parts: Vec<Value> = match &message["content"] {
        Value::String(s) => vec![json!({"type": "text", "text": s})],
        Value::Array(a) => a.clone(),
        _ => vec![],
    };
    let mut chunks = vec![
        json!({"id": body["id"], "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": null}]}),
    ];
    let delta = |content: Value| json!({"id": body["id"], "choices": [{"index": 0, "delta": {"content": content}, "finish_reason": null}]});
    for part in parts {
        if part["type"] == "text" {
            let chars: Vec<char> = part["text"].as_str().unwrap().chars().collect();
            for piece in chars.chunks(size) {
                let piece: String = piece.iter().collect();
                chunks.push(delta(if strings {
                    json!(piece)
                } else {
                    json!([{"type": "text", "text": piece}])
                }));
            }
        } else {
            chunks.push(delta(json!([part])));
        }
    }
    let mut last = json!({"id": body["id"], "choices": [{"index": 0, "delta": {"content": ""}, "finish_reason": body["choices"][0]["finish_reason"]}]});
    if !body["usage"].is_null() {
        last["usage"] = body["usage"].clone();
    }
    chunks.push(last);
    sse(&chunks) + "data: [DONE]\n\n"
}

fn same(events: &[Event], out: &citeflow::event::LmOutput, what: &str) {
    check_order(events);
    assert_eq!(answer_text(events), output_text(out), "{what}");
    let thinking: String = out
        .outputs
        .iter()
        .filter_map(|i| match i {
            OutputItem::Thinking(t) => Some(t.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(thinking_text(events), thinking, "{what}");
    let want = out.extra.get("citations").cloned().unwrap_or(json!([]));
    assert_eq!(json!(citations(events)), want, "{what}");
    assert_eq!(
        &sources(events),
        out.extra.get("sources").unwrap_or(&Value::Null)
    );
    assert_eq!(
        &usage(events),
        out.extra.get("usage").unwrap_or(&Value::Null)
    );
}

#[test]
fn streamed_is_whole() {
    for name in [
        "text.json",
        "thinking-content-array.json",
        "api-reference-references.json",
    ] {
        let bytes = fixture(FORMAT, name);
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        let out = whole(Provider::Mistral, &bytes);
        for (size, strings) in [(1, false), (3, true), (40, false), (40, true)] {
            let (events, error) = stream(&stream_of(&body, size, strings));
            assert_eq!(error, None);
            same(&events, &out, &format!("{name} by {size}"));
        }
    }
}

// Hand-built bodies from here on (not recordings).

fn body(content: Value) -> Value {
    json!({"id": "m", "object": "chat.completion",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
}

fn whole_of(content: Value) -> citeflow::event::LmOutput {
    parse_response(Provider::Mistral, &body(content).to_string(), false).unwrap()
}

fn text_chunk(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn reference(ids: Value) -> Value {
    json!({"type": "reference", "reference_ids": ids})
}

#[test]
fn references_around_wide_characters() {
    // CJK, emoji (surrogate pairs), combining marks and RTL text before and after references.
    let content = json!([
        text_chunk("東京😀"),
        reference(json!([3, 1])),
        text_chunk("e\u{301}שלום 👍🏽"),
        reference(json!([1])),
        text_chunk("مرحبا"),
        reference(json!([7])),
    ]);
    let out = whole_of(content.clone());
    let text = output_text(&out);
    assert_eq!(text, "東京😀e\u{301}שלום 👍🏽مرحبا");
    let cites = out.extra["citations"].as_array().unwrap();
    let got: Vec<(u64, Value)> = cites
        .iter()
        .map(|c| (c["sourceId"].as_u64().unwrap(), c["span"].clone()))
        .collect();
    // 東京 2 units, 😀 2; e + U+0301 2, שלום 4, space 1, 👍🏽 4; مرحبا 5.
    assert_eq!(
        got,
        [
            (1, json!([4, 4])),
            (2, json!([4, 4])),
            (2, json!([15, 15])),
            (3, json!([20, 20]))
        ]
    );
    assert_eq!(check_spans(&text, cites), ["", "", "", ""]);
    let ids: Vec<&str> = out.extra["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["providerId"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["3", "1", "7"]);
    // Streamed one character at a time, the same.
    let (events, error) = stream(&stream_of(&body(content), 1, false));
    assert_eq!(error, None);
    same(&events, &out, "wide");
}

#[test]
fn content_may_switch_form_mid_stream() {
    let chunks = [
        json!({"choices": [{"delta": {"role": "assistant", "content": ""}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "hm"}]}]}}]}),
        json!({"choices": [{"delta": {"content": "A"}}]}),
        json!({"choices": [{"delta": {"content": [text_chunk("B"), reference(json!([0])), {"type": "image_url", "image_url": "x"}]}}]}),
        json!({"choices": [{"delta": {"content": null}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "thinking", "thinking": "again"}]}}]}),
        json!({"choices": [{"delta": {"content": "C"}, "finish_reason": "stop"}], "usage": {"prompt_tokens": 1, "completion_tokens": 2, "total_tokens": 3}}),
    ];
    let (events, error) = stream(&sse(&chunks));
    assert_eq!(error, None);
    check_order(&events);
    assert_eq!(answer_text(&events), "ABC");
    assert_eq!(thinking_text(&events), "hmagain");
    assert_eq!(
        blocks(&events),
        [
            "thinking_start",
            "thinking_end",
            "response_start",
            "response_end",
            "thinking_start",
            "thinking_end",
            "response_start",
            "response_end"
        ]
    );
    assert_eq!(citations(&events)[0]["span"], json!([2, 2]));
    assert_eq!(usage(&events)["totalTokens"], 3);
}

#[test]
fn hostile_input() {
    let code = |chunk: Value| stream(&sse(&[chunk])).1;
    assert_eq!(
        stream("data: {\"choices\": [\n\n").1,
        Some("INVALID_PROVIDER_DATA")
    );
    for bad in [
        json!({"choices": "no"}),
        json!({"choices": [{"delta": {"content": 1}}]}),
        json!({"choices": [{"delta": {"content": ["x"]}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "thinking", "thinking": 3}]}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "thinking", "thinking": [1]}]}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "reference", "reference_ids": "0"}]}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "reference", "reference_ids": ["0"]}]}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "reference", "reference_ids": [1.5]}]}}]}),
        json!({"choices": [{"delta": {"content": "x"}, "finish_reason": ["stop"]}]}),
        json!({"usage": 3}),
    ] {
        assert_eq!(code(bad.clone()), Some("INVALID_PROVIDER_DATA"), "{bad}");
        assert_eq!(
            parse_response(Provider::Mistral, &bad.to_string(), false)
                .unwrap_err()
                .code(),
            "INVALID_PROVIDER_DATA",
            "{bad}"
        );
    }
    // No finish_reason, no [DONE]: cut short.
    let cut =
        json!({"choices": [{"delta": {"content": [text_chunk("a"), reference(json!([1]))]}}]});
    let (events, error) = stream(&sse(std::slice::from_ref(&cut)));
    assert_eq!(error, Some("STREAM_TRUNCATED"));
    assert!(citations(&events).is_empty());
    let (events, error) = stream(&(sse(&[cut]) + "data: [DONE]\n\n"));
    assert_eq!(error, None);
    assert_eq!(citations(&events).len(), 1);
    // Mistral's error object in a stream.
    let error = json!({"object": "error", "message": "Service unavailable.", "type": "internal_server_error", "param": null, "code": "1000"});
    assert_eq!(code(error), Some("PROVIDER_ERROR"));
    assert_eq!(
        code(json!({"error": {"message": "boom"}})),
        Some("PROVIDER_ERROR")
    );
    // A huge id list: bounded (1024 ids of one reference), the rest checked and dropped.
    let ids: Vec<u64> = (0..100_000).collect();
    let out = whole_of(json!([text_chunk("x"), reference(json!(ids))]));
    assert_eq!(out.extra["citations"].as_array().unwrap().len(), 1024);
    assert_eq!(out.extra["sources"].as_array().unwrap().len(), 1024);
    // Many references: at most 4096 citations held.
    let many: Vec<Value> = (0..5000).map(|i| reference(json!([i % 7]))).collect();
    let out = whole_of(json!(many));
    assert_eq!(out.extra["citations"].as_array().unwrap().len(), 4096);
    assert_eq!(out.extra["sources"].as_array().unwrap().len(), 7);
    // Negative and huge ids are ids as sent.
    let out = whole_of(json!([reference(json!([-1, u64::MAX]))]));
    let ids: Vec<&Value> = out.extra["sources"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| &s["providerId"])
        .collect();
    assert_eq!(ids, [&json!("-1"), &json!(u64::MAX.to_string())]);
}

fn req(stream: bool) -> LmRequest {
    LmRequest {
        messages: vec![Message {
            role: "user".into(),
            content: "Hi".into(),
        }],
        temperature: Some(0.3),
        max_tokens: Some(64),
        stream,
        ..Default::default()
    }
}

fn body_of(req: &LmRequest) -> Value {
    let id = ModelId::parse("mistral/mistral-small-latest").unwrap();
    let http = build_request(&id, req, Some("mk"), None).unwrap();
    assert_eq!(http.url, "https://api.mistral.ai/v1/chat/completions");
    assert!(http
        .headers
        .contains(&("authorization".into(), "Bearer mk".into())));
    assert!(http
        .headers
        .contains(&("content-type".into(), "application/json".into())));
    serde_json::from_str(&http.body).unwrap()
}

#[test]
fn requests() {
    assert_eq!(
        body_of(&req(false)),
        json!({"model": "mistral-small-latest", "messages": [{"role": "user", "content": "Hi"}],
            "temperature": 0.3, "max_tokens": 64})
    );
    let streamed = body_of(&req(true));
    assert_eq!(streamed["stream"], true);
    assert!(streamed.get("stream_options").is_none());
    let schema =
        json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]});
    let structured = body_of(&LmRequest {
        response_schema: Some(schema.clone()),
        ..req(false)
    });
    assert_eq!(
        structured["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "response", "schema": schema, "strict": true}})
    );
    let cite = |enforce: &str| LmRequest {
        citations: Some(
            CiteRequest::from_value(&json!({"enforce": enforce, "sourceCount": 3})).unwrap(),
        ),
        ..req(false)
    };
    let cited = body_of(&cite("schema"));
    let format = &cited["response_format"]["json_schema"];
    assert_eq!(format["name"], "cited_answer");
    assert_eq!(format["strict"], true);
    assert!(format["schema"].is_object());
    assert_eq!(cited["messages"][0]["role"], "system");
    assert_eq!(cited["messages"][0]["content"], STRUCTURED_NOTE);
    assert!(body_of(&cite("prompt")).get("response_format").is_none());
    let id = ModelId::parse("mistral/m").unwrap();
    for bad in [
        LmRequest {
            logprobs: Some(true),
            ..req(false)
        },
        LmRequest {
            top_logprobs: Some(1),
            ..req(false)
        },
        LmRequest {
            grammar: Some("root ::= \"a\"".into()),
            ..req(false)
        },
        cite("grammar"),
        cite("tool"),
        LmRequest {
            response_schema: Some(json!({})),
            ..cite("schema")
        },
    ] {
        assert_eq!(
            build_request(&id, &bad, None, None).unwrap_err().code(),
            "INVALID_OPTION",
            "{bad:?}"
        );
    }
}

#[test]
fn a_structured_answer_is_its_json() {
    // Hand-built: the JSON text of a responseSchema answer, as text chunks.
    let content = json!([text_chunk("{\"a\":"), text_chunk(" 1}")]);
    let out = parse_response(Provider::Mistral, &body(content).to_string(), true).unwrap();
    assert_eq!(out.outputs, [OutputItem::Structured(json!({"a": 1}))]);
    let cut = body(json!("{\"a\":"));
    let e = parse_response(Provider::Mistral, &cut.to_string(), true).unwrap_err();
    assert_eq!(e.code(), "INVALID_OUTPUT");
}
