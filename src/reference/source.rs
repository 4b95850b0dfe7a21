//! Checking CSL-JSON items before they reach the engine, so that a bad field is an error that
//! names it instead of a vague "did not match any variant".

#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::indexing_slicing,
        clippy::panic,
        clippy::unreachable,
        clippy::todo,
        clippy::unimplemented,
        clippy::string_slice
    )
)]

use hayagriva::citationberg::json::{Item, Value as CslValue};
use serde_json::{Map, Value};

use super::ReferenceError;

/// CSL 1.0.2 item types.
const TYPES: &[&str] = &[
    "article",
    "article-journal",
    "article-magazine",
    "article-newspaper",
    "bill",
    "book",
    "broadcast",
    "chapter",
    "classic",
    "collection",
    "dataset",
    "document",
    "entry",
    "entry-dictionary",
    "entry-encyclopedia",
    "event",
    "figure",
    "graphic",
    "hearing",
    "interview",
    "legal_case",
    "legislation",
    "manuscript",
    "map",
    "motion_picture",
    "musical_score",
    "pamphlet",
    "paper-conference",
    "patent",
    "performance",
    "periodical",
    "personal_communication",
    "post",
    "post-weblog",
    "regulation",
    "report",
    "review",
    "review-book",
    "software",
    "song",
    "speech",
    "standard",
    "thesis",
    "treaty",
    "webpage",
];

const DATE_FIELDS: &[&str] = &[
    "accessed",
    "available-date",
    "event-date",
    "issued",
    "original-date",
    "submitted",
];
const NAME_FIELDS: &[&str] = &[
    "author",
    "chair",
    "collection-editor",
    "compiler",
    "composer",
    "container-author",
    "contributor",
    "curator",
    "director",
    "editor",
    "editorial-director",
    "executive-producer",
    "guest",
    "host",
    "illustrator",
    "interviewer",
    "narrator",
    "organizer",
    "original-author",
    "performer",
    "producer",
    "recipient",
    "reviewed-author",
    "script-writer",
    "series-creator",
    "translator",
];

/// Fields copied exactly as given (identifiers and links).
const VERBATIM_FIELDS: &[&str] = &[
    "id",
    "type",
    "URL",
    "DOI",
    "ISBN",
    "ISSN",
    "PMID",
    "PMCID",
    "language",
    "note",
    "citation-key",
];

/// A straight apostrophe inside or after a word becomes ’, as typeset text (and citeproc-js)
/// has it; quotes meant as quotes (at a word start) are left alone.
fn typographic_apostrophes(text: &str) -> String {
    if !text.contains('\'') {
        return text.to_owned();
    }
    let mut out = String::with_capacity(text.len());
    let mut prev: Option<char> = None;
    for c in text.chars() {
        out.push(if c == '\'' && prev.is_some_and(char::is_alphanumeric) {
            '’'
        } else {
            c
        });
        prev = Some(c);
    }
    out
}

fn bad(index: usize, reason: impl Into<String>) -> ReferenceError {
    ReferenceError::InvalidSource {
        index,
        reason: reason.into(),
    }
}

/// The CSL-JSON item of a source: the source itself, or its `metadata` when it has one
/// (`{content, metadata}` as the orchestrator takes them). Items without an `id` get
/// `source-<n>`; ids are made unique.
pub fn csl_item(index: usize, source: &Value) -> Result<Item, ReferenceError> {
    let obj = match source {
        Value::Object(o) => match o.get("metadata") {
            Some(Value::Object(meta)) => meta,
            Some(_) => return Err(bad(index, "`metadata` must be a CSL-JSON object")),
            None => o,
        },
        _ => {
            return Err(bad(
                index,
                "expected a CSL-JSON object (or a source with `metadata`)",
            ))
        }
    };
    match obj.get("type") {
        Some(Value::String(t)) if TYPES.contains(&t.as_str()) => {}
        Some(Value::String(t)) => return Err(bad(index, format!("`type` {t:?} is not a CSL item type (e.g. \"article-journal\", \"book\", \"webpage\")"))),
        Some(_) => return Err(bad(index, "`type` must be a string")),
        None => return Err(bad(index, "missing `type` (e.g. \"article-journal\", \"book\", \"webpage\")")),
    }
    let mut map = Map::new();
    for (key, value) in obj {
        if value.is_null() {
            continue;
        }
        let checked = if DATE_FIELDS.contains(&key.as_str()) {
            check_date(index, key, value)?
        } else if NAME_FIELDS.contains(&key.as_str()) {
            check_names(index, key, value)?
        } else {
            match value {
                Value::String(text) if !VERBATIM_FIELDS.contains(&key.as_str()) => {
                    Value::String(typographic_apostrophes(text))
                }
                Value::String(_) => value.clone(),
                Value::Number(n) if n.is_i64() => value.clone(),
                Value::Number(n) => Value::String(n.to_string()),
                Value::Bool(_) | Value::Array(_) | Value::Object(_) if key == "custom" => continue,
                _ => return Err(bad(index, format!("`{key}` must be a string or a number"))),
            }
        };
        map.insert(key.clone(), checked);
    }
    let id = match map.get("id") {
        Some(Value::String(s)) if !s.is_empty() => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => format!("source-{}", index + 1),
    };
    map.insert("id".into(), Value::String(id));
    serde_json::from_value::<Item>(Value::Object(map)).map_err(|e| bad(index, e.to_string()))
}

fn check_date(index: usize, key: &str, value: &Value) -> Result<Value, ReferenceError> {
    let shape = "a CSL date: {\"date-parts\": [[2020, 5, 17]]}, {\"raw\": \"2020-05-17\"} or {\"literal\": \"…\"}";
    let ok = match value {
        Value::Object(d) => match d.get("date-parts") {
            Some(Value::Array(ranges)) => !ranges.is_empty()
                && ranges.len() <= 2
                && ranges.iter().all(|r| matches!(r, Value::Array(parts) if !parts.is_empty() && parts.len() <= 3 && parts.iter().all(|p| p.as_i64().is_some_and(|n| i16::try_from(n).is_ok()) || p.as_str().is_some_and(|s| s.parse::<i16>().is_ok())))),
            Some(_) => false,
            None => d.get("raw").or_else(|| d.get("literal")).is_some_and(Value::is_string),
        },
        Value::String(_) => true,
        _ => false,
    };
    if !ok {
        return Err(bad(index, format!("`{key}` must be {shape}")));
    }
    // Numbers given as strings are normalised; the engine wants integers.
    let mut v = value.clone();
    if let Some(Value::Array(ranges)) = v.get_mut("date-parts") {
        for r in ranges.iter_mut() {
            if let Value::Array(parts) = r {
                for p in parts.iter_mut() {
                    if let Some(n) = p.as_str().and_then(|s| s.parse::<i64>().ok()) {
                        *p = Value::from(n);
                    }
                }
            }
        }
    }
    serde_json::from_value::<CslValue>(v.clone())
        .map_err(|_| bad(index, format!("`{key}` must be {shape}")))?;
    Ok(v)
}

fn check_names(index: usize, key: &str, value: &Value) -> Result<Value, ReferenceError> {
    let Value::Array(names) = value else {
        return Err(bad(
            index,
            format!(
                "`{key}` must be an array of names ({{\"family\", \"given\"}} or {{\"literal\"}})"
            ),
        ));
    };
    for (i, n) in names.iter().enumerate() {
        let ok = n.as_object().is_some_and(|o| {
            o.values()
                .all(|v| v.is_string() || v.is_number() || v.is_boolean())
                && ["family", "given", "literal"]
                    .iter()
                    .any(|k| o.get(*k).is_some_and(Value::is_string))
        });
        if !ok {
            return Err(bad(
                index,
                format!(
                    "`{key}[{i}]` must be a name object with `family`/`given` or `literal` strings"
                ),
            ));
        }
    }
    Ok(value.clone())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn fills_ids_and_reads_metadata() {
        let item = csl_item(
            2,
            &json!({"content": "x", "metadata": {"type": "book", "title": "T"}}),
        )
        .unwrap();
        assert_eq!(item.id().as_deref(), Some("source-3"));
        let item = csl_item(
            0,
            &json!({"type": "book", "id": 7, "title": "Poe's letter"}),
        )
        .unwrap();
        assert_eq!(item.id().as_deref(), Some("7"));
        assert_eq!(item.0["title"].to_str().as_deref(), Some("Poe’s letter"));
    }

    #[test]
    fn bad_fields_are_named() {
        let err = |v: Value| csl_item(4, &v).unwrap_err().to_string();
        assert!(err(json!({"title": "x"})).starts_with("sources[4]: missing `type`"));
        assert!(
            err(json!({"type": "book", "issued": {"date-parts": [["x"]]}}))
                .contains("`issued` must be a CSL date")
        );
        assert!(err(json!({"type": "book", "editor": [{"name": "x"}]})).contains("`editor[0]`"));
        assert!(err(json!({"type": "book", "title": ["x"]})).contains("`title` must be a string"));
        assert!(err(json!("book")).contains("expected a CSL-JSON object"));
    }

    #[test]
    fn apostrophes_only_inside_words() {
        assert_eq!(
            typographic_apostrophes("Jay Alammar's 'blog'"),
            "Jay Alammar’s 'blog’"
        );
        assert_eq!(typographic_apostrophes("no quotes"), "no quotes");
    }
}
