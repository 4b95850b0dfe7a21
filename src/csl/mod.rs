//! citeflow's own CSL 1.0.2 processor: styles and locales are parsed from their XML, items are
//! CSL-JSON, output is text or HTML.
//!
//! ```
//! use citeflow::reference::engine::{Format, Processor};
//! let style = r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="in-text">
//!   <citation><layout><names variable="author"><name form="short"/></names></layout></citation>
//!   <bibliography><layout><names variable="author"><name name-as-sort-order="all"/></names>
//!   <date variable="issued" prefix=" (" suffix=")"><date-part name="year"/></date></layout></bibliography>
//! </style>"#;
//! let p = Processor::new(style, None).unwrap();
//! let item = serde_json::json!({"id": "a", "type": "book",
//!     "author": [{"family": "Poe", "given": "Edgar Allan"}], "issued": {"date-parts": [[1845]]}});
//! assert_eq!(p.bibliography(&[item], Format::Text), vec!["Poe, Edgar Allan (1845)"]);
//! ```

mod dates;
mod disambiguate;
mod document;
mod item;
pub mod locale;
mod names;
mod numbers;
pub mod output;
mod positions;
mod render;
mod richtext;
pub mod sort;
pub mod style;
mod superscript;
mod text_case;
pub mod xml;

use std::collections::HashMap;
use std::sync::Arc;

use serde_json::Value;

pub use document::{
    Cluster, ClusterItem, CslDocument, DocumentEntry, DocumentError, RenderedCluster,
};
use locale::{Locale, LocaleLayer, TermForm};
pub use output::Format;
use output::{Out, Quotes, Span};
use render::{CiteInfo, Mode, Renderer};
use style::Style;

/// What a cite or a numbered entry that renders nothing shows instead: the style has no
/// printed form for the item (the words citeproc-js uses).
const NO_PRINTED_FORM: &str = "[CSL STYLE ERROR: reference with no printed form.]";

/// CSL's default `near-note-distance`.
const DEFAULT_NEAR_NOTE_DISTANCE: u32 = 5;

/// What rendering one cite needs besides the cite.
struct CiteContext<'a> {
    /// The cite is the first of its citation.
    first: bool,
    items: &'a [Value],
    numbers: &'a HashMap<usize, usize>,
    dis: &'a disambiguate::State,
    layout: &'a xml::Node,
}

/// What citations and the bibliography of the same registered items share.
struct Registry {
    /// The items in the order they were registered (cited).
    registered: Vec<usize>,
    /// In bibliography order.
    order: Vec<usize>,
    numbers: HashMap<usize, usize>,
    dis: disambiguate::State,
}

/// What a document keeps from one render of its citations to the next, for the same items (see
/// [`Processor::citations_memo`]): the registry, and for each citation (by the document's key
/// for it) what its last render made.
#[derive(Default)]
pub(crate) struct CitationMemo {
    registry: Option<Registry>,
    citations: HashMap<String, CitationMade>,
}

/// One citation's last render.
struct CitationMade {
    /// Its cites (those of known items), as given.
    cites: Vec<Cite>,
    /// Their order in the sort that registers items (valid while the items stay the same).
    provisional: Vec<usize>,
    /// Their order with the registry's citation numbers; `None` once the registry changed.
    sorted: Option<Vec<usize>>,
    /// The positions its text was rendered with.
    infos: Vec<CiteInfo>,
    /// Its text; `None` once the registry changed.
    text: Option<String>,
}

/// One cite in a citation (cluster).
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
pub struct Cite {
    /// Index of the item in the item list.
    pub item: usize,
    pub locator: Option<String>,
    pub label: Option<String>,
    pub prefix: Option<String>,
    pub suffix: Option<String>,
    pub suppress_author: bool,
    pub author_only: bool,
    /// The footnote the citation sits in (note styles; `None` in the text).
    pub note: Option<u32>,
}

/// A parsed style with its locale, ready to render.
pub struct Processor {
    style: Style,
    locale: Locale,
}

fn primary(lang: &str) -> &str {
    lang.split(['-', '_']).next().unwrap_or(lang)
}

impl Processor {
    /// The locale a style asks for (`default-locale`), if any.
    pub fn style_locale(style_xml: &str) -> Option<String> {
        Style::parse(style_xml).ok().and_then(|s| s.default_locale)
    }

    /// Parses a style; `locale_xml` is the locale file to use (en-US, built in, also serves
    /// as the last fallback for missing terms).
    pub fn new(style_xml: &str, locale_xml: Option<&str>) -> Result<Processor, String> {
        let style = Style::parse(style_xml)?;
        let file = match locale_xml {
            Some(x) => Some(LocaleLayer::parse(x)?),
            None => None,
        };
        let lang = file
            .as_ref()
            .and_then(|f| f.lang.clone())
            .or_else(|| style.default_locale.clone())
            .unwrap_or_else(|| "en-US".into());
        let mut layers = Vec::new();
        let own = |pred: &dyn Fn(Option<&str>) -> bool| -> Vec<Arc<LocaleLayer>> {
            style
                .locales
                .iter()
                .filter(|l| pred(l.attr("xml:lang")))
                .map(|n| Arc::new(LocaleLayer::from_node(n)))
                .collect()
        };
        layers.extend(own(&|l| l == Some(lang.as_str())));
        layers.extend(own(&|l| {
            l.is_some_and(|l| l != lang && l == primary(&lang))
        }));
        layers.extend(own(&|l| l.is_none()));
        let file_is_en_us = file
            .as_ref()
            .is_none_or(|f| f.lang.as_deref() == Some("en-US"));
        if let Some(f) = file {
            layers.push(Arc::new(f));
        }
        // en-US fills what the given locale lacks (unless it is en-US itself).
        if !(file_is_en_us && locale_xml.is_some()) {
            layers.push(locale::en_us()?);
        }
        Ok(Processor {
            style,
            locale: Locale { layers },
        })
    }

    /// Whether the style has a bibliography.
    pub fn has_bibliography(&self) -> bool {
        self.style
            .bibliography
            .as_ref()
            .is_some_and(|b| b.child("layout").is_some())
    }

    fn quotes(&self) -> Quotes {
        let t = |n: &str, d: &str| {
            self.locale
                .term(n, TermForm::Long, false)
                .unwrap_or(d)
                .to_owned()
        };
        Quotes {
            open: t("open-quote", "\u{201c}"),
            close: t("close-quote", "\u{201d}"),
            open_inner: t("open-inner-quote", "\u{2018}"),
            close_inner: t("close-inner-quote", "\u{2019}"),
            punctuation_in_quote: self.locale.punctuation_in_quote(),
        }
    }

    fn renderer<'a>(&'a self, items: &'a [Value], i: usize, mode: Mode) -> Renderer<'a> {
        static NULL: Value = Value::Null;
        Renderer::new(
            &self.style,
            &self.locale,
            items.get(i).unwrap_or(&NULL),
            mode,
        )
    }

    /// Item indices in bibliography order, with their citation numbers.
    fn bibliography_order(
        &self,
        items: &[Value],
        registered: &[usize],
    ) -> (Vec<usize>, HashMap<usize, usize>) {
        let mut numbers: HashMap<usize, usize> = registered
            .iter()
            .enumerate()
            .map(|(n, &i)| (i, n + 1))
            .collect();
        let Some(sort) = self
            .style
            .bibliography
            .as_ref()
            .and_then(|b| b.child("sort"))
        else {
            return (registered.to_vec(), numbers);
        };
        let by_number = sort
            .children_named("key")
            .any(|k| k.attr("variable") == Some("citation-number"));
        let mut renderers: Vec<Renderer<'_>> = registered
            .iter()
            .map(|&i| {
                let mut r = self.renderer(items, i, Mode::Bibliography);
                r.citation_number = numbers.get(&i).copied();
                r
            })
            .collect();
        let order: Vec<usize> = self
            .sort_order(sort, &mut renderers)
            .into_iter()
            .filter_map(|k| registered.get(k).copied())
            .collect();
        if !by_number {
            numbers = order.iter().enumerate().map(|(n, &i)| (i, n + 1)).collect();
        }
        (order, numbers)
    }

    fn render_entry(
        &self,
        items: &[Value],
        i: usize,
        number: Option<usize>,
        d: &disambiguate::Disamb,
        layout: &xml::Node,
        substitute_names: Option<&str>,
    ) -> (Option<Out>, Option<String>) {
        let mut r = self.renderer(items, i, Mode::Bibliography);
        r.citation_number = number;
        r.year_suffix = d.year_suffix.clone();
        r.disambiguate = d.condition;
        r.substitute_first_names = substitute_names.map(str::to_owned);
        let out = r.render_children(&layout.children, "");
        (out, r.first_names.take())
    }

    /// Renders the bibliography of the items (all registered, in the given order), one entry
    /// per item in the style's order.
    pub fn bibliography(&self, items: &[Value], format: Format) -> Vec<String> {
        let registered: Vec<usize> = (0..items.len()).collect();
        self.bibliography_of(items, &registered, format)
            .into_iter()
            .map(|(_, s)| s)
            .collect()
    }

    /// The bibliography of the registered items (indices into `items`), with each entry's
    /// item index.
    pub fn bibliography_of(
        &self,
        items: &[Value],
        registered: &[usize],
        format: Format,
    ) -> Vec<(usize, String)> {
        if self.style.bibliography.is_none() {
            return Vec::new();
        }
        self.bibliography_in(items, &self.register(items, registered), format)
    }

    /// The bibliography order, citation numbers and disambiguation of the registered items.
    fn register(&self, items: &[Value], registered: &[usize]) -> Registry {
        let (order, numbers) = self.bibliography_order(items, registered);
        let dis = self.disambiguate(items, &order);
        Registry {
            registered: registered.to_vec(),
            order,
            numbers,
            dis,
        }
    }

    /// Citations, and the bibliography of the `registered` items, which share their order,
    /// numbers and disambiguation where the citations register the same items in the same
    /// order (one cite per citation, in the order of `registered`): worked out once.
    pub fn citations_and_bibliography(
        &self,
        items: &[Value],
        citations: &[Vec<Cite>],
        registered: &[usize],
        format: Format,
    ) -> (Vec<String>, Vec<(usize, String)>) {
        let (markers, reg) = self.citations_in(items, citations, format);
        if self.style.bibliography.is_none() {
            return (markers, Vec::new());
        }
        let reg = match reg {
            Some(reg) if reg.registered == registered => reg,
            _ => self.register(items, registered),
        };
        (markers, self.bibliography_in(items, &reg, format))
    }

    fn bibliography_in(
        &self,
        items: &[Value],
        reg: &Registry,
        format: Format,
    ) -> Vec<(usize, String)> {
        let Some(bib) = self.style.bibliography.as_ref() else {
            return Vec::new();
        };
        let Some(layout) = bib.child("layout") else {
            return Vec::new();
        };
        let Registry {
            order,
            numbers,
            dis,
            ..
        } = reg;
        let quotes = self.quotes();
        let sas = bib.attr("subsequent-author-substitute");
        let second_field = bib.attr("second-field-align").is_some();
        let mut previous_names: Option<String> = None;
        let mut entries = Vec::new();
        for &i in order {
            let number = numbers.get(&i).copied();
            let d = dis.items.get(&i).cloned().unwrap_or_default();
            let (mut out, names) = self.render_entry(items, i, number, &d, layout, None);
            if let (Some(sub), Some(n)) = (sas, &names) {
                // Every rule replaces names that all match (the partial rules, which replace
                // the leading matching names only, are not supported yet).
                if previous_names.as_deref() == Some(n.as_str()) && !n.is_empty() {
                    out = self.render_entry(items, i, number, &d, layout, Some(sub)).0;
                }
            }
            if names.is_some() {
                previous_names = names;
            }
            // In a numeric style an entry that renders nothing keeps its number, marked as a
            // style error (as citeproc-js marks it), rather than leaving a gap in the numbers
            // that citations point into.
            let Some(mut out) = out.or_else(|| {
                self.style.numeric.then(|| {
                    Out::text(format!(
                        "{}. {NO_PRINTED_FORM}",
                        number.unwrap_or(entries.len() + 1)
                    ))
                })
            }) else {
                continue;
            };
            let suffix_inside = !second_field && layout.attr("suffix").is_some() && {
                // An entry ending in a display box takes the layout's suffix inside that box.
                match &mut out {
                    Out::Span(span) => match span.children.iter_mut().rev().find(|c| !c.is_empty())
                    {
                        Some(Out::Span(last)) if last.display.is_some() => {
                            last.children
                                .push(richtext::parse(layout.attr("suffix").unwrap_or("")));
                            true
                        }
                        _ => false,
                    },
                    Out::Text(_) => false,
                }
            };
            if second_field {
                if let Out::Span(span) = &mut out {
                    // The layout's suffix stays beside the entry, not after its box.
                    if let Some(sfx) = layout.attr("suffix") {
                        span.children.push(richtext::parse(sfx));
                    }
                    split_second_field(span);
                }
            }
            let out = decorate_layout(layout, out, !second_field && !suffix_inside);
            let mut s = output::write(&out, format, &quotes);
            if format == Format::Text {
                s = s.trim().to_owned();
            }
            entries.push((i, s));
        }
        entries
    }

    /// Renders citations: each a list of cites. Citation numbers and year suffixes follow the
    /// bibliography of every cited item.
    pub fn citations(
        &self,
        items: &[Value],
        citations: &[Vec<Cite>],
        format: Format,
    ) -> Vec<String> {
        self.citations_in(items, citations, format).0
    }

    /// The citations, with the registry they were rendered with (none without a citation
    /// layout).
    fn citations_in(
        &self,
        items: &[Value],
        citations: &[Vec<Cite>],
        format: Format,
    ) -> (Vec<String>, Option<Registry>) {
        let mut memo = CitationMemo::default();
        let keys: Vec<String> = (0..citations.len()).map(|k| k.to_string()).collect();
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let texts = self.citations_memo(items, citations, &keys, format, &mut memo);
        (texts, memo.registry)
    }

    /// The citations, rendering again only what `memo` (from the last render of the same
    /// items, see [`CitationMemo`]) does not already hold: the registry when the citations
    /// register the same items in the same order, and each citation's orders and text when its
    /// cites are those of its last render (and, for the text, their positions too). `keys`
    /// names each citation, one key per citation, unique.
    pub(crate) fn citations_memo(
        &self,
        items: &[Value],
        citations: &[Vec<Cite>],
        keys: &[&str],
        format: Format,
        memo: &mut CitationMemo,
    ) -> Vec<String> {
        let Some(cit) = self.style.citation.as_ref() else {
            return Vec::new();
        };
        let Some(layout) = cit.child("layout") else {
            return Vec::new();
        };
        let sort = cit.child("sort");
        let known = |x: &&Cite| x.item < items.len();
        // Items register in the order they are cited, each citation in its sorted order.
        let mut registered: Vec<usize> = Vec::new();
        let provisional = HashMap::new();
        for (&key, c) in keys.iter().zip(citations) {
            let same = memo
                .citations
                .get(key)
                .is_some_and(|m| m.cites.iter().eq(c.iter().filter(known)));
            if !same {
                let cites: Vec<Cite> = c.iter().filter(known).cloned().collect();
                let order = self.sort_indices(items, &cites, sort, &provisional);
                let made = CitationMade {
                    cites,
                    provisional: order,
                    sorted: None,
                    infos: Vec::new(),
                    text: None,
                };
                memo.citations.insert(key.to_owned(), made);
            }
            if let Some(m) = memo.citations.get(key) {
                for cite in m.provisional.iter().filter_map(|&k| m.cites.get(k)) {
                    if !registered.contains(&cite.item) {
                        registered.push(cite.item);
                    }
                }
            }
        }
        let live: std::collections::HashSet<&str> = keys.iter().copied().collect();
        memo.citations.retain(|k, _| live.contains(k.as_str()));
        let reg = match memo.registry.take() {
            Some(reg) if reg.registered == registered => reg,
            _ => {
                for m in memo.citations.values_mut() {
                    m.sorted = None;
                    m.text = None;
                }
                self.register(items, &registered)
            }
        };
        let (numbers, dis) = (&reg.numbers, &reg.dis);
        let quotes = self.quotes();
        let delimiter = layout.attr("delimiter").unwrap_or("");
        let near_distance: u32 = cit
            .attr("near-note-distance")
            .and_then(|d| d.parse().ok())
            .unwrap_or(DEFAULT_NEAR_NOTE_DISTANCE);
        let mut positions = positions::Positions::new(near_distance);
        let mut results = Vec::new();
        for &key in keys.iter().take(citations.len()) {
            let Some(m) = memo.citations.get_mut(key) else {
                results.push(String::new());
                continue;
            };
            let order = match m.sorted.take() {
                Some(order) => order,
                None => self.sort_indices(items, &m.cites, sort, numbers),
            };
            let sorted: Vec<&Cite> = order.iter().filter_map(|&k| m.cites.get(k)).collect();
            let cite_infos = positions.next(&sorted);
            let text = match m.text.take() {
                Some(text) if m.infos == cite_infos => text,
                _ => {
                    let ctx = CiteContext {
                        first: false,
                        items,
                        numbers,
                        dis,
                        layout,
                    };
                    let out = self.render_citation(cit, &ctx, &sorted, &cite_infos, delimiter);
                    output::write(&out, format, &quotes)
                }
            };
            results.push(text.clone());
            m.text = Some(text);
            m.infos = cite_infos;
            m.sorted = Some(order);
        }
        memo.registry = Some(reg);
        results
    }

    /// One citation: its cites (in order, with their positions) rendered, grouped or
    /// collapsed, and decorated by the layout.
    fn render_citation(
        &self,
        cit: &xml::Node,
        ctx: &CiteContext<'_>,
        sorted: &[&Cite],
        cite_infos: &[CiteInfo],
        delimiter: &str,
    ) -> Out {
        let mut rendered: Vec<(Out, &Cite)> = Vec::new();
        let mut infos: Vec<(CiteInfo, Option<String>)> = Vec::new();
        for (k, (cite, info)) in sorted.iter().zip(cite_infos).enumerate() {
            let first = CiteContext {
                first: k == 0,
                items: ctx.items,
                numbers: ctx.numbers,
                dis: ctx.dis,
                layout: ctx.layout,
            };
            let made = self
                .render_cite(&first, cite, info, cite.suppress_author)
                .filter(|(o, _)| !o.is_empty());
            // A citation whose first cite renders nothing says so (as citeproc-js does),
            // rather than silently showing less than was cited.
            let made = match made {
                None if k == 0 && !cite.suppress_author => Some((Out::text(NO_PRINTED_FORM), None)),
                made => made,
            };
            let Some((out, key)) = made else {
                continue;
            };
            rendered.push((out, cite));
            infos.push((info.clone(), key));
        }
        let grouped = self.group_cites(cit, ctx, &rendered, &infos, delimiter);
        let collapsed = match grouped {
            Some(g) => g,
            None => self.collapse(cit, &rendered, ctx.numbers, delimiter),
        };
        decorate_layout(ctx.layout, collapsed, true)
    }

    /// The order of one citation's cites in the style's citation order (indices into `cites`).
    fn sort_indices(
        &self,
        items: &[Value],
        cites: &[Cite],
        sort: Option<&xml::Node>,
        numbers: &HashMap<usize, usize>,
    ) -> Vec<usize> {
        let Some(sort) = sort else {
            return (0..cites.len()).collect();
        };
        let mut renderers: Vec<Renderer<'_>> = cites
            .iter()
            .map(|cite| {
                let mut r = self.renderer(items, cite.item, Mode::Citation);
                r.citation_number = numbers.get(&cite.item).copied();
                r
            })
            .collect();
        self.sort_order(sort, &mut renderers)
    }

    /// The order of the renderers' items by the keys of `sort`, each key rendered only where
    /// the keys before it tie.
    fn sort_order(&self, sort: &xml::Node, renderers: &mut [Renderer<'_>]) -> Vec<usize> {
        let keys: Vec<&xml::Node> = sort.children_named("key").collect();
        sort::sort_lazily(
            renderers.len(),
            &sort::descending(sort),
            self.locale.lang(),
            |entry, level| {
                let key = keys.get(level)?;
                renderers.get_mut(entry)?.sort_key(key)
            },
        )
    }

    /// One cite with its affixes, and the text of its first names (for grouping).
    fn render_cite(
        &self,
        ctx: &CiteContext<'_>,
        cite: &Cite,
        info: &CiteInfo,
        suppress_author: bool,
    ) -> Option<(Out, Option<String>)> {
        let mut r = self.renderer(ctx.items, cite.item, Mode::Citation);
        r.citation_number = ctx.numbers.get(&cite.item).copied();
        let d = ctx.dis.items.get(&cite.item).cloned().unwrap_or_default();
        r.year_suffix = d.year_suffix;
        r.names_min = d.names_min;
        r.disambiguate = d.condition;
        r.given_levels = Some(ctx.dis.given.clone());
        r.given_primary_only = ctx.dis.primary_only;
        r.cite = info.clone();
        r.suppress_author = suppress_author;
        let mut out = r.render_children(&ctx.layout.children, "")?;
        // In a note, a term opening the citation, or following a prefix that ends a sentence,
        // starts with a capital (Ibid.); a one-word prefix is an abbreviation (Cf. ibid.).
        let sentence_start = match cite.prefix.as_deref().map(str::trim_end) {
            None | Some("") => ctx.first,
            Some(p) => {
                // A sentence may end inside quotes ("Please work.").
                let p = p.trim_end_matches(['"', '\'', '\u{201d}', '\u{2019}']);
                p.ends_with(['.', '!', '?']) && p.split_whitespace().count() > 1
            }
        };
        if sentence_start && r.starts_with_term == Some(true) && self.style.class == "note" {
            if let Some(t) = out.first_text_mut() {
                let mut chars = t.chars();
                if let Some(c) = chars.next() {
                    *t = c.to_uppercase().chain(chars).collect();
                }
            }
        }
        let mut parts = Vec::new();
        if let Some(p) = &cite.prefix {
            parts.push(richtext_parse(p));
        }
        parts.push(out);
        if let Some(s) = &cite.suffix {
            parts.push(richtext_parse(s));
        }
        Some((Out::group(parts), r.first_names.take()))
    }

    /// Cite grouping and year collapsing (`collapse="year"`, `"year-suffix"`,
    /// `"year-suffix-ranged"`, `cite-group-delimiter`): cites by the same names sit together,
    /// the later ones without the names (or only their year suffix). `None` when the style
    /// does not group.
    fn group_cites(
        &self,
        cit: &xml::Node,
        ctx: &CiteContext<'_>,
        rendered: &[(Out, &Cite)],
        infos: &[(CiteInfo, Option<String>)],
        delimiter: &str,
    ) -> Option<Out> {
        let mode = cit.attr("collapse").unwrap_or("");
        let collapse_year = matches!(mode, "year" | "year-suffix" | "year-suffix-ranged");
        if !collapse_year && cit.attr("cite-group-delimiter").is_none() {
            return None;
        }
        // Between cites of one group: the cite-group delimiter, else (in-text styles) ", ",
        // else the layout's.
        let group_delim = cit.attr("cite-group-delimiter").unwrap_or(
            if self.style.class == "in-text" && collapse_year {
                ", "
            } else {
                delimiter
            },
        );
        // Without its own attribute: the cite-group delimiter the style sets, else the layout's.
        let suffix_delim = cit
            .attr("year-suffix-delimiter")
            .or_else(|| cit.attr("cite-group-delimiter"))
            .unwrap_or(delimiter);
        let acd = cit.attr("after-collapse-delimiter");
        let after_delim = acd.unwrap_or(delimiter);
        // Cites by the same names sit together: in a sorted citation wherever they were sorted
        // to (in order of the first), otherwise only when adjacent.
        let anywhere = cit.child("sort").is_some();
        let mut groups: Vec<(Option<String>, Vec<usize>)> = Vec::new();
        for (k, (_, key)) in infos.iter().enumerate() {
            // A cite that renders no names collapses into the cite before it.
            let key = &key.clone().or_else(|| collapse_year.then(String::new));
            let found = if anywhere {
                groups.iter_mut().find(|(g, _)| g.is_some() && g == key)
            } else {
                groups.last_mut().filter(|(g, _)| g.is_some() && g == key)
            };
            match found {
                Some((_, members)) => members.push(k),
                None => groups.push((key.clone(), vec![k])),
            }
        }
        let year_of = |k: usize| {
            rendered
                .get(k)
                .and_then(|(_, c)| ctx.items.get(c.item))
                .and_then(|it| item::date(it, "issued"))
                .map(|d| d.start()[0])
        };
        let suffix_of = |k: usize| {
            rendered
                .get(k)
                .and_then(|(_, c)| ctx.dis.items.get(&c.item))
                .and_then(|d| d.year_suffix.clone())
        };
        let mut parts: Vec<Out> = Vec::new();
        let mut previous_was_group = false;
        let mut previous_locator = false;
        for (_, members) in &groups {
            let first_cite = members
                .first()
                .and_then(|&m| rendered.get(m))
                .map(|(_, c)| *c);
            if !parts.is_empty() && !first_cite.is_some_and(prefix_punctuated) {
                // The after-collapse delimiter follows a collapsed group, a cite with a
                // locator, and (except with year-suffix collapsing) any cite.
                let after = acd.is_some()
                    && (previous_was_group || previous_locator || mode != "year-suffix");
                parts.push(Out::text(if after { after_delim } else { delimiter }));
            }
            previous_was_group = members.len() > 1 && collapse_year;
            previous_locator = members
                .last()
                .and_then(|&m| rendered.get(m))
                .is_some_and(|(_, c)| c.locator.is_some());
            let mut k = 0;
            while let Some(&m) = members.get(k) {
                let Some((out, cite)) = rendered.get(m) else {
                    break;
                };
                if k == 0 {
                    parts.push(out.clone());
                    k += 1;
                    continue;
                }
                let plain =
                    cite.prefix.is_none() && cite.suffix.is_none() && cite.locator.is_none();
                let prev = members.get(k - 1).copied().unwrap_or(m);
                let same_year = year_of(m).is_some() && year_of(m) == year_of(prev);
                if mode.starts_with("year-suffix")
                    && plain
                    && same_year
                    && suffix_of(m).is_some()
                    && suffix_of(prev).is_some()
                {
                    // A run of three or more consecutive suffixes reads "a–c" when ranged.
                    let letter =
                        |x: usize| suffix_of(x).and_then(|s| s.chars().last()).map(u32::from);
                    let follows = |x: usize, y: usize| {
                        mode == "year-suffix-ranged"
                            && rendered.get(y).is_some_and(|(_, c)| {
                                c.prefix.is_none() && c.suffix.is_none() && c.locator.is_none()
                            })
                            && year_of(y) == year_of(x)
                            && letter(x).zip(letter(y)).is_some_and(|(a, b)| b == a + 1)
                    };
                    let prev_joins = follows(prev, m);
                    let mut end = k;
                    while let (Some(&cur), Some(&next)) = (members.get(end), members.get(end + 1)) {
                        if !follows(cur, next) {
                            break;
                        }
                        end += 1;
                    }
                    let run = end - k + 1 + usize::from(prev_joins);
                    if run >= 3 {
                        if !prev_joins {
                            parts.push(Out::text(suffix_delim));
                            parts.push(Out::text(suffix_of(m).unwrap_or_default()));
                        }
                        parts.push(Out::text("\u{2013}"));
                        let last = members.get(end).copied().unwrap_or(m);
                        parts.push(Out::text(suffix_of(last).unwrap_or_default()));
                        k = end + 1;
                    } else {
                        parts.push(Out::text(suffix_delim));
                        parts.push(Out::text(suffix_of(m).unwrap_or_default()));
                        k += 1;
                    }
                    continue;
                }
                let (info, _) = infos.get(m).cloned().unwrap_or_default();
                // After a run collapsed to suffixes, the after-collapse delimiter.
                let after_run = mode.starts_with("year-suffix")
                    && k >= 2
                    && members.get(k - 1).and_then(|&x| suffix_of(x)).is_some()
                    && members
                        .get(k - 2)
                        .zip(members.get(k - 1))
                        .is_some_and(|(&x, &y)| year_of(x).is_some() && year_of(x) == year_of(y));
                // A cite that shows nothing once its names are gone takes no delimiter either.
                if let Some((out, _)) = self
                    .render_cite(ctx, cite, &info, collapse_year || cite.suppress_author)
                    .filter(|(o, _)| !o.is_empty())
                {
                    let prev_locator = rendered.get(prev).is_some_and(|(_, c)| c.locator.is_some());
                    let between = if after_run || (acd.is_some() && prev_locator) {
                        after_delim
                    } else {
                        group_delim
                    };
                    parts.push(Out::text(between));
                    parts.push(out);
                }
                k += 1;
            }
        }
        Some(Out::group(parts))
    }

    /// Joins cites, collapsing runs of citation numbers (`1–3`) when the style asks.
    fn collapse(
        &self,
        cit: &xml::Node,
        rendered: &[(Out, &Cite)],
        numbers: &HashMap<usize, usize>,
        delimiter: &str,
    ) -> Out {
        let mut parts: Vec<Out> = Vec::new();
        let collapse_numbers = cit.attr("collapse") == Some("citation-number");
        if collapse_numbers {
            let mut k = 0;
            while k < rendered.len() {
                let mut end = k;
                let num = |j: usize| {
                    rendered
                        .get(j)
                        .filter(|(_, c)| {
                            c.prefix.is_none() && c.suffix.is_none() && c.locator.is_none()
                        })
                        .and_then(|(_, c)| numbers.get(&c.item).copied())
                };
                while let (Some(a), Some(b)) = (num(end), num(end + 1)) {
                    if b != a + 1 {
                        break;
                    }
                    end += 1;
                }
                if !parts.is_empty() {
                    parts.push(Out::text(delimiter));
                }
                if end >= k + 2 {
                    if let (Some(a), Some(b)) = (rendered.get(k), rendered.get(end)) {
                        parts.push(a.0.clone());
                        parts.push(Out::text("\u{2013}"));
                        parts.push(b.0.clone());
                    }
                    k = end + 1;
                } else {
                    if let Some(a) = rendered.get(k) {
                        parts.push(a.0.clone());
                    }
                    k += 1;
                }
            }
            return Out::group(parts);
        }
        let mut after_punctuated = false;
        for (o, cite) in rendered {
            if !parts.is_empty() && !prefix_punctuated(cite) {
                // After a suffix ending in punctuation (" is one source,") the delimiter's own
                // punctuation goes.
                parts.push(Out::text(if after_punctuated {
                    delimiter.trim_start_matches([',', ';', ':'])
                } else {
                    delimiter
                }));
            }
            parts.push(o.clone());
            after_punctuated = cite
                .suffix
                .as_deref()
                .is_some_and(|s| s.ends_with([',', ';', ':']));
        }
        Out::group(parts)
    }
}

/// A cite whose prefix starts with punctuation (", cited in", ". He said") takes the place of
/// the delimiter before it.
fn prefix_punctuated(cite: &Cite) -> bool {
    cite.prefix
        .as_deref()
        .is_some_and(|p| p.starts_with([',', '.', ';', ':']))
}

fn richtext_parse(s: &str) -> Out {
    richtext::parse(s)
}

/// Layout affixes and formatting around a rendered entry or citation: the formatting covers
/// the affixes too (as citeproc-js renders it).
fn decorate_layout(layout: &xml::Node, out: Out, with_suffix: bool) -> Out {
    let fmt = Renderer::fmt_of(layout);
    let mut children = Vec::new();
    if let Some(p) = layout.attr("prefix") {
        children.push(richtext::parse(p));
    }
    children.push(out);
    if let Some(s) = layout.attr("suffix").filter(|_| with_suffix) {
        children.push(richtext::parse(s));
    }
    if fmt.is_plain() {
        return Out::group(children);
    }
    Out::Span(Box::new(Span {
        fmt,
        children,
        ..Span::default()
    }))
}

/// `second-field-align`: the first rendered element goes in the margin, the rest beside it.
fn split_second_field(span: &mut Span) {
    let Some(pos) = span.children.iter().position(|c| !c.is_empty()) else {
        return;
    };
    let rest: Vec<Out> = span.children.split_off(pos + 1);
    span.children.truncate(pos + 1);
    if let Some(first) = span.children.pop() {
        span.children.push(Out::Span(Box::new(Span {
            display: Some("left-margin".into()),
            children: vec![first],
            ..Span::default()
        })));
    }
    if !rest.is_empty() {
        span.children.push(Out::Span(Box::new(Span {
            display: Some("right-inline".into()),
            children: rest,
            ..Span::default()
        })));
    }
}

/// Year suffix letters: a … z, aa, ab …
pub fn suffix_letters(n: usize) -> String {
    let mut n = n;
    let mut s = Vec::new();
    loop {
        s.push(char::from(b'a' + (n % 26) as u8));
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s.iter().rev().collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn style(body: &str) -> String {
        format!(
            r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="in-text">{body}</style>"#
        )
    }

    #[test]
    fn a_citation_whose_first_cite_renders_nothing_says_so() {
        let body = r#"<citation><layout prefix="(" suffix=")" delimiter="; ">
            <text variable="title"/></layout></citation>"#;
        let p = Processor::new(&style(body), None).unwrap();
        let items = [
            json!({"id": "a", "type": "book"}),
            json!({"id": "b", "type": "book", "title": "B"}),
        ];
        let cite = |item| Cite {
            item,
            ..Cite::default()
        };
        assert_eq!(
            p.citations(
                &items,
                &[vec![cite(0)], vec![cite(1), cite(0)]],
                Format::Text
            ),
            [
                "([CSL STYLE ERROR: reference with no printed form.])",
                "(B)"
            ]
        );
    }

    #[test]
    fn a_numeric_entry_that_renders_nothing_keeps_its_number() {
        let body = r#"<citation><layout><text variable="citation-number"/></layout></citation>
            <bibliography><layout><choose><if type="book"><group delimiter=". ">
            <text variable="citation-number"/><text variable="title"/></group></if></choose>
            </layout></bibliography>"#;
        let p = Processor::new(&style(body), None).unwrap();
        let items = [
            json!({"id": "a", "type": "book", "title": "One"}),
            json!({"id": "b", "type": "personal_communication", "title": "Letter"}),
            json!({"id": "c", "type": "book", "title": "Two"}),
        ];
        assert_eq!(
            p.bibliography(&items, Format::Text),
            [
                "1. One",
                "2. [CSL STYLE ERROR: reference with no printed form.]",
                "3. Two"
            ]
        );
        // Not numbered: the entry is left out.
        let body = body.replace(
            r#"<citation><layout><text variable="citation-number"/>"#,
            r#"<citation><layout><text variable="title"/>"#,
        );
        let p = Processor::new(&style(&body), None).unwrap();
        assert_eq!(p.bibliography(&items, Format::Text), ["1. One", "3. Two"]);
    }

    fn item() -> Value {
        json!({"id": "a", "type": "book", "title": "T", "author": [{"family": "Poe", "given": "Edgar"}],
            "issued": {"date-parts": [[2019], [2020]]}})
    }

    #[test]
    fn self_calling_macros_stop() {
        // The renderer's own bounds, without the style guard in front.
        let xml = style(
            r#"<macro name="m"><text macro="m"/><text macro="m"/><text variable="title"/></macro>
            <citation><layout><text macro="m"/></layout></citation>
            <bibliography><layout><text macro="m"/></layout></bibliography>"#,
        );
        let p = Processor::new(&xml, None).unwrap();
        let out = p.bibliography(&[item()], Format::Text);
        assert_eq!(out.len(), 1);
        assert!(out[0].starts_with('T'), "{out:?}");
    }

    #[test]
    fn deep_styles_are_refused_and_bad_xml_is_an_error() {
        let deep = format!(
            "{}{}",
            "<group>".repeat(style::MAX_STYLE_DEPTH + 1),
            "</group>".repeat(style::MAX_STYLE_DEPTH + 1)
        );
        assert!(Processor::new(
            &style(&format!("<citation><layout>{deep}</layout></citation>")),
            None
        )
        .is_err());
        assert!(Processor::new("<style><citation>", None).is_err());
        assert!(Processor::new("not xml", None).is_err());
        assert!(Processor::new(&style(""), None).is_err());
        assert!(Processor::new(
            &style("<citation><layout/></citation>"),
            Some("<locale><terms>")
        )
        .is_err());
    }

    #[test]
    fn odd_items_render_without_panicking() {
        let xml = style(
            r#"<citation disambiguate-add-names="true" disambiguate-add-givenname="true" disambiguate-add-year-suffix="true" collapse="year-suffix-ranged">
              <layout delimiter="; "><names variable="author"><name form="short"/></names><date variable="issued" prefix=" "><date-part name="year"/></date></layout></citation>
            <bibliography subsequent-author-substitute="---"><sort><key variable="author"/><key macro="x"/></sort>
              <layout><names variable="author"><name name-as-sort-order="all" initialize-with=". "/></names>
              <date variable="issued" form="text" prefix=" "/><number variable="volume" form="roman" prefix=" "/>
              <text variable="page" prefix=" "/><label variable="page" prefix=" "/></layout></bibliography>"#,
        );
        let p = Processor::new(&xml, None).unwrap();
        let items = vec![
            json!({"type": "book"}),
            json!({"type": "book", "author": [{"family": ""}, {"given": "Å-é"}, {"literal": "<i>x"}, 7]}),
            json!({"type": "book", "issued": {"date-parts": [[-40000, 99, -3], ["x"]]}, "volume": "99999999999999999999"}),
            json!({"type": "book", "issued": {"raw": "2020-05-17/"}, "page": "-", "title": "<b><i>'\"\u{2019}"}),
            json!({"type": "book", "issued": {"date-parts": [[2020, 21]]}, "page": "10-2, 3-1"}),
            item(),
            item(),
        ];
        // The bare item renders nothing and has no entry; every other one has one.
        let entries = p.bibliography(&items, Format::Html);
        assert_eq!(entries.len(), items.len() - 1);
        assert!(entries.iter().all(|e| !e.is_empty()));
        let cites: Vec<Vec<Cite>> = (0..items.len() + 2)
            .map(|i| {
                vec![Cite {
                    item: i,
                    locator: Some("1-2".into()),
                    ..Cite::default()
                }]
            })
            .collect();
        assert_eq!(p.citations(&items, &cites, Format::Text).len(), cites.len());
    }

    #[test]
    fn a_date_range_renders() {
        let xml = style(
            r#"<citation><layout><text variable="title"/></layout></citation>
            <bibliography><layout><date variable="issued" form="text"/></layout></bibliography>"#,
        );
        let p = Processor::new(&xml, None).unwrap();
        assert_eq!(
            p.bibliography(&[item()], Format::Text),
            vec!["2019\u{2013}2020"]
        );
    }
}
