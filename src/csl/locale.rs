//! Locale data: terms, localized date formats and locale options, looked up through layers (the
//! style's own `<locale>` overrides first, then the locale file, then built-in en-US).

use std::collections::HashMap;
use std::sync::{Arc, OnceLock};

use super::xml::{self, Node};

/// The en-US locale of the CSL project (CC BY-SA 3.0; comments and indentation removed).
#[cfg(test)]
pub const EN_US_XML: &str = include_str!("locales/en-US.xml");

/// The same locale as built in, so that rendering works offline, in a form read without the XML
/// parser: a first line of XML with its options and date formats, then one term a line, its
/// fields separated by tabs (see [`LocaleLayer::compact_terms`]). Written from `EN_US_XML` by
/// `CITEFLOW_WRITE_EN_US=1 cargo test --features csl --lib en_us`; a test checks the two agree.
const EN_US_COMPACT: &str = include_str!("locales/en-US.compact");

/// How deeply a locale's elements may nest.
const MAX_LOCALE_DEPTH: usize = 16;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum TermForm {
    Long,
    Short,
    Verb,
    VerbShort,
    Symbol,
}

impl TermForm {
    pub fn parse(s: Option<&str>) -> Self {
        match s {
            Some("short") => Self::Short,
            Some("verb") => Self::Verb,
            Some("verb-short") => Self::VerbShort,
            Some("symbol") => Self::Symbol,
            _ => Self::Long,
        }
    }

    #[cfg(test)]
    fn name(self) -> &'static str {
        match self {
            Self::Long => "long",
            Self::Short => "short",
            Self::Verb => "verb",
            Self::VerbShort => "verb-short",
            Self::Symbol => "symbol",
        }
    }

    fn fallback(self) -> Option<Self> {
        match self {
            Self::Long => None,
            Self::Short | Self::Verb => Some(Self::Long),
            Self::VerbShort => Some(Self::Verb),
            Self::Symbol => Some(Self::Short),
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Term {
    pub single: String,
    pub multiple: String,
    pub gender: Option<String>,
    pub gender_form: Option<String>,
    pub match_: Option<String>,
}

/// One layer of locale data.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LocaleLayer {
    pub lang: Option<String>,
    /// Terms by name (sorted by name, for a binary search: no hashing to build the 330 terms of
    /// en-US on the first render), each name's forms in form order, then in document order.
    terms: Vec<(String, Vec<(TermForm, Term)>)>,
    pub dates: HashMap<String, Node>,
    pub punctuation_in_quote: Option<bool>,
    pub limit_day_ordinals: Option<bool>,
    /// Whether this layer defines any ordinal term (then it replaces all lower ordinal terms).
    has_ordinals: bool,
}

impl LocaleLayer {
    pub fn from_node(node: &Node) -> Self {
        let mut layer = LocaleLayer {
            lang: node.attr("xml:lang").map(str::to_owned),
            ..Self::default()
        };
        for child in &node.children {
            match child.name.as_str() {
                "terms" => {
                    for t in child.children_named("term") {
                        let Some(name) = t.attr("name") else { continue };
                        let form = TermForm::parse(t.attr("form"));
                        let (single, multiple) = match (t.child("single"), t.child("multiple")) {
                            (None, None) => (t.text.clone(), t.text.clone()),
                            (s, m) => (
                                s.map(|n| n.text.clone()).unwrap_or_default(),
                                m.map(|n| n.text.clone()).unwrap_or_default(),
                            ),
                        };
                        if name.starts_with("ordinal") || name.starts_with("long-ordinal") {
                            layer.has_ordinals = true;
                        }
                        let term = Term {
                            single,
                            multiple,
                            gender: t.attr("gender").map(str::to_owned),
                            gender_form: t.attr("gender-form").map(str::to_owned),
                            match_: t.attr("match").map(str::to_owned),
                        };
                        // A later definition of the same term and gender form replaces the
                        // earlier one.
                        if let Some(forms) = layer.forms_of(name) {
                            forms.retain(|(f, x)| *f != form || x.gender_form != term.gender_form);
                        }
                        layer.add_term(name, form, term);
                    }
                }
                "date" => {
                    if let Some(form) = child.attr("form") {
                        layer.dates.insert(form.to_owned(), child.clone());
                    }
                }
                "style-options" => {
                    if let Some(v) = child.attr("punctuation-in-quote") {
                        layer.punctuation_in_quote = Some(v == "true");
                    }
                    if let Some(v) = child.attr("limit-day-ordinals-to-day-1") {
                        layer.limit_day_ordinals = Some(v == "true");
                    }
                }
                _ => {}
            }
        }
        layer
    }

    pub fn parse(xml_text: &str) -> Result<Self, String> {
        let root = xml::parse(xml_text, MAX_LOCALE_DEPTH)?;
        if root.name != "locale" {
            return Err(format!("the root element is <{}>, not <locale>", root.name));
        }
        Ok(Self::from_node(&root))
    }

    /// Reads the compact form of [`EN_US_COMPACT`]: the XML line, then the terms.
    fn parse_compact(text: &str) -> Result<Self, String> {
        let (head, terms) = text.split_once('\n').unwrap_or((text, ""));
        let mut layer = Self::parse(head)?;
        for line in terms.lines() {
            let mut field = line.split('\t');
            let mut next = || field.next().unwrap_or("");
            let (name, form) = (next(), TermForm::parse(Some(next())));
            let (single, multiple) = (next().to_owned(), next().to_owned());
            let mut optional = || Some(next()).filter(|v| !v.is_empty()).map(str::to_owned);
            let term = Term {
                single,
                multiple,
                gender: optional(),
                gender_form: optional(),
                match_: optional(),
            };
            if name.starts_with("ordinal") || name.starts_with("long-ordinal") {
                layer.has_ordinals = true;
            }
            layer.add_term(name, form, term);
        }
        Ok(layer)
    }

    /// The forms of the term `name` (none yet: added).
    fn forms_of(&mut self, name: &str) -> Option<&mut Vec<(TermForm, Term)>> {
        // The compact en-US comes in name order: its next term is the last one's or a new last.
        let at = match self.terms.last() {
            Some((last, _)) if last.as_str() == name => self.terms.len() - 1,
            Some((last, _)) if last.as_str() < name => self.terms.len(),
            _ => match self.terms.binary_search_by(|(n, _)| n.as_str().cmp(name)) {
                Ok(at) | Err(at) => at,
            },
        };
        if self.terms.get(at).is_none_or(|(n, _)| n != name) {
            self.terms.insert(at, (name.to_owned(), Vec::new()));
        }
        self.terms.get_mut(at).map(|(_, forms)| forms)
    }

    /// Adds a term after those of the same name and form.
    fn add_term(&mut self, name: &str, form: TermForm, term: Term) {
        if let Some(forms) = self.forms_of(name) {
            let at = forms.partition_point(|(f, _)| *f <= form);
            forms.insert(at, (form, term));
        }
    }

    /// The definitions of a term in one form, in document order.
    fn get(&self, name: &str, form: TermForm) -> impl Iterator<Item = &Term> + Clone {
        let at = self.terms.binary_search_by(|(n, _)| n.as_str().cmp(name));
        let forms = at.ok().and_then(|at| self.terms.get(at));
        forms
            .map_or(&[][..], |(_, forms)| forms.as_slice())
            .iter()
            .filter(move |(f, _)| *f == form)
            .map(|(_, t)| t)
    }

    /// The terms in the compact form, one a line in (name, form) order.
    #[cfg(test)]
    fn compact_terms(&self) -> String {
        let mut out = String::new();
        for (name, forms) in &self.terms {
            for (form, t) in forms {
                let fields = [
                    name.as_str(),
                    form.name(),
                    &t.single,
                    &t.multiple,
                    t.gender.as_deref().unwrap_or(""),
                    t.gender_form.as_deref().unwrap_or(""),
                    t.match_.as_deref().unwrap_or(""),
                ];
                assert!(fields.iter().all(|f| !f.contains(['\t', '\n'])));
                out.push_str(fields.join("\t").trim_end_matches('\t'));
                out.push('\n');
            }
        }
        out
    }
}

/// The built-in en-US layer, read once.
pub fn en_us() -> Result<Arc<LocaleLayer>, String> {
    static EN_US: OnceLock<Result<Arc<LocaleLayer>, String>> = OnceLock::new();
    EN_US
        .get_or_init(|| LocaleLayer::parse_compact(EN_US_COMPACT).map(Arc::new))
        .clone()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The compact en-US: the XML without its `<info>` and `<terms>`, then the terms.
    fn compact_of(xml_text: &str) -> String {
        let cut = |s: &str, open: &str, close: &str| -> String {
            match (s.find(open), s.find(close)) {
                (Some(a), Some(b)) => format!("{}{}", &s[..a], &s[b + close.len()..]),
                _ => s.to_owned(),
            }
        };
        let head = cut(xml_text.trim(), "<info>", "</info>");
        let head = cut(&head, "<terms>", "</terms>");
        let head = head
            .trim_start_matches(|c| c != '>')
            .trim_start_matches('>');
        let head = head
            .get(head.find("<locale").unwrap_or(0)..)
            .unwrap_or(head);
        let layer = LocaleLayer::parse(xml_text).unwrap();
        format!("{head}\n{}", layer.compact_terms())
    }

    #[test]
    fn the_compact_en_us_is_the_xml_file() {
        let compact = compact_of(EN_US_XML);
        if std::env::var_os("CITEFLOW_WRITE_EN_US").is_some() {
            let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/csl/locales/en-US.compact");
            std::fs::write(path, &compact).unwrap();
        }
        assert_eq!(
            compact, EN_US_COMPACT,
            "src/csl/locales/en-US.compact is out of date (see EN_US_COMPACT)"
        );
        let xml = LocaleLayer::parse(EN_US_XML).unwrap();
        assert_eq!(LocaleLayer::parse_compact(EN_US_COMPACT).unwrap(), xml);
        let terms: usize = xml.terms.iter().map(|(_, forms)| forms.len()).sum();
        assert!(terms > 300 && xml.dates.len() == 2);
        assert_eq!(xml.lang.as_deref(), Some("en-US"));
    }
}

/// The locale an item is rendered in: layers searched in order.
#[derive(Debug, Clone, Default)]
pub struct Locale {
    pub layers: Vec<Arc<LocaleLayer>>,
}

impl Locale {
    pub fn lang(&self) -> &str {
        self.layers
            .iter()
            .rev()
            .find_map(|l| l.lang.as_deref())
            .unwrap_or("en-US")
    }

    /// Whether the locale is English (title case only applies to English).
    pub fn is_english(&self) -> bool {
        self.layers
            .iter()
            .find_map(|l| l.lang.as_deref())
            .is_none_or(|l| l.starts_with("en"))
    }

    fn find(&self, name: &str, form: TermForm, gender_form: Option<&str>) -> Option<&Term> {
        let is_ordinal = name.starts_with("ordinal") || name.starts_with("long-ordinal");
        for layer in &self.layers {
            let mut terms = layer.get(name, form);
            let pick = terms
                .clone()
                .find(|t| t.gender_form.as_deref() == gender_form)
                .or_else(|| terms.find(|t| t.gender_form.is_none()));
            if pick.is_some() {
                return pick;
            }
            if is_ordinal && layer.has_ordinals {
                return None;
            }
        }
        None
    }

    /// A term with form fallback; `None` when the locale has none (empty terms are `Some("")`).
    pub fn term(&self, name: &str, form: TermForm, plural: bool) -> Option<&str> {
        let mut f = Some(form);
        while let Some(form) = f {
            if let Some(t) = self.find(name, form, None) {
                return Some(if plural { &t.multiple } else { &t.single });
            }
            f = form.fallback();
        }
        None
    }

    pub fn term_or_empty(&self, name: &str, form: TermForm, plural: bool) -> String {
        self.term(name, form, plural).unwrap_or("").to_owned()
    }

    /// The gender of a term (for ordinals of months and numbered variables).
    pub fn gender(&self, name: &str) -> Option<&str> {
        self.find(name, TermForm::Long, None)
            .and_then(|t| t.gender.as_deref())
    }

    pub fn date_format(&self, form: &str) -> Option<&Node> {
        self.layers.iter().find_map(|l| l.dates.get(form))
    }

    pub fn punctuation_in_quote(&self) -> bool {
        self.layers
            .iter()
            .find_map(|l| l.punctuation_in_quote)
            .unwrap_or(false)
    }

    pub fn limit_day_ordinals(&self) -> bool {
        self.layers
            .iter()
            .find_map(|l| l.limit_day_ordinals)
            .unwrap_or(false)
    }

    /// The ordinal suffix of `n` (CSL 1.0.1 rules: `ordinal-00`…`ordinal-99` with `match`).
    pub fn ordinal_suffix(&self, n: i64, gender: Option<&str>) -> String {
        let n = n.unsigned_abs();
        let two = n % 100;
        let one = n % 10;
        let get = |name: &str| {
            self.find(name, TermForm::Long, gender)
                .or_else(|| self.find(name, TermForm::Long, None))
        };
        if let Some(t) = get(&format!("ordinal-{two:02}")) {
            let default = if two >= 10 {
                "last-two-digits"
            } else {
                "last-digit"
            };
            let fits = match t.match_.as_deref().unwrap_or(default) {
                "whole-number" => n == two,
                "last-two-digits" => true,
                _ => two < 10,
            };
            if fits {
                return t.single.clone();
            }
        }
        if let Some(t) = get(&format!("ordinal-{one:02}")) {
            let fits = match t.match_.as_deref().unwrap_or("last-digit") {
                "whole-number" => n == one,
                "last-two-digits" => two == one,
                _ => true,
            };
            if fits {
                return t.single.clone();
            }
        }
        get("ordinal").map(|t| t.single.clone()).unwrap_or_default()
    }

    pub fn long_ordinal(&self, n: i64, gender: Option<&str>) -> Option<String> {
        if !(1..=10).contains(&n) {
            return None;
        }
        let name = format!("long-ordinal-{n:02}");
        self.find(&name, TermForm::Long, gender)
            .or_else(|| self.find(&name, TermForm::Long, None))
            .map(|t| t.single.clone())
    }
}
