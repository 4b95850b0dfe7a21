//! [`Citation`] and [`parse_citations`].

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::marker::{MarkerId, MarkerStyle};
use super::scanner::{Found, MarkerScanner};
use crate::json_escape::write_string;
use crate::text::push_decimal;

/// One cited source at one marker. A group such as `[1, 2]` gives one citation per id, all
/// with the group's marker and span.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Citation {
    /// 1-based position of the source in the list given to the model (as written; may be
    /// out of range, see `valid`). An id too large for `u32` (10 or more digits, such as
    /// `[4294967296]`) names no source: it is reported as 0, with `valid` false, and `marker`
    /// keeps it as written. (So the JS value stays an exact number.) So is an id of a cited
    /// answer's JSON that is not a whole number (see [`super::CitedAnswer`]).
    pub source_id: u32,
    /// The marker group as written, e.g. `[1, 2]`.
    pub marker: String,
    /// `[start, end)` of the marker in UTF-16 code units: `text.slice(start, end)` in JS.
    pub span: [usize; 2],
    /// Whether the id names a source (1 ≤ id ≤ source count).
    pub valid: bool,
    /// The passage the provider says supports the claim, when it says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cited_text: Option<String>,
    /// Where `cited_text` sits in the source, when the provider says so.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source_span: Option<[usize; 2]>,
    /// The cited document's (or web page's) title, when the provider gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub document_title: Option<String>,
    /// The cited web page, when the provider gives one (web search results): only an
    /// absolute http(s) URL, one [`crate::html::is_safe_url`] accepts (the rule by which
    /// citeflow's own HTML links a URL), so a UI may link it as it is. Any other value the
    /// provider sent (`javascript:…`, `data:…`, a relative path, an identifier) is in
    /// `raw_url`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// The provider's URL (or search result `source`) when it is not an http(s) URL: kept as
    /// sent, for display or logging only, never to be linked or fetched. Such a citation has
    /// no `url`; when the URL was all that named its source, it names none (`source_id` 0,
    /// `valid` false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw_url: Option<String>,
    /// A provider's own citation (no marker in the text): its kind as the provider names it
    /// (`char_location`, `page_location`, `content_block_location`, `url_citation`, …), which
    /// says what `sourceSpan` counts (characters, pages, content blocks).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub location: Option<String>,
    /// A provider's own citation (with `location`): what `span` covers in the answer text (see
    /// [`Covers`]). A marker citeflow's parser found has none: its span is the marker.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub covers: Option<Covers>,
}

/// What a provider citation's `span` covers in the answer text, which differs by provider.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Covers {
    /// The claim the source supports (Anthropic's cited block, Gemini's grounded segment,
    /// Cohere's cited text).
    Claim,
    /// A link the provider inserted into the text (OpenAI's and xAI's `url_citation`s span
    /// the inline `([site](url))`).
    Link,
    /// A marker the model wrote in the text (`[1]` in a Perplexity answer).
    Marker,
    /// Nothing: the span is empty, at the place the provider put the reference (Mistral's
    /// `reference` chunks).
    Point,
}

/// By name (`"claim"`, …): written by hand, as the citation's own JSON is, to keep the
/// streaming module small.
impl Serialize for Covers {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Covers {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::parse(&name)
            .ok_or_else(|| serde::de::Error::custom("covers is claim, link, marker or point"))
    }
}

impl Covers {
    const ALL: [Self; 4] = [Self::Claim, Self::Link, Self::Marker, Self::Point];

    /// The value of a name [`Self::name`] gives.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.name() == name)
    }

    pub fn name(self) -> &'static str {
        match self {
            Self::Claim => "claim",
            Self::Link => "link",
            Self::Marker => "marker",
            Self::Point => "point",
        }
    }
}

impl Citation {
    /// A citation of source `source_id` at a marker (no provider details).
    pub fn at_marker(source_id: u32, marker: String, span: [usize; 2], valid: bool) -> Self {
        Self {
            source_id,
            marker,
            span,
            valid,
            cited_text: None,
            source_span: None,
            document_title: None,
            url: None,
            raw_url: None,
            location: None,
            covers: None,
        }
    }

    /// The citation as a JSON object, exactly as its `Serialize` writes it (tested equal):
    /// built by hand so that the streaming module carries no serializer into `Value`.
    pub fn to_json(&self) -> Value {
        let map: Map<String, Value> = self
            .fields()
            .map(|(key, field)| (key.to_owned(), field.value()))
            .collect();
        Value::Object(map)
    }

    /// [`Self::to_json`] as JSON text (for the streaming module, which builds no JSON tree
    /// for the events it makes).
    pub fn json_text(&self) -> String {
        let mut out = String::from("{");
        for (i, (key, field)) in self.fields().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push('"');
            out.push_str(key);
            out.push_str("\":");
            field.write(&mut out);
        }
        out.push('}');
        out
    }

    /// The serialized fields in order, those without a value left out.
    fn fields(&self) -> impl Iterator<Item = (&'static str, Field<'_>)> {
        fn text(s: &Option<String>) -> Option<Field<'_>> {
            s.as_deref().map(Field::Text)
        }
        [
            ("sourceId", Some(Field::Count(self.source_id as usize))),
            ("marker", Some(Field::Text(&self.marker))),
            ("span", Some(Field::Span(self.span))),
            ("valid", Some(Field::Flag(self.valid))),
            ("citedText", text(&self.cited_text)),
            ("sourceSpan", self.source_span.map(Field::Span)),
            ("documentTitle", text(&self.document_title)),
            ("url", text(&self.url)),
            ("rawUrl", text(&self.raw_url)),
            ("location", text(&self.location)),
            ("covers", self.covers.map(|c| Field::Text(c.name()))),
        ]
        .into_iter()
        .filter_map(|(key, field)| Some((key, field?)))
    }
}

/// One serialized field's value.
enum Field<'a> {
    Count(usize),
    Text(&'a str),
    Span([usize; 2]),
    Flag(bool),
}

impl Field<'_> {
    fn value(&self) -> Value {
        match *self {
            Field::Count(n) => Value::from(n),
            Field::Text(s) => Value::from(s),
            Field::Span([start, end]) => Value::Array(vec![Value::from(start), Value::from(end)]),
            Field::Flag(b) => Value::Bool(b),
        }
    }

    fn write(&self, out: &mut String) {
        match *self {
            Field::Count(n) => push_decimal(out, n as u64),
            Field::Text(s) => write_string(s, out),
            Field::Span([start, end]) => {
                out.push('[');
                push_decimal(out, start as u64);
                out.push(',');
                push_decimal(out, end as u64);
                out.push(']');
            }
            Field::Flag(b) => out.push_str(if b { "true" } else { "false" }),
        }
    }
}

/// Puts `citations` beside a whole output's items (its `citations` field).
pub(crate) fn set_citations(output: &mut crate::event::LmOutput, citations: &[Citation]) {
    let value = Value::Array(citations.iter().map(Citation::to_json).collect());
    output.extra.insert("citations".into(), value);
}

/// Options of marker parsing.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ParseOptions {
    pub marker_style: MarkerStyle,
    /// How many sources the model was given; ids beyond it are invalid (and, in paren style,
    /// not citations at all). `None`: any id ≥ 1 is valid.
    pub source_count: Option<u32>,
}

impl ParseOptions {
    pub fn is_valid(&self, id: u32) -> bool {
        id >= 1 && self.source_count.is_none_or(|n| id <= n)
    }

    /// Whether an id as written names a source (one too large for `u32` never does).
    pub fn is_valid_id(&self, id: &MarkerId) -> bool {
        id.value().is_some_and(|id| self.is_valid(id))
    }

    /// The citations of one marker group: one per id, with the group's marker and span.
    pub(crate) fn citations<'a>(&'a self, found: &'a Found) -> impl Iterator<Item = Citation> + 'a {
        let span = [found.span16.start, found.span16.end];
        self.cited_ids(found).map(move |(source_id, valid)| {
            Citation::at_marker(source_id, found.marker.as_str().to_owned(), span, valid)
        })
    }

    /// Each citation of one marker group as its `(source_id, valid)`.
    pub(crate) fn cited_ids<'a>(
        &'a self,
        found: &'a Found,
    ) -> impl Iterator<Item = (u32, bool)> + 'a {
        found
            .ids
            .iter()
            .map(move |id| (id.value().unwrap_or(0), self.is_valid_id(id)))
    }
}

/// Finds the citation markers in a whole text.
///
/// ```
/// use citeflow::cite::{parse_citations, MarkerStyle, ParseOptions};
/// let opts = ParseOptions { marker_style: MarkerStyle::Bracket, source_count: Some(2) };
/// let cites = parse_citations("Water boils at 100 °C [1, 3]. See `a[2]`.", opts);
/// assert_eq!(cites.iter().map(|c| (c.source_id, c.valid)).collect::<Vec<_>>(), [(1, true), (3, false)]);
/// assert_eq!(cites[0].span, [22, 28]);
/// ```
pub fn parse_citations(text: &str, options: ParseOptions) -> Vec<Citation> {
    let found = MarkerScanner::find_all(options.marker_style, options.source_count, text);
    found.iter().flat_map(|f| options.citations(f)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `to_json` writes what the derived `Serialize` writes: same keys, same order, same values.
    #[test]
    fn to_json_is_the_serialized_form() {
        let bare = Citation::at_marker(3, "[3]".into(), [4, 7], true);
        let full = Citation {
            cited_text: Some("passage".into()),
            source_span: Some([10, 20]),
            document_title: Some("Title".into()),
            url: Some("https://example.org/a".into()),
            raw_url: Some("javascript:alert(1)".into()),
            location: Some("char_location".into()),
            ..Citation::at_marker(u32::MAX, "[1, 2]".into(), [0, usize::MAX], false)
        };
        let partial = Citation {
            url: Some("u".into()),
            ..Citation::at_marker(0, String::new(), [0, 0], false)
        };
        for c in [bare, full, partial] {
            let derived = serde_json::to_value(&c).unwrap();
            assert_eq!(c.to_json(), derived);
            assert_eq!(
                serde_json::to_string(&c.to_json()).unwrap(),
                serde_json::to_string(&c).unwrap()
            );
            assert_eq!(c.json_text(), serde_json::to_string(&c).unwrap());
        }
    }
}
