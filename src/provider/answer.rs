//! Whole (non-streamed) answers read as an LMOutput: text, thinking, structured items, the
//! provider's own citations, usage and finish reason.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::cite::CitedAnswer;
use crate::error::TransformError;
use crate::event::{LmOutput, OutputItem};
use crate::transform::OutputTransformer;

use super::native_citations::{self, CharsToUtf16, UrlNumbers};
use super::wire::{CitationPart, MAX_LIST_ITEMS};
use super::{CiteRequest, Provider, RequestError};

/// A whole (non-streamed) answer as an LMOutput, with `usage` (and `finishReason`).
/// `structured`: the request asked for a structured answer (`responseSchema`); an
/// OpenAI-style answer's JSON text becomes a structured item then, as Anthropic's forced tool
/// input does, so both providers answer in one shape.
pub fn parse_response(
    provider: Provider,
    body: &str,
    structured: bool,
) -> Result<LmOutput, RequestError> {
    if let Some(output) = super::formats::whole_answer(provider, body, structured) {
        return output;
    }
    let invalid = |detail: String| RequestError::InvalidResponse {
        provider: provider.name(),
        detail,
    };
    let v: Value = serde_json::from_str(body).map_err(|e| invalid(e.to_string()))?;
    let mut outputs = Vec::new();
    let mut extra = Map::new();
    // The provider's own citations, spans in the answer text (the text items joined).
    let mut citations = Vec::new();
    let mut answer = CharsToUtf16::default();
    let mut urls = UrlNumbers::default();
    if provider == Provider::Anthropic {
        let content = v
            .get("content")
            .and_then(Value::as_array)
            .ok_or_else(|| invalid("no `content` array".into()))?;
        for block in content {
            match block.get("type").and_then(Value::as_str) {
                Some("text") => {
                    let text = block
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let start = answer.units();
                    answer.push(text);
                    let cited = block.get("citations").and_then(Value::as_array);
                    for c in cited.into_iter().flatten().take(MAX_LIST_ITEMS) {
                        let span = [start, answer.units()];
                        citations.push(with_citation_part(c, |c| {
                            native_citations::anthropic(Some(c), span, &mut urls)
                        }));
                    }
                    outputs.push(OutputItem::Text(text.to_owned()));
                }
                Some("thinking") => outputs.push(OutputItem::Thinking(
                    block
                        .get("thinking")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_owned(),
                )),
                Some("tool_use") => outputs.push(OutputItem::Structured(
                    block.get("input").cloned().unwrap_or(Value::Null),
                )),
                _ => {}
            }
        }
        if let Some(r) = v.get("stop_reason") {
            extra.insert("finishReason".into(), r.clone());
        }
    } else {
        let message = v
            .pointer("/choices/0/message")
            .ok_or_else(|| invalid("no `choices[0].message`".into()))?;
        for key in ["reasoning_content", "reasoning"] {
            if let Some(t) = message
                .get(key)
                .and_then(Value::as_str)
                .filter(|t| !t.is_empty())
            {
                outputs.push(OutputItem::Thinking(t.to_owned()));
                break;
            }
        }
        if let Some(t) = message.get("content").and_then(content_text) {
            answer.push(&t);
            let annotations = message.get("annotations").and_then(Value::as_array);
            for a in annotations.into_iter().flatten().take(MAX_LIST_ITEMS) {
                citations.extend(with_citation_part(a, |a| {
                    native_citations::openai(a, &answer, &mut urls)
                }));
            }
            if structured {
                let value = serde_json::from_str(&t).map_err(|e| {
                    RequestError::InvalidOutput(format!(
                        "the answer to a responseSchema request is not JSON ({e}); a cut answer (finish reason \"length\") needs a larger maxTokens"
                    ))
                })?;
                outputs.push(OutputItem::Structured(value));
            } else {
                outputs.push(OutputItem::Text(t.into_owned()));
            }
        }
        if let Some(r) = v.pointer("/choices/0/finish_reason") {
            extra.insert("finishReason".into(), r.clone());
        }
        if let Some(lp) = v.pointer("/choices/0/logprobs").filter(|l| !l.is_null()) {
            extra.insert("logprobs".into(), lp.clone());
        }
    }
    if let Some(u) = v.get("usage") {
        extra.insert("usage".into(), super::usage::normalize(u.clone()));
    }
    if !citations.is_empty() {
        let citations = serde_json::to_value(citations).unwrap_or(Value::Null);
        extra.insert("citations".into(), citations);
    }
    Ok(LmOutput { outputs, extra })
}

/// A citation object of a whole answer read as a stream's are: through its JSON text, so one
/// reader serves both (a reader from a `Value` costs the module a second copy).
fn with_citation_part<T>(value: &Value, f: impl FnOnce(&CitationPart) -> T) -> T {
    let text = value.to_string();
    f(&serde_json::from_str::<CitationPart>(&text).unwrap_or_default())
}

/// A whole cited answer given as JSON (structured outputs, a forced tool) as marked text and
/// `citations`: the streaming reader fed once (see [`CitedAnswer`]).
pub fn cited_output(output: LmOutput, cite: &CiteRequest) -> Result<LmOutput, RequestError> {
    CitedAnswer::new(cite.parse_options())
        .transform(output)
        .map_err(|e| match e {
            // The stage's own words ("the cited answer is not the expected JSON: …").
            TransformError::InvalidOutput(why) => RequestError::InvalidOutput(why),
            e => RequestError::InvalidOutput(e.to_string()),
        })
}

/// The text of an OpenAI-style `content`: a string, or the text parts of an array of content
/// parts (`[{"type": "text", "text": "…"}]`) joined; `None` when there is no text.
pub(crate) fn content_text(content: &Value) -> Option<Cow<'_, str>> {
    match content {
        Value::String(s) => Some(Cow::Borrowed(s)),
        Value::Array(parts) => {
            let texts: Vec<&str> = parts
                .iter()
                .filter(|p| {
                    p.get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| t == "text" || t == "output_text")
                })
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            (!texts.is_empty()).then(|| Cow::Owned(texts.concat()))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn native_citations_of_whole_answers() {
        let anthropic = r#"{"content":[{"type":"text","text":"A "},{"type":"text","text":"b😀c","citations":[{"type":"char_location","cited_text":"B","document_index":1,"document_title":"T","start_char_index":3,"end_char_index":9},{"type":"web_search_result_location","url":"https://e.org/x","title":"X","cited_text":"c","encrypted_index":"z"}]}],"stop_reason":"end_turn"}"#;
        let out = parse_response(Provider::Anthropic, anthropic, false).unwrap();
        let cites = &out.extra["citations"];
        assert_eq!(cites[0]["span"], json!([2, 6]));
        assert_eq!(
            (
                &cites[0]["sourceId"],
                &cites[0]["sourceSpan"],
                &cites[0]["location"]
            ),
            (&json!(2), &json!([3, 9]), &json!("char_location"))
        );
        assert_eq!(
            (
                &cites[1]["sourceId"],
                &cites[1]["url"],
                &cites[1]["documentTitle"]
            ),
            (&json!(1), &json!("https://e.org/x"), &json!("X"))
        );
        let openai = r#"{"choices":[{"message":{"content":"😀 see [x](https://e.org/x)","annotations":[{"type":"url_citation","url_citation":{"start_index":6,"end_index":26,"url":"https://e.org/x","title":"X"}},{"type":"file_citation"}]},"finish_reason":"stop"}]}"#;
        let out = parse_response(Provider::Openai, openai, false).unwrap();
        assert_eq!(out.extra["citations"].as_array().unwrap().len(), 1);
        assert_eq!(out.extra["citations"][0]["span"], json!([7, 27]));
        let plain = r#"{"choices":[{"message":{"content":"Hi"}}]}"#;
        assert!(parse_response(Provider::Openai, plain, false)
            .unwrap()
            .extra
            .get("citations")
            .is_none());
    }

    /// `url` holds only http(s) URLs: any other value a provider sends is kept as `rawUrl`,
    /// takes no number among the answer's pages, and names no source unless an index does.
    #[test]
    fn urls_that_are_not_http_are_raw_urls() {
        let cite = |kind: &str, more: &str| {
            format!(r#"{{"type":"{kind}","cited_text":"c","title":"T"{more}}}"#)
        };
        let anthropic = format!(
            r#"{{"content":[{{"type":"text","text":"abc","citations":[{},{},{},{}]}}]}}"#,
            cite(
                "web_search_result_location",
                r#","url":"javascript:alert(1)""#
            ),
            cite(
                "web_search_result_location",
                r#","url":"data:text/html,<script>alert(1)</script>""#
            ),
            cite("web_search_result_location", r#","url":"https://e.org/x""#),
            cite(
                "search_result_location",
                r#","search_result_index":2,"source":"JavaScript:alert(2)""#
            ),
        );
        let out = parse_response(Provider::Anthropic, &anthropic, false).unwrap();
        let fields = |c: &Value| {
            (
                c["sourceId"].clone(),
                c["valid"].clone(),
                c.get("url").cloned(),
                c.get("rawUrl").cloned(),
            )
        };
        let got: Vec<_> = out.extra["citations"]
            .as_array()
            .unwrap()
            .iter()
            .map(fields)
            .collect();
        assert_eq!(
            got,
            [
                (
                    json!(0),
                    json!(false),
                    None,
                    Some(json!("javascript:alert(1)"))
                ),
                (
                    json!(0),
                    json!(false),
                    None,
                    Some(json!("data:text/html,<script>alert(1)</script>"))
                ),
                // The first http(s) page is page 1.
                (json!(1), json!(true), Some(json!("https://e.org/x")), None),
                // A search result index still names the source.
                (
                    json!(3),
                    json!(true),
                    None,
                    Some(json!("JavaScript:alert(2)"))
                ),
            ]
        );
        let openai = r#"{"choices":[{"message":{"content":"see x and y","annotations":[
            {"type":"url_citation","url_citation":{"start_index":4,"end_index":5,"url":" javascript:alert(1)","title":"X"}},
            {"type":"url_citation","url_citation":{"start_index":10,"end_index":11,"url":"https://e.org/y","title":"Y"}}]}}]}"#;
        let out = parse_response(Provider::Openai, openai, false).unwrap();
        let cites = &out.extra["citations"];
        assert_eq!(
            cites[0],
            json!({"sourceId": 0, "marker": "", "span": [4, 5], "valid": false, "documentTitle": "X",
                "rawUrl": " javascript:alert(1)", "location": "url_citation", "covers": "link"})
        );
        assert_eq!(
            fields(&cites[1]),
            (json!(1), json!(true), Some(json!("https://e.org/y")), None)
        );
    }

    #[test]
    fn structured_answers_are_one_shape_for_every_provider() {
        let openai = r#"{"choices":[{"message":{"content":"{\"answer\": \"Paris\"}"},"finish_reason":"stop"}]}"#;
        let anthropic = r#"{"content":[{"type":"tool_use","id":"t","name":"answer","input":{"answer":"Paris"}}],"stop_reason":"tool_use"}"#;
        let want = [OutputItem::Structured(
            serde_json::json!({"answer": "Paris"}),
        )];
        assert_eq!(
            parse_response(Provider::Openai, openai, true)
                .unwrap()
                .outputs,
            want
        );
        assert_eq!(
            parse_response(Provider::Anthropic, anthropic, true)
                .unwrap()
                .outputs,
            want
        );
        let cut =
            r#"{"choices":[{"message":{"content":"{\"answer\": \"Pa"},"finish_reason":"length"}]}"#;
        let e = parse_response(Provider::Openai, cut, true).unwrap_err();
        // The model's answer, not the provider's envelope.
        assert_eq!(e.code(), "INVALID_OUTPUT");
        assert!(e.to_string().contains("maxTokens"));
    }

    #[test]
    fn content_parts() {
        let body = r#"{"choices":[{"message":{"content":[{"type":"text","text":"a"},{"type":"refusal","refusal":"no"},{"text":"b"}]}}]}"#;
        assert_eq!(
            parse_response(Provider::Openai, body, false)
                .unwrap()
                .outputs,
            [OutputItem::Text("ab".into())]
        );
        let body = r#"{"choices":[{"message":{"content":[{"type":"image_url"}]}}]}"#;
        assert!(parse_response(Provider::Openai, body, false)
            .unwrap()
            .outputs
            .is_empty());
    }
}
