//! Rendering reference lists with hayagriva, Typst's CSL engine.

use std::borrow::Cow;
use std::sync::OnceLock;

use hayagriva::archive::{locales, ArchivedStyle};
use hayagriva::citationberg::json::Item;
use hayagriva::citationberg::{IndependentStyle, Locale, LocaleFile, Style};
use hayagriva::{
    BibliographyDriver, BibliographyRequest, BufWriteFormat, CitationItem, CitationRequest,
    ElemChildren,
};
use serde_json::Value;

use super::html::write_children;
use super::source::csl_item;
use super::{RefFormat, Reference, ReferenceError};

/// How many sources one call renders at most: the engine's work grows faster than linearly
/// with the number of works by one author (disambiguation), and a call is synchronous.
pub const MAX_RENDERED_SOURCES: usize = 1_000;

/// The style used when none is named.
pub const DEFAULT_STYLE: &str = "apa-7";

/// Our style names (and aliases) and the engine's archive names they stand for.
const BUNDLED: &[(&str, &str)] = &[
    ("apa-7", "apa"),
    ("apa", "apa"),
    ("mla-9", "modern-language-association"),
    ("mla", "modern-language-association"),
    ("chicago-author-date", "chicago-author-date"),
    ("chicago", "chicago-author-date"),
    ("ieee", "ieee"),
    ("nature", "nature"),
    ("vancouver", "vancouver"),
    ("harvard", "harvard-cite-them-right"),
];

/// The bundled style names, aliases included.
pub fn bundled_style_names() -> Vec<&'static str> {
    BUNDLED.iter().map(|(name, _)| *name).collect()
}

/// Where the style comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StyleSource {
    /// A bundled style name (see [`bundled_style_names`]).
    Name(String),
    /// A CSL style given as XML (an independent style).
    Xml(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    pub style: StyleSource,
    /// A CSL locale as XML, tried before the bundled locales.
    pub locale_xml: Option<String>,
    pub format: RefFormat,
}

impl Default for RenderOptions {
    fn default() -> Self {
        Self {
            style: StyleSource::Name(DEFAULT_STYLE.into()),
            locale_xml: None,
            format: RefFormat::Text,
        }
    }
}

fn bundled_locales() -> &'static [Locale] {
    static LOCALES: OnceLock<Vec<Locale>> = OnceLock::new();
    LOCALES.get_or_init(locales)
}

fn style(source: &StyleSource) -> Result<IndependentStyle, ReferenceError> {
    let mut style = parse_style(source)?;
    super::style_fix::add_missing_name_elements(&mut style);
    Ok(style)
}

fn parse_style(source: &StyleSource) -> Result<IndependentStyle, ReferenceError> {
    match source {
        StyleSource::Name(name) => {
            let archived = BUNDLED
                .iter()
                .find(|(ours, _)| ours == name)
                .and_then(|(_, theirs)| ArchivedStyle::by_name(theirs))
                .ok_or_else(|| ReferenceError::UnknownStyle {
                    name: name.clone(),
                    bundled: bundled_style_names().join(", "),
                })?;
            match archived.get() {
                Style::Independent(s) => Ok(s),
                Style::Dependent(_) => Err(ReferenceError::InvalidStyle(format!(
                    "bundled style {name:?} is a dependent style"
                ))),
            }
        }
        StyleSource::Xml(xml) => {
            super::style_guard::check_style(xml)?;
            match Style::from_xml(xml).map_err(|e| ReferenceError::InvalidStyle(e.to_string()))? {
                Style::Independent(s) => Ok(s),
                Style::Dependent(d) => Err(ReferenceError::InvalidStyle(format!(
                    "this is a dependent style (its parent is {}); pass the parent style's XML",
                    d.parent_link.href
                ))),
            }
        }
    }
}

/// Whether two of the cited sources share a first author (or its absence) and a year: the only
/// case where year suffixes can appear.
fn may_need_year_suffixes(sources: &[Value], order: &[usize]) -> bool {
    let key = |source: &Value| {
        let meta = source
            .get("metadata")
            .filter(|m| m.is_object())
            .unwrap_or(source);
        let author = meta
            .pointer("/author/0/family")
            .or_else(|| meta.pointer("/author/0/literal"))
            .map(|v| v.to_string());
        let year = meta
            .pointer("/issued/date-parts/0/0")
            .map(|v| v.to_string());
        (author, year)
    };
    let mut keys: Vec<_> = order
        .iter()
        .filter_map(|&i| sources.get(i))
        .map(key)
        .collect();
    keys.sort();
    keys.windows(2).any(|w| w.first() == w.last())
}

fn plain(children: &ElemChildren) -> String {
    let mut s = String::new();
    // Writing into a String cannot fail.
    let _ = children.write_buf(&mut s, BufWriteFormat::Plain);
    s.trim().to_owned()
}

fn html(children: &ElemChildren) -> String {
    let mut s = String::new();
    write_children(children, &mut s);
    s
}

/// Renders the reference list of the cited sources.
///
/// `cited` are 1-based source ids in order of citation (repeats and out-of-range ids are
/// ignored); `None` renders every source. Numeric styles number by first citation; the
/// list comes in the style's own order.
pub fn render_references(
    sources: &[Value],
    cited: Option<&[u32]>,
    options: &RenderOptions,
) -> Result<Vec<Reference>, ReferenceError> {
    if sources.is_empty() {
        return Err(ReferenceError::NoSources);
    }
    if sources.len() > MAX_RENDERED_SOURCES {
        return Err(ReferenceError::TooManySources {
            count: sources.len(),
            limit: MAX_RENDERED_SOURCES,
        });
    }
    let mut items: Vec<Item> = Vec::with_capacity(sources.len());
    let mut seen = std::collections::HashSet::new();
    for (i, source) in sources.iter().enumerate() {
        let mut item = csl_item(i, source)?;
        let id = item.id().map(|c| c.into_owned()).unwrap_or_default();
        if !seen.insert(id.clone()) {
            let unique = format!("{id}-{}", i + 1);
            item.0.insert(
                "id".into(),
                hayagriva::citationberg::json::Value::String(unique.clone()),
            );
            seen.insert(unique);
        }
        items.push(item);
    }
    let style = style(&options.style)?;
    // The bundled locales are parsed once; they are copied only when a caller's locale must go
    // in front of them.
    let locale_files: Cow<[Locale]> = match &options.locale_xml {
        None => Cow::Borrowed(bundled_locales()),
        Some(xml) => {
            super::style_guard::check_xml_depth(xml, "locale")
                .map_err(ReferenceError::InvalidLocale)?;
            let own: Locale = LocaleFile::from_xml(xml)
                .map_err(|e| ReferenceError::InvalidLocale(e.to_string()))?
                .into();
            Cow::Owned(
                std::iter::once(own)
                    .chain(bundled_locales().iter().cloned())
                    .collect(),
            )
        }
    };

    let mut order: Vec<usize> = Vec::new();
    match cited {
        Some(ids) => {
            for &id in ids {
                let i = id as usize;
                if i >= 1 && i <= items.len() && !order.contains(&(i - 1)) {
                    order.push(i - 1);
                }
            }
        }
        None => order.extend(0..items.len()),
    }
    if order.is_empty() {
        return Ok(Vec::new());
    }

    let render = |order: &[usize]| {
        let mut driver = BibliographyDriver::new();
        for item in order.iter().filter_map(|&i| items.get(i)) {
            driver.citation(CitationRequest::from_items(
                vec![CitationItem::with_entry(item)],
                &style,
                &locale_files,
            ));
        }
        driver.finish(BibliographyRequest {
            style: &style,
            locale: None,
            locale_files: &locale_files,
        })
    };
    let mut rendered = render(&order);
    // CSL assigns year suffixes (2020a, 2020b) in bibliography order; hayagriva assigns them in
    // citation order. Where the style sorts its bibliography (author-date styles), render again
    // with the citations in that order, which changes nothing else there.
    // Only worth it when two cited works could share an author and a year.
    if style
        .bibliography
        .as_ref()
        .is_some_and(|b| b.sort.is_some())
        && may_need_year_suffixes(sources, &order)
    {
        if let Some(bibliography) = &rendered.bibliography {
            let by_bibliography: Vec<usize> = bibliography
                .items
                .iter()
                .filter_map(|e| {
                    items
                        .iter()
                        .position(|it| it.id().as_deref() == Some(e.key.as_str()))
                })
                .collect();
            if by_bibliography.len() == order.len() && by_bibliography != order {
                order = by_bibliography;
                rendered = render(&order);
            }
        }
    }

    // The marker is metadata too: escaped like the entry when the output is HTML.
    let markers: Vec<String> = rendered
        .citations
        .iter()
        .map(|c| match options.format {
            RefFormat::Text => plain(&c.citation),
            RefFormat::Html => html(&c.citation),
        })
        .collect();
    let Some(bibliography) = rendered.bibliography else {
        return Err(ReferenceError::InvalidStyle(
            "the style has no bibliography".into(),
        ));
    };
    let mut references = Vec::with_capacity(bibliography.items.len());
    for entry in bibliography.items {
        let Some(i) = items
            .iter()
            .position(|it| it.id().as_deref() == Some(entry.key.as_str()))
        else {
            continue;
        };
        let k = order.iter().position(|&o| o == i).unwrap_or(0);
        // A style with second-field-align puts the first field ("[1]") in the margin: a
        // space in text, its own box in HTML.
        let first = entry.first_field.map(|f| ElemChildren(vec![f]));
        let text = match (options.format, first) {
            (RefFormat::Text, None) => plain(&entry.content),
            (RefFormat::Text, Some(first)) => {
                format!("{} {}", plain(&first), plain(&entry.content))
            }
            (RefFormat::Html, None) => html(&entry.content),
            (RefFormat::Html, Some(first)) => format!(
                "<div class=\"csl-left-margin\">{}</div><div class=\"csl-right-inline\">{}</div>",
                html(&first),
                html(&entry.content)
            ),
        };
        references.push(Reference {
            source_id: (i + 1) as u32,
            inline_marker: markers.get(k).cloned().unwrap_or_default(),
            entry: text,
        });
    }
    Ok(references)
}
