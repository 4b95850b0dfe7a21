//! CSL-JSON dates reshaped into what the engine (hayagriva 0.10) can render without panicking.
//!
//! Dates are untrusted metadata. The engine panics on a date range (standard CSL-JSON:
//! `"date-parts": [[2019], [2020]]`) and on an empty date part (`[[]]`), and reads months 0 and
//! 13-16 (seasons, in CSL-JSON) as out-of-range indexes. Until our own engine renders ranges,
//! a range renders as its start date; impossible months and days are dropped, seasons become
//! the `season` field.

use hayagriva::citationberg::json::{DateValue, FixedDateRange, Item, Value, VecDate};

/// Season "months": 13 = spring … 16 = winter in CSL-JSON, 21-24 in EDTF-style data.
const SEASON_MONTHS: [(std::ops::RangeInclusive<i16>, i16); 2] = [(13..=16, 12), (21..=24, 20)];

/// Reshapes every date variable of `item` in place (see the module docs).
pub fn make_renderable(item: &mut Item) {
    item.0.retain(|_, value| match value {
        Value::Date(date) => make_date_renderable(date),
        _ => true,
    });
}

/// Whether the date is kept (a date with no parts at all is dropped).
fn make_date_renderable(date: &mut DateValue) -> bool {
    match date {
        DateValue::Raw { raw, .. } => {
            *raw = FixedDateRange {
                start: raw.start,
                end: None,
            };
            true
        }
        DateValue::DateParts {
            date_parts, season, ..
        } => {
            date_parts.0.truncate(1);
            let Some(start) = date_parts.0.first_mut() else {
                return false;
            };
            if start.0.is_empty() {
                return false;
            }
            if let Some(found) = clean_parts(start) {
                season.get_or_insert(found);
            }
            true
        }
    }
}

/// Keeps year, then month only if 1-12, then day only if 1-31 after a kept month; a season
/// month (13-16 or 21-24) is returned as the season number ("1"-"4").
fn clean_parts(parts: &mut VecDate) -> Option<String> {
    let month = parts.0.get(1).copied();
    let day = parts.0.get(2).copied();
    parts.0.truncate(1);
    match month {
        Some(m) if (1..=12).contains(&m) => {
            parts.0.push(m);
            if let Some(d) = day.filter(|d| (1..=31).contains(d)) {
                parts.0.push(d);
            }
            None
        }
        Some(m) => SEASON_MONTHS
            .iter()
            .find(|(range, _)| range.contains(&m))
            .map(|(_, base)| (m - base).to_string()),
        None => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(json: &str) -> Item {
        serde_json::from_str(json).unwrap()
    }

    fn parts(item: &Item, key: &str) -> serde_json::Value {
        serde_json::to_value(item.0.get(key).unwrap()).unwrap()
    }

    #[test]
    fn ranges_keep_their_start() {
        let mut it =
            item(r#"{"id":"a","type":"book","issued":{"date-parts":[[2019,3],[2020,4]]}}"#);
        make_renderable(&mut it);
        assert_eq!(parts(&it, "issued"), serde_json::json!([[2019, 3]]));
        let mut raw = item(r#"{"id":"a","type":"book","issued":{"raw":"2019/2020"}}"#);
        make_renderable(&mut raw);
        assert_eq!(parts(&raw, "issued"), serde_json::json!([[2019]]));
    }

    #[test]
    fn impossible_parts_are_dropped() {
        let mut it = item(
            r#"{"id":"a","type":"book","issued":{"date-parts":[[2019,0,5]]},"accessed":{"date-parts":[[2020,2,40]]},"submitted":{"date-parts":[[]]}}"#,
        );
        make_renderable(&mut it);
        assert_eq!(parts(&it, "issued"), serde_json::json!([[2019]]));
        assert_eq!(parts(&it, "accessed"), serde_json::json!([[2020, 2]]));
        assert!(!it.0.contains_key("submitted"));
    }

    #[test]
    fn season_months_become_seasons() {
        let mut it = item(r#"{"id":"a","type":"book","issued":{"date-parts":[[2019,14]]}}"#);
        make_renderable(&mut it);
        let Some(Value::Date(DateValue::DateParts { season, .. })) = it.0.get("issued") else {
            panic!("not a date");
        };
        assert_eq!(season.as_deref(), Some("2"));
        assert_eq!(parts(&it, "issued"), serde_json::json!([[2019]]));
    }
}
