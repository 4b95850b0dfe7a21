//! Language-model relevance: the project's preset prompts and schemas, the text each chunk is
//! shown as, and reading the model's answer (structured output or JSON found in text).

use serde_json::{json, Map, Value};

use super::FilterError;
use crate::chunk::{context_text, plain, Chunk, ChunkError, ContextConfig};
use crate::transform::extract_json_object;

/// A preset: system and user templates. Placeholders are `{name}`; anything else in braces
/// is left as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    pub name: &'static str,
    pub system: &'static str,
    pub user: &'static str,
}

/// The preset of that name (`relevance-filter`, `reference-formatter`).
pub fn preset(name: &str) -> Option<&'static Preset> {
    PRESETS.iter().find(|p| p.name == name)
}

pub const PRESETS: [Preset; 2] = [
    Preset {
        name: "relevance-filter",
        system: "You judge whether retrieved text chunks help answer a user's query.\n\
For each chunk, in the order given, return one entry in `results` with a one-sentence \
`explanation` and `is_relevant`: true when the chunk holds information that helps answer the \
query, false when it does not. Judge each chunk on its own. Return exactly one entry per chunk.",
        user: "Query:\n{query}\n\nChunks ({count}):\n\n{chunks}",
    },
    Preset {
        name: "reference-formatter",
        system: "You decide which candidate chunks an answer draws on.\n\
Each chunk is labelled with its {reference_metadata}. Return, in the array `{reference_metadata}`, \
the labels of the chunks whose information the answer states or directly relies on. Leave out \
chunks the answer does not use. Return an empty array when it uses none.",
        user: "Answer:\n{response}\n\nCandidate chunks:\n\n{context}",
    },
];

/// `{name}` replaced by its value for the names given; other braces untouched.
pub fn fill_template(template: &str, vars: &[(&str, &str)]) -> String {
    let mut out = String::with_capacity(template.len());
    let mut rest = template;
    while let Some((before, after)) = rest.split_once('{') {
        out.push_str(before);
        let hit = vars.iter().find_map(|(name, value)| {
            let tail = after.strip_prefix(name)?.strip_prefix('}')?;
            Some((value, tail))
        });
        match hit {
            Some((value, tail)) => {
                out.push_str(value);
                rest = tail;
            }
            None => {
                out.push('{');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// The schema of the relevance filter's answer: `{results: [{explanation, is_relevant}]}`.
pub fn relevance_schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "results": {
                "type": "array",
                "items": {
                    "type": "object",
                    "properties": {
                        "explanation": { "type": "string" },
                        "is_relevant": { "type": "boolean" }
                    },
                    "required": ["explanation", "is_relevant"],
                    "additionalProperties": false
                }
            }
        },
        "required": ["results"],
        "additionalProperties": false
    })
}

/// The schema of the reference formatter's answer: `{<key>: [string]}`.
pub fn formatter_schema(key: &str) -> Value {
    json!({
        "type": "object",
        "properties": { key: { "type": "array", "items": { "type": "string" } } },
        "required": [key],
        "additionalProperties": false
    })
}

/// One chunk as the relevance filter shows it: "\[CHUNK\]", "Content:", the text, then
/// "Metadata:" lines "- key: value" for the listed keys the chunk has. A context config takes
/// precedence over both deprecated options, as the seeds define it: the block is "\[CHUNK\]",
/// "Content:" and the rendered context, nothing else. Without one, a `chunk_format` template
/// replaces the whole block (`{content}`, `{metadata}` and metadata keys as placeholders).
pub fn relevance_chunk_text(
    chunk: &Chunk,
    metadata_keys: Option<&[String]>,
    chunk_format: Option<&str>,
    context: Option<&ContextConfig>,
) -> Result<String, ChunkError> {
    let content = context_text(chunk, context)?;
    let metadata_keys = if context.is_some() {
        None
    } else {
        metadata_keys
    };
    let lines: Vec<String> = metadata_keys
        .unwrap_or_default()
        .iter()
        .filter_map(|k| {
            chunk
                .metadata
                .get(k)
                .map(|v| format!("- {k}: {}", plain(v)))
        })
        .collect();
    if let (Some(format), None) = (chunk_format, context) {
        let block = lines.join("\n");
        let values: Vec<(String, String)> = chunk
            .metadata
            .iter()
            .map(|(k, v)| (k.clone(), plain(v)))
            .collect();
        let mut vars: Vec<(&str, &str)> = vec![("content", &content), ("metadata", &block)];
        vars.extend(values.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        return Ok(fill_template(format, &vars));
    }
    let mut text = format!("[CHUNK]\nContent:\n{content}");
    if !lines.is_empty() {
        text.push_str("\nMetadata:\n");
        text.push_str(&lines.join("\n"));
    }
    Ok(text)
}

/// The label a chunk is referred to by: its `key` metadata, else its id, else its position.
pub fn reference_label(chunk: &Chunk, key: &str, index: usize) -> String {
    chunk
        .metadata
        .get(key)
        .map(plain)
        .filter(|s| !s.trim().is_empty())
        .or_else(|| chunk.id.clone())
        .unwrap_or_else(|| format!("chunk-{}", index.saturating_add(1)))
}

/// The chunks as the reference formatter shows them: `<Chunk>` / `key: label` / `content:` /
/// the text / `</Chunk>`, separated by blank lines; and each chunk's label.
pub fn formatter_context(
    chunks: &[Chunk],
    key: &str,
    start: usize,
    context: Option<&ContextConfig>,
) -> Result<(String, Vec<String>), ChunkError> {
    let mut blocks = Vec::with_capacity(chunks.len());
    let mut labels = Vec::with_capacity(chunks.len());
    for (i, chunk) in chunks.iter().enumerate() {
        let content = context_text(chunk, context)?;
        let label = reference_label(chunk, key, start.saturating_add(i));
        blocks.push(format!(
            "<Chunk>\n{key}: {label}\ncontent:\n{content}\n</Chunk>"
        ));
        labels.push(label);
    }
    Ok((blocks.join("\n\n"), labels))
}

fn bad(reason: impl Into<String>) -> FilterError {
    FilterError::ModelAnswer(reason.into())
}

/// The answer object: the first structured output, else the JSON object in the text.
fn answer_object(outputs: &Value) -> Result<Map<String, Value>, FilterError> {
    let items = outputs
        .as_array()
        .ok_or_else(|| bad("the answer has no outputs"))?;
    for item in items {
        match (item.get("type").and_then(Value::as_str), item.get("output")) {
            (Some("structured"), Some(Value::Object(o))) => return Ok(o.clone()),
            (Some("text"), Some(Value::String(t))) => {
                if let Some(o) = extract_json_object(t) {
                    return Ok(o);
                }
            }
            _ => {}
        }
    }
    Err(bad("the answer holds no JSON object"))
}

/// The filter's verdicts for a batch of `expected` chunks, or why the answer does not fit.
pub fn relevance_results(outputs: &Value, expected: usize) -> Result<Vec<bool>, FilterError> {
    let obj = answer_object(outputs)?;
    let results = obj
        .get("results")
        .and_then(Value::as_array)
        .ok_or_else(|| bad("the answer has no `results` array"))?;
    if results.len() != expected {
        return Err(bad(format!(
            "the answer judged {} chunks, the batch has {expected}",
            results.len()
        )));
    }
    results
        .iter()
        .enumerate()
        .map(|(i, r)| {
            r.get("is_relevant")
                .and_then(Value::as_bool)
                .ok_or_else(|| bad(format!("results[{i}] has no boolean `is_relevant`")))
        })
        .collect()
}

/// Which of `labels` the formatter's answer lists under `key` (unknown names ignored).
pub fn formatter_kept(
    outputs: &Value,
    key: &str,
    labels: &[String],
) -> Result<Vec<bool>, FilterError> {
    let obj = answer_object(outputs)?;
    let listed = obj
        .get(key)
        .and_then(Value::as_array)
        .ok_or_else(|| bad(format!("the answer has no `{key}` array")))?;
    let names: Vec<String> = listed.iter().map(plain).collect();
    Ok(labels.iter().map(|l| names.contains(l)).collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn chunk(v: Value) -> Chunk {
        Chunk::from_value(v, 0).unwrap()
    }

    #[test]
    fn templates_fill_known_names_only() {
        assert_eq!(
            fill_template("Q: {query} {\"a\": 1} {other}", &[("query", "why?")]),
            "Q: why? {\"a\": 1} {other}"
        );
    }

    #[test]
    fn chunk_texts() {
        let c =
            chunk(json!({"content": "Water boils.", "metadata": {"source": "wiki", "page": 2}}));
        assert_eq!(
            relevance_chunk_text(&c, None, None, None).unwrap(),
            "[CHUNK]\nContent:\nWater boils."
        );
        let keys = vec!["source".to_owned(), "missing".to_owned()];
        assert_eq!(
            relevance_chunk_text(&c, Some(&keys), None, None).unwrap(),
            "[CHUNK]\nContent:\nWater boils.\nMetadata:\n- source: wiki"
        );
        assert_eq!(
            relevance_chunk_text(&c, Some(&keys), Some("{source} p{page}: {content}"), None)
                .unwrap(),
            "wiki p2: Water boils."
        );
        // A context config takes precedence over the metadata keys and the template.
        let cfg = ContextConfig {
            fields: vec!["content".into()],
            ..ContextConfig::default()
        };
        let with_config = relevance_chunk_text(&c, Some(&keys), None, Some(&cfg)).unwrap();
        assert_eq!(
            relevance_chunk_text(&c, Some(&keys), Some("{source}"), Some(&cfg)).unwrap(),
            with_config
        );
        assert!(
            with_config.starts_with("[CHUNK]\nContent:\n") && !with_config.contains("Metadata:"),
            "{with_config}"
        );
        let (ctx, labels) = formatter_context(
            &[c.clone(), chunk(json!({"id": "x9", "content": "B"}))],
            "file_name",
            0,
            None,
        )
        .unwrap();
        assert_eq!(
            ctx,
            "<Chunk>\nfile_name: chunk-1\ncontent:\nWater boils.\n</Chunk>\n\n<Chunk>\nfile_name: x9\ncontent:\nB\n</Chunk>"
        );
        assert_eq!(labels, vec!["chunk-1", "x9"]);
    }

    #[test]
    fn answers() {
        let structured = json!([{"type": "structured", "output": {"results": [{"explanation": "", "is_relevant": true}, {"explanation": "", "is_relevant": false}]}}]);
        assert_eq!(
            relevance_results(&structured, 2).unwrap(),
            vec![true, false]
        );
        let e = relevance_results(&structured, 3).unwrap_err();
        assert_eq!(e.code(), "INVALID_MODEL_ANSWER");
        assert!(e.to_string().contains("batch has 3"));
        let text = json!([{"type": "text", "output": "Sure: ```json\n{\"file_name\": [\"a.pdf\", \"zzz\"]}\n```"}]);
        let labels = vec!["a.pdf".to_owned(), "b.pdf".to_owned(), "a.pdf".to_owned()];
        assert_eq!(
            formatter_kept(&text, "file_name", &labels).unwrap(),
            vec![true, false, true]
        );
        assert!(formatter_kept(
            &json!([{"type": "text", "output": "no"}]),
            "file_name",
            &labels
        )
        .is_err());
        assert!(relevance_results(
            &json!([{"type": "structured", "output": {"results": [{"is_relevant": "yes"}]}}]),
            1
        )
        .is_err());
    }
}
