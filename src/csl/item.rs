//! Reading a CSL-JSON item: string and number variables, names (with particle and suffix
//! parsing as citeproc-js does), and dates (date-parts ranges, seasons, circa, literals, raw).

use serde_json::Value;

/// A variable written in the `note` field as a `name: value` line (as Zotero stores fields
/// it has no slot for).
pub fn note_field(item: &Value, name: &str) -> Option<String> {
    note_fields(item, name).next()
}

/// Every `name: value` line of the note field for one variable (a name variable may be
/// given on several lines, one name each).
fn note_fields<'a>(item: &'a Value, name: &'a str) -> impl Iterator<Item = String> + 'a {
    let note = item.get("note").and_then(Value::as_str).unwrap_or("");
    note.lines().filter_map(move |line| {
        let (k, v) = line.split_once(':')?;
        (k.trim() == name)
            .then(|| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    })
}

/// A string or number variable as text.
pub fn var_str(item: &Value, name: &str) -> Option<String> {
    let Some(v) = item.get(name) else {
        return if name == "note" {
            None
        } else {
            note_field(item, name)
        };
    };
    let s = match v {
        Value::String(s) => s.trim().to_owned(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    (!s.is_empty()).then_some(s)
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Name {
    pub family: String,
    pub given: String,
    pub dropping: String,
    pub non_dropping: String,
    pub suffix: String,
    pub literal: String,
    pub comma_suffix: bool,
    pub static_ordering: bool,
    /// The non-dropping particle ends in an apostrophe but was written apart from the family
    /// name (`de’ Frinkle`, not `d’Wander`): the space stays.
    pub spaced_particle: bool,
}

impl Name {
    pub fn is_literal(&self) -> bool {
        !self.literal.is_empty() || (self.family.is_empty() && self.given.is_empty())
    }
}

fn field(v: &Value, k: &str) -> String {
    match v.get(k) {
        // Typographic apostrophes, as in other field values.
        Some(Value::String(s)) => s.trim().replace('\'', "\u{2019}"),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn is_particle_word(w: &str) -> bool {
    // Dutch ’t (in ’t Veld) is a particle too.
    let w_bare = w.strip_prefix(['\'', '\u{2019}']).unwrap_or(w);
    w_bare.chars().next().is_some_and(|c| c.is_lowercase())
        || w.chars().all(|c| !c.is_alphabetic() && c != '\'')
            && !w.is_empty()
            && w.chars().any(|c| c == '\'' || c == '\u{2019}')
}

/// Splits leading lowercase words of a family name into the non-dropping particle
/// (`van der Berg`, `d'Alembert`).
fn split_family(family: &str) -> (String, String, bool) {
    let words: Vec<&str> = family.split(' ').collect();
    let mut n = 0;
    while n + 1 < words.len() && words.get(n).is_some_and(|w| is_particle_word(w)) {
        n += 1;
    }
    let (mut particle, mut rest) = if n > 0 {
        (
            words.get(..n).unwrap_or(&[]).join(" "),
            words.get(n..).unwrap_or(&[]).join(" "),
        )
    } else {
        (String::new(), family.to_owned())
    };
    let spaced = particle.ends_with(['\'', '\u{2019}']);
    // An apostrophe or hyphen particle glued to the name: d'Alembert, al-One.
    if let Some(pos) = rest.find(['\'', '\u{2019}', '-']) {
        let head = rest.get(..pos).unwrap_or("");
        if !head.is_empty()
            && head.len() <= 3
            && head.chars().all(|c| c.is_lowercase())
            && !head.contains(' ')
        {
            let apostrophe_len = rest
                .get(pos..)
                .and_then(|r| r.chars().next())
                .map_or(1, char::len_utf8);
            let glued = rest.get(..pos + apostrophe_len).unwrap_or("").to_owned();
            particle = if particle.is_empty() {
                glued
            } else {
                format!("{particle} {glued}")
            };
            rest = rest.get(pos + apostrophe_len..).unwrap_or("").to_owned();
            return (particle, rest, false);
        }
    }
    (particle, rest, spaced)
}

/// Splits trailing lowercase words of given names into the dropping particle (`Jean de`).
fn split_given(given: &str) -> (String, String) {
    let words: Vec<&str> = given.split(' ').collect();
    let mut n = words.len();
    while n > 1 && words.get(n - 1).is_some_and(|w| is_particle_word(w)) {
        n -= 1;
    }
    if n == words.len() {
        return (given.to_owned(), String::new());
    }
    (
        words.get(..n).unwrap_or(&[]).join(" "),
        words.get(n..).unwrap_or(&[]).join(" "),
    )
}

pub fn parse_name(v: &Value) -> Option<Name> {
    if !v.is_object() {
        return None;
    }
    let mut n = Name {
        family: field(v, "family"),
        given: field(v, "given"),
        dropping: field(v, "dropping-particle"),
        non_dropping: field(v, "non-dropping-particle"),
        suffix: field(v, "suffix"),
        literal: field(v, "literal"),
        comma_suffix: v.get("comma-suffix").is_some_and(truthy),
        static_ordering: v.get("static-ordering").is_some_and(truthy),
        spaced_particle: false,
    };
    let parse = v.get("parse-names").is_none_or(truthy);
    if n.literal.is_empty() && n.family.is_empty() && n.given.is_empty() {
        return None;
    }
    if parse && n.literal.is_empty() {
        // A family name in double quotes is taken as is.
        if n.family.len() > 2 && n.family.starts_with('"') && n.family.ends_with('"') {
            n.family = n.family.get(1..n.family.len() - 1).unwrap_or("").to_owned();
        } else if n.non_dropping.is_empty() {
            let (p, f, spaced) = split_family(&n.family);
            n.non_dropping = p;
            n.family = f;
            n.spaced_particle = spaced;
        }
        if n.suffix.is_empty() {
            if let Some((g, s)) = n.given.split_once(',') {
                let s = s.trim();
                if let Some(s) = s.strip_prefix('!') {
                    n.comma_suffix = true;
                    n.suffix = s.trim().to_owned();
                } else {
                    n.suffix = s.to_owned();
                }
                n.given = g.trim().to_owned();
            }
        }
        if n.dropping.is_empty() {
            let (g, p) = split_given(&n.given);
            n.given = g;
            n.dropping = p;
        }
    }
    Some(n)
}

fn truthy(v: &Value) -> bool {
    match v {
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64().is_some_and(|f| f != 0.0),
        Value::String(s) => !s.is_empty() && s != "false" && s != "0",
        _ => false,
    }
}

pub fn names(item: &Value, var: &str) -> Vec<Name> {
    match item.get(var) {
        Some(Value::Array(a)) => a.iter().filter_map(parse_name).collect(),
        // Names in the note field, one a line: `Family || Given`, or a literal name.
        None if var != "note" => note_fields(item, var)
            .filter_map(|raw| {
                let v = match raw.split_once("||") {
                    Some((family, given)) => serde_json::json!({"family": family, "given": given}),
                    None => serde_json::json!({ "literal": raw }),
                };
                parse_name(&v)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// A date: one or two `[year, month, day]` (0 = absent), plus season, circa, literal.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DateVal {
    pub parts: Vec<[i32; 3]>,
    pub season: Option<String>,
    pub circa: bool,
    pub literal: Option<String>,
}

impl DateVal {
    pub fn start(&self) -> [i32; 3] {
        self.parts.first().copied().unwrap_or([0; 3])
    }

    /// A range whose end is left open (`[[1987], [0]]`).
    pub fn open_end(&self) -> bool {
        self.parts.get(1).is_some_and(|e| *e == [0; 3])
    }

    pub fn end(&self) -> Option<[i32; 3]> {
        self.parts
            .get(1)
            .copied()
            .filter(|e| *e != [0; 3] && *e != self.start())
    }

    /// A sortable key: years, months and days zero-padded, ranges after their start.
    pub fn sort_key(&self) -> String {
        let f = |p: [i32; 3]| {
            let [y, m, d] = p;
            format!(
                "{:08}{:02}{:02}",
                i64::from(y) + 50_000_000,
                m.clamp(0, 99),
                d.clamp(0, 99)
            )
        };
        let mut k = f(self.start());
        if let Some(e) = self.end() {
            k.push_str(&f(e));
        }
        k
    }
}

fn num(v: &Value) -> Option<i32> {
    match v {
        Value::Number(n) => n.as_i64().and_then(|x| i32::try_from(x).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub fn date(item: &Value, var: &str) -> Option<DateVal> {
    let Some(v) = item.get(var) else {
        return note_field(item, var).and_then(|raw| parse_raw(&raw));
    };
    let mut d = DateVal::default();
    if let Value::String(s) = v {
        return parse_raw(s);
    }
    if let Some(Value::Array(ranges)) = v.get("date-parts") {
        for r in ranges.iter().take(2) {
            let Value::Array(p) = r else { continue };
            let mut parts = [0i32; 3];
            for (slot, x) in parts.iter_mut().zip(p.iter()) {
                *slot = num(x).unwrap_or(0);
            }
            d.parts.push(parts);
        }
    }
    if let Some(s) = v.get("season") {
        d.season = match s {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        };
    }
    d.circa = v.get("circa").is_some_and(truthy);
    if let Some(Value::String(l)) = v.get("literal") {
        d.literal = Some(l.clone());
    }
    if d.parts.is_empty() || d.start()[0] == 0 && d.literal.is_none() {
        if let Some(Value::String(raw)) = v.get("raw") {
            if let Some(mut r) = parse_raw(raw) {
                r.circa |= d.circa;
                return Some(r);
            }
        }
    }
    // Months 13-24 are seasons (13-16, 17-20 and 21-24 each Spring to Winter); they stay in
    // the month's place as 13-16.
    for p in &mut d.parts {
        if (17..=24).contains(&p[1]) {
            p[1] = (p[1] - 13) % 4 + 13;
        }
        if p[1] > 16 || p[1] < 0 {
            p[1] = 0;
        }
    }
    if d.parts.is_empty() && d.literal.is_none() && d.season.is_none() {
        return None;
    }
    if d.start()[0] == 0 && d.literal.is_none() && d.parts.len() <= 1 {
        return None;
    }
    Some(d)
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

/// Parses a raw date string: ISO `2000-05-03`, `May 2000`, `3 May 2000`, ranges with `/`.
fn parse_raw(raw: &str) -> Option<DateVal> {
    let raw = raw.trim();
    if raw.is_empty() {
        return None;
    }
    let mut d = DateVal::default();
    for piece in raw.split('/').take(2) {
        let mut parts = [0i32; 3];
        let mut numbers: Vec<i32> = Vec::new();
        let mut month = 0;
        for tok in piece.split(['-', ' ', ',', '.']) {
            if tok.is_empty() {
                continue;
            }
            if let Ok(n) = tok.parse::<i32>() {
                numbers.push(n);
            } else {
                let low = tok.to_lowercase();
                if let Some(i) = MONTHS.iter().position(|m| low.starts_with(m)) {
                    month = i as i32 + 1;
                } else {
                    return Some(DateVal {
                        literal: Some(raw.to_owned()),
                        ..DateVal::default()
                    });
                }
            }
        }
        if month > 0 {
            // `3 May 2000` or `May 2000`.
            parts[1] = month;
            match numbers.as_slice() {
                [y] => parts[0] = *y,
                [a, b] if *a > 31 => (parts[0], parts[2]) = (*a, *b),
                [a, b] => (parts[2], parts[0]) = (*a, *b),
                _ => {}
            }
        } else {
            for (slot, n) in parts.iter_mut().zip(numbers.iter()) {
                *slot = *n;
            }
        }
        d.parts.push(parts);
    }
    (d.start()[0] != 0).then_some(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn particles_and_suffixes_are_parsed() {
        let n = parse_name(&json!({"family": "van der Berg", "given": "Jan, Jr."})).unwrap();
        assert_eq!(n.non_dropping, "van der");
        assert_eq!(n.family, "Berg");
        assert_eq!(n.suffix, "Jr.");
        let n = parse_name(&json!({"family": "d'Alembert", "given": "Jean de"})).unwrap();
        assert_eq!(n.non_dropping, "d\u{2019}");
        assert_eq!(n.dropping, "de");
        assert!(!n.spaced_particle, "glued to the name");
        let n = parse_name(&json!({"family": "de' Frinkle", "given": "Bevis"})).unwrap();
        assert_eq!(
            (n.non_dropping.as_str(), n.family.as_str()),
            ("de\u{2019}", "Frinkle")
        );
        assert!(n.spaced_particle, "written apart from the name");
    }

    #[test]
    fn dates_parse_ranges_and_raw() {
        let d = date(
            &json!({"issued": {"date-parts": [[2019], [2020]]}}),
            "issued",
        )
        .unwrap();
        assert_eq!(d.end(), Some([2020, 0, 0]));
        let d = date(&json!({"issued": {"raw": "2000-05-03"}}), "issued").unwrap();
        assert_eq!(d.start(), [2000, 5, 3]);
    }
}
