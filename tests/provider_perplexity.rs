//! Perplexity (`perplexity/<model>`): its recorded answers (tests/fixtures/providers/perplexity,
//! see SOURCES.md), streamed == whole, hostile input, and its requests.

#[path = "support/provider_fixtures.rs"]
mod provider_fixtures;
#[path = "support/sampled_splits.rs"]
mod sampled_splits;

use citeflow::provider::{
    build_request, parse_response, CiteRequest, LmRequest, Message, ModelId, Provider,
    STRUCTURED_NOTE,
};
use provider_fixtures::*;
use sampled_splits::decode_sampled_splits;
use serde_json::{json, Value};

const FORMAT: &str = "perplexity";

/// The events of a stream given whole, with the error code it ended with.
fn stream(body: &str) -> (Vec<citeflow::event::Event>, Option<&'static str>) {
    decode(FORMAT, &[body.as_bytes()])
}

/// `chunks` as SSE bytes.
fn sse(chunks: &[Value]) -> String {
    chunks.iter().map(|c| format!("data: {c}\n\n")).collect()
}

fn usage(events: &[citeflow::event::Event]) -> Value {
    events
        .iter()
        .find(|e| e.kind == "usage")
        .map_or(Value::Null, |e| e.value.clone())
}

/// Every citation's marker, checked to be the text its span covers.
fn check_markers(text: &str, citations: &[Value]) {
    for (c, slice) in citations.iter().zip(check_spans(text, citations)) {
        assert_eq!(c["marker"].as_str(), Some(slice.as_str()), "{c}");
        assert_eq!(c["covers"], "marker");
    }
}

#[test]
fn recorded_streams_decode_the_same_at_every_split() {
    let urls_of = |name: &str| -> Vec<Value> {
        let first = fixture(FORMAT, name);
        let first = std::str::from_utf8(&first).unwrap().lines().next().unwrap();
        let chunk: Value = serde_json::from_str(first.trim_start_matches("data: ")).unwrap();
        chunk["citations"].as_array().unwrap().clone()
    };
    for (name, text, markers, last_usage) in [
        (
            "citations.sse",
            "The current population of **[2][3]",
            vec![(2, [28, 31]), (3, [31, 34])],
            (10, 336, 346),
        ),
        (
            "text-citations.sse",
            "**EcoVista Day**[1][5]",
            vec![(1, [16, 19]), (5, [19, 22])],
            (11, 434, 445),
        ),
    ] {
        // Every split would take ~25 s in a debug build: every byte near a message boundary
        // or a non-ASCII character, every 5th elsewhere, and 300 random k-cuts.
        let bytes = fixture(FORMAT, name);
        let near_boundary = |at: usize| {
            let window = bytes.get(at.saturating_sub(3)..(at + 3).min(bytes.len()));
            window.is_some_and(|w| w.contains(&b'\n'))
        };
        let (events, error) = decode_sampled_splits(FORMAT, &bytes, &near_boundary, 5, 300);
        assert_eq!(error, None, "{name}");
        check_order(&events);
        assert_eq!(answer_text(&events), text, "{name}");
        let cites = citations(&events);
        check_markers(text, &cites);
        let got: Vec<(u64, Value)> = cites
            .iter()
            .map(|c| (c["sourceId"].as_u64().unwrap(), c["span"].clone()))
            .collect();
        let want: Vec<(u64, Value)> = markers.iter().map(|(id, s)| (*id, json!(s))).collect();
        assert_eq!(got, want, "{name}");
        // The sources are the `citations` URLs in order: a marker's number is its source's.
        let urls = urls_of(name);
        let sources = sources(&events);
        assert_eq!(sources.as_array().unwrap().len(), urls.len());
        for (i, (source, url)) in sources.as_array().unwrap().iter().zip(&urls).enumerate() {
            assert_eq!(source["sourceId"], i + 1);
            assert_eq!(source["kind"], "citation");
            assert_eq!(&source["url"], url);
        }
        for c in &cites {
            let id = c["sourceId"].as_u64().unwrap() as usize;
            assert_eq!(c["valid"], true);
            assert_eq!(c["location"], "citation");
            assert_eq!(c["url"], urls[id - 1]);
        }
        let u = usage(&events);
        assert_eq!(
            (&u["inputTokens"], &u["outputTokens"], &u["totalTokens"]),
            (
                &json!(last_usage.0),
                &json!(last_usage.1),
                &json!(last_usage.2)
            ),
            "{name}: the last chunk's running usage"
        );
    }
}

#[test]
fn recorded_whole_answers() {
    let out = whole(Provider::Perplexity, &fixture(FORMAT, "citations.json"));
    let text = output_text(&out);
    assert!(text.starts_with("The most recent estimates for San Francisco's city population"));
    assert!(text.ends_with("check U.S. Census Bureau updates beyond 2024."));
    assert_eq!(text.encode_utf16().count(), 952);
    let cites = out.extra["citations"].as_array().unwrap();
    check_markers(&text, cites);
    let ids: Vec<u64> = cites
        .iter()
        .map(|c| c["sourceId"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [2, 3, 5, 7, 2, 3, 5, 7, 6, 1, 1, 2, 5]);
    assert_eq!(cites[0]["span"], json!([196, 199]));
    assert_eq!(cites[3]["span"], json!([205, 208]));
    assert_eq!(
        cites[0]["url"],
        "https://en.wikipedia.org/wiki/San_Francisco"
    );
    assert!(cites.iter().all(|c| c["valid"] == true));
    let sources = out.extra["sources"].as_array().unwrap();
    assert_eq!(sources.len(), 7);
    assert_eq!(
        sources[6],
        json!({"sourceId": 7, "kind": "citation", "url": "https://worldpopulationreview.com/us-counties/california/san-francisco-county"})
    );
    assert_eq!(
        out.extra["usage"],
        json!({"inputTokens": 10, "outputTokens": 251, "totalTokens": 261,
            "raw": {"prompt_tokens": 10, "completion_tokens": 251, "total_tokens": 261}})
    );
    assert_eq!(out.extra["finishReason"], "stop");

    // Non-ASCII `—` before later markers: spans are UTF-16.
    let out = whole(
        Provider::Perplexity,
        &fixture(FORMAT, "text-citations.json"),
    );
    let text = output_text(&out);
    assert_eq!(text.encode_utf16().count(), 1970);
    let cites = out.extra["citations"].as_array().unwrap();
    check_markers(&text, cites);
    let ids: Vec<u64> = cites
        .iter()
        .map(|c| c["sourceId"].as_u64().unwrap())
        .collect();
    assert_eq!(ids, [1, 2, 1, 3, 1, 2, 3, 1, 4, 2, 3, 5]);
    assert_eq!(cites[0]["span"], json!([216, 219]));
    assert_eq!(out.extra["sources"].as_array().unwrap().len(), 6);
    assert_eq!(out.extra["usage"]["totalTokens"], 403);
}

#[test]
fn the_api_reference_example_with_search_results() {
    let out = whole(
        Provider::Perplexity,
        &fixture(FORMAT, "api-reference-search-results.json"),
    );
    assert_eq!(output_text(&out), "<string>");
    // `search_results` win over `citations`; "<string>" is no http(s) URL: a rawUrl.
    assert_eq!(
        out.extra["sources"],
        json!([{"sourceId": 1, "kind": "search_result", "rawUrl": "<string>", "title": "<string>", "date": "2023-12-25"}])
    );
    assert!(out.extra.get("citations").is_none());
    let usage = &out.extra["usage"];
    assert_eq!(
        (
            &usage["inputTokens"],
            &usage["outputTokens"],
            &usage["totalTokens"]
        ),
        (&json!(123), &json!(123), &json!(123))
    );
    assert_eq!(usage["raw"]["citation_tokens"], 123);
    assert_eq!(usage["raw"]["search_context_size"], "<string>");
    assert_eq!(out.extra["finishReason"], "stop");
}

/// A stream built from a whole body (no recording pair is one answer: the recorded streams
/// were cut upstream): its content in pieces of `size` characters, each chunk repeating the
/// lists and a running usage, the last with `finish_reason` and `chat.completion.done`.
fn stream_of(body: &Value, size: usize) -> String {
    let content = body["choices"][0]["message"]["content"].as_str().unwrap();
    let chars: Vec<char> = content.chars().collect();
    let mut chunks = Vec::new();
    for (i, piece) in chars.chunks(size).enumerate() {
        let mut chunk = body.clone();
        chunk["object"] = json!("chat.completion.chunk");
        chunk["usage"]["completion_tokens"] = json!(i + 1);
        chunk["choices"] = json!([{"index": 0, "delta": {"role": "assistant", "content": piece.iter().collect::<String>()}}]);
        chunks.push(chunk);
    }
    let mut last = body.clone();
    last["object"] = json!("chat.completion.done");
    last["choices"] = json!([{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": "stop"}]);
    chunks.push(last);
    sse(&chunks)
}

#[test]
fn streamed_is_whole() {
    for name in [
        "citations.json",
        "text-citations.json",
        "api-reference-search-results.json",
    ] {
        let bytes = fixture(FORMAT, name);
        let body: Value = serde_json::from_slice(&bytes).unwrap();
        let out = whole(Provider::Perplexity, &bytes);
        for size in [1, 2, 7, 50] {
            let (events, error) = stream(&stream_of(&body, size));
            assert_eq!(error, None);
            check_order(&events);
            assert_eq!(answer_text(&events), output_text(&out), "{name} by {size}");
            let want = out.extra.get("citations").cloned().unwrap_or(json!([]));
            assert_eq!(json!(citations(&events)), want, "{name} by {size}");
            assert_eq!(&sources(&events), &out.extra["sources"]);
            assert_eq!(usage(&events), out.extra["usage"]);
        }
    }
}

// Hand-built bodies from here on (not recordings).

fn search_body(content: &str, n: usize) -> Value {
    let results: Vec<Value> = (1..=n)
        .map(|i| json!({"title": format!("T{i}"), "url": format!("https://s{i}.example/"), "date": "2025-01-02", "last_updated": "2025-02-03", "snippet": format!("snip {i}")}))
        .collect();
    json!({"id": "x", "object": "chat.completion",
        "citations": (1..=n).map(|i| format!("https://s{i}.example/")).collect::<Vec<_>>(),
        "search_results": results,
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}]})
}

fn whole_of(body: &Value) -> citeflow::event::LmOutput {
    parse_response(Provider::Perplexity, &body.to_string(), false).unwrap()
}

#[test]
fn search_results_are_the_sources_and_markers_cite_them() {
    let out = whole_of(&search_body("Alpha [1, 2]. Beta [3][9].", 3));
    let sources = out.extra["sources"].as_array().unwrap();
    assert_eq!(
        sources[1],
        json!({"sourceId": 2, "kind": "search_result", "url": "https://s2.example/", "title": "T2", "date": "2025-01-02", "snippet": "snip 2"})
    );
    let cites = out.extra["citations"].as_array().unwrap();
    assert_eq!(cites.len(), 4);
    // A group is one citation per id, with the group's span.
    assert_eq!(
        cites[0],
        json!({"sourceId": 1, "marker": "[1, 2]", "span": [6, 12], "valid": true, "documentTitle": "T1",
            "url": "https://s1.example/", "location": "search_result", "covers": "marker"})
    );
    assert_eq!(cites[1]["sourceId"], 2);
    assert_eq!(cites[1]["span"], json!([6, 12]));
    // An id no source has: invalid, no URL.
    assert_eq!(
        cites[3],
        json!({"sourceId": 9, "marker": "[9]", "span": [22, 25], "valid": false, "location": "search_result", "covers": "marker"})
    );
}

#[test]
fn spans_around_wide_characters() {
    // CJK, emoji (surrogate pairs), combining marks and RTL text before, between and after markers.
    for content in [
        "東京タワー[1]は333 mです[2]。",
        "😀👍🏽 [2] e\u{301}te\u{301}[1]",
        "שלום עולם [1] مرحبا [2]😀",
        "[1]東京[2]",
    ] {
        let out = whole_of(&search_body(content, 2));
        let text = output_text(&out);
        assert_eq!(text, content);
        let cites = out.extra["citations"].as_array().unwrap();
        assert_eq!(cites.len(), 2, "{content}");
        check_markers(&text, cites);
        // The same streamed one character at a time.
        let (events, error) = stream(&stream_of(&search_body(content, 2), 1));
        assert_eq!(error, None);
        assert_eq!(json!(citations(&events)), json!(cites));
    }
}

#[test]
fn no_sources_no_citations() {
    let mut body = search_body("a[1] b", 0);
    body.as_object_mut().unwrap().remove("search_results");
    let out = whole_of(&body);
    assert!(out.extra.get("citations").is_none() && out.extra.get("sources").is_none());
}

#[test]
fn hostile_input() {
    let code = |body: &str| stream(body).1;
    let chunk = |extra: Value| {
        let mut c = json!({"id": "x", "choices": [{"index": 0, "delta": {"content": "hi"}, "finish_reason": "stop"}]});
        for (k, v) in extra.as_object().unwrap() {
            c[k] = v.clone();
        }
        format!("data: {c}\n\n")
    };
    assert_eq!(code("data: {not json\n\n"), Some("INVALID_PROVIDER_DATA"));
    assert_eq!(code("data: [1]\n\n"), Some("INVALID_PROVIDER_DATA"));
    for bad in [
        json!({"choices": {"0": 1}}),
        json!({"choices": [7]}),
        json!({"choices": [{"delta": "hi"}]}),
        json!({"choices": [{"delta": {"content": 5}}]}),
        json!({"choices": [{"delta": {"content": [3]}}]}),
        json!({"choices": [{"delta": {"content": [{"type": "text", "text": 3}]}}]}),
        json!({"choices": [{"delta": {"content": "x"}, "finish_reason": 1}]}),
        json!({"citations": "https://a.example/"}),
        json!({"citations": [1]}),
        json!({"search_results": [1]}),
        json!({"search_results": {"a": 1}}),
        json!({"search_results": [{"url": 5}]}),
        json!({"usage": "many"}),
    ] {
        assert_eq!(
            code(&chunk(bad.clone())),
            Some("INVALID_PROVIDER_DATA"),
            "{bad}"
        );
        assert!(
            parse_response(
                Provider::Perplexity,
                &{
                    let mut b = search_body("x", 1);
                    for (k, v) in bad.as_object().unwrap() {
                        b[k] = v.clone();
                    }
                    b
                }
                .to_string(),
                false
            )
            .is_err(),
            "{bad}"
        );
    }
    assert_eq!(
        parse_response(Provider::Perplexity, "{oops", false)
            .unwrap_err()
            .code(),
        "INVALID_PROVIDER_DATA"
    );
    // No finish_reason and no [DONE]: cut short.
    let cut = "data: {\"choices\":[{\"delta\":{\"content\":\"a [1]\"}}],\"citations\":[\"https://a.example/\"]}\n\n";
    let (events, error) = stream(cut);
    assert_eq!(error, Some("STREAM_TRUNCATED"));
    assert!(citations(&events).is_empty());
    // [DONE] completes it.
    let (events, error) = stream(&format!("{cut}data: [DONE]\n\n"));
    assert_eq!(error, None);
    assert_eq!(citations(&events).len(), 1);
    // An error in the stream.
    let (_, error) = stream(&format!(
        "{cut}data: {{\"error\":{{\"message\":\"boom\",\"type\":\"server_error\",\"code\":500}}}}\n\n"
    ));
    assert_eq!(error, Some("PROVIDER_ERROR"));
    // Huge lists are bounded; markers past them are invalid, ids past u32 name no source.
    let many: Vec<String> = (0..5000)
        .map(|i| format!("https://s{i}.example/"))
        .collect();
    let body = json!({"citations": many, "choices": [{"message": {"content": "a [1500] b [4294967296] c [1024]"}, "finish_reason": "stop"}]});
    let out = whole_of(&body);
    assert_eq!(out.extra["sources"].as_array().unwrap().len(), 1024);
    let cites = out.extra["citations"].as_array().unwrap();
    let got: Vec<(Value, Value)> = cites
        .iter()
        .map(|c| (c["sourceId"].clone(), c["valid"].clone()))
        .collect();
    assert_eq!(
        got,
        [
            (json!(1500), json!(false)),
            (json!(0), json!(false)),
            (json!(1024), json!(true))
        ]
    );
    assert_eq!(cites[2]["url"], "https://s1023.example/");
    // A javascript: URL is never a `url`.
    let body = json!({"citations": ["javascript:alert(1)"], "choices": [{"message": {"content": "a [1]"}, "finish_reason": "stop"}]});
    let out = whole_of(&body);
    assert_eq!(out.extra["citations"][0]["rawUrl"], "javascript:alert(1)");
    assert!(out.extra["citations"][0].get("url").is_none());
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
        temperature: Some(0.2),
        max_tokens: Some(100),
        stream,
        ..Default::default()
    }
}

fn body_of(req: &LmRequest) -> Value {
    let id = ModelId::parse("perplexity/sonar").unwrap();
    let http = build_request(&id, req, Some("pplx-key"), None).unwrap();
    assert_eq!(http.url, "https://api.perplexity.ai/chat/completions");
    assert!(http
        .headers
        .contains(&("authorization".into(), "Bearer pplx-key".into())));
    assert!(!http.url.contains("pplx-key") && !http.body.contains("pplx-key"));
    serde_json::from_str(&http.body).unwrap()
}

#[test]
fn requests() {
    let plain = body_of(&req(false));
    assert_eq!(
        plain,
        json!({"model": "sonar", "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Hi"}],
            "temperature": 0.2, "max_tokens": 100})
    );
    let streamed = body_of(&req(true));
    assert_eq!(streamed["stream"], true);
    assert!(streamed.get("stream_options").is_none());
    let schema = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let structured = body_of(&LmRequest {
        response_schema: Some(schema.clone()),
        ..req(false)
    });
    assert_eq!(
        structured["response_format"],
        json!({"type": "json_schema", "json_schema": {"name": "response", "schema": schema}})
    );
    let cite = |enforce: &str| LmRequest {
        citations: Some(
            CiteRequest::from_value(&json!({"enforce": enforce, "sourceCount": 2})).unwrap(),
        ),
        ..req(true)
    };
    let cited = body_of(&cite("auto"));
    assert_eq!(
        cited["response_format"]["json_schema"]["name"],
        "cited_answer"
    );
    assert!(cited["response_format"]["json_schema"]["schema"].is_object());
    assert!(cited["messages"][0]["content"]
        .as_str()
        .unwrap()
        .ends_with(STRUCTURED_NOTE));
    let prompt = body_of(&cite("prompt"));
    assert!(prompt.get("response_format").is_none());
    let id = ModelId::parse("perplexity/sonar").unwrap();
    for bad in [
        LmRequest {
            logprobs: Some(true),
            ..req(false)
        },
        LmRequest {
            top_logprobs: Some(2),
            ..req(false)
        },
        LmRequest {
            grammar: Some("root ::= \"a\"".into()),
            ..req(false)
        },
        cite("grammar"),
        cite("tool"),
    ] {
        let e = build_request(&id, &bad, None, None).unwrap_err();
        assert_eq!(e.code(), "INVALID_OPTION", "{bad:?}");
    }
    // Another base URL, no key: no authorization header.
    let http = build_request(&id, &req(false), None, Some("http://localhost:9/")).unwrap();
    assert_eq!(http.url, "http://localhost:9/chat/completions");
    assert!(http.headers.iter().all(|(k, _)| k != "authorization"));
}

#[test]
fn a_structured_answer_has_no_markers() {
    // The cited answer's JSON (`{"segments": [{"text", "citations": [1, 2]}]}`) carries its ids
    // as arrays, which read as markers in prose: the cited-answer stage reads them instead.
    let json = r#"{"segments":[{"text":"Alpha.","citations":[1, 2]}]}"#;
    let out = whole_of(&search_body(json, 2));
    assert!(
        out.extra.get("citations").is_none(),
        "{:?}",
        out.extra.get("citations")
    );
    assert_eq!(out.extra["sources"].as_array().unwrap().len(), 2);
    // Prose that merely starts with a brace is still prose.
    let prose = whole_of(&search_body("{Note} Alpha [1].", 2));
    assert_eq!(prose.extra["citations"].as_array().unwrap().len(), 1);
}
