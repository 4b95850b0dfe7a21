//! Sort keys (`<sort>` with variables or macros) and their comparison.

use std::cell::RefCell;
use std::cmp::Ordering;

use super::item;
use super::render::{is_numeric, Renderer};
use super::xml::Node;

/// One key value; `None` sorts last whatever the direction.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    Text(String),
    Num(i64),
    /// A text's rank in the host's collation order (see [`set_collator`]).
    Rank(u32),
}

/// The host's collation: given a language tag and texts, each text's rank in collation order
/// (texts the collation finds equal share a rank); `None` if it cannot tell.
/// The wasm build installs one that asks `Intl.Collator`; without one, texts compare by code
/// point after [`fold`].
pub type Collator = Box<dyn Fn(&str, &[String]) -> Option<Vec<u32>>>;

thread_local! {
    static COLLATOR: RefCell<Option<Collator>> = const { RefCell::new(None) };
}

/// Installs (or with `None` removes) the host's collation.
pub fn set_collator(collator: Option<Collator>) {
    COLLATOR.with(|c| *c.borrow_mut() = collator);
}

/// Sorts entries by their keys: the text keys of all entries are ranked by the host's
/// collation in one call where one is installed.
pub fn sort_keyed<T>(keyed: &mut [(T, Vec<Option<Key>>)], descending: &[bool], lang: &str) {
    let mut keys: Vec<&mut Vec<Option<Key>>> = keyed.iter_mut().map(|(_, k)| k).collect();
    rank_texts(&mut keys, lang);
    keyed.sort_by(|a, b| compare(&a.1, &b.1, descending));
}

/// Replaces every text key by its rank in the host's collation (equal texts, equal ranks).
fn rank_texts(keys: &mut [&mut Vec<Option<Key>>], lang: &str) {
    let texts: Vec<String> = keys
        .iter()
        .flat_map(|k| k.iter())
        .filter_map(|k| match k {
            Some(Key::Text(t)) => Some(t.clone()),
            _ => None,
        })
        .collect();
    // Keys are folded to lowercase letters, digits and spaces: in ASCII, English collation and
    // code point order agree, and asking the host costs a collator (several ms to make).
    let english = lang.get(..2).is_some_and(|l| l.eq_ignore_ascii_case("en"));
    if texts.len() < 2 || english && texts.iter().all(|t| t.is_ascii()) {
        return;
    }
    let ranks = COLLATOR.with(|c| {
        c.borrow()
            .as_ref()
            .and_then(|collate| collate(lang, &texts))
    });
    let Some(ranks) = ranks.filter(|r| r.len() == texts.len()) else {
        return;
    };
    let mut ranks = ranks.into_iter();
    for key in keys.iter_mut().flat_map(|k| k.iter_mut()) {
        if let Some(Key::Text(_)) = key {
            if let Some(rank) = ranks.next() {
                *key = Some(Key::Rank(rank));
            }
        }
    }
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
            (Some(Key::Rank(p)), Some(Key::Rank(q))) => p.cmp(q),
            (Some(Key::Num(_)), Some(_)) => Ordering::Less,
            (Some(_), Some(Key::Num(_))) => Ordering::Greater,
            // Ranked and unranked texts never meet: one call ranks them all.
            (Some(_), Some(_)) => Ordering::Equal,
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

#[cfg(test)]
mod tests {
    use super::*;

    fn keyed(texts: &[&str]) -> Vec<(usize, Vec<Option<Key>>)> {
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| (i, vec![Some(Key::Text((*t).to_owned())), None]))
            .collect()
    }

    fn order(k: &[(usize, Vec<Option<Key>>)]) -> Vec<usize> {
        k.iter().map(|(i, _)| *i).collect()
    }

    #[test]
    fn the_hosts_collation_ranks_texts_once_per_sort() {
        let mut k = keyed(&["zeta", "čapek", "cole", "zeta"]);
        sort_keyed(&mut k, &[false], "cs");
        assert_eq!(
            order(&k),
            [2, 0, 3, 1],
            "code point order without a collator"
        );
        // A collator that puts č right after c (and is asked once, with the distinct texts).
        let asked = std::rc::Rc::new(RefCell::new(Vec::new()));
        let seen = asked.clone();
        set_collator(Some(Box::new(move |lang, texts| {
            seen.borrow_mut().push((lang.to_owned(), texts.to_vec()));
            let rank = |t: &str| match t {
                "cole" => 0,
                "čapek" => 1,
                _ => 2,
            };
            Some(texts.iter().map(|t| rank(t)).collect())
        })));
        let mut k = keyed(&["zeta", "čapek", "cole", "zeta"]);
        sort_keyed(&mut k, &[false], "cs");
        assert_eq!(order(&k), [2, 1, 0, 3]);
        assert_eq!(asked.borrow().len(), 1);
        assert_eq!(asked.borrow()[0].1, ["zeta", "čapek", "cole", "zeta"]);
        // English keys in ASCII need no collator: code point order is collation order.
        let mut k = keyed(&["zeta", "cole"]);
        sort_keyed(&mut k, &[false], "en-US");
        assert_eq!(order(&k), [1, 0]);
        assert_eq!(asked.borrow().len(), 1);
        // A collator that cannot tell leaves code point order.
        set_collator(Some(Box::new(|_, _| None)));
        let mut k = keyed(&["zeta", "čapek", "cole"]);
        sort_keyed(&mut k, &[false], "cs");
        assert_eq!(order(&k), [2, 0, 1]);
        set_collator(None);
    }
}
