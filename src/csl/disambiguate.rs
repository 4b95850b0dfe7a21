//! Disambiguation of in-text citations: more names (`disambiguate-add-names`), given names or
//! initials (`disambiguate-add-givenname` with its `givenname-disambiguation-rule`), the
//! `disambiguate="true"` condition, and year suffixes, tried in that order on the cites that
//! still read alike. The result serves both citations and the bibliography.

use std::collections::HashMap;
use std::rc::Rc;

use serde_json::Value;

use super::item::{self, Name};
use super::render::Mode;
use super::{suffix_letters, Processor};

/// How far a name is expanded: 1 = initials (or the full given name when the style has no
/// `initialize-with`), 2 = the full given name.
pub type GivenLevels = HashMap<(String, String), u8>;

/// How many names disambiguation adds at most: beyond this, more names do not tell works
/// apart in practice, and each step re-renders every cite of the group.
const MAX_ADDED_NAMES: usize = 12;
/// Groups of alike cites larger than this skip the name steps (straight to the condition and
/// year suffixes): the steps cost group size times names times renders.
const MAX_GROUP_FOR_NAMES: usize = 64;

/// How many `disambiguate="true"` tests disambiguation turns on at most, one at a time.
const MAX_CONDITIONS: usize = 8;

/// What disambiguation decided for one item.
#[derive(Debug, Clone, Default)]
pub struct Disamb {
    pub names_min: Option<usize>,
    /// How many `disambiguate="true"` tests hold for the item.
    pub condition: usize,
    pub year_suffix: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct State {
    pub items: HashMap<usize, Disamb>,
    pub given: Rc<GivenLevels>,
    /// Under a `primary-name` rule, only first names are expanded.
    pub primary_only: bool,
}

pub fn name_key(n: &Name) -> (String, String) {
    let family = if n.non_dropping.is_empty() {
        n.family.clone()
    } else {
        format!("{} {}", n.non_dropping, n.family)
    };
    (family, n.given.clone())
}

fn initials(given: &str) -> String {
    given
        .split(|c: char| c.is_whitespace() || c == '.' || c == '-')
        .filter_map(|w| w.chars().next())
        .collect()
}

const NAME_VARS: &[&str] = &["author", "editor", "translator", "composer", "director"];

impl Processor {
    /// The plain text of an item's cite under a disambiguation state.
    fn cite_key(
        &self,
        items: &[Value],
        i: usize,
        d: &Disamb,
        given: &Rc<GivenLevels>,
        primary_only: bool,
    ) -> String {
        let Some(layout) = self.style.citation.as_ref().and_then(|c| c.child("layout")) else {
            return String::new();
        };
        let mut r = self.renderer(items, i, Mode::Citation);
        r.names_min = d.names_min;
        r.disambiguate = d.condition;
        r.given_levels = Some(given.clone());
        r.given_primary_only = primary_only;
        r.just_looking = true;
        // A cite is compared in its subsequent form (near its last cite), as citeproc-js
        // compares cites: what later cites of the work read like must tell works apart too.
        r.cite.position = super::render::POSITION_SUBSEQUENT;
        r.cite.near_note = true;
        r.render_children(&layout.children, "")
            .map(|o| o.plain())
            .unwrap_or_default()
    }

    /// Decides how each registered item is disambiguated; `order` is bibliography order
    /// (which year suffixes follow).
    pub fn disambiguate(&self, items: &[Value], order: &[usize]) -> State {
        let mut st = State::default();
        let Some(cit) = self.style.citation.as_ref() else {
            return st;
        };
        let flag = |n: &str| cit.attr(n) == Some("true");
        let (add_names, add_given, add_suffix) = (
            flag("disambiguate-add-names"),
            flag("disambiguate-add-givenname"),
            flag("disambiguate-add-year-suffix"),
        );
        let rule = cit
            .attr("givenname-disambiguation-rule")
            .unwrap_or("by-cite");
        let max_level: u8 = if rule.ends_with("with-initials") {
            1
        } else {
            2
        };
        st.primary_only = add_given && rule.starts_with("primary-name");
        if add_given && rule != "by-cite" {
            st.given = Rc::new(self.global_given_levels(items, order, rule, max_level));
        }
        let has_condition = self.style.tests_disambiguate;
        if !(add_names || add_given || add_suffix || has_condition) {
            return st;
        }
        let keys = |st: &State| -> Vec<String> {
            order
                .iter()
                .map(|&i| {
                    let d = st.items.get(&i).cloned().unwrap_or_default();
                    self.cite_key(items, i, &d, &st.given, st.primary_only)
                })
                .collect()
        };
        let mut current = keys(&st);
        // Groups of items whose cites read alike.
        let groups_of = |keys: &[String]| -> Vec<Vec<usize>> {
            // In order of first appearance.
            let mut index: HashMap<&String, usize> = HashMap::new();
            let mut groups: Vec<Vec<usize>> = Vec::new();
            for (k, &i) in keys.iter().zip(order) {
                match index.get(k).and_then(|&g| groups.get_mut(g)) {
                    Some(members) => members.push(i),
                    None => {
                        index.insert(k, groups.len());
                        groups.push(vec![i]);
                    }
                }
            }
            groups.into_iter().filter(|m| m.len() > 1).collect()
        };
        for group in groups_of(&current) {
            self.resolve_group(
                items,
                &group,
                &mut st,
                add_names,
                add_given,
                has_condition,
                max_level,
                add_suffix,
            );
        }
        if add_suffix {
            current = keys(&st);
            for group in groups_of(&current) {
                for (n, &i) in group.iter().enumerate() {
                    st.items.entry(i).or_default().year_suffix = Some(suffix_letters(n));
                }
            }
        }
        st
    }

    /// Members of `group` whose cite differs from every other member's, and how many
    /// different readings the group's cites have.
    fn unique_members(&self, items: &[Value], group: &[usize], st: &State) -> (Vec<usize>, usize) {
        let keys: Vec<String> = group
            .iter()
            .map(|&i| {
                let d = st.items.get(&i).cloned().unwrap_or_default();
                self.cite_key(items, i, &d, &st.given, st.primary_only)
            })
            .collect();
        let mut counts: HashMap<&String, usize> = HashMap::new();
        for k in &keys {
            *counts.entry(k).or_default() += 1;
        }
        let unique = group
            .iter()
            .zip(&keys)
            .filter(|(_, k)| counts.get(k) == Some(&1))
            .map(|(&i, _)| i)
            .collect();
        (unique, counts.len())
    }

    /// Tries each method in turn on the members still ambiguous; a member stays as it was
    /// when it becomes unique.
    #[allow(clippy::too_many_arguments)]
    fn resolve_group(
        &self,
        items: &[Value],
        group: &[usize],
        st: &mut State,
        add_names: bool,
        add_given: bool,
        has_condition: bool,
        max_level: u8,
        add_suffix: bool,
    ) {
        let mut open: Vec<usize> = group.to_vec();
        let max_names = group
            .iter()
            .map(|&i| {
                NAME_VARS
                    .iter()
                    .map(|v| item::names(items.get(i).unwrap_or(&Value::Null), v).len())
                    .max()
                    .unwrap_or(0)
            })
            .max()
            .unwrap_or(0)
            .min(MAX_ADDED_NAMES);
        let (add_names, add_given) = if group.len() > MAX_GROUP_FOR_NAMES {
            (false, false)
        } else {
            (add_names, add_given)
        };
        // Drops the members now unique; answers how many readings the group has.
        let settle = |st: &State, open: &mut Vec<usize>| {
            let (unique, readings) = self.unique_members(items, group, st);
            open.retain(|i| !unique.contains(i));
            readings
        };
        if add_names {
            let before = st.clone();
            let open_before = open.len();
            // The last count of names that told members apart (made one unique, or split
            // the members into more readings).
            let mut useful: Option<usize> = None;
            let mut readings = self.unique_members(items, group, st).1;
            let mut split = false;
            for n in 1..=max_names {
                for &i in open.iter() {
                    st.items.entry(i).or_default().names_min = Some(n);
                }
                let still = open.len();
                let now = settle(st, &mut open);
                if open.len() < still || now > readings {
                    useful = Some(n);
                    split |= now > readings && open.len() == still;
                    readings = now;
                }
                if open.is_empty() {
                    break;
                }
            }
            // Names that did not help are dropped again, and so are those that made only some
            // members unique when a year suffix will do the work; the members still alike keep
            // the names that split them (each part then takes its own year suffixes).
            if useful.is_none()
                || open.len() == open_before && !split
                || (!open.is_empty() && add_suffix && !add_given && !split)
            {
                for &i in &open {
                    let base = before.items.get(&i).and_then(|d| d.names_min);
                    st.items.entry(i).or_default().names_min = base;
                }
            } else if let Some(n) = useful {
                for &i in &open {
                    st.items.entry(i).or_default().names_min = Some(n);
                }
            }
        }
        if add_given && !open.is_empty() {
            'positions: for pos in 0..max_names.max(1) {
                for level in 1..=max_level {
                    let saved = st.clone();
                    let mut levels = (*st.given).clone();
                    for &i in &open {
                        let names = item::names(items.get(i).unwrap_or(&Value::Null), "author");
                        if let Some(n) = names.get(pos) {
                            let e = levels.entry(name_key(n)).or_insert(0);
                            *e = (*e).max(level);
                        }
                        if add_names {
                            let d = st.items.entry(i).or_default();
                            d.names_min = Some(d.names_min.unwrap_or(0).max(pos + 1));
                        }
                    }
                    st.given = Rc::new(levels);
                    let before = open.len();
                    settle(st, &mut open);
                    if open.len() == before {
                        *st = saved;
                    }
                    if open.is_empty() {
                        break 'positions;
                    }
                }
            }
        }
        // The disambiguate="true" tests, one more at a time: a member stays at the first
        // count that tells it apart.
        if has_condition {
            for n in 1..=MAX_CONDITIONS {
                if open.is_empty() {
                    break;
                }
                for &i in &open {
                    st.items.entry(i).or_default().condition = n;
                }
                settle(st, &mut open);
            }
        }
    }

    /// Name expansion under the global rules (`all-names`, `primary-name` and their
    /// `-with-initials` forms): every name that shares its family name with another person.
    fn global_given_levels(
        &self,
        items: &[Value],
        order: &[usize],
        rule: &str,
        max_level: u8,
    ) -> GivenLevels {
        let primary_only = rule.starts_with("primary-name");
        let mut by_family: HashMap<String, Vec<String>> = HashMap::new();
        for &i in order {
            let item = items.get(i).unwrap_or(&Value::Null);
            for var in NAME_VARS {
                for (pos, n) in item::names(item, var).iter().enumerate() {
                    if primary_only && pos > 0 {
                        break;
                    }
                    let (family, given) = name_key(n);
                    let list = by_family.entry(family).or_default();
                    // One person whatever the spacing of their initials (J. J. and J.J.).
                    let same = |g: &String| spacing_free(g) == spacing_free(&given);
                    if !list.iter().any(same) {
                        list.push(given);
                    }
                }
            }
        }
        let mut levels = GivenLevels::new();
        for (family, givens) in by_family {
            if givens.len() < 2 {
                continue;
            }
            let mut inits: Vec<String> = givens.iter().map(|g| initials(g)).collect();
            inits.sort();
            inits.dedup();
            let level = if inits.len() == givens.len() {
                1
            } else {
                max_level
            };
            // Initials that cannot tell the people apart are no use under a -with-initials rule.
            if level == 1 && inits.len() != givens.len() {
                continue;
            }
            for g in givens {
                levels.insert((family.clone(), g), level);
            }
        }
        levels
    }
}

/// A given name without spaces: initials written "J. J." and "J.J." are the same.
fn spacing_free(given: &str) -> String {
    given.chars().filter(|c| !c.is_whitespace()).collect()
}

/// The level of one name.
pub fn level_of(levels: Option<&Rc<GivenLevels>>, n: &Name) -> u8 {
    levels
        .and_then(|l| l.get(&name_key(n)).copied())
        .unwrap_or(0)
}
