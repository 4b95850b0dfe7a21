//! Citeformer's prompt: the rule of the citation policy in the call's marker style, then the
//! numbered sources (`Source N: title`, then its text), which is how the model learns which
//! number names which source.

use serde_json::{Map, Value};

use super::marker::MarkerStyle;
use super::policy::Policy;
use crate::source_item::csl_item;

/// How a marker for source `n` is written in a style.
pub fn marker(style: MarkerStyle, n: &str) -> String {
    match style {
        MarkerStyle::Bracket => format!("[{n}]"),
        MarkerStyle::Paren => format!("({n})"),
        MarkerStyle::Curly => format!("{{{n}}}"),
        MarkerStyle::Caret => format!("^{n}"),
    }
}

fn rule(policy: Policy, style: MarkerStyle) -> String {
    match policy {
        Policy::Required => format!(
            "End every sentence with the number of the source that supports it, e.g. \"Water boils at 100 °C {}.\"",
            marker(style, "1")
        ),
        Policy::QuotesOnly => {
            "Follow every quotation with the number of the source it comes from.".to_owned()
        }
        Policy::Auto => "Cite sources by number where they support a statement.".to_owned(),
    }
}

fn text_of(value: Option<&Value>) -> Option<String> {
    match value? {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// A source's title (its CSL item's, so retrieval metadata's file name counts) and the text
/// the model reads (`content`, else the abstract or the title).
fn title_and_text(source: &Value) -> (String, String) {
    let empty = Map::new();
    let metadata = match source.get("metadata") {
        Some(Value::Object(m)) => m,
        _ => source.as_object().unwrap_or(&empty),
    };
    let item = csl_item(metadata);
    let title = text_of(item.get("title")).unwrap_or_default();
    let text = match source.get("content") {
        Some(Value::String(s)) => s.clone(),
        _ => text_of(metadata.get("abstract"))
            .or_else(|| text_of(metadata.get("title")))
            .unwrap_or_default(),
    };
    (title, text)
}

/// The text the model reads of each source (and verification judges against).
pub fn source_texts(sources: &[Value]) -> Vec<String> {
    sources.iter().map(|s| title_and_text(s).1).collect()
}

/// The system message: the rule, then every source numbered from 1.
pub fn instructions(sources: &[Value], policy: Policy, style: MarkerStyle) -> String {
    let listed: Vec<String> = sources
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let (title, text) = title_and_text(s);
            format!("Source {}: {title}\n{text}", i + 1)
        })
        .collect();
    format!(
        "Answer from the numbered sources below only. Cite a source as {}, where N is its number. {}\n\n{}",
        marker(style, "N"),
        rule(policy, style),
        listed.join("\n\n")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn rule_sources_and_markers() {
        let sources = [
            json!({"content": "Water boils.", "metadata": {"type": "book", "title": "Boiling"}}),
            json!({"content": "Ice floats.", "metadata": {"file_name": "ice.pdf"}}),
            json!({"metadata": {"title": "Only a title", "abstract": "An abstract."}}),
        ];
        let p = instructions(&sources, Policy::Required, MarkerStyle::Caret);
        assert!(p.starts_with("Answer from the numbered sources below only. Cite a source as ^N, where N is its number. End every sentence with the number of the source that supports it, e.g. \"Water boils at 100 °C ^1.\""));
        assert!(p.ends_with("Source 1: Boiling\nWater boils.\n\nSource 2: ice.pdf\nIce floats.\n\nSource 3: Only a title\nAn abstract."));
        assert_eq!(marker(MarkerStyle::Curly, "2"), "{2}");
    }
}
