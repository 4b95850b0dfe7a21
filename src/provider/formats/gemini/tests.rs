//! Unit tests of the Gemini decoder's pieces (the recorded answers are read in
//! tests/provider_google.rs). The bodies here are built by hand.

use serde_json::json;

use super::*;

fn push(decoder: &mut GeminiDecoder, data: &str) -> Result<Vec<Event>, StreamError> {
    let mut out = Vec::new();
    let message = SseEvent {
        event: None,
        data,
        id: None,
        retry: None,
    };
    decoder.push(message, &mut out)?;
    Ok(out)
}

#[test]
fn usage_counts_thoughts_and_tool_prompts() {
    let raw = json!({"promptTokenCount": 17, "candidatesTokenCount": 201, "thoughtsTokenCount": 213,
        "toolUsePromptTokenCount": 119, "cachedContentTokenCount": 5, "totalTokenCount": 550});
    let c = counted(&raw);
    assert_eq!(
        (
            c.input,
            c.output,
            c.total,
            c.cached_input,
            c.reasoning,
            c.cache_write
        ),
        (Some(136), Some(414), Some(550), Some(5), Some(213), None)
    );
    // Nothing guessed: no prompt count, no input; no output count, no output.
    let c = counted(&json!({"totalTokenCount": 9, "promptTokenCount": "9"}));
    assert_eq!((c.input, c.output, c.total), (None, None, Some(9)));
    let c = counted(&json!({"promptTokenCount": u64::MAX, "toolUsePromptTokenCount": 1}));
    assert_eq!(c.input, None);
}

#[test]
fn errors_name_gemini_status() {
    let mut d = GeminiDecoder::default();
    let e = push(
        &mut d,
        r#"{"error": {"code": 429, "message": "Resource has been exhausted", "status": "RESOURCE_EXHAUSTED"}}"#,
    )
    .unwrap_err();
    assert_eq!(
        e,
        StreamError::Provider {
            provider: "google",
            message: "Resource has been exhausted".into(),
            code: Some("RESOURCE_EXHAUSTED".into()),
        }
    );
    let e = push(&mut GeminiDecoder::default(), r#"{"error": {"code": 500}}"#).unwrap_err();
    assert_eq!(e.code(), "PROVIDER_ERROR");
    assert!(e.message().contains("(500)"));
}

#[test]
fn nothing_follows_the_end() {
    let mut d = GeminiDecoder::default();
    let end =
        r#"{"candidates": [{"content": {"parts": [{"text": "Hi"}]}, "finishReason": "STOP"}]}"#;
    assert_eq!(push(&mut d, end).unwrap().len(), 3);
    assert_eq!(d.finish_reason(), Some("STOP"));
    assert!(push(&mut d, "not json").unwrap().is_empty());
    assert!(d.finish(&mut Vec::new()).is_ok());
}

#[test]
fn bad_data_is_quoted_briefly() {
    let long = format!("{{\"candidates\": 1, \"x\": \"{}é\"}}", "a".repeat(500));
    let e = push(&mut GeminiDecoder::default(), &long).unwrap_err();
    assert_eq!(e.code(), "INVALID_PROVIDER_DATA");
    assert!(e.message().len() < 400, "{}", e.message());
    assert_eq!(super::super::head("aé"), "aé");
    assert_eq!(super::super::head(&"é".repeat(100)), "é".repeat(80));
}

/// A grounding read apart from its stream: byte offsets of text with 2-, 4- and 3-byte
/// characters before and inside the segments become UTF-16 spans over the same text.
#[test]
fn grounding_citations_count_utf8_bytes_as_utf16_spans() {
    let text = "Café ☕ 😀 is open. 東京 has 三 cafés. Done.";
    let segments = ["😀 is open.", "東京 has 三 cafés."];
    let byte_span = |segment: &str| {
        let start = text.find(segment).unwrap();
        (start, start + segment.len())
    };
    let (a, b) = (byte_span(segments[0]), byte_span(segments[1]));
    let grounding = json!({
        "groundingChunks": [
            {"web": {"uri": "https://example.com/a", "title": "example.com"}},
            {"retrievedContext": {"title": "notes.txt", "documentName": "fileSearchStores/s/documents/d", "text": "…"}}
        ],
        "groundingSupports": [
            {"segment": {"startIndex": a.0, "endIndex": a.1, "text": segments[0]}, "groundingChunkIndices": [0]},
            {"segment": {"startIndex": b.0, "endIndex": b.1, "text": segments[1]}, "groundingChunkIndices": [0, 1]}
        ]
    });
    let (sources, citations) = grounding_citations(text, &grounding).unwrap();
    assert_eq!(sources.len(), 2);
    let utf16: Vec<u16> = text.encode_utf16().collect();
    let cited: Vec<(String, u32)> = citations
        .iter()
        .map(|c| {
            let [start, end] = c.span;
            (String::from_utf16(&utf16[start..end]).unwrap(), c.source_id)
        })
        .collect();
    assert_eq!(
        cited,
        [
            (segments[0].to_owned(), 1),
            (segments[1].to_owned(), 1),
            (segments[1].to_owned(), 2)
        ]
    );
    assert_eq!(citations[2].location.as_deref(), Some("retrievedContext"));
    assert_eq!(citations[2].document_title.as_deref(), Some("notes.txt"));
    // Not Gemini's shape: INVALID_PROVIDER_DATA, never a guess.
    for bad in [
        json!([]),
        json!({"groundingSupports": 1}),
        json!({"groundingChunks": [{"web": {"uri": 5}}]}),
    ] {
        let e = grounding_citations(text, &bad).unwrap_err();
        assert_eq!(e.code(), "INVALID_PROVIDER_DATA", "{bad}");
    }
}
