//! A retrieved chunk's metadata as a CSL-JSON item, so retrieval results can be cited as they
//! come (`{content, metadata: {file_name, file_url, …}}`) without a mapping of one's own.
//!
//! Metadata that already says its CSL `type` is taken as CSL-JSON, untouched. Otherwise the
//! common retrieval fields are mapped: a title (`title`, else `file_name`), a link (`url`,
//! `URL`, `file_url`, `source_url`, `source` when it is an http(s) address), authors
//! (`author` / `authors`: a name or a list of names, each a literal name), a date (`date`,
//! `published`, `year`, `created`: `YYYY`, `YYYY-MM`, `YYYY-MM-DD` or an ISO timestamp), a
//! `publisher`, a container (`journal`, `site_name`, `container_title`) and a `page`. The type
//! is `webpage` for a link without a file name, else `document`. Anything not understood is
//! left out rather than guessed.
//!
//! ```
//! use citeflow::source_item::csl_item;
//! use serde_json::json;
//! let item = csl_item(json!({"file_name": "boiling.pdf", "file_url": "https://example.org/b.pdf", "year": 2021}).as_object().unwrap());
//! assert_eq!(item["type"], "document");
//! assert_eq!(item["title"], "boiling.pdf");
//! assert_eq!(item["URL"], "https://example.org/b.pdf");
//! assert_eq!(item["issued"], json!({"date-parts": [[2021]]}));
//! ```

use serde_json::{json, Map, Value};

fn text<'a>(metadata: &'a Map<String, Value>, keys: &[&str]) -> Option<&'a str> {
    keys.iter()
        .filter_map(|k| metadata.get(*k).and_then(Value::as_str))
        .map(str::trim)
        .find(|s| !s.is_empty())
}

fn is_link(s: &str) -> bool {
    let lower = s.get(..8).unwrap_or(s).to_ascii_lowercase();
    lower.starts_with("https://") || lower.starts_with("http://")
}

/// `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, an ISO timestamp, or a year as a number.
fn date_parts(value: &Value) -> Option<Value> {
    if let Some(year) = value.as_u64().filter(|y| (1..=9999).contains(y)) {
        return Some(json!({ "date-parts": [[year]] }));
    }
    let s = value.as_str()?.trim();
    let day = s.split(['T', ' ']).next()?;
    let mut parts = Vec::new();
    for (i, piece) in day.split('-').enumerate() {
        let n: u64 = piece.parse().ok()?;
        let ok = match i {
            0 => piece.len() == 4 && (1..=9999).contains(&n),
            1 => (1..=12).contains(&n),
            2 => n >= 1 && n <= days_in_month(parts.first().copied(), parts.get(1).copied()),
            _ => false,
        };
        if !ok {
            return None;
        }
        parts.push(n);
    }
    Some(json!({ "date-parts": [parts] }))
}

/// Days of a month (a date the calendar lacks, 30 February say, is no date).
fn days_in_month(year: Option<u64>, month: Option<u64>) -> u64 {
    let leap = year.is_some_and(|y| y % 4 == 0 && (y % 100 != 0 || y % 400 == 0));
    match month {
        Some(2) if leap => 29,
        Some(2) => 28,
        Some(4 | 6 | 9 | 11) => 30,
        _ => 31,
    }
}

fn names(value: &Value) -> Option<Value> {
    let one = |v: &Value| {
        v.as_str()
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(|s| json!({ "literal": s }))
    };
    let list: Vec<Value> = match value {
        Value::Array(items) => items.iter().filter_map(one).collect(),
        other => one(other).into_iter().collect(),
    };
    (!list.is_empty()).then(|| Value::Array(list))
}

/// The CSL-JSON item for a source's metadata (see the module docs).
pub fn csl_item(metadata: &Map<String, Value>) -> Map<String, Value> {
    if metadata.contains_key("type") {
        return metadata.clone();
    }
    let file = text(metadata, &["file_name", "filename", "fileName"]);
    let link = text(
        metadata,
        &["url", "URL", "file_url", "fileUrl", "source_url"],
    )
    .or_else(|| text(metadata, &["source"]).filter(|s| is_link(s)));
    let mut item = Map::new();
    let kind = if link.is_some() && file.is_none() {
        "webpage"
    } else {
        "document"
    };
    item.insert("type".into(), kind.into());
    if let Some(title) = text(metadata, &["title", "name"]).or(file) {
        item.insert("title".into(), title.into());
    }
    if let Some(link) = link {
        item.insert("URL".into(), link.into());
    }
    if let Some(authors) = ["author", "authors"]
        .iter()
        .find_map(|k| metadata.get(*k).and_then(names))
    {
        item.insert("author".into(), authors);
    }
    if let Some(date) = ["date", "published", "publication_date", "year", "created"]
        .iter()
        .find_map(|k| metadata.get(*k).and_then(date_parts))
    {
        item.insert("issued".into(), date);
    }
    if let Some(publisher) = text(metadata, &["publisher"]) {
        item.insert("publisher".into(), publisher.into());
    }
    if let Some(container) = text(metadata, &["journal", "site_name", "container_title"]) {
        item.insert("container-title".into(), container.into());
    }
    if let Some(page) = metadata
        .get("page")
        .or_else(|| metadata.get("page_number"))
        .and_then(|p| {
            p.as_u64()
                .map(|n| n.to_string())
                .or_else(|| p.as_str().map(str::to_owned))
        })
    {
        item.insert("page".into(), page.into());
    }
    item
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(v: Value) -> Value {
        Value::Object(csl_item(v.as_object().unwrap()))
    }

    #[test]
    fn retrieval_metadata_becomes_an_item() {
        assert_eq!(
            item(
                json!({"file_name": "a.pdf", "file_url": "https://x.org/a.pdf", "author": ["Ada Lovelace", " ", 3], "date": "2020-02-30T10:00:00Z", "page": 4})
            ),
            json!({"type": "document", "title": "a.pdf", "URL": "https://x.org/a.pdf", "author": [{"literal": "Ada Lovelace"}], "page": "4"})
        );
        assert_eq!(
            item(json!({"title": "Boiling", "source": "https://x.org/b", "published": "2019-07"})),
            json!({"type": "webpage", "title": "Boiling", "URL": "https://x.org/b", "issued": {"date-parts": [[2019, 7]]}})
        );
        assert_eq!(
            item(json!({"source": "javascript:alert(1)"})),
            json!({"type": "document"})
        );
    }

    #[test]
    fn csl_json_is_taken_as_it_is() {
        let csl = json!({"type": "book", "title": "T", "file_name": "ignored.pdf"});
        assert_eq!(item(csl.clone()), csl);
    }
}
