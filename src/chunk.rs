//! Retrieved chunks, the context text rendered from them (`ContextConfig`), and the plain
//! reference formats: one chunk as a markdown link, a list as "References:\n1. …".

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

/// Something wrong with a chunk or a context configuration.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ChunkError {
    #[error("{0}")]
    InvalidChunk(String),
    #[error("{0}")]
    InvalidConfig(String),
    /// A component's option that is not a context config (INVALID_OPTION).
    #[error("{0}")]
    InvalidOption(String),
}

impl ChunkError {
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidChunk(_) => "INVALID_CHUNK",
            Self::InvalidConfig(_) => "INVALID_CONTEXT_CONFIG",
            Self::InvalidOption(_) => "INVALID_OPTION",
        }
    }
}

/// A retrieved piece of a document.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Chunk {
    #[serde(default)]
    pub id: Option<String>,
    pub content: String,
    #[serde(default)]
    pub metadata: Map<String, Value>,
    #[serde(default)]
    pub additional_context: Vec<Value>,
    #[serde(default)]
    pub score: Option<f64>,
}

impl Chunk {
    /// A chunk from JSON, checked: `content` must be a non-blank string.
    pub fn from_value(value: Value, index: usize) -> Result<Self, ChunkError> {
        let bad = |why: String| ChunkError::InvalidChunk(format!("chunks[{index}]: {why}"));
        let Value::Object(mut map) = value else {
            return Err(bad(
                "a chunk is an object {id?, content, metadata?, additionalContext?, score?}".into(),
            ));
        };
        match map.get("content") {
            Some(Value::String(s)) if !s.trim().is_empty() => {}
            Some(Value::String(_)) => return Err(bad("`content` is empty".into())),
            None | Some(Value::Null) => return Err(bad("has no `content`".into())),
            Some(other) => return Err(bad(format!("`content` must be a string, not {other}"))),
        }
        // Ids are often numbers in retrieval results; keep them as text.
        if let Some(id) = map.get_mut("id") {
            if let Value::Number(n) = id {
                *id = Value::String(n.to_string());
            }
        }
        serde_json::from_value(Value::Object(map)).map_err(|e| bad(e.to_string()))
    }
}

/// A list of chunks from JSON, each checked; the error names the first bad one.
pub fn chunks_from_value(value: Value) -> Result<Vec<Chunk>, ChunkError> {
    match value {
        Value::Array(items) => items
            .into_iter()
            .enumerate()
            .map(|(i, v)| Chunk::from_value(v, i))
            .collect(),
        _ => Err(ChunkError::InvalidChunk(
            "chunks must be an array of chunks".into(),
        )),
    }
}

/// What a model or embedder sees of a chunk: its rendered context where a config is given,
/// else its content.
pub fn context_text(chunk: &Chunk, config: Option<&ContextConfig>) -> Result<String, ChunkError> {
    match config {
        Some(cfg) => cfg.render(chunk),
        None => Ok(chunk.content.clone()),
    }
}

/// Which parts of a chunk become its context text, and how.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields, default)]
pub struct ContextConfig {
    /// Chunk fields to include: `metadata`, `content`, `id`, `additionalContext`, `score`.
    pub fields: Vec<String>,
    /// Metadata keys to include; `None` means all.
    pub metadata_keys: Option<Vec<String>>,
    /// `{context_json}`, `{metadata_json}`, `{metadata}` and the field names as placeholders.
    pub template: String,
}

impl Default for ContextConfig {
    fn default() -> Self {
        Self {
            fields: vec!["metadata".into()],
            metadata_keys: None,
            template: "{context_json}".into(),
        }
    }
}

const FIELDS: [&str; 5] = ["metadata", "content", "id", "additionalContext", "score"];
const PLACEHOLDERS: [&str; 3] = ["context_json", "metadata_json", "metadata"];

/// The field name as written in a config (`additional_context` is accepted for the seeds' spelling).
fn canonical_field(name: &str) -> Option<&'static str> {
    let name = if name == "additional_context" {
        "additionalContext"
    } else {
        name
    };
    FIELDS.iter().copied().find(|f| *f == name)
}

enum Piece<'a> {
    Text(&'a str),
    Slot(&'a str),
}

/// `{name}` placeholders; `{{` and `}}` are literal braces.
fn pieces(template: &str) -> Vec<Piece<'_>> {
    let mut out = Vec::new();
    let mut rest = template;
    while let Some(at) = rest.find(['{', '}']) {
        // `head` is the text through the brace (braces are ASCII: the cut is between chars).
        let Some((head, after)) = rest.split_at_checked(at + 1) else {
            break;
        };
        let brace = if head.ends_with('{') { '{' } else { '}' };
        if let Some(doubled) = after.strip_prefix(brace) {
            out.push(Piece::Text(head));
            rest = doubled;
            continue;
        }
        match (brace, after.split_once('}')) {
            ('{', Some((name, tail))) => {
                out.push(Piece::Text(head.strip_suffix('{').unwrap_or(head)));
                out.push(Piece::Slot(name));
                rest = tail;
            }
            _ => {
                out.push(Piece::Text(head));
                rest = after;
            }
        }
    }
    out.push(Piece::Text(rest));
    out
}

impl ContextConfig {
    /// Checks the fields and every placeholder of the template.
    pub fn validate(&self) -> Result<(), ChunkError> {
        for f in &self.fields {
            if canonical_field(f).is_none() {
                return Err(ChunkError::InvalidConfig(format!(
                    "ContextConfig.fields: unknown field {f:?} (the fields are {})",
                    FIELDS.join(", ")
                )));
            }
        }
        for piece in pieces(&self.template) {
            if let Piece::Slot(name) = piece {
                let known = PLACEHOLDERS.contains(&name)
                    || self
                        .fields
                        .iter()
                        .any(|f| f == name || canonical_field(f) == canonical_field(name));
                if !known {
                    let mut supported: Vec<String> =
                        PLACEHOLDERS.iter().map(|p| format!("{{{p}}}")).collect();
                    for f in &self.fields {
                        let slot = format!("{{{f}}}");
                        if !supported.contains(&slot) {
                            supported.push(slot);
                        }
                    }
                    return Err(ChunkError::InvalidConfig(format!(
                        "ContextConfig.template: unknown placeholder {{{name}}}; the supported ones are {}",
                        supported.join(", ")
                    )));
                }
            }
        }
        Ok(())
    }

    fn metadata(&self, chunk: &Chunk) -> Map<String, Value> {
        match &self.metadata_keys {
            None => chunk.metadata.clone(),
            Some(keys) => keys
                .iter()
                .filter_map(|k| chunk.metadata.get(k).map(|v| (k.clone(), v.clone())))
                .collect(),
        }
    }

    fn field(&self, chunk: &Chunk, field: &str) -> Option<Value> {
        let v = match field {
            "metadata" => Value::Object(self.metadata(chunk)),
            "content" => Value::String(chunk.content.clone()),
            "id" => chunk.id.clone().map(Value::String)?,
            "additionalContext" => Value::Array(chunk.additional_context.clone()),
            "score" => chunk.score.map(Value::from)?,
            _ => return None,
        };
        let empty = match &v {
            Value::Object(m) => m.is_empty(),
            Value::Array(a) => a.is_empty(),
            Value::String(s) => s.is_empty(),
            _ => false,
        };
        (!empty).then_some(v)
    }

    /// The chunk's context text; the raw content where that comes out blank.
    pub fn render(&self, chunk: &Chunk) -> Result<String, ChunkError> {
        self.validate()?;
        let mut selected = Map::new();
        // `validate` has accepted every field name, so each has a canonical form.
        for name in self.fields.iter().filter_map(|f| canonical_field(f)) {
            if let Some(v) = self.field(chunk, name) {
                selected.insert(name.to_owned(), v);
            }
        }
        let pretty = |v: &Value| serde_json::to_string_pretty(v).unwrap_or_default();
        let mut out = String::new();
        for piece in pieces(&self.template) {
            match piece {
                Piece::Text(t) => out.push_str(t),
                Piece::Slot("context_json") if !selected.is_empty() => {
                    out.push_str(&pretty(&Value::Object(selected.clone())))
                }
                Piece::Slot("context_json") => {}
                Piece::Slot("metadata_json") => {
                    let m = self.metadata(chunk);
                    if !m.is_empty() {
                        out.push_str(&pretty(&Value::Object(m)));
                    }
                }
                Piece::Slot("metadata") => {
                    let lines: Vec<String> = self
                        .metadata(chunk)
                        .iter()
                        .map(|(k, v)| format!("{k}: {}", plain(v)))
                        .collect();
                    out.push_str(&lines.join("\n"));
                }
                Piece::Slot(name) => {
                    if let Some(v) = canonical_field(name).and_then(|f| self.field(chunk, f)) {
                        out.push_str(&match v {
                            Value::String(s) => s,
                            other => pretty(&other),
                        });
                    }
                }
            }
        }
        Ok(if out.trim().is_empty() {
            chunk.content.clone()
        } else {
            out
        })
    }
}

/// A value as a person reads it: strings bare, everything else as compact JSON.
pub fn plain(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// Which metadata keys hold a chunk's title and URL (`file_name` and `file_url` by default).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MetadataMap {
    pub title: String,
    pub url: String,
}

impl Default for MetadataMap {
    fn default() -> Self {
        Self {
            title: "file_name".into(),
            url: "file_url".into(),
        }
    }
}

fn non_blank(v: Option<&Value>) -> Option<String> {
    v.map(plain).filter(|s| !s.trim().is_empty() && s != "null")
}

/// `[title](url)` when the chunk has a URL, else the title. A missing title falls back to the
/// URL, then the chunk's id, then the start of its content (never the text "None").
pub fn format_chunk_as_string(chunk: &Chunk, map: &MetadataMap) -> String {
    let url = non_blank(chunk.metadata.get(&map.url));
    let title = non_blank(chunk.metadata.get(&map.title))
        .or_else(|| url.clone())
        .or_else(|| chunk.id.clone().filter(|id| !id.trim().is_empty()))
        .unwrap_or_else(|| {
            let first = chunk.content.trim().lines().next().unwrap_or_default();
            let mut cut: String = first.chars().take(60).collect();
            if cut.len() < first.len() {
                cut.push('…');
            }
            cut
        });
    match url {
        Some(url) => format!(
            "[{}]({})",
            title
                .replace('\\', "\\\\")
                .replace('[', "\\[")
                .replace(']', "\\]"),
            url.replace(' ', "%20")
                .replace('(', "%28")
                .replace(')', "%29")
        ),
        None => title,
    }
}

/// "References:\n1. a\n2. b", identical entries once (first kept); "" for no entries.
pub fn format_references_as_string(items: &[String]) -> String {
    let mut seen: Vec<&str> = Vec::new();
    for item in items {
        if !seen.contains(&item.as_str()) {
            seen.push(item);
        }
    }
    if seen.is_empty() {
        return String::new();
    }
    let mut out = String::from("References:");
    for (i, item) in seen.iter().enumerate() {
        out.push_str(&format!("\n{}. {item}", i + 1));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn chunk(v: Value) -> Chunk {
        Chunk::from_value(v, 0).unwrap()
    }

    #[test]
    fn chunks_are_checked() {
        for (bad, why) in [
            (json!({"id": "a"}), "has no `content`"),
            (json!({"content": "  "}), "is empty"),
            (json!({"content": 5}), "must be a string"),
            (json!("text"), "is an object"),
        ] {
            let e = Chunk::from_value(bad, 3).unwrap_err();
            assert_eq!(e.code(), "INVALID_CHUNK");
            assert!(e.to_string().starts_with("chunks[3]"), "{e}");
            assert!(e.to_string().contains(why), "{e}");
        }
        assert_eq!(
            chunk(json!({"id": 7, "content": "x"})).id.as_deref(),
            Some("7")
        );
    }

    #[test]
    fn context_renders_selected_fields_as_pretty_json() {
        let c =
            chunk(json!({"id": "c1", "content": "Body.", "metadata": {"title": "T", "page": 3}}));
        let cfg = ContextConfig::default();
        assert_eq!(
            cfg.render(&c).unwrap(),
            "{\n  \"metadata\": {\n    \"title\": \"T\",\n    \"page\": 3\n  }\n}"
        );
        let keys = ContextConfig {
            metadata_keys: Some(vec!["page".into()]),
            template: "Page info: {metadata}\n{content}".into(),
            fields: vec!["metadata".into(), "content".into()],
        };
        assert_eq!(keys.render(&c).unwrap(), "Page info: page: 3\nBody.");
        let bare = chunk(json!({"content": "Only content."}));
        assert_eq!(
            cfg.render(&bare).unwrap(),
            "Only content.",
            "empty context → raw content"
        );
        let braces = ContextConfig {
            template: "{{literal}} {metadata_json}".into(),
            ..ContextConfig::default()
        };
        assert!(braces.render(&c).unwrap().starts_with("{literal} {\n"));
    }

    #[test]
    fn unknown_placeholders_and_fields_name_the_supported_ones() {
        let bad = ContextConfig {
            template: "{context_json} {summary}".into(),
            ..ContextConfig::default()
        };
        let e = bad.validate().unwrap_err();
        assert_eq!(e.code(), "INVALID_CONTEXT_CONFIG");
        assert!(e.to_string().contains("{summary}"));
        assert!(e
            .to_string()
            .contains("{context_json}, {metadata_json}, {metadata}"));
        let field = ContextConfig {
            fields: vec!["title".into()],
            ..ContextConfig::default()
        };
        assert!(field
            .validate()
            .unwrap_err()
            .to_string()
            .contains("\"title\""));
    }

    #[test]
    fn chunk_strings_never_say_none() {
        let map = MetadataMap::default();
        let linked = chunk(
            json!({"content": "x", "metadata": {"file_name": "Guide [v2]", "file_url": "https://e.org/a b"}}),
        );
        assert_eq!(
            format_chunk_as_string(&linked, &map),
            "[Guide \\[v2\\]](https://e.org/a%20b)"
        );
        let url_only = chunk(json!({"content": "x", "metadata": {"file_url": "https://e.org"}}));
        assert_eq!(
            format_chunk_as_string(&url_only, &map),
            "[https://e.org](https://e.org)"
        );
        let id_only =
            chunk(json!({"id": "doc-4", "content": "x", "metadata": {"file_name": null}}));
        assert_eq!(format_chunk_as_string(&id_only, &map), "doc-4");
        let nothing = chunk(json!({"content": "A first line\nsecond"}));
        assert_eq!(format_chunk_as_string(&nothing, &map), "A first line");
    }

    #[test]
    fn reference_lists() {
        assert_eq!(format_references_as_string(&[]), "");
        let items = ["a".to_owned(), "b".to_owned(), "a".to_owned()];
        assert_eq!(
            format_references_as_string(&items),
            "References:\n1. a\n2. b"
        );
    }
}
