//! The typed, borrowed decoding of provider stream messages reads exactly what the generic
//! `serde_json::Value` decoding it replaced read: the previous decoder is kept here, unchanged
//! but for its name and the later rule that a citation's `url` is only an http(s) URL (any
//! other in `rawUrl`), as the oracle, and both are fed the same messages: well-formed, odd
//! (wrong types, duplicate and escaped keys, non-object values, unknown events) and broken
//! (truncated, deeply nested, out-of-range numbers, lone surrogates). Same events, same errors
//! (codes and messages; for text that is not JSON, the code and the data quoted, since the
//! decoder's own reader words the reason itself), same state after each message.

use std::borrow::Cow;

use citeflow::event::{types, Event};
use citeflow::provider::framing::DeltaFraming;
use citeflow::provider::native_citations::MAX_CITED_URLS;
use citeflow::provider::stream::MAX_CONTENT_BLOCKS;
use citeflow::provider::usage::normalize;
use citeflow::provider::{ProviderStreamDecoder, SseMessage, StreamError, StreamFormat, USAGE};
use proptest::prelude::*;
use serde_json::{json, Map, Value};

mod oracle {
    use super::*;

    /// Usage in parts as the library merged it before usage was kept as JSON text: parsed
    /// objects, a later key's value replacing an earlier one's in place.
    #[derive(Debug, Clone, Default)]
    pub struct UsageParts {
        merged: Option<Map<String, Value>>,
        changed: bool,
    }

    impl UsageParts {
        pub fn add(&mut self, report: Value) {
            if let Value::Object(report) = report {
                let merged = self.merged.get_or_insert_with(Map::new);
                for (key, value) in report {
                    merged.insert(key, value);
                }
                self.changed = true;
            }
        }

        pub fn take_changed(&mut self) -> Option<Value> {
            if !std::mem::take(&mut self.changed) {
                return None;
            }
            Some(normalize(Value::Object(self.merged.clone()?)))
        }
    }

    #[derive(Debug, Clone, Copy, PartialEq, Eq)]
    enum BlockKind {
        Text,
        Thinking,
        Other,
    }

    /// Decodes one provider stream.
    #[derive(Debug, Clone)]
    pub struct ValueDecoder {
        format: StreamFormat,
        name: &'static str,
        done: bool,
        finished: bool,
        message_id: Option<String>,
        /// Anthropic content blocks as (index, kind), not a vector indexed by the provider's
        /// number: an index of 4 294 967 295 costs one entry, not gigabytes. At most
        /// [`MAX_CONTENT_BLOCKS`] (a message has a handful), so each lookup is a short scan.
        blocks: Vec<(u64, BlockKind)>,
        /// UTF-16 length of the answer so far (where a cited block starts).
        answer16: usize,
        /// The answer so far (annotations count its code points).
        answer: String,
        /// The open text block's index, start and held citations.
        cited: Option<(u64, usize, Vec<Value>)>,
        urls: Vec<String>,
        finish_reason: Option<String>,
        usage: UsageParts,
        framing: DeltaFraming,
    }

    impl ValueDecoder {
        pub fn new(format: StreamFormat) -> Self {
            Self {
                format,
                name: match format {
                    StreamFormat::OpenAi => "openai",
                    StreamFormat::Anthropic => "anthropic",
                    StreamFormat::Other(_) => unreachable!("only OpenAI and Anthropic streams"),
                },
                done: false,
                finished: false,
                message_id: None,
                blocks: Vec::new(),
                answer16: 0,
                answer: String::new(),
                cited: None,
                urls: Vec::new(),
                finish_reason: None,
                usage: UsageParts::default(),
                framing: DeltaFraming::default(),
            }
        }

        fn usage_event(&mut self) -> Option<Event> {
            let usage = self.usage.take_changed()?;
            Some(Event::json(USAGE, self.message_id.clone(), usage))
        }

        /// Why the model stopped, once it said so.
        pub fn finish_reason(&self) -> Option<&str> {
            self.finish_reason.as_deref()
        }

        fn invalid(&self, detail: impl Into<String>) -> StreamError {
            StreamError::InvalidData {
                provider: self.name,
                detail: detail.into(),
            }
        }

        pub fn push(&mut self, message: &SseMessage) -> Result<Vec<Event>, StreamError> {
            if self.finished {
                return Err(StreamError::Finished);
            }
            if self.done || message.data.is_empty() {
                return Ok(Vec::new());
            }
            if message.is_done() {
                self.done = true;
                let mut out = Vec::new();
                self.framing.close(&self.message_id, &mut out);
                return Ok(out);
            }
            let value: Value = serde_json::from_str(&message.data)
                .map_err(|e| self.invalid(format!("{e} in {:?}", truncate(&message.data))))?;
            if let Some(error) = value
                .get("error")
                .filter(|_| message.event.as_deref() != Some("ping"))
            {
                return Err(self.provider_error(error));
            }
            match self.format {
                StreamFormat::OpenAi => self.openai(&value),
                StreamFormat::Anthropic => self.anthropic(&value),
                StreamFormat::Other(_) => unreachable!("only OpenAI and Anthropic streams"),
            }
        }

        /// Ends the stream: an error unless the provider said it was complete.
        pub fn finish(&mut self) -> Result<Vec<Event>, StreamError> {
            if self.finished {
                return Err(StreamError::Finished);
            }
            self.finished = true;
            if self.done || (self.format == StreamFormat::OpenAi && self.finish_reason.is_some()) {
                Ok(Vec::new())
            } else {
                Err(StreamError::Truncated {
                    provider: self.name,
                })
            }
        }

        fn provider_error(&self, error: &Value) -> StreamError {
            let message = error
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned)
                .unwrap_or_else(|| error.to_string());
            let code = error.get("code").or_else(|| error.get("type")).map(|c| {
                c.as_str()
                    .map(str::to_owned)
                    .unwrap_or_else(|| c.to_string())
            });
            StreamError::Provider {
                provider: self.name,
                message,
                code,
            }
        }

        fn text_event(&mut self, kind: &str, id: Option<String>, text: &str) -> Event {
            if kind == types::RESPONSE {
                self.answer16 = self.answer16.saturating_add(text.encode_utf16().count());
                self.answer.push_str(text);
            }
            Event::text(kind, id, text)
        }

        fn url_number(&mut self, url: &str) -> u64 {
            let at = match self.urls.iter().position(|u| u == url) {
                Some(i) => i,
                None if self.urls.len() < MAX_CITED_URLS => {
                    self.urls.push(url.to_owned());
                    self.urls.len() - 1
                }
                None => MAX_CITED_URLS - 1,
            };
            at as u64 + 1
        }

        /// UTF-16 offset of code point `index` of the answer.
        fn utf16_of(&self, index: u64) -> u64 {
            self.answer
                .chars()
                .take(usize::try_from(index).unwrap_or(usize::MAX))
                .map(|c| c.len_utf16() as u64)
                .sum()
        }

        fn annotation(&mut self, a: &Value) -> Option<Value> {
            if a.get("type").and_then(Value::as_str) != Some("url_citation") {
                return None;
            }
            let detail = match a.get("url_citation") {
                Some(d) if d.is_object() => d,
                Some(_) => &Value::Null,
                None => a,
            };
            let raw = detail.get("url").and_then(Value::as_str)?.to_owned();
            let (url, raw_url) = split_url(Some(raw));
            let start = self.utf16_of(
                detail
                    .get("start_index")
                    .and_then(Value::as_u64)
                    .unwrap_or(0),
            );
            let end = self
                .utf16_of(detail.get("end_index").and_then(Value::as_u64).unwrap_or(0))
                .max(start);
            let source_id = url.as_deref().map_or(0, |u| self.url_number(u));
            let mut c = Map::new();
            c.insert("sourceId".into(), json!(source_id));
            c.insert("marker".into(), json!(""));
            c.insert("span".into(), json!([start, end]));
            c.insert("valid".into(), json!(url.is_some()));
            if let Some(t) = detail.get("title").and_then(Value::as_str) {
                c.insert("documentTitle".into(), json!(t));
            }
            insert_urls(&mut c, url, raw_url);
            c.insert("location".into(), json!("url_citation"));
            c.insert("covers".into(), json!("link"));
            Some(Value::Object(c))
        }

        fn release_citations(&mut self, out: &mut Vec<Event>) {
            if let Some((index, start, held)) = self.cited.take() {
                let id = self.block_id(index);
                for mut c in held {
                    c["span"] = json!([start, self.answer16]);
                    out.push(Event::json(types::CITATION, id.clone(), c));
                }
            }
        }

        fn openai(&mut self, chunk: &Value) -> Result<Vec<Event>, StreamError> {
            let mut out = Vec::new();
            if let Some(id) = chunk.get("id").and_then(Value::as_str) {
                self.message_id = Some(id.to_owned());
            }
            let choices = match chunk.get("choices") {
                None | Some(Value::Null) => &[][..],
                Some(Value::Array(c)) => c.as_slice(),
                Some(_) => return Err(self.invalid("`choices` is not an array")),
            };
            // Only the first choice is followed (n > 1 is not streamed by chat UIs).
            if let Some(choice) = choices
                .iter()
                .find(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
            {
                let delta = choice.get("delta").unwrap_or(&Value::Null);
                for key in ["reasoning_content", "reasoning"] {
                    if let Some(text) = delta
                        .get(key)
                        .and_then(Value::as_str)
                        .filter(|t| !t.is_empty())
                    {
                        self.framing
                            .before_text(types::THINKING, &self.message_id, &mut out);
                        out.push(self.text_event(types::THINKING, self.message_id.clone(), text));
                        break;
                    }
                }
                // A string, or (some compatible servers) an array of content parts.
                if let Some(text) = delta
                    .get("content")
                    .and_then(content_text)
                    .filter(|t| !t.is_empty())
                {
                    self.framing
                        .before_text(types::RESPONSE, &self.message_id, &mut out);
                    out.push(self.text_event(types::RESPONSE, self.message_id.clone(), &text));
                }
                let annotations = delta.get("annotations").and_then(Value::as_array);
                for a in annotations.into_iter().flatten().take(1024) {
                    if let Some(c) = self.annotation(a) {
                        out.push(Event::json(types::CITATION, self.message_id.clone(), c));
                    }
                }
                if let Some(reason) = choice.get("finish_reason").and_then(Value::as_str) {
                    self.finish_reason = Some(reason.to_owned());
                    self.framing.close(&self.message_id, &mut out);
                }
            }
            if let Some(usage) = chunk.get("usage").filter(|u| u.is_object()) {
                out.push(Event::json(
                    USAGE,
                    self.message_id.clone(),
                    normalize(usage.clone()),
                ));
            }
            Ok(out)
        }

        fn block_id(&self, index: u64) -> Option<String> {
            Some(format!(
                "{}-{index}",
                self.message_id.as_deref().unwrap_or("msg")
            ))
        }

        fn anthropic(&mut self, event: &Value) -> Result<Vec<Event>, StreamError> {
            let kind = event
                .get("type")
                .and_then(Value::as_str)
                .ok_or_else(|| self.invalid("an event without `type`"))?;
            let index = event.get("index").and_then(Value::as_u64);
            let mut out = Vec::new();
            match kind {
                "message_start" => {
                    let message = event.get("message").unwrap_or(&Value::Null);
                    self.message_id = message.get("id").and_then(Value::as_str).map(str::to_owned);
                    // (Since usage is normalised: kept until message_delta, one event for both.)
                    if let Some(usage) = message.get("usage") {
                        self.usage.add(usage.clone());
                    }
                }
                "content_block_start" => {
                    let index =
                        index.ok_or_else(|| self.invalid("content_block_start without `index`"))?;
                    let block = event.get("content_block").unwrap_or(&Value::Null);
                    let kind = match block.get("type").and_then(Value::as_str) {
                        Some("text") => BlockKind::Text,
                        Some("thinking") | Some("redacted_thinking") => BlockKind::Thinking,
                        _ => BlockKind::Other,
                    };
                    if let Some(block) = self.blocks.iter_mut().find(|(i, _)| *i == index) {
                        block.1 = kind;
                    } else if self.blocks.len() < MAX_CONTENT_BLOCKS {
                        self.blocks.push((index, kind));
                    } else {
                        return Err(self.invalid(format!(
                            "more than {MAX_CONTENT_BLOCKS} content blocks in one message"
                        )));
                    }
                    let id = self.block_id(index);
                    match kind {
                        BlockKind::Text => {
                            self.release_citations(&mut out);
                            self.cited = Some((index, self.answer16, Vec::new()));
                            out.push(Event::text("response_start", id.clone(), ""));
                            if let Some(text) = block
                                .get("text")
                                .and_then(Value::as_str)
                                .filter(|t| !t.is_empty())
                            {
                                out.push(self.text_event(types::RESPONSE, id, text));
                            }
                        }
                        BlockKind::Thinking => out.push(Event::text("thinking_start", id, "")),
                        BlockKind::Other => {}
                    }
                }
                "content_block_delta" => {
                    let index =
                        index.ok_or_else(|| self.invalid("content_block_delta without `index`"))?;
                    let delta = event.get("delta").unwrap_or(&Value::Null);
                    let id = self.block_id(index);
                    match delta.get("type").and_then(Value::as_str) {
                        Some("text_delta") => {
                            let text = delta
                                .get("text")
                                .and_then(Value::as_str)
                                .ok_or_else(|| self.invalid("text_delta without `text`"))?;
                            out.push(self.text_event(types::RESPONSE, id, text));
                        }
                        Some("thinking_delta") => {
                            let text = delta
                                .get("thinking")
                                .and_then(Value::as_str)
                                .ok_or_else(|| self.invalid("thinking_delta without `thinking`"))?;
                            out.push(Event::text(types::THINKING, id, text));
                        }
                        Some("citations_delta") => {
                            let c = delta.get("citation").unwrap_or(&Value::Null);
                            let mut c = self.anthropic_citation(c);
                            match self.cited.as_mut() {
                                Some((i, _, held)) if *i == index && held.len() < 1024 => {
                                    held.push(c)
                                }
                                Some((i, start, _)) if *i == index => {
                                    c["span"] = json!([*start, self.answer16]);
                                    out.push(Event::json(types::CITATION, id, c));
                                }
                                _ => out.push(Event::json(types::CITATION, id, c)),
                            }
                        }
                        // signature_delta, input_json_delta: nothing to show.
                        _ => {}
                    }
                }
                "content_block_stop" => {
                    let index =
                        index.ok_or_else(|| self.invalid("content_block_stop without `index`"))?;
                    let id = self.block_id(index);
                    match self.blocks.iter().find(|(i, _)| *i == index).map(|b| b.1) {
                        Some(BlockKind::Text) => {
                            if matches!(&self.cited, Some((i, _, _)) if *i == index) {
                                self.release_citations(&mut out);
                            }
                            out.push(Event::text("response_end", id, ""))
                        }
                        Some(BlockKind::Thinking) => out.push(Event::text("thinking_end", id, "")),
                        _ => {}
                    }
                }
                "message_delta" => {
                    if let Some(reason) =
                        event.pointer("/delta/stop_reason").and_then(Value::as_str)
                    {
                        self.finish_reason = Some(reason.to_owned());
                    }
                    if let Some(usage) = event.get("usage") {
                        self.usage.add(usage.clone());
                    }
                    out.extend(self.usage_event());
                }
                "message_stop" => {
                    self.done = true;
                    self.release_citations(&mut out);
                    out.extend(self.usage_event());
                }
                _ => {} // ping and event types added later
            }
            Ok(out)
        }

        /// A document (or web) citation as a Citation: no marker in the text; the span is
        /// filled in when the cited block ends.
        fn anthropic_citation(&mut self, c: &Value) -> Value {
            let u = |k: &str| c.get(k).and_then(Value::as_u64);
            let s = |k: &str| c.get(k).and_then(Value::as_str);
            let index = u("document_index").or_else(|| u("search_result_index"));
            let (url, raw_url) = split_url(s("url").or_else(|| s("source")).map(str::to_owned));
            let (source_id, valid) = match (index, &url) {
                (Some(i), _) => match u32::try_from(i.saturating_add(1)) {
                    Ok(id) => (u64::from(id), true),
                    Err(_) => (0, false),
                },
                (None, Some(url)) => (self.url_number(url), true),
                (None, None) => (0, false),
            };
            let mut citation = Map::new();
            citation.insert("sourceId".into(), json!(source_id));
            citation.insert("marker".into(), json!(""));
            citation.insert("span".into(), json!([self.answer16, self.answer16]));
            citation.insert("valid".into(), json!(valid));
            if let Some(t) = s("cited_text") {
                citation.insert("citedText".into(), json!(t));
            }
            let pair = |a: &str, b: &str| Some([u(a)?, u(b)?]);
            let span = pair("start_char_index", "end_char_index")
                .or_else(|| pair("start_page_number", "end_page_number"))
                .or_else(|| pair("start_block_index", "end_block_index"));
            if let Some(span) = span {
                citation.insert("sourceSpan".into(), json!(span));
            }
            if let Some(t) = s("document_title").or_else(|| s("title")) {
                citation.insert("documentTitle".into(), json!(t));
            }
            insert_urls(&mut citation, url, raw_url);
            if let Some(t) = s("type") {
                citation.insert("location".into(), json!(t));
            }
            citation.insert("covers".into(), json!("claim"));
            Value::Object(citation)
        }
    }

    /// `(url, rawUrl)`: only an absolute http(s) URL without control characters is a `url`.
    fn split_url(url: Option<String>) -> (Option<String>, Option<String>) {
        let http = |u: &str| {
            let u = u.trim_start_matches(' ').to_ascii_lowercase();
            (u.starts_with("http://") || u.starts_with("https://"))
                && !u.chars().any(char::is_control)
        };
        match url {
            Some(u) if http(&u) => (Some(u), None),
            other => (None, other),
        }
    }

    fn insert_urls(c: &mut Map<String, Value>, url: Option<String>, raw_url: Option<String>) {
        if let Some(url) = url {
            c.insert("url".into(), json!(url));
        }
        if let Some(raw) = raw_url {
            c.insert("rawUrl".into(), json!(raw));
        }
    }

    fn content_text(content: &Value) -> Option<Cow<'_, str>> {
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

    pub fn truncate(s: &str) -> &str {
        match s.char_indices().nth(80) {
            Some((i, _)) => s.get(..i).unwrap_or(s),
            None => s,
        }
    }
}

const STRINGS: &[&str] = &[
    r#""text""#,
    r#""text_delta""#,
    r#""thinking_delta""#,
    r#""citations_delta""#,
    r#""signature_delta""#,
    r#""message_start""#,
    r#""content_block_start""#,
    r#""content_block_delta""#,
    r#""content_block_stop""#,
    r#""message_delta""#,
    r#""message_stop""#,
    r#""ping""#,
    r#""error""#,
    r#""thinking""#,
    r#""redacted_thinking""#,
    r#""output_text""#,
    r#""image""#,
    r#""stop""#,
    r#""""#,
    r#""a""#,
    r#""héllo ""#,
    r#""line\nbreak""#,
    r#""\u0041\ud83d\ude00""#,
    r#""te\u0078t_delta""#,
    r#""__proto__""#,
    r#""[1]""#,
    r#""url_citation""#,
    r#""char_location""#,
    r#""https://example.org/a""#,
    r#""javascript:alert(1)""#,
    r#""data:text/html,<script>alert(1)</script>""#,
    r#"" HTTPS://example.org/b""#,
];

const NUMBERS: &[&str] = &[
    "0",
    "1",
    "2",
    "-1",
    "1.5",
    "0.0",
    "-0",
    "1e3",
    "4294967295",
    "18446744073709551615",
    "18446744073709551616",
];

const KEYS: &[&str] = &[
    "id",
    "choices",
    "index",
    "delta",
    "content",
    "reasoning_content",
    "reasoning",
    "finish_reason",
    "usage",
    "error",
    "type",
    "message",
    "content_block",
    "text",
    "thinking",
    "citation",
    "stop_reason",
    "document_index",
    "cited_text",
    "start_char_index",
    "end_char_index",
    "start_page_number",
    "end_page_number",
    "document_title",
    "annotations",
    "url_citation",
    "url",
    "title",
    "start_index",
    "end_index",
    "search_result_index",
    "start_block_index",
    "end_block_index",
    "source",
    "code",
    "__proto__",
    r"\u0069d",
    r"\u0074ype",
    "other",
];

/// JSON text, biased towards the keys and values the decoders read.
fn json_text() -> impl Strategy<Value = String> {
    let leaf = prop_oneof![
        proptest::sample::select(STRINGS).prop_map(str::to_owned),
        proptest::sample::select(NUMBERS).prop_map(str::to_owned),
        proptest::sample::select(&["null", "true", "false"][..]).prop_map(str::to_owned),
    ];
    leaf.prop_recursive(5, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..4)
                .prop_map(|v| format!("[{}]", v.join(","))),
            proptest::collection::vec((proptest::sample::select(KEYS), inner), 0..7).prop_map(
                |entries| {
                    let fields: Vec<String> = entries
                        .iter()
                        .map(|(k, v)| format!("\"{k}\":{v}"))
                        .collect();
                    format!("{{{}}}", fields.join(","))
                }
            ),
        ]
    })
}

/// A message's data: JSON text, sometimes cut short or with a byte of junk spliced in.
fn data() -> impl Strategy<Value = String> {
    (json_text(), 0usize..8, any::<prop::sample::Index>()).prop_map(|(text, damage, at)| {
        let cut = at.index(text.len() + 1);
        let cut = (0..=cut)
            .rev()
            .find(|&i| text.is_char_boundary(i))
            .unwrap_or(0);
        match damage {
            0 => text[..cut].to_owned(),
            1 => format!("{}}}{}", &text[..cut], &text[cut..]),
            _ => text,
        }
    })
}

fn message(data: String, event: Option<&str>) -> SseMessage {
    SseMessage {
        event: event.map(str::to_owned),
        data,
        id: None,
        retry: None,
    }
}

/// Whether `ours` is `oracle`, or JSON text that serde_json writes back as `oracle`.
fn same_json(ours: &str, oracle: &str) -> bool {
    ours == oracle
        || serde_json::from_str::<Value>(ours)
            .map(|v| v.to_string())
            .is_ok_and(|text| text == oracle)
}

/// Feeds both decoders the same messages and compares every answer and the state they leave;
/// and the decoder as the lean streaming module runs it (no `fast_delta` reader) answers as the
/// full one does, exactly.
fn agree(format: StreamFormat, messages: &[SseMessage]) {
    let mut typed = ProviderStreamDecoder::new(format);
    let mut lean = ProviderStreamDecoder::without_fast_reader(format);
    let mut oracle = oracle::ValueDecoder::new(format);
    for m in messages {
        let (typed_answer, oracle_answer) = (typed.push(m), oracle.push(m));
        assert_eq!(lean.push(m), typed_answer, "lean {format:?} {:?}", m.data);
        match (&typed_answer, &oracle_answer) {
            // Text that is not JSON: the oracle quotes serde_json's reason, the decoder its own
            // reader's ("… at byte N"); the code, the provider and the data quoted are the same
            // (the decoder quotes it as JSON writes a string, the oracle with `{:?}`).
            (
                Err(StreamError::InvalidData { provider, detail }),
                Err(StreamError::InvalidData {
                    provider: oracle_provider,
                    detail: oracle_detail,
                }),
            ) if serde_json::from_str::<Value>(&m.data).is_err() => {
                let data = oracle::truncate(&m.data);
                let quoted = format!(" in {}", serde_json::to_string(data).unwrap());
                assert_eq!(provider, oracle_provider, "{:?}", m.data);
                assert!(
                    oracle_detail.ends_with(&format!(" in {data:?}")),
                    "{oracle_detail}"
                );
                assert!(
                    detail.ends_with(&quoted) && detail.contains(" at byte "),
                    "{detail}"
                );
            }
            // A provider's error whose message (or code) is not a string: the decoder quotes the
            // error's JSON as the provider sent it (without whitespace), the oracle as
            // serde_json writes it back; the same JSON value.
            (
                Err(StreamError::Provider {
                    provider,
                    message,
                    code,
                }),
                Err(StreamError::Provider {
                    provider: oracle_provider,
                    message: oracle_message,
                    code: oracle_code,
                }),
            ) => {
                assert_eq!(provider, oracle_provider, "{:?}", m.data);
                assert!(same_json(message, oracle_message), "{:?}", m.data);
                match (code, oracle_code) {
                    (Some(a), Some(b)) => assert!(same_json(a, b), "{:?}", m.data),
                    (a, b) => assert_eq!(a, b, "{:?}", m.data),
                }
            }
            _ => assert_eq!(typed_answer, oracle_answer, "{format:?} {:?}", m.data),
        }
        assert_eq!(
            typed.finish_reason(),
            oracle.finish_reason(),
            "{:?}",
            m.data
        );
    }
    assert_eq!(lean.finish_reason(), typed.finish_reason());
    let finished = typed.finish();
    assert_eq!(lean.finish(), finished);
    assert_eq!(finished, oracle.finish());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn typed_decoding_agrees_with_value_decoding(
        datas in proptest::collection::vec(
            (data(), proptest::sample::select(&[None, None, None, Some("ping"), Some("error")][..])),
            1..5,
        ),
    ) {
        let messages: Vec<SseMessage> = datas.into_iter().map(|(d, e)| message(d, e)).collect();
        agree(StreamFormat::OpenAi, &messages);
        agree(StreamFormat::Anthropic, &messages);
    }
}

/// Shapes of token messages with `%` where the token's string contents go: a stream repeats
/// one of them token after token (the decoder then reads only the token), and the property
/// below mixes them with tokens that must not be read that way (escapes, raw quotes and
/// control characters, text that ends the string early and adds keys).
const SHAPES: &[&str] = &[
    r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"%"},"finish_reason":null}]}"#,
    r#"{"id":"c2","choices":[{"index":0,"delta":{"reasoning_content":"%"},"finish_reason":null}]}"#,
    r#"{"id":"c1","choices":[{"delta":{"reasoning":"%","content":null}}]}"#,
    r#"{"choices":[{"delta":{"content":"%"},"finish_reason":"stop"}]}"#,
    r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"%","reasoning":"r"}}]}"#,
    r#"{"id":"c3","choices":[{"index":1,"delta":{"content":"%"}}]}"#,
    r#"{"id":"c1","choices":[{"delta":{"content":"%"}}],"usage":{"total_tokens":1}}"#,
    r#"{"id":"c1","choices":[{"delta":{"content":"%","annotations":[]}}]}"#,
    r#"{"id":"c1","choices":[{"delta":{"content":"%"}}],"error":null}"#,
    r#" { "id" : "c1" , "choices" : [ { "delta" : { "content" : "%" } } ] } "#,
    r#"{"id":"c1","choices":[{"delta":{"content":"%"}}]}"#,
];

const TOKENS: &[&str] = &[
    "the ",
    "",
    "[1]",
    "<think>",
    "é😀",
    r"\n",
    r#"\""#,
    r"\u0041",
    "\"",
    "\\",
    "\n",
    "\u{1}",
    r#"a"},"finish_reason":"stop","x":{"y":""#,
    r#"a","content":"b"#,
    r#"a","reasoning":"b"#,
    r#"a"}}]}"#,
    r"\\",
    r"a\/b\t\b\f\r\n",
    r#"\\""#,
    r"a\",
    r"\x",
    r"\ud83d\ude00",
    "\u{7f}",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Messages that repeat a shape around new tokens (read by comparing the bytes around the
    /// token with the last message's) decode as the value decoder decodes them.
    #[test]
    fn repeated_shapes_agree_with_value_decoding(
        items in proptest::collection::vec(
            (
                proptest::sample::select(SHAPES),
                proptest::sample::select(TOKENS),
                proptest::option::weighted(0.1, data()),
            ),
            1..12,
        ),
    ) {
        let messages: Vec<SseMessage> = items
            .into_iter()
            .map(|(shape, token, other)| {
                message(other.unwrap_or_else(|| shape.replace('%', token)), None)
            })
            .collect();
        agree(StreamFormat::OpenAi, &messages);
        agree(StreamFormat::Anthropic, &messages);
    }
}

/// Shapes of token messages as real servers send them, with `%` where the token's string
/// contents go and `@` where a string's contents vary from message to message: OpenAI's
/// `obfuscation` (random in every chunk) and other top-level strings no reader reads, which
/// the repeated-shape path skips; and strings that matter (an id, a key, a value inside the
/// choice or the usage), which it must not.
const VARYING_SHAPES: &[&str] = &[
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1733184462,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"%"},"logprobs":null,"finish_reason":null}],"obfuscation":"@"}"#,
    r#"{"obfuscation":"@","id":"c1","choices":[{"delta":{"reasoning_content":"%"}}],"model":"@"}"#,
    r#"{"model":"@","choices":[{"delta":{"content":"%"},"finish_reason":null}],"obfuscation":"@","x":"@"}"#,
    r#" { "obfuscation" : "@" , "choices" : [ { "delta" : { "reasoning" : "%" } } ] , "o" : "@" } "#,
    r#"{"id":"@","choices":[{"delta":{"content":"%"}}],"obfuscation":"@"}"#,
    r#"{"@":"c1","choices":[{"delta":{"content":"%"}}],"obfuscation":"@"}"#,
    r#"{"choices":[{"delta":{"content":"%"},"finish_reason":"@"}],"obfuscation":"@"}"#,
    r#"{"choices":[{"delta":{"content":"%","@":"x"}}],"obfuscation":"@"}"#,
    r#"{"choices":[{"delta":{"content":"%"},"x":"@"}],"obfuscation":"@"}"#,
    r#"{"choices":[{"delta":{"content":"%"}}],"usage":{"total_tokens":1,"x":"@"}}"#,
    r#"{"choices":[{"delta":{"content":"%"}}],"obfuscation":{"v":"@"}}"#,
    r#"{"choices":[{"delta":{"content":"%"}}],"obfuscation":["@"]}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"%"}}"#,
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"%"},"o":"@"}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"@","text":"%"}}"#,
    r#"{"type":"@","index":0,"delta":{"type":"text_delta","text":"%"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"%","text":"@"}}"#,
    r#"{"type":"message_start","message":{"id":"@"}}"#,
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"@","text":"%"}}"#,
    // Broken twins of the shapes above: the same up to their last byte.
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1733184462,"model":"gpt-4o","service_tier":"default","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"content":"%"},"logprobs":null,"finish_reason":null}],"obfuscation":"@"]"#,
    r#"{"obfuscation":"@","id":"c1","choices":[{"delta":{"reasoning_content":"%"}}],"model":"@"]"#,
];

/// What goes in a `@`: random-looking values, and ones that must not be read as a skipped
/// string (escapes, raw quotes and control characters, text that ends the string early and
/// adds or changes keys, keys the readers read).
const VARYING: &[&str] = &[
    "",
    "Zq9",
    "kLm03xQa7",
    "é😀",
    "id",
    "usage",
    "error",
    "content",
    "reasoning",
    "stop",
    "text_delta",
    "thinking_delta",
    "content_block_delta",
    "text",
    "thinking",
    r"\n",
    r#"\""#,
    r"\u0041",
    "\\",
    "\"",
    "\n",
    "\u{1}",
    r#"a","usage":{"total_tokens":3},"z":""#,
    r#"a","id":"c9"#,
    r#"a","error":{"message":"m"},"z":""#,
    r#"a"}],"x":""#,
    r"a\",
    r"\\",
    r"\q",
];

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    /// Messages that repeat a shape around new tokens and new values of other strings decode
    /// as the value decoder decodes them.
    #[test]
    fn repeated_shapes_with_varying_strings_agree_with_value_decoding(
        shape in proptest::sample::select(VARYING_SHAPES),
        items in proptest::collection::vec(
            (
                proptest::option::weighted(0.2, proptest::sample::select(VARYING_SHAPES)),
                // Mostly messages that the shape's reading must take, so the others follow one.
                prop_oneof![2 => Just("the "), 1 => proptest::sample::select(TOKENS)],
                proptest::collection::vec(
                    prop_oneof![
                        2 => proptest::sample::select(&["", "Zq9", "kLm03xQa7", "é😀"][..]),
                        1 => proptest::sample::select(VARYING),
                    ],
                    4,
                ),
            ),
            1..12,
        ),
    ) {
        let messages: Vec<SseMessage> = items
            .into_iter()
            .map(|(other, token, values)| {
                let mut data = other.unwrap_or(shape).replace('%', token);
                for value in values {
                    data = data.replacen('@', value, 1);
                }
                message(data, None)
            })
            .collect();
        agree(StreamFormat::OpenAi, &messages);
        agree(StreamFormat::Anthropic, &messages);
    }
}

#[test]
fn edge_cases_agree() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    // Nesting through the typed fields themselves, up to and past serde_json's depth limit.
    let nested =
        |open: &str, close: &str, n: usize| format!("{}1{}", open.repeat(n), close.repeat(n));
    let cases = [
        // Real shapes.
        r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"Hi \"there\"\n"},"finish_reason":null}]}"#.to_owned(),
        r#"{"id":"c1","choices":[{"index":1,"delta":{"content":"no"}},{"delta":{"reasoning":"r","content":[{"type":"text","text":"a"},{"type":"image","text":"x"},{"text":"b"},7,{"type":3,"text":"c"}]},"finish_reason":"stop"}],"usage":{"__proto__":{"x":1},"total_tokens":3}}"#.to_owned(),
        r#"{"type":"message_start","message":{"id":"msg_1","usage":{"input_tokens":5}}}"#.to_owned(),
        r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":"Hey"}}"#.to_owned(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"c","document_index":2,"document_title":"T","start_char_index":1,"end_char_index":4}}}"#.to_owned(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"start_char_index":1,"start_page_number":2,"end_page_number":3}}}"#.to_owned(),
        r#"{"type":"content_block_stop","index":0}"#.to_owned(),
        r#"{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}"#.to_owned(),
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#.to_owned(),
        r#"{"error":null}"#.to_owned(),
        r#"{"error":{"code":null,"message":7}}"#.to_owned(),
        // Wrong types, duplicates, escapes, non-objects.
        r#"{"id":7,"choices":{"index":0}}"#.to_owned(),
        r#"{"id":"a","id":"b","choices":"x","choices":[{"index":-1,"delta":{"content":"d"}}]}"#.to_owned(),
        r#"{"\u0069d":"esc","choices":[{"index":0.0,"delta":{"reasoning_content":"","reasoning":"r2"}}]}"#.to_owned(),
        r#"{"type":"content_block_start","index":4294967295,"content_block":{"type":"thinking"}}"#.to_owned(),
        r#"{"type":"content_block_delta","index":"0","delta":{"type":"text_delta","text":"x"}}"#.to_owned(),
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":5}}"#.to_owned(),
        r#"{"type":"message_start","message":[1]}"#.to_owned(),
        r#"{"type":"future_event","anything":{"deep":[1,2,{"x":null}]}}"#.to_owned(),
        "[1,2]".to_owned(),
        "\"text\"".to_owned(),
        "42".to_owned(),
        "null".to_owned(),
        // Broken: every one must fail the same way, with the same message.
        r#"{"id":"c1""#.to_owned(),
        r#"{"id":"c1"} x"#.to_owned(),
        r#"{"id":"c1",}"#.to_owned(),
        r#"{"other":1e400}"#.to_owned(),
        r#"{"other":"\ud800"}"#.to_owned(),
        r#"{"id":"\ud800"}"#.to_owned(),
        r#"{"other":"\q"}"#.to_owned(),
        "{\"other\":\"tab\there\"}".to_owned(),
        format!(r#"{{"other":{deep}}}"#),
        format!(r#"{{"choices":[{{"delta":{{"content":{deep}}}}}]}}"#),
        "  ".to_owned(),
        nested(r#"{"choices":["#, "]}", 63),
        nested(r#"{"choices":["#, "]}", 64),
        nested(r#"{"choices":[{"delta":{"content":["#, "]}}]}", 31),
        nested(r#"{"choices":[{"delta":{"content":["#, "]}}]}", 40),
        nested(r#"{"delta":{"citation":"#, "}}", 63),
        nested(r#"{"delta":{"citation":"#, "}}", 64),
        nested(r#"{"message":"#, "}", 127),
        nested(r#"{"message":"#, "}", 128),
    ];
    for format in [StreamFormat::OpenAi, StreamFormat::Anthropic] {
        for event in [None, Some("ping")] {
            let messages: Vec<SseMessage> =
                cases.iter().map(|d| message(d.clone(), event)).collect();
            agree(format, &messages);
            for m in &messages {
                agree(format, std::slice::from_ref(m));
            }
        }
    }
}

#[test]
fn more_blocks_than_the_bound_fail_the_same_way() {
    let messages: Vec<SseMessage> = (0..=MAX_CONTENT_BLOCKS as u64)
        .map(|i| {
            message(
                format!(r#"{{"type":"content_block_start","index":{i},"content_block":{{"type":"text"}}}}"#),
                None,
            )
        })
        .collect();
    agree(StreamFormat::Anthropic, &messages);
}

/// Native timing of both decoders over the pipeline benchmark's kind of transcript (one
/// OpenAI chunk per token). Informative only, never a pass/fail criterion:
/// `cargo test --release --test provider_stream_typed -- --ignored --nocapture`.
#[test]
#[ignore]
fn time_typed_against_value_decoding() {
    use std::time::Instant;
    let words = [
        "the ", "study ", "found ", "that ", "rates\n", "rose ", "[1]", "\"in\" ",
    ];
    let messages: Vec<SseMessage> = (0..20_000)
        .map(|i| {
            let content = serde_json::to_string(words[i % words.len()]).unwrap();
            message(
                format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{content}}},"finish_reason":null}}]}}"#),
                None,
            )
        })
        .collect();
    let mut best = [f64::MAX; 2];
    for _ in 0..15 {
        let t = Instant::now();
        let mut d = ProviderStreamDecoder::new(StreamFormat::OpenAi);
        let n: usize = messages.iter().map(|m| d.push(m).unwrap().len()).sum();
        best[0] = best[0].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let mut d = oracle::ValueDecoder::new(StreamFormat::OpenAi);
        let m: usize = messages.iter().map(|m| d.push(m).unwrap().len()).sum();
        best[1] = best[1].min(t.elapsed().as_secs_f64());
        assert_eq!(n, m);
    }
    let per = |s: f64| s * 1e9 / messages.len() as f64;
    println!(
        "per message: typed {:.0} ns, Value {:.0} ns (Value / typed = {:.2})",
        per(best[0]),
        per(best[1]),
        best[1] / best[0]
    );
}
