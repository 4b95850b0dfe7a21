//! A Rust web app that asks the local model a question about two sources and streams the
//! cited answer into the page: the text as it arrives, each citation marker as a citation
//! event (parsed by citeflow's streaming citation parser), and the token usage.

use citeflow::cite::{citation_grammar, GrammarOptions};
use citeflow::transform::OutputTransformerConfig;
use citeflow::web::{Call, LmInvoker, Message, Options};
use futures_util::StreamExt;
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use web_sys::{Document, Element};

const MODEL: &str = "openai-compatible/SmolLM2-135M-Instruct";

/// The sources the answer cites, numbered from 1.
const SOURCES: [(&str, &str); 2] = [
    (
        "Gustave Eiffel",
        "The Eiffel Tower was completed in March 1889. It is about 330 metres tall.",
    ),
    (
        "The dance language and orientation of bees",
        "Honeybee foragers tell their nestmates where food is with a waggle dance.",
    ),
];

/// Room for a sentence or two; the grammar ends every sentence in a marker.
const MAX_TOKENS: u64 = 96;
const MAX_SENTENCE_CHARS: usize = 120;

fn messages(question: &str) -> Vec<Message> {
    let listed: Vec<String> = SOURCES
        .iter()
        .enumerate()
        .map(|(i, (title, content))| format!("Source {}: {title}\n{content}", i + 1))
        .collect();
    let message = |role: &str, content: String| Message {
        role: role.into(),
        content,
    };
    vec![
        message(
            "system",
            format!(
                "Answer from the numbered sources below only. Cite a source as [N], where N is its number.\n\n{}",
                listed.join("\n\n")
            ),
        ),
        // One example exchange: a model this small needs to see the form of a cited answer.
        message("user", "What does source 1 say?".into()),
        message(
            "assistant",
            "The Eiffel Tower was completed in March 1889 [1].".into(),
        ),
        message("user", question.into()),
    ]
}

fn element(document: &Document, id: &str) -> Result<Element, JsValue> {
    document
        .get_element_by_id(id)
        .ok_or_else(|| JsValue::from_str(&format!("the page has no #{id}")))
}

/// Streams the answer to `question` from the OpenAI-compatible server at `base_url` into the
/// page's `#answer`, `#citations` and `#usage`; resolves with a JSON summary of what arrived.
#[wasm_bindgen]
pub async fn ask(base_url: String, question: String) -> Result<String, JsValue> {
    let document = web_sys::window()
        .and_then(|w| w.document())
        .ok_or_else(|| JsValue::from_str("no document"))?;
    let (answer_el, citations_el, usage_el) = (
        element(&document, "answer")?,
        element(&document, "citations")?,
        element(&document, "usage")?,
    );
    let fail =
        |e: citeflow::web::Error| JsValue::from_str(&format!("{}: {}", e.code(), e.message()));

    let citations = OutputTransformerConfig::from_value(
        &json!({"type": "citations", "kwargs": {"sourceCount": SOURCES.len()}}),
    )
    .map_err(|e| JsValue::from_str(&e.to_string()))?;
    let lm = LmInvoker::new(MODEL, Options::new().base_url(base_url).api_key("local"))
        .map_err(fail)?
        .with_output_transformers(vec![citations])
        .map_err(fail)?;
    let grammar = citation_grammar(GrammarOptions {
        source_count: SOURCES.len() as u32,
        max_content_chars: MAX_SENTENCE_CHARS,
        ..GrammarOptions::default()
    })
    .map_err(|e| JsValue::from_str(&e.to_string()))?;
    let call = Call::messages(messages(&question))
        .grammar(grammar)
        .temperature(0.0)
        .max_tokens(MAX_TOKENS);

    let mut text = String::new();
    let mut chunks = 0usize;
    let mut found: Vec<Value> = Vec::new();
    let mut usage = Value::Null;
    let mut events = lm.stream(call);
    while let Some(event) = events.next().await {
        let event = event.map_err(fail)?;
        match event.kind.as_str() {
            "response" => {
                let piece = event.text_value().unwrap_or_default();
                text.push_str(piece);
                chunks += 1;
                answer_el.set_text_content(Some(&text));
            }
            "citation" => {
                let source = event.value["sourceId"].as_u64().unwrap_or(0);
                let title = usize::try_from(source)
                    .ok()
                    .and_then(|n| SOURCES.get(n.wrapping_sub(1)))
                    .map_or("(no such source)", |s| s.0);
                let item = document.create_element("li")?;
                item.set_text_content(Some(&format!(
                    "{} → source {source}: {title}",
                    event.value["marker"].as_str().unwrap_or_default()
                )));
                item.set_attribute("data-source-id", &source.to_string())?;
                citations_el.append_child(&item)?;
                found.push(event.value);
            }
            "usage" => {
                usage_el.set_text_content(Some(&format!(
                    "{} tokens in, {} out",
                    event.value["inputTokens"], event.value["outputTokens"]
                )));
                usage = event.value;
            }
            _ => {}
        }
    }
    Ok(json!({ "text": text, "chunks": chunks, "citations": found, "usage": usage }).to_string())
}
