//! Rendering one item (or one cite) through a layout: text, number, label, group, choose and
//! the shared decorations (affixes, formatting, quotes, text case, strip-periods, display).
//! Names, dates and numbers live in their own files as further `impl Renderer` blocks.

use serde_json::Value;

use super::item;
use super::locale::{Locale, TermForm};
use super::output::{Fmt, Out, Span, VAlign};
use super::richtext;
use super::style::Style;
use super::text_case;

/// How many element evaluations rendering one item may take: hostile styles (macros calling
/// each other twice per level) stop here instead of running for ever.
pub const MAX_EVALUATIONS: usize = 200_000;
/// How deeply macros may call each other.
pub const MAX_MACRO_DEPTH: usize = 48;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Citation,
    Bibliography,
}

/// Cite-specific data (citation mode).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct CiteInfo {
    pub locator: Option<String>,
    pub label: Option<String>,
    pub position: u8,
    pub near_note: bool,
    pub first_note: Option<u32>,
}

pub const POSITION_FIRST: u8 = 0;
pub const POSITION_SUBSEQUENT: u8 = 1;
pub const POSITION_IBID: u8 = 2;
pub const POSITION_IBID_WITH_LOCATOR: u8 = 3;

pub struct Renderer<'a> {
    pub style: &'a Style,
    pub locale: &'a Locale,
    pub item: &'a Value,
    pub mode: Mode,
    pub citation_number: Option<usize>,
    pub year_suffix: Option<String>,
    pub cite: CiteInfo,
    /// Rendering a sort key: names come out in sort order, in full.
    pub sort_key: bool,
    /// Names per name list to show (disambiguation add-names), overriding et-al-use-first.
    pub names_min: Option<usize>,
    /// `names-min` / `names-use-first` of the sort key being rendered.
    pub sort_names_min: Option<usize>,
    pub sort_names_use_first: Option<usize>,
    pub sort_names_use_last: bool,
    pub suppressed: Suppressed,
    pub in_substitute: usize,
    /// Names element options of the enclosing `<names>` while its substitute renders.
    pub inherited_names: Vec<std::rc::Rc<super::xml::Node>>,
    pub vars_called: usize,
    pub vars_filled: usize,
    evaluations: usize,
    macro_depth: usize,
    pub year_suffix_done: bool,
    /// The plain text of the first names element rendered (subsequent-author-substitute).
    pub first_names: Option<String>,
    /// Replaces the first name list's output.
    pub substitute_first_names: Option<String>,
    /// The next name list rendered is the first one (see `first_names`).
    pub capture_names: bool,
    /// Whether the first thing rendered was a term (capitalized at the start of a citation).
    pub starts_with_term: Option<bool>,
    /// Disambiguation: how many `disambiguate="true"` tests hold, counted in the order they
    /// are met (each one more tells works apart, as citeproc-js steps through them).
    pub disambiguate: usize,
    /// The `disambiguate="true"` tests that held so far.
    pub disambiguate_met: std::cell::Cell<usize>,
    /// Disambiguation: names shown with initials or given names.
    pub given_levels: Option<std::rc::Rc<super::disambiguate::GivenLevels>>,
    /// The levels apply to the first name of a list only (`primary-name` rules).
    pub given_primary_only: bool,
    /// The cite's author is suppressed (`suppress-author`).
    pub suppress_author: bool,
    /// Rendering only to compare cites for ambiguity: the accessed date, which says when a
    /// reader looked and not which work it is, is left out (as citeproc-js compares them).
    pub just_looking: bool,
}

impl<'a> Renderer<'a> {
    pub fn new(style: &'a Style, locale: &'a Locale, item: &'a Value, mode: Mode) -> Self {
        Renderer {
            style,
            locale,
            item,
            mode,
            citation_number: None,
            year_suffix: None,
            cite: CiteInfo::default(),
            sort_key: false,
            names_min: None,
            sort_names_min: None,
            sort_names_use_first: None,
            sort_names_use_last: false,
            suppressed: Suppressed::default(),
            in_substitute: 0,
            inherited_names: Vec::new(),
            vars_called: 0,
            vars_filled: 0,
            evaluations: 0,
            macro_depth: 0,
            year_suffix_done: false,
            first_names: None,
            substitute_first_names: None,
            capture_names: false,
            starts_with_term: None,
            disambiguate: 0,
            disambiguate_met: std::cell::Cell::new(0),
            given_levels: None,
            given_primary_only: false,
            suppress_author: false,
            just_looking: false,
        }
    }

    pub fn mode_node(&self) -> Option<&'a super::xml::Node> {
        match self.mode {
            Mode::Citation => self.style.citation.as_ref(),
            Mode::Bibliography => self.style.bibliography.as_ref(),
        }
    }

    /// An inheritable option: the element's own attribute, then the citation or bibliography
    /// element's, then the style's.
    pub fn inherited<'b>(&'b self, own: Option<&'b str>, name: &str) -> Option<&'b str> {
        own.or_else(|| self.mode_node().and_then(|n| n.attr(name)))
            .or_else(|| self.style.root.attr(name))
    }

    pub fn term(&self, name: &str, form: TermForm, plural: bool) -> String {
        self.locale.term_or_empty(name, form, plural)
    }

    /// A variable's raw value, honouring suppression and the cite's own variables.
    pub fn variable(&self, name: &str) -> Option<String> {
        if self.suppressed.contains(name) {
            return None;
        }
        match name {
            "locator" => self
                .cite
                .locator
                .as_deref()
                .map(str::trim)
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            "citation-number" => self.citation_number.map(|n| n.to_string()),
            "year-suffix" => self.year_suffix.clone(),
            "first-reference-note-number" => self.cite.first_note.map(|n| n.to_string()),
            // CSL-JSON from Zotero and Mendeley spells the short forms this way.
            "container-title-short" => item::var_str(self.item, name)
                .or_else(|| item::var_str(self.item, "journalAbbreviation")),
            "title-short" => {
                item::var_str(self.item, name).or_else(|| item::var_str(self.item, "shortTitle"))
            }
            "citation-label" => item::var_str(self.item, name).or_else(|| self.trigraph()),
            "page-first" => item::var_str(self.item, "page-first").or_else(|| {
                item::var_str(self.item, "page").and_then(|p| {
                    p.split(['-', '\u{2013}', ',', '&'])
                        .next()
                        .map(|f| f.trim().to_owned())
                        .filter(|f| !f.is_empty())
                })
            }),
            _ => item::var_str(self.item, name),
        }
    }

    /// The default citation label ("trigraph"): letters of up to four authors' family names
    /// (4 for one author, 2 each for two or three, 1 each for four or more) and the year's last
    /// two digits: Doe65, RoNo78.
    fn trigraph(&self) -> Option<String> {
        let mut names = item::names(self.item, "author");
        if names.is_empty() {
            names = item::names(self.item, "editor");
        }
        let year = item::date(self.item, "issued").map(|d| d.start()[0]);
        if names.is_empty() && year.is_none() {
            return None;
        }
        let per = match names.len() {
            1 => 4,
            2 | 3 => 2,
            _ => 1,
        };
        let mut label = String::new();
        for n in names.iter().take(4) {
            let family = if n.family.is_empty() {
                &n.literal
            } else {
                &n.family
            };
            label.extend(family.chars().filter(|c| c.is_alphabetic()).take(per));
        }
        if let Some(y) = year.filter(|y| *y > 0) {
            label.push_str(&format!("{:02}", y % 100));
        }
        Some(label)
    }

    /// Renders a sequence of elements, joined by a delimiter. A `<choose>` is transparent:
    /// the children of its chosen branch take part in the delimiting as if written here.
    pub fn render_children(&mut self, nodes: &[super::xml::Node], delimiter: &str) -> Option<Out> {
        let mut outs: Vec<Out> = Vec::new();
        self.collect(nodes, &mut outs, 0);
        if outs.is_empty() {
            return None;
        }
        let mut parts = Vec::with_capacity(outs.len() * 2);
        for o in outs {
            if !parts.is_empty() && !delimiter.is_empty() {
                parts.push(Out::text(delimiter));
            }
            parts.push(o);
        }
        Some(Out::group(parts))
    }

    fn collect(&mut self, nodes: &[super::xml::Node], outs: &mut Vec<Out>, depth: usize) {
        for n in nodes {
            if n.name == "choose" && depth < MAX_MACRO_DEPTH {
                self.evaluations += 1;
                if self.evaluations > MAX_EVALUATIONS {
                    return;
                }
                if let Some(branch) = self.choose_branch(n) {
                    self.collect(&branch.children, outs, depth + 1);
                }
                continue;
            }
            if let Some(o) = self.render(n) {
                if !o.is_empty() {
                    outs.push(o);
                }
            }
        }
    }

    pub fn render(&mut self, node: &super::xml::Node) -> Option<Out> {
        self.evaluations += 1;
        if self.evaluations > MAX_EVALUATIONS {
            return None;
        }
        let leaf = matches!(node.name.as_str(), "number" | "label" | "date" | "names")
            || node.name == "text" && node.attr("macro").is_none();
        let out = match node.name.as_str() {
            "text" => self.render_text(node),
            "number" => self.render_number(node),
            "label" => self.render_label(node),
            "group" => self.render_group(node),
            "choose" => self.render_choose(node),
            "date" => self.render_date(node),
            "names" => self.render_names(node),
            _ => None,
        };
        if leaf && self.starts_with_term.is_none() && out.as_ref().is_some_and(|o| !o.is_empty()) {
            self.starts_with_term = Some(node.name == "text" && node.attr("term").is_some());
        }
        out
    }

    fn render_group(&mut self, node: &super::xml::Node) -> Option<Out> {
        let out = self.implicit_group(|r| {
            r.render_children(&node.children, node.attr("delimiter").unwrap_or(""))
        })?;
        Some(self.decorate(node, out, false))
    }

    /// Groups and macros are suppressed when they call variables and all of them are empty;
    /// when they render something, that counts as content for the enclosing group.
    fn implicit_group(&mut self, f: impl FnOnce(&mut Self) -> Option<Out>) -> Option<Out> {
        let (called, filled) = (self.vars_called, self.vars_filled);
        let out = f(self);
        if self.vars_called > called && self.vars_filled == filled {
            return None;
        }
        let out = out.filter(|o| !o.is_empty())?;
        self.vars_filled += 1;
        Some(out)
    }

    pub fn call_macro(&mut self, name: &str) -> Option<Out> {
        let style = self.style;
        let m = style.macros.get(name)?;
        if self.macro_depth >= MAX_MACRO_DEPTH {
            return None;
        }
        self.macro_depth += 1;
        let out = self.implicit_group(|r| r.render_children(&m.children, ""));
        self.macro_depth -= 1;
        out
    }

    // Kept out of `render` (the engine's hub): a smaller function for the wasm tiers to compile.
    #[inline(never)]
    fn render_text(&mut self, node: &super::xml::Node) -> Option<Out> {
        if let Some(var) = node.attr("variable") {
            // The year suffix comes from disambiguation: its absence suppresses nothing.
            if var != "year-suffix" {
                self.vars_called += 1;
            }
            let form = node.attr("form");
            let mut value = None;
            if form == Some("short") {
                value = self.variable(&format!("{var}-short"));
                if value.is_none() && var == "container-title" {
                    value = self.variable("journalAbbreviation");
                }
            }
            if value.is_none() {
                value = self.variable(var);
            }
            let value = value?;
            self.vars_filled += 1;
            if self.in_substitute > 0 {
                self.suppressed.insert(var.to_owned());
            }
            let content = match var {
                "page" | "locator"
                    if var == "page" || self.cite.label.as_deref().is_none_or(|l| l == "page") =>
                {
                    Out::text(self.format_page_range(&value))
                }
                // Other numeric locators (chapters, sections) get the en dash only.
                "locator" if is_numeric(&value) && value.contains('-') => Out::text(
                    value
                        .split('-')
                        .map(str::trim)
                        .collect::<Vec<_>>()
                        .join("\u{2013}"),
                ),
                "citation-number" | "first-reference-note-number" => Out::text(value),
                "URL" | "DOI" => {
                    let prefix = node.attr("prefix").unwrap_or("");
                    let link = if var == "URL" {
                        value.clone()
                    } else if prefix.starts_with("http") {
                        format!("{prefix}{value}")
                    } else if value.starts_with("http") {
                        value.clone()
                    } else {
                        format!("https://doi.org/{value}")
                    };
                    Out::Span(Box::new(Span {
                        link: Some(link),
                        children: vec![Out::text(value)],
                        ..Span::default()
                    }))
                }
                "PMID" | "PMCID" => Out::text(value),
                // Numeric ranges get an en dash, as page ranges do.
                "issue" | "volume" | "number" | "collection-number" | "chapter-number"
                    if is_numeric(&value) && value.contains('-') =>
                {
                    Out::text(value.replace('-', "\u{2013}"))
                }
                _ => richtext::parse(&value),
            };
            if var == "year-suffix" {
                self.year_suffix_done = true;
            }
            // A rendered label takes the implicit year suffix (Doe65a).
            let content = if var == "citation-label"
                && !self.style.renders_year_suffix
                && !self.year_suffix_done
            {
                match self.year_suffix.clone() {
                    Some(ys) => {
                        self.year_suffix_done = true;
                        Out::group(vec![content, Out::text(ys)])
                    }
                    None => content,
                }
            } else {
                content
            };
            let content = self.strip_periods(node, content);
            return Some(self.decorate(node, content, true));
        }
        if let Some(m) = node.attr("macro") {
            let out = self.call_macro(m)?;
            return Some(self.decorate(node, out, true));
        }
        if let Some(t) = node.attr("term") {
            let plural = node.attr("plural") == Some("true");
            let form = TermForm::parse(node.attr("form"));
            let mut s = self.term(t, form, plural);
            if s.is_empty() {
                return None;
            }
            // Without a date, the implicit year suffix follows "n.d.": n.d.-a.
            if t == "no date"
                && self.mode == Mode::Citation
                && !self.style.renders_year_suffix
                && !self.year_suffix_done
            {
                if let Some(ys) = self.year_suffix.clone() {
                    s = format!("{s}-{ys}");
                    self.year_suffix_done = true;
                }
            }
            let content = self.strip_periods(node, richtext::parse(&s));
            return Some(self.decorate(node, content, true));
        }
        if let Some(v) = node.attr("value") {
            if v.is_empty() {
                return None;
            }
            let content = self.strip_periods(node, richtext::parse(v));
            return Some(self.decorate(node, content, true));
        }
        None
    }

    pub fn strip_periods(&self, node: &super::xml::Node, mut out: Out) -> Out {
        if node.attr("strip-periods") == Some("true") {
            out.map_text(&mut |s| s.replace('.', ""));
        }
        out
    }

    /// Formatting attributes of an element.
    pub fn fmt_of(node: &super::xml::Node) -> Fmt {
        Fmt {
            italic: match node.attr("font-style") {
                Some("italic" | "oblique") => Some(true),
                Some("normal") => Some(false),
                _ => None,
            },
            bold: match node.attr("font-weight") {
                Some("bold") => Some(true),
                Some("normal") => Some(false),
                _ => None,
            },
            small_caps: match node.attr("font-variant") {
                Some("small-caps") => Some(true),
                Some("normal") => Some(false),
                _ => None,
            },
            underline: match node.attr("text-decoration") {
                Some("underline") => Some(true),
                Some("none") => Some(false),
                _ => None,
            },
            valign: match node.attr("vertical-align") {
                Some("sup") => Some(VAlign::Sup),
                Some("sub") => Some(VAlign::Sub),
                Some("baseline") => Some(VAlign::Baseline),
                _ => None,
            },
        }
    }

    /// Text case, formatting, quotes, affixes and display around rendered content.
    pub fn decorate(&self, node: &super::xml::Node, mut content: Out, with_case: bool) -> Out {
        if with_case || node.name == "group" || node.name == "names" {
            if let Some(case) = node.attr("text-case") {
                // Title case applies to English items only: those whose language is English,
                // or, without one, those of a style in an English locale.
                let language = item::var_str(self.item, "language").map(|l| l.to_lowercase());
                let english = match &language {
                    Some(l) => l.starts_with("en"),
                    None => self.locale.is_english(),
                };
                let primary = language
                    .as_deref()
                    .map(|l| l.split(['-', '_']).next().unwrap_or(l));
                let turkic = matches!(primary, Some("tr" | "az"));
                text_case::apply(&mut content, case, english, turkic);
            }
        }
        let fmt = Self::fmt_of(node);
        let quotes = node.attr("quotes") == Some("true");
        if !fmt.is_plain() || quotes {
            content = Out::Span(Box::new(Span {
                fmt,
                quotes,
                children: vec![content],
                ..Span::default()
            }));
        }
        let prefix = node.attr("prefix").unwrap_or("");
        let suffix = node.attr("suffix").unwrap_or("");
        let display = node.attr("display");
        if prefix.is_empty() && suffix.is_empty() && display.is_none() {
            return content;
        }
        let mut children = Vec::with_capacity(3);
        if !prefix.is_empty() {
            children.push(richtext::parse_affix(prefix));
        }
        children.push(content);
        if !suffix.is_empty() {
            children.push(richtext::parse_affix(suffix));
        }
        Out::Span(Box::new(Span {
            display: display.map(str::to_owned),
            children,
            ..Span::default()
        }))
    }

    // Kept out of `render` (the engine's hub): a smaller function for the wasm tiers to compile.
    #[inline(never)]
    fn render_label(&mut self, node: &super::xml::Node) -> Option<Out> {
        let var = node.attr("variable")?;
        let (term, value) = if var == "locator" {
            // CSL-JSON written for CSL 1.0 names the sub-verbo term "sub verbo".
            let label = match self.cite.label.as_deref() {
                None => "page".to_owned(),
                Some("sub verbo") => "sub-verbo".to_owned(),
                Some(l) => l.to_owned(),
            };
            (label, self.variable("locator")?)
        } else {
            let term = match var {
                "number-of-pages" => "page",
                _ => var,
            };
            (term.to_owned(), self.variable(var)?)
        };
        let plural = match node.attr("plural") {
            Some("always") => true,
            Some("never") => false,
            _ => match var {
                "number-of-pages" | "number-of-volumes" => {
                    value.trim().parse::<i64>().map(|n| n > 1).unwrap_or(false)
                }
                _ => {
                    // "213 et 235": the locale's own "and" joins numbers too.
                    let and = format!(" {} ", self.term("and", TermForm::Long, false));
                    is_plural(&value)
                        || !and.trim().is_empty()
                            && value.contains(&and)
                            && value.chars().filter(char::is_ascii_digit).count() > 1
                }
            },
        };
        let form = TermForm::parse(node.attr("form"));
        let s = self.term(&term, form, plural);
        if s.is_empty() {
            return None;
        }
        let content = self.strip_periods(node, Out::text(s));
        Some(self.decorate(node, content, true))
    }

    fn render_choose(&mut self, node: &super::xml::Node) -> Option<Out> {
        let branch = self.choose_branch(node)?;
        self.render_children(&branch.children, "")
    }

    fn choose_branch<'n>(&mut self, node: &'n super::xml::Node) -> Option<&'n super::xml::Node> {
        node.children
            .iter()
            .find(|branch| match branch.name.as_str() {
                "if" | "else-if" => self.test(branch),
                "else" => true,
                _ => false,
            })
    }

    /// Whether a condition holds: each value of each test attribute is one result, combined
    /// by `match` (all by default); no result at all fails. Stops at the first result that
    /// decides.
    fn test(&self, node: &super::xml::Node) -> bool {
        let mode = match node.attr("match") {
            Some("any") => Match::Any,
            Some("none") => Match::None,
            _ => Match::All,
        };
        let mut seen = false;
        for (k, v) in &node.attrs {
            if k == "disambiguate" {
                seen = true;
                let holds = if v == "true" {
                    let met = self.disambiguate_met.get();
                    let holds = met < self.disambiguate;
                    if holds {
                        self.disambiguate_met.set(met + 1);
                    }
                    holds
                } else {
                    self.disambiguate == 0
                };
                if let Some(decided) = mode.decides(holds) {
                    return decided;
                }
                continue;
            }
            let ty = if k == "type" {
                match self.item.get("type") {
                    Some(Value::String(t)) => std::borrow::Cow::Borrowed(t.trim()),
                    _ => item::var_str(self.item, "type").unwrap_or_default().into(),
                }
            } else {
                std::borrow::Cow::Borrowed("")
            };
            for x in v.split_whitespace() {
                let result = match k.as_str() {
                    "type" => x == ty,
                    "variable" => self.has_variable(x),
                    "is-numeric" => self.variable(x).is_some_and(|s| is_numeric(&s)),
                    "is-uncertain-date" => item::date(self.item, x).is_some_and(|d| d.circa),
                    "locator" => {
                        let l = self.cite.label.as_deref().unwrap_or("page");
                        self.cite.locator.is_some()
                            && (x == l || (x == "sub-verbo" && l == "sub verbo"))
                    }
                    "position" => {
                        let p = self.cite.position;
                        self.mode != Mode::Bibliography
                            && match x {
                                "first" => p == POSITION_FIRST,
                                "subsequent" => p != POSITION_FIRST,
                                "ibid" => p == POSITION_IBID || p == POSITION_IBID_WITH_LOCATOR,
                                "ibid-with-locator" => p == POSITION_IBID_WITH_LOCATOR,
                                "near-note" => p != POSITION_FIRST && self.cite.near_note,
                                _ => false,
                            }
                    }
                    _ => break,
                };
                seen = true;
                if let Some(decided) = mode.decides(result) {
                    return decided;
                }
            }
        }
        // Undecided: every result was true (all), none was (none), or none was (any).
        seen && mode != Match::Any
    }

    /// Conditions see the item as it is: a variable substituted for the names stays visible
    /// to `variable="…"` tests (as in citeproc-js).
    fn has_variable(&self, name: &str) -> bool {
        match name {
            "locator"
            | "citation-number"
            | "year-suffix"
            | "first-reference-note-number"
            | "page-first" => self.variable(name).is_some(),
            _ => match self.item.get(name) {
                Some(Value::String(s)) => !s.trim().is_empty(),
                Some(Value::Number(_)) => true,
                Some(Value::Array(a)) => !a.is_empty(),
                Some(Value::Object(_)) => item::date(self.item, name).is_some(),
                // A `name: value` line of the note field (as rendering reads it).
                None => name != "note" && item::note_field(self.item, name).is_some(),
                _ => false,
            },
        }
    }
}

/// The variables an item has rendered (or substituted) already, which render no more: a
/// handful, so a list (looked up on every variable).
#[derive(Debug, Clone, Default)]
pub struct Suppressed(Vec<String>);

impl Suppressed {
    pub fn contains(&self, var: &str) -> bool {
        self.0.iter().any(|v| v == var)
    }

    pub fn insert(&mut self, var: String) {
        if !self.contains(&var) {
            self.0.push(var);
        }
    }
}

/// How a condition combines its results (`match`).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Match {
    All,
    Any,
    None,
}

impl Match {
    /// The condition's outcome if this one result decides it.
    fn decides(self, result: bool) -> Option<bool> {
        match (self, result) {
            (Match::Any, true) => Some(true),
            (Match::None, true) | (Match::All, false) => Some(false),
            _ => None,
        }
    }
}

/// Whether a value is numeric in CSL's sense: digits, optionally with affixed letters, in a
/// list or range (`12`, `2nd`, `12-15`, `1, 3 & 5`).
pub fn is_numeric(s: &str) -> bool {
    let s = s.trim();
    if s.is_empty() {
        return false;
    }
    s.split(['-', '\u{2013}', ',', '&', '+'])
        .map(str::trim)
        .all(|part| {
            let digits = part.chars().filter(|c| c.is_ascii_digit()).count();
            digits > 0
                && part.chars().all(|c| c.is_ascii_alphanumeric())
                && (part.chars().next().is_some_and(|c| c.is_ascii_digit())
                    || part.chars().last().is_some_and(|c| c.is_ascii_digit()))
                && !part
                    .chars()
                    .filter(|c| c.is_ascii_alphabetic())
                    .any(|_| digits == 0)
        })
}

/// Whether a numeric value names more than one thing (`12-15`, `1, 3`, `1 & 3`).
/// A hyphen escaped with a backslash (`327\-30`) joins, it does not make a range; roman
/// numerals (`i-ix`) count as numbers.
pub fn is_plural(s: &str) -> bool {
    let t = s.trim().replace("\\-", "");
    let roman = |p: &str| {
        !p.is_empty()
            && (p.chars().all(|c| "ivxlcdm".contains(c))
                || p.chars().all(|c| "IVXLCDM".contains(c)))
    };
    let nums = t
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|p| p.chars().any(|c| c.is_ascii_digit()) || roman(p))
        .count();
    nums > 1 && (t.contains(['-', '\u{2013}', ',', '&']) || t.contains(" and "))
}
