//! Rendering reference lists with citeflow's own CSL processor ([`super::engine`]).

use std::cell::RefCell;
use std::collections::HashSet;
use std::rc::Rc;

use serde_json::Value;

use super::engine::{Cite, Format, Processor};
use super::source::csl_item;
use super::{RefFormat, Reference, ReferenceError, DEFAULT_STYLE};

/// How many sources one call renders at most: the engine's work grows faster than linearly
/// with the number of works by one author (year suffixes), and a call is synchronous.
pub const MAX_RENDERED_SOURCES: usize = 1_000;

/// The XML of a bundled style file, compiled in: native builds only. The wasm CSL module
/// leaves the styles out (they are most of its size otherwise) and gets them from JS.
#[cfg(not(feature = "wasm-csl-module"))]
pub fn compiled_style(file: &str) -> Option<&'static str> {
    Some(match file {
        "apa" => include_str!("../csl/styles/apa.csl"),
        "modern-language-association" => {
            include_str!("../csl/styles/modern-language-association.csl")
        }
        "chicago-author-date" => include_str!("../csl/styles/chicago-author-date.csl"),
        "chicago-notes-bibliography-17th-edition" => {
            include_str!("../csl/styles/chicago-notes-bibliography-17th-edition.csl")
        }
        "mhra-notes-subsequent-ibid" => {
            include_str!("../csl/styles/mhra-notes-subsequent-ibid.csl")
        }
        "ieee" => include_str!("../csl/styles/ieee.csl"),
        "nature" => include_str!("../csl/styles/nature.csl"),
        "vancouver" => include_str!("../csl/styles/vancouver.csl"),
        "harvard-cite-them-right" => include_str!("../csl/styles/harvard-cite-them-right.csl"),
        _ => return None,
    })
}

/// Where the XML of a bundled style comes from: given its file stem, the XML, or `None` when
/// it is not at hand (not loaded yet). Asked only when the parsed style is not cached.
pub type StyleLoader<'a> = &'a dyn Fn(&str) -> Option<String>;

/// Where the style comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StyleSource {
    /// A bundled style name (see [`bundled_style_names`](super::bundled_style_names)).
    Name(String),
    /// A CSL style given as XML (an independent style).
    Xml(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RenderOptions {
    pub style: StyleSource,
    /// A CSL locale as XML; without one, en-US (built in).
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

/// `renderReferences` options as given: `style` (a bundled style's name, or a CSL style as XML),
/// `locale` (a CSL locale as XML), `format` (`text` or `html`); `null` is the default.
#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct Fields {
    #[serde(default)]
    style: Option<String>,
    #[serde(default)]
    locale: Option<String>,
    #[serde(default, deserialize_with = "crate::options::named")]
    format: Option<RefFormat>,
}

impl RenderOptions {
    /// Reads `renderReferences` options through the one options reader (`src/options.rs`):
    /// any other key, or a value of another type, is `INVALID_OPTION` naming the key.
    pub fn from_map(map: &serde_json::Map<String, Value>) -> Result<Self, ReferenceError> {
        Self::from_map_of("renderReferences", map)
    }

    /// The same options of another function (`owner`, which errors name).
    pub fn from_map_of(
        owner: &str,
        map: &serde_json::Map<String, Value>,
    ) -> Result<Self, ReferenceError> {
        let f: Fields =
            crate::options::read(owner, map).map_err(|e| ReferenceError::InvalidOption {
                option: e.option,
                reason: e.reason,
            })?;
        let default = Self::default();
        Ok(Self {
            style: match f.style {
                Some(xml) if super::is_style_xml(&xml) => StyleSource::Xml(xml),
                Some(name) => StyleSource::Name(name),
                None => default.style,
            },
            locale_xml: f.locale,
            format: f.format.unwrap_or_default(),
        })
    }
}

/// How many parsed styles (with their locale) are kept for later calls: re-rendering the same
/// list in another style, or the next answer's list in the same one, skips parsing.
const CACHED_PROCESSORS: usize = 4;

type CacheEntry = (StyleSource, Option<String>, Rc<Processor>);

thread_local! {
    static PROCESSORS: RefCell<Vec<CacheEntry>> = const { RefCell::new(Vec::new()) };
}

/// The processor for these options, parsed once and kept (most recent first).
fn cached_processor(
    options: &RenderOptions,
    load: StyleLoader,
) -> Result<Rc<Processor>, ReferenceError> {
    let hit = PROCESSORS.with(|c| {
        let mut cache = c.borrow_mut();
        let pos = cache
            .iter()
            .position(|(s, l, _)| *s == options.style && *l == options.locale_xml)?;
        let entry = cache.remove(pos);
        let p = entry.2.clone();
        cache.insert(0, entry);
        Some(p)
    });
    if let Some(p) = hit {
        return Ok(p);
    }
    let p = Rc::new(processor(options, load)?);
    PROCESSORS.with(|c| {
        let mut cache = c.borrow_mut();
        cache.insert(
            0,
            (options.style.clone(), options.locale_xml.clone(), p.clone()),
        );
        cache.truncate(CACHED_PROCESSORS);
    });
    Ok(p)
}

/// The processor of these options, parsed anew (a [`super::engine::CslDocument`] keeps its
/// own): a bundled style from `load`, or the style's XML, checked as for rendering.
pub fn processor(options: &RenderOptions, load: StyleLoader) -> Result<Processor, ReferenceError> {
    let loaded;
    let xml: &str = match &options.style {
        StyleSource::Name(name) => {
            let file = super::bundled_style(name).map_err(ReferenceError::UnknownStyle)?;
            loaded =
                load(file).ok_or_else(|| ReferenceError::StyleNotLoaded { name: name.clone() })?;
            &loaded
        }
        StyleSource::Xml(xml) => {
            super::style_guard::check_style(xml)?;
            xml
        }
    };
    if let Some(locale) = &options.locale_xml {
        super::style_guard::check_locale(locale)?;
        // A bad locale is a locale error, not a style error.
        super::engine::locale::LocaleLayer::parse(locale).map_err(ReferenceError::InvalidLocale)?;
    }
    Processor::new(xml, options.locale_xml.as_deref()).map_err(ReferenceError::InvalidStyle)
}

/// Sources as JS hands them to the wasm build in one piece: a tape of tokens and a list of
/// numbers (pkg/src/csl.js `pack`, from the sources' JSON form), read here in one pass instead
/// of one boundary crossing per value. Tokens: `{` `}` an object (its keys as strings, each
/// before its value), `[` `]` an array, `s<n>:` a string of `n` UTF-16 units, `n` the next
/// number, `t` `f` `z` true, false and null. `None` for anything else (too deep, a number
/// that is not finite, a malformed tape): the caller then reads the sources value by value,
/// which names the problem.
pub fn unpack_sources(tape: &str, numbers: &[f64]) -> Option<Vec<Value>> {
    let mut reader = Unpacker {
        rest: tape,
        numbers: numbers.iter(),
    };
    match reader.value(0)? {
        Value::Array(sources) if reader.rest.is_empty() && reader.numbers.len() == 0 => {
            Some(sources)
        }
        _ => None,
    }
}

/// Containers nested deeper than this are refused (as the value-by-value reader does).
const MAX_PACKED_DEPTH: usize = 128;

struct Unpacker<'a> {
    rest: &'a str,
    numbers: std::slice::Iter<'a, f64>,
}

impl Unpacker<'_> {
    fn token(&mut self) -> Option<u8> {
        let (&first, _) = self.rest.as_bytes().split_first()?;
        self.rest = self.rest.get(1..)?;
        Some(first)
    }

    fn value(&mut self, depth: usize) -> Option<Value> {
        Some(match self.token()? {
            b's' => Value::String(self.string()?),
            b'n' => {
                let n = *self.numbers.next()?;
                const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
                if n.fract() == 0.0 && n.abs() <= EXACT {
                    Value::from(n as i64)
                } else {
                    Value::Number(serde_json::Number::from_f64(n)?)
                }
            }
            b't' => Value::Bool(true),
            b'f' => Value::Bool(false),
            b'z' => Value::Null,
            b'[' if depth < MAX_PACKED_DEPTH => {
                let mut items = Vec::new();
                while !self.rest.starts_with(']') {
                    items.push(self.value(depth + 1)?);
                }
                self.token();
                Value::Array(items)
            }
            b'{' if depth < MAX_PACKED_DEPTH => {
                let mut map = serde_json::Map::new();
                while !self.rest.starts_with('}') {
                    if self.token()? != b's' {
                        return None;
                    }
                    let key = self.string()?;
                    map.insert(key, self.value(depth + 1)?);
                }
                self.token();
                Value::Object(map)
            }
            _ => return None,
        })
    }

    /// `<n>:` and the `n` UTF-16 units after it.
    fn string(&mut self) -> Option<String> {
        let colon = self.rest.find(':')?;
        let units: usize = self.rest.get(..colon)?.parse().ok()?;
        let text = self.rest.get(colon + 1..)?;
        let mut counted = 0;
        let mut end = 0;
        for c in text.chars() {
            if counted >= units {
                break;
            }
            counted += c.len_utf16();
            end += c.len_utf8();
        }
        if counted != units {
            return None;
        }
        self.rest = text.get(end..)?;
        Some(text.get(..end)?.to_owned())
    }
}

/// Renders the reference list of the cited sources.
///
/// `cited` are 1-based source ids in order of citation (repeats and out-of-range ids are
/// ignored); `None` renders every source. Numeric styles number by first citation; the
/// list comes in the style's own order.
#[cfg(not(feature = "wasm-csl-module"))]
pub fn render_references(
    sources: &[Value],
    cited: Option<&[u32]>,
    options: &RenderOptions,
) -> Result<Vec<Reference>, ReferenceError> {
    render_references_with(sources, cited, options, &|file| {
        compiled_style(file).map(str::to_owned)
    })
}

/// [`render_references`] with the bundled styles' XML from `load` (the wasm build's way).
pub fn render_references_with(
    sources: &[Value],
    cited: Option<&[u32]>,
    options: &RenderOptions,
    load: StyleLoader,
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
    let mut items: Vec<Value> = Vec::with_capacity(sources.len());
    let mut seen = HashSet::new();
    for (i, source) in sources.iter().enumerate() {
        let mut item = csl_item(i, source)?;
        let id = item
            .get("id")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        if !seen.insert(id.clone()) {
            let unique = format!("{id}-{}", i + 1);
            if let Value::Object(map) = &mut item {
                map.insert("id".into(), Value::String(unique.clone()));
            }
            seen.insert(unique);
        }
        items.push(item);
    }
    let processor = cached_processor(options, load)?;
    if !processor.has_bibliography() {
        return Err(ReferenceError::InvalidStyle(
            "the style has no bibliography".into(),
        ));
    }

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
    let format = match options.format {
        RefFormat::Text => Format::Text,
        RefFormat::Html => Format::Html,
    };
    // Each source cited alone, in citation order: its in-text marker.
    let clusters: Vec<Vec<Cite>> = order
        .iter()
        .map(|&i| {
            vec![Cite {
                item: i,
                ..Cite::default()
            }]
        })
        .collect();
    let (markers, entries) =
        processor.citations_and_bibliography(&items, &clusters, &order, format);
    Ok(entries
        .into_iter()
        .map(|(i, entry)| {
            let k = order.iter().position(|&o| o == i).unwrap_or(0);
            Reference {
                source_id: (i + 1) as u32,
                inline_marker: markers.get(k).cloned().unwrap_or_default(),
                entry,
            }
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::{bundled_style_file, bundled_style_names};
    use serde_json::json;

    fn poe() -> Value {
        json!({"type": "book", "title": "The purloined letter",
            "author": [{"family": "Poe", "given": "Edgar Allan"}],
            "issued": {"date-parts": [[1845]]}, "publisher": "Wiley"})
    }

    #[test]
    fn packed_sources_read_as_their_json() {
        let tape =
            "[{s2:ids3:a-1s5:titles6:Poe 𝄞s6:issued{s10:date-parts[[nn]]}s1:xzs1:y[tf]s1:wn}]";
        let sources = unpack_sources(tape, &[2019.0, 3.0, 1.5]).unwrap();
        assert_eq!(
            sources,
            vec![
                json!({"id": "a-1", "title": "Poe 𝄞", "issued": {"date-parts": [[2019, 3]]},
                "x": null, "y": [true, false], "w": 1.5})
            ]
        );
        assert!(sources[0]["issued"]["date-parts"][0][0].is_u64());
        assert_eq!(unpack_sources("[]", &[]), Some(vec![]));
    }

    #[test]
    fn malformed_packed_sources_are_refused() {
        let deep = format!("[{}{}]", "[".repeat(200), "]".repeat(200));
        for (tape, numbers) in [
            ("", &[][..]),
            ("{}", &[]),
            ("[", &[]),
            ("[s5:abc]", &[]),
            ("[s2:𝄞x]", &[]),
            ("[s1:𝄞]", &[]),
            ("[sx:a]", &[]),
            ("[n]", &[]),
            ("[n]", &[f64::NAN]),
            ("[n]", &[f64::INFINITY]),
            ("[]", &[1.0]),
            ("[]]", &[]),
            ("[{n}]", &[1.0]),
            ("[{s1:a}]", &[]),
            ("[q]", &[]),
            (deep.as_str(), &[]),
        ] {
            assert_eq!(unpack_sources(tape, numbers), None, "{tape}");
        }
    }

    #[test]
    fn packed_sources_survive_any_cut() {
        // A tape cut anywhere is refused or read, never a panic.
        let tape = "[{s2:ids3:a-1s5:titles6:Poe 𝄞é}]";
        for (i, _) in tape.char_indices() {
            let _ = unpack_sources(&tape[..i], &[]);
        }
    }

    #[test]
    fn renders_apa_with_marker() {
        let refs = render_references(&[poe()], None, &RenderOptions::default()).unwrap();
        assert_eq!(refs.len(), 1);
        assert_eq!(refs[0].inline_marker, "(Poe, 1845)");
        assert_eq!(
            refs[0].entry,
            "Poe, E. A. (1845). The purloined letter. Wiley."
        );
    }

    #[test]
    fn date_ranges_render() {
        let mut item = poe();
        item["issued"] = json!({"date-parts": [[2019], [2020]]});
        let refs = render_references(&[item], None, &RenderOptions::default()).unwrap();
        assert!(refs[0].entry.contains("2019–2020"), "{}", refs[0].entry);
    }

    #[test]
    fn every_bundled_style_renders() {
        for name in bundled_style_names() {
            let options = RenderOptions {
                style: StyleSource::Name(name.into()),
                ..RenderOptions::default()
            };
            let refs = render_references(&[poe()], Some(&[1]), &options).unwrap();
            assert!(refs[0].entry.contains("Poe"), "{name}: {}", refs[0].entry);
            assert!(!refs[0].inline_marker.is_empty(), "{name}");
        }
    }

    #[test]
    fn every_bundled_file_is_compiled_in() {
        for name in bundled_style_names() {
            let file = bundled_style_file(name).unwrap();
            assert!(
                compiled_style(file).is_some_and(|xml| xml.contains("<style")),
                "{name}"
            );
        }
        assert_eq!(bundled_style_file("apa-99"), None);
    }

    #[test]
    fn a_bundled_style_comes_from_the_loader_when_asked() {
        let options = RenderOptions {
            style: StyleSource::Name("nature".into()),
            ..RenderOptions::default()
        };
        let asked = RefCell::new(Vec::new());
        let none = |file: &str| {
            asked.borrow_mut().push(file.to_owned());
            None
        };
        // Not cached yet (another test may have cached "nature", so use a locale of our own).
        let options = RenderOptions {
            locale_xml: Some(r#"<locale xml:lang="en-US"><terms/></locale>"#.into()),
            ..options
        };
        let err = render_references_with(&[poe()], None, &options, &none).unwrap_err();
        assert_eq!(err.code(), "STYLE_NOT_LOADED", "{err}");
        assert_eq!(*asked.borrow(), ["nature"]);
        let load = |file: &str| compiled_style(file).map(str::to_owned);
        let refs = render_references_with(&[poe()], None, &options, &load).unwrap();
        assert!(refs[0].entry.contains("Poe"), "{}", refs[0].entry);
        // Parsed once: the next call does not ask.
        render_references_with(&[poe()], None, &options, &none).unwrap();
        assert_eq!(asked.borrow().len(), 1);
        let unknown = RenderOptions {
            style: StyleSource::Name("apa-99".into()),
            ..RenderOptions::default()
        };
        let err = render_references_with(&[poe()], None, &unknown, &none).unwrap_err();
        assert_eq!(err.code(), "UNKNOWN_STYLE");
    }

    #[test]
    fn alike_works_with_many_authors_stay_cheap() {
        // Disambiguation re-renders alike cites per added name: bounded (at most
        // MAX_ADDED_NAMES names added, none for groups past MAX_GROUP_FOR_NAMES), so a group of
        // alike works past both bounds renders, each entry still cut to APA's et-al (19 names, an
        // ellipsis, the last), with year suffixes telling the works apart. How
        // long it takes is for the benchmarks to say; an unbounded loop shows as a hung test.
        let authors: Vec<Value> = (0..100)
            .map(|i| json!({"family": format!("F{i}"), "given": "G"}))
            .collect();
        let sources: Vec<Value> = (0..80)
            .map(|_| json!({"type": "book", "title": "T", "author": authors, "issued": {"date-parts": [[2020]]}}))
            .collect();
        let refs = render_references(&sources, None, &RenderOptions::default()).unwrap();
        assert_eq!(refs.len(), 80);
        for r in &refs {
            assert!(r.entry.contains("F18, G., … F99, G."), "{}", r.entry);
            assert!(!r.entry.contains("F50"), "et-al cut ignored: {}", r.entry);
        }
        assert!(refs[0].entry.contains("(2020a)") && refs[79].entry.contains("(2020cb)"));
    }

    #[test]
    fn html_escapes_metadata() {
        let mut item = poe();
        item["title"] = json!("<script>x</script> & co");
        let options = RenderOptions {
            format: RefFormat::Html,
            ..RenderOptions::default()
        };
        let refs = render_references(&[item], None, &options).unwrap();
        assert!(!refs[0].entry.contains("<script>"), "{}", refs[0].entry);
        assert!(refs[0].entry.contains("&#38; co"), "{}", refs[0].entry);
    }

    #[test]
    fn render_options_through_the_options_reader() {
        let read = |v: Value| RenderOptions::from_map(v.as_object().unwrap());
        let o = read(serde_json::json!({"style": " <style/>", "format": "html", "locale": null}))
            .unwrap();
        assert_eq!(o.style, StyleSource::Xml(" <style/>".into()));
        assert_eq!(o.format, RefFormat::Html);
        assert_eq!(
            read(serde_json::json!({})).unwrap(),
            RenderOptions::default()
        );
        for (bad, key) in [
            (serde_json::json!({"stlye": "apa"}), "stlye"),
            (serde_json::json!({"format": "pdf"}), "format"),
            (serde_json::json!({"locale": 1}), "locale"),
        ] {
            let e = read(bad).unwrap_err();
            assert_eq!(e.code(), "INVALID_OPTION");
            assert!(
                matches!(&e, ReferenceError::InvalidOption { option, .. } if option == key),
                "{e}"
            );
        }
    }
}
