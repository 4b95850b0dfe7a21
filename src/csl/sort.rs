//! Sort keys (`<sort>` with variables or macros) and their comparison.

use std::cmp::Ordering;

use super::item;
use super::render::{is_numeric, Renderer};
use super::xml::Node;

/// One key value; `None` sorts last whatever the direction.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    Text(String),
    Num(i64),
}

/// A collation key: case and accents folded, punctuation ignored.
pub fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        let c = match c {
            'à'..='å' | 'À'..='Å' => 'a',
            'ç' | 'Ç' => 'c',
            'è'..='ë' | 'È'..='Ë' => 'e',
            'ì'..='ï' | 'Ì'..='Ï' => 'i',
            'ñ' | 'Ñ' => 'n',
            'ò'..='ö' | 'Ò'..='Ö' | 'ø' | 'Ø' => 'o',
            'ù'..='ü' | 'Ù'..='Ü' => 'u',
            'ý' | 'ÿ' | 'Ý' => 'y',
            c => c,
        };
        if c.is_alphanumeric() || c == ' ' {
            out.extend(c.to_lowercase());
        }
    }
    out.trim().to_owned()
}

pub fn compare(a: &[Option<Key>], b: &[Option<Key>], descending: &[bool]) -> Ordering {
    for (i, (x, y)) in a.iter().zip(b.iter()).enumerate() {
        let desc = descending.get(i).copied().unwrap_or(false);
        let o = match (x, y) {
            (None, None) => Ordering::Equal,
            (None, Some(_)) => return Ordering::Greater,
            (Some(_), None) => return Ordering::Less,
            (Some(Key::Num(p)), Some(Key::Num(q))) => p.cmp(q),
            (Some(Key::Text(p)), Some(Key::Text(q))) => p.cmp(q),
            (Some(Key::Num(_)), Some(Key::Text(_))) => Ordering::Less,
            (Some(Key::Text(_)), Some(Key::Num(_))) => Ordering::Greater,
        };
        let o = if desc { o.reverse() } else { o };
        if o != Ordering::Equal {
            return o;
        }
    }
    Ordering::Equal
}

/// Whether a key element sorts descending.
pub fn descending(sort: &Node) -> Vec<bool> {
    sort.children_named("key")
        .map(|k| k.attr("sort") == Some("descending"))
        .collect()
}

const NAME_VARS: &[&str] = &[
    "author",
    "editor",
    "translator",
    "container-author",
    "collection-editor",
    "composer",
    "director",
    "editorial-director",
    "illustrator",
    "interviewer",
    "original-author",
    "recipient",
    "reviewed-author",
    "chair",
    "compiler",
    "contributor",
    "curator",
    "executive-producer",
    "guest",
    "host",
    "narrator",
    "organizer",
    "performer",
    "producer",
    "script-writer",
    "series-creator",
];

const DATE_VARS: &[&str] = &[
    "issued",
    "accessed",
    "event-date",
    "original-date",
    "submitted",
    "available-date",
];

impl<'a> Renderer<'a> {
    /// The keys of one item for a `<sort>` element.
    pub fn sort_keys(&mut self, sort: &Node) -> Vec<Option<Key>> {
        let mut keys = Vec::new();
        for k in sort.children_named("key") {
            self.sort_key = true;
            self.sort_names_min = k.attr("names-min").and_then(|v| v.parse().ok());
            self.sort_names_use_first = k.attr("names-use-first").and_then(|v| v.parse().ok());
            self.sort_names_use_last = k.attr("names-use-last") == Some("true");
            let key = if let Some(var) = k.attr("variable") {
                self.variable_key(var)
            } else if let Some(m) = k.attr("macro") {
                let saved = self.suppressed.clone();
                let out = self.call_macro(m);
                self.suppressed = saved;
                out.map(|o| o.plain()).filter(|s| !s.is_empty()).map(|s| {
                    if s.chars().all(|c| c.is_ascii_digit()) && s.len() < 18 {
                        Key::Num(s.parse().unwrap_or(0))
                    } else {
                        Key::Text(fold(&s))
                    }
                })
            } else {
                None
            };
            self.sort_key = false;
            keys.push(key);
        }
        keys
    }

    fn variable_key(&mut self, var: &str) -> Option<Key> {
        if NAME_VARS.contains(&var) {
            let names = item::names(self.item, var);
            if names.is_empty() {
                return None;
            }
            let node = Node {
                name: "names".into(),
                attrs: vec![("variable".into(), var.into())],
                children: vec![Node {
                    name: "name".into(),
                    ..Node::default()
                }],
                text: String::new(),
            };
            return self
                .render_names(&node)
                .map(|o| Key::Text(fold(&o.plain())));
        }
        if DATE_VARS.contains(&var) {
            return item::date(self.item, var).map(|d| Key::Text(d.sort_key()));
        }
        let v = self.variable(var)?;
        if var == "citation-number" || is_numeric(&v) {
            let digits: String = v.chars().take_while(|c| c.is_ascii_digit()).collect();
            if let Ok(n) = digits.parse() {
                return Some(Key::Num(n));
            }
        }
        Some(Key::Text(fold(&v)))
    }
}
