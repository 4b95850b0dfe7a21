//! `<names>`: name lists with et-al, `and`, delimiters, sort order, initials, particles,
//! name-part formatting, labels and `<substitute>`.

use super::item::{self, Name};
use super::locale::TermForm;
use super::output::{Out, Span};
use super::render::{Renderer, POSITION_FIRST};
use super::text_case;
use super::xml::Node;

/// Options of one `<name>` after inheritance.
#[derive(Clone)]
struct NameOpts {
    and: Option<String>,
    delimiter: String,
    delimiter_precedes_last: String,
    delimiter_precedes_et_al: String,
    et_al_min: usize,
    /// `None`: never truncated.
    et_al_use_first: Option<usize>,
    et_al_use_last: bool,
    form: String,
    initialize: bool,
    initialize_with: Option<String>,
    name_as_sort_order: Option<String>,
    sort_separator: String,
    demote: String,
}

fn is_romanesque(s: &str) -> bool {
    s.chars().all(|c| {
        !c.is_alphabetic()
            || (c as u32) < 0x0370
            || (0x0370..0x0530).contains(&(c as u32))
            || (0x1E00..0x2000).contains(&(c as u32))
    })
}

fn join_words(parts: &[&str]) -> String {
    let mut out = String::new();
    for p in parts.iter().filter(|p| !p.is_empty()) {
        if !out.is_empty() && !out.ends_with(['\'', '\u{2019}', '-']) {
            out.push(' ');
        }
        out.push_str(p);
    }
    out
}

/// Initials of given names: `John Ronald` → `J. R.`, `Jae-won` → `J.-W.`. A name written
/// with a period (`Ph.`, `Me.`) is an abbreviation already and is kept whole; a single letter
/// is an initial even when `initialize` is false.
pub fn initialize(given: &str, with: &str, initialize: bool, hyphen: bool) -> String {
    let mut out = String::new();
    let mut rest = given.trim();
    while !rest.is_empty() {
        let end = word_end(rest);
        let word = rest.get(..end).unwrap_or("");
        let abbreviated = rest.get(end..).is_some_and(|r| r.starts_with('.'));
        rest = rest
            .get(end..)
            .unwrap_or("")
            .trim_start_matches(|c: char| c == '.' || c.is_whitespace());
        if word.is_empty() {
            continue;
        }
        let single = word.chars().count() == 1;
        // A lowercase word among given names is a particle and stays whole (J.B. de C.M.), as
        // do full names when initialize="false".
        let particle = word.chars().next().is_some_and(char::is_lowercase) && !single;
        if abbreviated && !particle || single {
            out.push_str(word);
            out.push_str(with);
            continue;
        }
        if particle || !initialize {
            out = out.trim_end().to_owned();
            if !out.is_empty() {
                out.push(' ');
            }
            out.push_str(word);
            out.push(' ');
            continue;
        }
        let mut first = true;
        for piece in word.split('-').filter(|p| !p.is_empty()) {
            // Markup around a name (`<b>John</b>`) stays around its initial.
            let (open, piece, close) = unwrap_tags(piece);
            let Some(c) = piece.chars().next() else {
                continue;
            };
            // A lowercase part after a hyphen gives no initial: Guo-ping → G.
            if !first && c.is_lowercase() {
                continue;
            }
            if !first && hyphen {
                out = out.trim_end().to_owned();
                out.push('-');
            }
            out.push_str(open);
            out.extend(c.to_uppercase());
            // Two capitals before lowercase letters make a two-letter initial: TSerendorjiin → Ts.
            let mut after = piece.chars().skip(1);
            if let (Some(second), Some(third)) = (after.next(), after.next()) {
                if c.is_uppercase() && second.is_uppercase() && third.is_lowercase() {
                    out.extend(second.to_lowercase());
                }
            }
            let bare = with.trim_end();
            out.push_str(bare);
            out.push_str(close);
            out.push_str(with.get(bare.len()..).unwrap_or(""));
            first = false;
        }
    }
    out.trim_end().to_owned()
}

/// Where the word at the start of `s` ends: at the first period or space outside a markup tag.
fn word_end(s: &str) -> usize {
    let mut in_tag = false;
    for (i, c) in s.char_indices() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag && (c == '.' || c.is_whitespace()) => return i,
            _ => {}
        }
    }
    s.len()
}

/// A word's opening tags, its text and its closing tags: `<b>John</b>` → (`<b>`, `John`, `</b>`).
fn unwrap_tags(word: &str) -> (&str, &str, &str) {
    let mut start = 0;
    while let Some(rest) = word.get(start..).filter(|r| r.starts_with('<')) {
        match rest.find('>') {
            Some(e) => start += e + 1,
            None => break,
        }
    }
    let mut end = word.len();
    while let Some(rest) = word.get(start..end).filter(|r| r.ends_with('>')) {
        match rest.rfind('<') {
            Some(b) => end = start + b,
            None => break,
        }
    }
    (
        word.get(..start).unwrap_or(""),
        word.get(start..end).unwrap_or(""),
        word.get(end..).unwrap_or(""),
    )
}

impl<'a> Renderer<'a> {
    fn name_opts(&self, name: Option<&Node>) -> NameOpts {
        let get = |attr: &str, inherited_as: &str| {
            self.inherited(name.and_then(|n| n.attr(attr)), inherited_as)
        };
        let subsequent =
            self.mode == super::render::Mode::Citation && self.cite.position != POSITION_FIRST;
        let num = |s: Option<&str>| s.and_then(|v| v.trim().parse::<usize>().ok());
        let mut et_al_min = num(get("et-al-min", "et-al-min")).unwrap_or(0);
        let mut et_al_use_first = num(get("et-al-use-first", "et-al-use-first"));
        if subsequent {
            if let Some(m) = num(get("et-al-subsequent-min", "et-al-subsequent-min")) {
                et_al_min = m;
            }
            if let Some(m) = num(get(
                "et-al-subsequent-use-first",
                "et-al-subsequent-use-first",
            )) {
                et_al_use_first = Some(m);
            }
        }
        if self.sort_key {
            if let Some(m) = self.sort_names_min {
                et_al_min = m;
            }
            if let Some(m) = self.sort_names_use_first {
                et_al_use_first = Some(m);
            }
        }
        NameOpts {
            and: get("and", "and").map(str::to_owned),
            delimiter: get("delimiter", "name-delimiter")
                .unwrap_or(", ")
                .to_owned(),
            delimiter_precedes_last: get("delimiter-precedes-last", "delimiter-precedes-last")
                .unwrap_or("contextual")
                .to_owned(),
            delimiter_precedes_et_al: get("delimiter-precedes-et-al", "delimiter-precedes-et-al")
                .unwrap_or("contextual")
                .to_owned(),
            et_al_min,
            et_al_use_first,
            et_al_use_last: get("et-al-use-last", "et-al-use-last") == Some("true"),
            form: get("form", "name-form").unwrap_or("long").to_owned(),
            initialize: get("initialize", "initialize") != Some("false"),
            initialize_with: get("initialize-with", "initialize-with").map(str::to_owned),
            name_as_sort_order: if self.sort_key {
                Some("all".into())
            } else {
                get("name-as-sort-order", "name-as-sort-order").map(str::to_owned)
            },
            sort_separator: get("sort-separator", "sort-separator")
                .unwrap_or(", ")
                .to_owned(),
            demote: self
                .style
                .root
                .attr("demote-non-dropping-particle")
                .unwrap_or("display-and-sort")
                .to_owned(),
        }
    }

    /// Formats one name-part with its `<name-part>` element.
    fn part(&self, name_el: Option<&Node>, which: &str, text: String) -> Out {
        self.name_part(name_el, which, text, true)
    }

    /// A name-part's formatting and text case, without its affixes.
    fn part_formatting_only(&self, name_el: Option<&Node>, which: &str, text: String) -> Out {
        self.name_part(name_el, which, text, false)
    }

    /// The words of a name-part (particles and a name), each with the name-part's formatting
    /// (<b>van</b> <b>Roe</b>), inside the name-part's affixes; `spaced`: a particle ending in
    /// an apostrophe still takes a space.
    fn part_words(&self, name_el: Option<&Node>, which: &str, words: &[&str], spaced: bool) -> Out {
        let words: Vec<(&str, &str)> = words.iter().map(|w| (*w, which)).collect();
        self.part_words_as(name_el, which, &words, spaced)
    }

    /// [`Self::part_words`] where each word may take another name-part's formatting (a
    /// demoted non-dropping particle keeps the family name's): the affixes are `which`'s.
    fn part_words_as(
        &self,
        name_el: Option<&Node>,
        which: &str,
        words: &[(&str, &str)],
        spaced: bool,
    ) -> Out {
        let words: Vec<(&str, &str)> = words.iter().copied().filter(|w| !w.0.is_empty()).collect();
        if let [(one, w)] = words.as_slice() {
            if *w == which {
                return self.part(name_el, which, (*one).to_owned());
            }
        }
        let mut parts = Vec::new();
        let mut prev: Option<&str> = None;
        for (w, fmt) in words {
            if prev.is_some_and(|p| spaced || !p.ends_with(['\'', '\u{2019}', '-'])) {
                parts.push(Out::text(" "));
            }
            parts.push(self.part_formatting_only(name_el, fmt, w.to_owned()));
            prev = Some(w);
        }
        let group = Out::group(parts);
        match name_el.and_then(|e| {
            e.children_named("name-part")
                .find(|p| p.attr("name") == Some(which))
        }) {
            Some(el) => self.decorate(&affixes_only(el), group, false),
            None => group,
        }
    }

    fn name_part(&self, name_el: Option<&Node>, which: &str, text: String, affixes: bool) -> Out {
        // Names may carry markup too (`<sup>`, `<b>`).
        let mut content = super::richtext::parse(&text);
        let Some(el) = name_el.and_then(|n| {
            n.children_named("name-part")
                .find(|p| p.attr("name") == Some(which))
        }) else {
            return content;
        };
        if let Some(case) = el.attr("text-case") {
            text_case::apply(&mut content, case, true, false);
        }
        let mut bare = strip_case(el);
        if !affixes {
            bare.attrs.retain(|(k, _)| k != "prefix" && k != "suffix");
        }
        self.decorate(&bare, content, false)
    }

    fn render_name(
        &self,
        n: &Name,
        position: usize,
        inverted: bool,
        o: &NameOpts,
        name_el: Option<&Node>,
    ) -> Out {
        if n.family.is_empty() && n.literal.is_empty() {
            // Only a given name (Banksy): written as it is.
            return Out::text(n.given.clone());
        }
        if n.is_literal() {
            let lit = if n.literal.is_empty() {
                &n.family
            } else {
                &n.literal
            };
            // A literal (institutional) name takes the family name-part's formatting.
            return self.part(name_el, "family", lit.clone());
        }
        let roman = is_romanesque(&format!("{}{}", n.family, n.given));
        // Disambiguation may show initials or the full given name.
        let level = if self.given_primary_only && position > 0 {
            0
        } else {
            super::disambiguate::level_of(self.given_levels.as_ref(), n)
        };
        let expanded;
        let o = if level > 0 {
            expanded = NameOpts {
                form: "long".into(),
                // Level 1: initials where the style initializes; level 2: full given names.
                initialize_with: if level == 1 {
                    o.initialize_with.clone()
                } else {
                    None
                },
                ..o.clone()
            };
            &expanded
        } else {
            o
        };
        let given = match &o.initialize_with {
            Some(w) if roman && !n.given.is_empty() => {
                let hyphen = self.style.root.attr("initialize-with-hyphen") != Some("false");
                initialize(&n.given, w, o.initialize, hyphen)
            }
            _ => n.given.clone(),
        };
        if !roman {
            let family = self.part(name_el, "family", n.family.clone());
            if o.form == "short" {
                return family;
            }
            let given = self.part(name_el, "given", given);
            let sep = if inverted || n.static_ordering || !roman {
                ""
            } else {
                " "
            };
            return Out::group(vec![family, Out::text(sep), given]);
        }
        let family_core = if n.spaced_particle && !n.family.is_empty() {
            format!("{} {}", n.non_dropping, n.family)
        } else {
            join_words(&[&n.non_dropping, &n.family])
        };
        if o.form == "short" {
            return self.part(name_el, "family", family_core);
        }
        let suffix_sep = if n.comma_suffix { ", " } else { " " };
        if inverted && !n.static_ordering {
            let sep = o.sort_separator.as_str();
            let demote = if self.sort_key {
                o.demote != "never"
            } else {
                o.demote == "display-and-sort"
            };
            let (fam, giv) = if demote {
                (
                    n.family.clone(),
                    join_words(&[&given, &n.dropping, &n.non_dropping]),
                )
            } else {
                (family_core.clone(), join_words(&[&given, &n.dropping]))
            };
            // A demoted non-dropping particle keeps the family name's formatting, inside the
            // given name's affixes (CSL 1.0.2, name-part).
            let (fam_words, giv_words) = if demote {
                (
                    vec![n.family.as_str()],
                    vec![
                        (given.as_str(), "given"),
                        (&n.dropping, "given"),
                        (&n.non_dropping, "family"),
                    ],
                )
            } else {
                (
                    vec![n.non_dropping.as_str(), &n.family],
                    vec![(given.as_str(), "given"), (&n.dropping, "given")],
                )
            };
            let mut parts = Vec::new();
            if !fam.is_empty() {
                parts.push(self.part_words(name_el, "family", &fam_words, n.spaced_particle));
            }
            if !giv.is_empty() {
                if !parts.is_empty() {
                    parts.push(Out::text(sep));
                }
                parts.push(self.part_words_as(name_el, "given", &giv_words, false));
            }
            if !n.suffix.is_empty() {
                parts.push(Out::text(sep));
                parts.push(Out::text(n.suffix.clone()));
            }
            return Out::group(parts);
        }
        let family_el = name_el.and_then(|e| {
            e.children_named("name-part")
                .find(|p| p.attr("name") == Some("family"))
        });
        let family_affixes =
            family_el.is_some_and(|f| f.attr("prefix").is_some() || f.attr("suffix").is_some());
        if family_affixes && !n.dropping.is_empty() {
            // The family name-part's affixes enclose the particles before it and the suffix:
            // [Jean] (de La Fontaine III).
            let mut inner = vec![self.part(None, "given", n.dropping.clone())];
            if !n.dropping.ends_with(['\'', '\u{2019}']) {
                inner.push(Out::text(" "));
            }
            inner.push(self.part_formatting_only(name_el, "family", family_core));
            if !n.suffix.is_empty() {
                inner.push(Out::text(suffix_sep));
                inner.push(Out::text(n.suffix.clone()));
            }
            let mut parts = Vec::new();
            if !given.is_empty() {
                parts.push(self.part(name_el, "given", given));
                parts.push(Out::text(" "));
            }
            let family = Out::group(inner);
            parts.push(match family_el {
                Some(f) => self.decorate(&affixes_only(f), family, false),
                None => family,
            });
            return Out::group(parts);
        }
        let giv = join_words(&[&given, &n.dropping]);
        let mut parts = Vec::new();
        if !giv.is_empty() {
            // A particle ending in an apostrophe joins the name: d’Aubignac.
            let glued = n.non_dropping.is_empty() && giv.ends_with(['\'', '\u{2019}']);
            parts.push(self.part_words(name_el, "given", &[&given, &n.dropping], false));
            if !glued {
                parts.push(Out::text(" "));
            }
        }
        parts.push(self.part_words(
            name_el,
            "family",
            &[&n.non_dropping, &n.family],
            n.spaced_particle,
        ));
        if !n.suffix.is_empty() {
            parts.push(Out::text(suffix_sep));
            parts.push(Out::text(n.suffix.clone()));
        }
        Out::group(parts)
    }

    /// A name list, or its count for `form="count"`.
    fn render_name_list(
        &mut self,
        names: &[Name],
        name_el: Option<&Node>,
        et_al_el: Option<&Node>,
    ) -> (Out, usize) {
        let o = self.name_opts(name_el);
        let count = names.len();
        let mut shown = count;
        if let Some(first) = o
            .et_al_use_first
            .filter(|_| o.et_al_min > 0 && count >= o.et_al_min)
        {
            shown = first.min(count);
        }
        if let Some(m) = self.names_min {
            shown = shown.max(m.min(count));
        }
        let truncated = shown < count;
        if o.form == "count" {
            return (Out::text(shown.to_string()), shown);
        }
        if shown == 0 {
            // et-al-use-first="0": no names at all.
            return (Out::text(""), 0);
        }
        let mut rendered: Vec<(Out, bool)> = Vec::new();
        for (i, n) in names.iter().take(shown).enumerate() {
            let inverted = match o.name_as_sort_order.as_deref() {
                Some("all") => true,
                Some("first") => i == 0,
                _ => false,
            };
            // A literal (institutional) name is never inverted.
            let inverted = inverted && !n.is_literal();
            rendered.push((self.render_name(n, i, inverted, &o, name_el), inverted));
        }
        let name_node_fmt = name_el;
        // A sort key compares the names one by one: no "and" between them.
        let and_term = match o.and.as_deref().filter(|_| !self.sort_key) {
            Some("text") => Some(self.term("and", TermForm::Long, false)),
            Some("symbol") => Some("&".to_owned()),
            _ => None,
        };
        let mut parts: Vec<Out> = Vec::new();
        let len = rendered.len();
        let use_last = truncated
            && (o.et_al_use_last || self.sort_key && self.sort_names_use_last)
            && count >= shown + 2;
        for (i, (r, _)) in rendered.iter().enumerate() {
            if i > 0 {
                let is_last = i + 1 == len && !truncated;
                if is_last {
                    if let Some(and) = &and_term {
                        let prev_inverted = rendered.get(i - 1).is_some_and(|x| x.1);
                        let precede = match o.delimiter_precedes_last.as_str() {
                            "always" => true,
                            "never" => false,
                            "after-inverted-name" => prev_inverted,
                            _ => len >= 3,
                        };
                        // An "and" in a script written without spaces (Hebrew ו) joins the
                        // names on either side.
                        let spaced = and.chars().next().is_some_and(spaced_script);
                        let precede = precede && (spaced || o.delimiter_precedes_last == "always");
                        if precede {
                            parts.push(Out::text(o.delimiter.clone()));
                        } else if spaced {
                            parts.push(Out::text(" "));
                        }
                        parts.push(Out::text(if spaced {
                            format!("{and} ")
                        } else {
                            and.clone()
                        }));
                    } else {
                        parts.push(Out::text(o.delimiter.clone()));
                    }
                } else {
                    parts.push(Out::text(o.delimiter.clone()));
                }
            }
            parts.push(r.clone());
        }
        if truncated && (!self.sort_key || use_last) {
            if use_last {
                if let Some(last) = names.last() {
                    let inverted = o.name_as_sort_order.as_deref() == Some("all");
                    parts.push(Out::text(o.delimiter.clone()));
                    parts.push(Out::text("\u{2026} "));
                    parts.push(self.render_name(last, count - 1, inverted, &o, name_el));
                }
            } else {
                let term = et_al_el.and_then(|e| e.attr("term")).unwrap_or("et-al");
                let t = self.term(term, TermForm::Long, false);
                // A term of only whitespace (a line break in the locale) is no term.
                if !t.trim().is_empty() {
                    let prev_inverted = rendered.last().is_some_and(|x| x.1);
                    let precede = match o.delimiter_precedes_et_al.as_str() {
                        "always" => true,
                        "never" => false,
                        "after-inverted-name" => prev_inverted,
                        _ => shown >= 2,
                    };
                    // A term in a script written without spaces (等) joins the last name.
                    let spaced = t.chars().next().is_some_and(spaced_script);
                    parts.push(Out::text(if precede {
                        o.delimiter.as_str()
                    } else if spaced {
                        " "
                    } else {
                        ""
                    }));
                    let et = Out::text(t);
                    parts.push(match et_al_el {
                        Some(e) => self.decorate(e, et, false),
                        None => et,
                    });
                }
            }
        }
        let list = Out::group(parts);
        let list = match name_node_fmt {
            Some(n) => self.decorate(&strip_case(n), list, false),
            None => list,
        };
        (list, shown)
    }

    pub fn render_names(&mut self, node: &Node) -> Option<Out> {
        let outermost = self.in_substitute == 0 && !self.sort_key && self.first_names.is_none();
        if outermost {
            // The first name list rendered (here or through a substitute) is the one
            // subsequent-author-substitute compares and replaces.
            self.capture_names = true;
        }
        let out = self.render_names_inner(node);
        // Still set: a substitute rendered something other than names (a title, a
        // publisher), which then stands for the names.
        let captured_text = outermost && self.capture_names;
        if outermost {
            self.capture_names = false;
        }
        let out = out?;
        if outermost {
            if captured_text {
                self.first_names = Some(out.plain());
                if let Some(sub) = &self.substitute_first_names {
                    return Some(Out::text(sub.clone()));
                }
            }
            if self.suppress_author {
                return None;
            }
        }
        Some(out)
    }

    /// `<substitute>`: the first of its elements that renders something, with the names
    /// element's options (and its `<name>`) inherited.
    #[inline(never)]
    fn render_substitute(&mut self, node: &Node, name_el: Option<&Node>) -> Option<Out> {
        let subst = node.child("substitute")?;
        let mut parent = node.clone();
        parent.children.retain(|c| c.name != "substitute");
        if let Some(n) = name_el {
            if parent.child("name").is_none() {
                parent.children.push(n.clone());
            }
        }
        self.inherited_names.push(std::rc::Rc::new(parent));
        self.in_substitute += 1;
        let mut result = None;
        for c in &subst.children {
            let (called, filled) = (self.vars_called, self.vars_filled);
            let r = self.render(c);
            if let Some(r) = r.filter(|r| !r.is_empty()) {
                result = Some(r);
                break;
            }
            self.vars_called = called;
            self.vars_filled = filled;
        }
        self.in_substitute -= 1;
        self.inherited_names.pop();
        let r = result?;
        Some(self.decorate(node, r, false))
    }

    fn render_names_inner(&mut self, node: &Node) -> Option<Out> {
        let vars: Vec<&str> = node
            .attr("variable")
            .unwrap_or("")
            .split_whitespace()
            .collect();
        // Shared, not copied: the child elements below borrow from it, not from the renderer.
        let inherited = self.inherited_names.last().cloned();
        let own_or_inherited = |name: &str| -> Option<&Node> {
            node.child(name)
                .or_else(|| inherited.as_deref().and_then(|i| i.child(name)))
        };
        // Child elements, own or inherited from the names being substituted.
        let name_el = own_or_inherited("name");
        let et_al_el = own_or_inherited("et-al");
        let label_el = own_or_inherited("label");
        let label_after = match (
            node.children.iter().position(|c| c.name == "label"),
            node.children.iter().position(|c| c.name == "name"),
        ) {
            (Some(l), Some(n)) => l > n,
            (Some(_), None) => true,
            _ => inherited.as_ref().is_none_or(|i| {
                let l = i.children.iter().position(|c| c.name == "label");
                let n = i.children.iter().position(|c| c.name == "name");
                l.zip(n).is_none_or(|(l, n)| l > n)
            }),
        };
        self.vars_called += 1;
        let mut lists: Vec<(String, Vec<Name>)> = Vec::new();
        for v in &vars {
            if self.suppressed.contains(v) {
                continue;
            }
            let ns = item::names(self.item, v);
            if !ns.is_empty() {
                lists.push(((*v).to_owned(), ns));
            }
        }
        // Editor and translator being the same people render once.
        if lists.len() >= 2 {
            let ed = lists.iter().position(|(v, _)| v == "editor");
            let tr = lists.iter().position(|(v, _)| v == "translator");
            if let (Some(e), Some(t)) = (ed, tr) {
                let has_term = label_el.as_ref().is_none_or(|l| {
                    !self
                        .term("editortranslator", TermForm::parse(l.attr("form")), false)
                        .is_empty()
                });
                if has_term && lists.get(e).map(|x| &x.1) == lists.get(t).map(|x| &x.1) {
                    if let Some(slot) = lists.get_mut(e) {
                        slot.0 = "editortranslator".into();
                    }
                    lists.remove(t);
                }
            }
        }
        if lists.is_empty() {
            return self.render_substitute(node, name_el);
        }
        self.vars_filled += 1;
        if self.in_substitute > 0 {
            for (v, _) in &lists {
                self.suppressed.insert(v.clone());
            }
        }
        let delimiter = self
            .inherited(node.attr("delimiter"), "names-delimiter")
            .unwrap_or("")
            .to_owned();
        let mut outs: Vec<Out> = Vec::new();
        let mut total = 0usize;
        for (var, ns) in &lists {
            let (mut list, shown) = self.render_name_list(ns, name_el, et_al_el);
            total += shown;
            if self.capture_names {
                self.capture_names = false;
                self.first_names = Some(list.plain());
                if let Some(sub) = &self.substitute_first_names {
                    list = Out::text(sub.clone());
                }
            }
            let mut pieces = vec![list];
            if let Some(l) = label_el.filter(|_| !self.sort_key) {
                let term = if var == "editortranslator" {
                    "editortranslator"
                } else {
                    var.as_str()
                };
                let plural = match l.attr("plural") {
                    Some("always") => true,
                    Some("never") => false,
                    _ => ns.len() > 1,
                };
                let t = self.term(term, TermForm::parse(l.attr("form")), plural);
                if !t.is_empty() {
                    let lab = self.decorate(l, self.strip_periods(l, Out::text(t)), true);
                    if label_after {
                        pieces.push(lab);
                    } else {
                        pieces.insert(0, lab);
                    }
                }
            }
            if !outs.is_empty() && !delimiter.is_empty() {
                outs.push(Out::text(delimiter.clone()));
            }
            outs.push(Out::group(pieces));
        }
        let is_count = name_el.and_then(|n| n.attr("form")) == Some("count");
        if is_count {
            if total == 0 {
                return None;
            }
            return Some(self.decorate(node, Out::text(total.to_string()), false));
        }
        let out = Out::Span(Box::new(Span {
            children: outs,
            ..Span::default()
        }));
        Some(self.decorate(node, out, false))
    }
}

/// A copy of an element with only its affixes.
/// Whether a word starting with `c` is set off by spaces: Latin, Greek, Cyrillic, Hebrew,
/// Arabic and Thai letters are (the ranges citeproc-js calls romanesque); CJK are not.
fn spaced_script(c: char) -> bool {
    c.is_ascii_alphabetic()
        || c == '&'
        || matches!(u32::from(c),
            0x0e01..=0x0e5b | 0x00c0..=0x017f | 0x0218..=0x021b | 0x0370..=0x03ff
            | 0x0400..=0x052f | 0x0590..=0x05d4 | 0x05d6..=0x05ff | 0x0600..=0x06ff
            | 0x1f00..=0x1fff | 0x200c..=0x200e | 0x202a..=0x202e)
}

fn affixes_only(n: &Node) -> Node {
    Node {
        name: n.name.clone(),
        attrs: n
            .attrs
            .iter()
            .filter(|(k, _)| k == "prefix" || k == "suffix")
            .cloned()
            .collect(),
        ..Node::default()
    }
}

/// A copy of an element without `text-case` (applied separately to name parts).
fn strip_case(n: &Node) -> Node {
    let mut c = Node {
        name: n.name.clone(),
        attrs: n.attrs.clone(),
        ..Node::default()
    };
    c.attrs.retain(|(k, _)| k != "text-case");
    c
}
