//! Sort keys (`<sort>` with variables or macros) and their comparison.

use std::cell::RefCell;
use std::cmp::Ordering;
use std::rc::Rc;

use super::item;
use super::render::{is_numeric, Renderer};
use super::xml::Node;

/// One key value; `None` sorts last whatever the direction.
#[derive(Debug, Clone, PartialEq)]
pub enum Key {
    Text(String),
    Num(i64),
    /// A text's rank in the host's collation order (see [`with_collator`]).
    Rank(u32),
}

/// The host's collation: given a language tag and texts, each text's rank in collation order
/// (texts the collation finds equal share a rank); `None` if it cannot tell.
/// The wasm build installs one that asks `Intl.Collator`; without one, texts compare by code
/// point after [`fold`].
pub type Collator = Rc<dyn Fn(&str, &[String]) -> Option<Vec<u32>>>;

thread_local! {
    static COLLATOR: RefCell<Option<Collator>> = const { RefCell::new(None) };
}

/// Runs `f` with `collator` as the host's collation, then puts back the one installed before.
///
/// The collation is the host's code (a page may have patched `Intl.Collator`), and it may
/// render again: that inner call installs its own collation and puts the outer one back when
/// it ends (calls nest like a stack), and the collation is taken out of the cell before it is
/// called (in `rank_texts`), so no borrow is held while it runs.
pub fn with_collator<T>(collator: Collator, f: impl FnOnce() -> T) -> T {
    let outer = COLLATOR.with(|c| c.replace(Some(collator)));
    let out = f();
    COLLATOR.with(|c| c.replace(outer));
    out
}

/// The order of `n` entries by the keys of a `<sort>` (`descending[k]` for key k), each
/// entry's keys computed only as far as they tell it apart: key k+1 of an entry is asked of
/// `key(entry, k + 1)` only when it ties with another on keys 0..=k, so an entry's keys come
/// in order. The text keys asked at one level are ranked by the host's collation in one call
/// where one is installed. Entries equal on every key keep their order.
pub fn sort_lazily(
    n: usize,
    descending: &[bool],
    lang: &str,
    mut key: impl FnMut(usize, usize) -> Option<Key>,
) -> Vec<usize> {
    let mut order: Vec<usize> = (0..n).collect();
    // Runs of `order` still tied on the keys so far.
    let mut ties: Vec<std::ops::Range<usize>> = Vec::new();
    if n > 1 {
        ties.push(0..n);
    }
    for (level, &desc) in descending.iter().enumerate() {
        if ties.is_empty() {
            break;
        }
        let mut keys: Vec<Option<Key>> = vec![None; n];
        for run in &ties {
            for &entry in order.get(run.clone()).unwrap_or_default() {
                if let Some(slot) = keys.get_mut(entry) {
                    *slot = key(entry, level);
                }
            }
        }
        rank_texts(&mut keys, lang);
        let of = |entry: usize| keys.get(entry).unwrap_or(&None);
        let mut next = Vec::new();
        for run in ties {
            let Some(slice) = order.get_mut(run.clone()) else {
                continue;
            };
            slice.sort_by(|&a, &b| compare_one(of(a), of(b), desc));
            // Split the run where the key changes; runs of two or more stay tied.
            let mut start = run.start;
            for (k, pair) in slice.windows(2).enumerate() {
                if let [a, b] = pair {
                    if compare_one(of(*a), of(*b), desc) != Ordering::Equal {
                        let end = run.start + k + 1;
                        if end - start > 1 {
                            next.push(start..end);
                        }
                        start = end;
                    }
                }
            }
            if run.end - start > 1 {
                next.push(start..run.end);
            }
        }
        ties = next;
    }
    order
}

/// Replaces every text key by its rank in the host's collation (equal texts, equal ranks).
fn rank_texts(keys: &mut [Option<Key>], lang: &str) {
    let texts: Vec<String> = keys
        .iter()
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
    // Taken out of the cell first: the collation may sort again (see `with_collator`).
    let collate = COLLATOR.with(|c| c.borrow().clone());
    let ranks = collate.and_then(|collate| collate(lang, &texts));
    let Some(ranks) = ranks.filter(|r| r.len() == texts.len()) else {
        return;
    };
    let mut ranks = ranks.into_iter();
    for key in keys.iter_mut() {
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
        } else if matches!(c, '\'' | '\u{2019}') && !out.trim().is_empty() {
            // An apostrophe inside a key sorts before letters (d’Wander before de’ Frinkle), as
            // in collation; a leading one is ignored (’t Horvath sorts under t).
            out.push('\'');
        }
    }
    out.trim().to_owned()
}

/// One key of two entries; `None` sorts last whatever the direction.
fn compare_one(x: &Option<Key>, y: &Option<Key>, desc: bool) -> Ordering {
    let o = match (x, y) {
        (None, None) => Ordering::Equal,
        (None, Some(_)) => return Ordering::Greater,
        (Some(_), None) => return Ordering::Less,
        (Some(Key::Num(p)), Some(Key::Num(q))) => p.cmp(q),
        (Some(Key::Text(p)), Some(Key::Text(q))) => p.cmp(q),
        (Some(Key::Rank(p)), Some(Key::Rank(q))) => p.cmp(q),
        (Some(Key::Num(_)), Some(_)) => Ordering::Less,
        (Some(_), Some(Key::Num(_))) => Ordering::Greater,
        // Ranked and unranked texts never meet: one call ranks a level's texts.
        (Some(_), Some(_)) => Ordering::Equal,
    };
    if desc {
        o.reverse()
    } else {
        o
    }
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
    /// The value of one `<key>` of a `<sort>` for this renderer's item.
    pub fn sort_key(&mut self, k: &Node) -> Option<Key> {
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
        key
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

    /// Sorts texts on a first key (a second key is always empty), recording the keys asked.
    fn sorted(texts: &[&str], lang: &str, asked: &mut Vec<(usize, usize)>) -> Vec<usize> {
        sort_lazily(texts.len(), &[false, false], lang, |entry, level| {
            asked.push((entry, level));
            (level == 0).then(|| Key::Text(texts[entry].to_owned()))
        })
    }

    #[test]
    fn the_hosts_collation_ranks_texts_once_per_level() {
        let mut keys = Vec::new();
        assert_eq!(
            sorted(&["zeta", "čapek", "cole", "zeta"], "cs", &mut keys),
            [2, 0, 3, 1],
            "code point order without a collator"
        );
        // A collator that puts č right after c (and is asked once, with the distinct texts).
        let asked = Rc::new(RefCell::new(Vec::new()));
        let seen = asked.clone();
        let collator: Collator = Rc::new(move |lang, texts| {
            seen.borrow_mut().push((lang.to_owned(), texts.to_vec()));
            let rank = |t: &str| match t {
                "cole" => 0,
                "čapek" => 1,
                _ => 2,
            };
            Some(texts.iter().map(|t| rank(t)).collect())
        });
        with_collator(collator, || {
            assert_eq!(
                sorted(&["zeta", "čapek", "cole", "zeta"], "cs", &mut keys),
                [2, 1, 0, 3]
            );
            assert_eq!(asked.borrow().len(), 1);
            assert_eq!(asked.borrow()[0].1, ["zeta", "čapek", "cole", "zeta"]);
            // English keys in ASCII need no collator: code point order is collation order.
            assert_eq!(sorted(&["zeta", "cole"], "en-US", &mut keys), [1, 0]);
            assert_eq!(asked.borrow().len(), 1);
        });
        // A collator that cannot tell leaves code point order.
        with_collator(Rc::new(|_, _| None), || {
            assert_eq!(
                sorted(&["zeta", "čapek", "cole"], "cs", &mut keys),
                [2, 0, 1]
            );
        });
    }

    /// A collation by a fixed list of texts (ranks by position; unlisted texts last).
    fn listed(order: &'static [&'static str]) -> Collator {
        Rc::new(move |_, texts| {
            let rank = |t: &String| order.iter().position(|o| o == t).unwrap_or(order.len());
            Some(texts.iter().map(|t| rank(t) as u32).collect())
        })
    }

    #[test]
    fn a_collator_that_sorts_again_gets_its_own_collation_and_the_outer_keeps_its_own() {
        // The host's collation is user code (a page may patch `Intl.Collator`): it may render
        // another list, which installs its own collator while the outer one is running.
        let texts = ["é", "b", "a"];
        let inner: Rc<RefCell<Vec<Vec<usize>>>> = Default::default();
        let seen = inner.clone();
        let outer: Collator = Rc::new(move |lang, keys| {
            let order = with_collator(listed(&["b", "é", "a"]), || {
                sort_lazily(3, &[false], lang, |e, _| {
                    Some(Key::Text(texts[e].to_owned()))
                })
            });
            seen.borrow_mut().push(order);
            listed(&["a", "é", "b"])(lang, keys)
        });
        let order = with_collator(outer, || {
            sort_lazily(3, &[false], "fr", |e, _| {
                Some(Key::Text(texts[e].to_owned()))
            })
        });
        assert_eq!(
            order,
            [2, 0, 1],
            "the outer sort by its own collation: a é b"
        );
        assert_eq!(
            *inner.borrow(),
            [vec![1, 0, 2]],
            "the inner sort by its own: b é a"
        );
        // Each call removes what it installed: without a collator, code point order.
        let after = sort_lazily(3, &[false], "fr", |e, _| {
            Some(Key::Text(texts[e].to_owned()))
        });
        assert_eq!(after, [2, 1, 0]);
    }

    #[test]
    fn later_keys_are_asked_only_of_entries_tied_so_far() {
        let mut asked = Vec::new();
        let order = sorted(&["b", "a", "b", "c"], "en", &mut asked);
        assert_eq!(order, [1, 0, 2, 3]);
        // Every entry's first key; the second key only of the two tied on "b", each in order.
        asked.sort_unstable();
        assert_eq!(asked, [(0, 0), (0, 1), (1, 0), (2, 0), (2, 1), (3, 0)]);
        let mut asked = Vec::new();
        assert_eq!(sorted(&["only"], "en", &mut asked), [0]);
        assert!(asked.is_empty(), "one entry needs no key");
        // Descending keys, and empty keys last whatever the direction.
        let texts = [Some("a"), None, Some("c"), Some("b")];
        let order = sort_lazily(4, &[true], "en", |e, _| {
            texts[e].map(|t| Key::Text(t.into()))
        });
        assert_eq!(order, [2, 3, 0, 1]);
        let nums = [Some(10), Some(9), None, Some(10)];
        let order = sort_lazily(4, &[false], "en", |e, _| nums[e].map(Key::Num));
        assert_eq!(order, [1, 0, 3, 2]);
    }
}
