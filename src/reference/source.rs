//! Checking CSL-JSON items before they reach the engine, so that a bad field is an error that
//! names it instead of a vague "did not match any variant".

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

fn bad(index: usize, reason: impl Into<String>) -> ReferenceError {
    ReferenceError::InvalidSource {
        index,
        reason: reason.into(),
    }
}

/// The CSL-JSON item of a source: the source itself, or its `metadata` when it has one
/// (`{content, metadata}` as the orchestrator takes them). Items without an `id` get
/// `source-<n>`; ids are made unique.
pub fn csl_item(index: usize, source: &Value) -> Result<Value, ReferenceError> {
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
    Ok(Value::Object(map))
}

/// The months, the seasons (which CSL writes in the month's place) and the days a date may
/// hold; the engine computes with them and must not see anything else.
const MONTHS: std::ops::RangeInclusive<i64> = 1..=12;
/// CSL-JSON writes seasons as months 13-16; EDTF-style data as 21-24. Both are accepted, each
/// with what to subtract to get the season number (1 = spring … 4 = winter).
const SEASONS: [(std::ops::RangeInclusive<i64>, i64); 2] = [(13..=16, 12), (21..=24, 20)];
const DAYS: std::ops::RangeInclusive<i64> = 1..=31;

/// One date-parts entry, `[year, month?, day?]` (numbers or numeric strings), as integers:
/// the year must fit the engine's i16, the month and day their calendar ranges.
fn date_parts(parts: &Value) -> Option<Vec<i64>> {
    let Value::Array(parts) = parts else {
        return None;
    };
    if parts.is_empty() || parts.len() > 3 {
        return None;
    }
    let numbers: Vec<i64> = parts
        .iter()
        .map(|p| match p {
            Value::String(s) => s.trim().parse::<i64>().ok(),
            other => other.as_i64(),
        })
        .collect::<Option<_>>()?;
    let ok = match numbers.as_slice() {
        [year, rest @ ..] => {
            i16::try_from(*year).is_ok()
                && rest
                    .first()
                    .is_none_or(|m| MONTHS.contains(m) || season(*m).is_some())
                && rest.get(1).is_none_or(|d| DAYS.contains(d))
        }
        [] => false,
    };
    ok.then_some(numbers)
}

/// The season number a season "month" stands for.
fn season(month: i64) -> Option<i64> {
    SEASONS
        .iter()
        .find(|(range, _)| range.contains(&month))
        .map(|(_, base)| month - base)
}

/// Whether `date` is a raw date as the engine reads one, `YYYY[-MM[-DD]]` (anything after
/// the digits it ignores), with the year in i16 and the month and day in range.
fn raw_date_ok(date: &str) -> bool {
    /// The leading digits of `s` as a number, and the rest.
    fn number(s: &str) -> Option<(i64, &str)> {
        let end = s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let (digits, rest) = s.split_at_checked(end)?;
        Some((digits.parse().ok()?, rest))
    }
    let Some((year, rest)) = number(date) else {
        return false;
    };
    if i16::try_from(year).is_err() {
        return false;
    }
    let Some(rest) = rest.strip_prefix('-') else {
        return true;
    };
    let Some((month, rest)) = number(rest) else {
        return false;
    };
    if !MONTHS.contains(&month) {
        return false;
    }
    let Some(rest) = rest.strip_prefix('-') else {
        return true;
    };
    number(rest).is_some_and(|(day, _)| DAYS.contains(&day))
}

fn check_date(index: usize, key: &str, value: &Value) -> Result<Value, ReferenceError> {
    let shape = "a CSL date: {\"date-parts\": [[2020, 5, 17]]}, {\"raw\": \"2020-05-17\"} or {\"literal\": \"…\"}";
    let invalid = || bad(index, format!("`{key}` must be {shape}"));
    let mut v = value.clone();
    match &mut v {
        Value::Object(d) => match d.get_mut("date-parts") {
            Some(Value::Array(ranges)) => {
                // One date, or a range of two.
                if ranges.is_empty() || ranges.len() > 2 {
                    return Err(invalid());
                }
                let mut checked = Vec::with_capacity(ranges.len());
                for r in ranges.iter() {
                    checked.push(Value::from(date_parts(r).ok_or_else(invalid)?));
                }
                *ranges = checked;
            }
            Some(_) => return Err(invalid()),
            None => {
                if let Some(Value::String(raw)) = d.get("raw") {
                    // `start/end` is a range.
                    if raw.split('/').count() > 2 || !raw.split('/').all(raw_date_ok) {
                        return Err(invalid());
                    }
                } else if !d.get("literal").is_some_and(Value::is_string) {
                    return Err(invalid());
                }
            }
        },
        Value::String(_) => {}
        _ => return Err(invalid()),
    }
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
        assert_eq!(item["id"], "source-3");
        let item = csl_item(
            0,
            &json!({"type": "book", "id": 7, "title": "Poe's letter"}),
        )
        .unwrap();
        assert_eq!(item["id"], "7");
        assert_eq!(item["title"], "Poe's letter");
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
    fn dates_are_checked_and_ranges_kept() {
        let issued = |d: Value| csl_item(0, &json!({"type": "book", "issued": d}));
        assert_eq!(
            issued(json!({"date-parts": [[2020, "5"], ["2021"]]})).unwrap()["issued"],
            json!({"date-parts": [[2020, 5], [2021]]})
        );
        for bad in [
            json!({"date-parts": [[2020, 0]]}),
            json!({"date-parts": [[2020, -32768]]}),
            json!({"date-parts": [[2020, 5, 32]]}),
            json!({"date-parts": [[40000]]}),
            json!({"date-parts": [[2020], [2021], [2022]]}),
            json!({"date-parts": [[]]}),
            json!({"raw": "2020-00"}),
            json!({"raw": "2020-13"}),
            json!({"raw": "2020-05-00"}),
            json!({"raw": "spring"}),
            json!({"raw": "2020/2021/2022"}),
            json!(7),
        ] {
            assert!(issued(bad.clone()).is_err(), "{bad}");
        }
        for good in [
            json!({"date-parts": [[2020, 21]]}),
            json!({"date-parts": [[2019, 13]]}),
            json!({"date-parts": [["-500"]]}),
            json!({"raw": "2020"}),
            json!({"raw": "2020-5-7"}),
            json!({"raw": "2020-05-17/2020-05-19"}),
        ] {
            assert!(issued(good.clone()).is_ok(), "{good}");
        }
    }
}
