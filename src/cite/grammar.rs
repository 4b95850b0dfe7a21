//! Grammars that force a model to cite as a policy asks, for constrained decoding: GBNF
//! (llama.cpp-style servers), a regular expression, or a JSON schema.

use super::error::{CiteError, Result};
use super::marker::MarkerStyle;
use super::policy::Policy;

/// The default bound on a sentence's content (or a quote's) in characters.
pub const DEFAULT_MAX_CONTENT_CHARS: usize = 240;
/// The most sources a grammar lists. Each source is an alternative written out in full, so
/// the grammar grows with the count; past this it would be megabytes (and a count from
/// untrusted input could ask for gigabytes), while no prompt holds that many sources.
pub const MAX_GRAMMAR_SOURCES: u32 = 10_000;
/// The largest `maxSentences` / `maxCitesPerSentence`: servers expand a bounded repetition
/// into one rule per step, so the bound must stay small (a model that needs more needs none).
pub const MAX_GRAMMAR_REPEAT: u32 = 1000;
/// The most digits on each side of a number's decimal point in a sentence.
const NUMBER_DIGITS: usize = 12;

/// The form of the exported grammar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GrammarFormat {
    #[default]
    Gbnf,
    Regex,
    /// For servers with structured output: `{segments: [{text, citations: [id]}]}`.
    #[serde(alias = "jsonSchema", alias = "json-schema")]
    JsonSchema,
}

impl GrammarFormat {
    pub fn parse(name: &str) -> Result<Self> {
        crate::options::choice(name).map_err(|e| CiteError::option("format", e.text()))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GrammarOptions {
    pub policy: Policy,
    pub marker_style: MarkerStyle,
    pub source_count: u32,
    pub max_content_chars: usize,
    pub format: GrammarFormat,
    /// At most this many sentences (the `required` policy; segments in the JSON schema): a
    /// small model bounded so finishes instead of running to `max_tokens`.
    pub max_sentences: Option<u32>,
    /// At most this many markers after a sentence (citations of a segment).
    pub max_cites_per_sentence: Option<u32>,
}

impl Default for GrammarOptions {
    fn default() -> Self {
        Self {
            policy: Policy::Required,
            marker_style: MarkerStyle::Bracket,
            source_count: 0,
            max_content_chars: DEFAULT_MAX_CONTENT_CHARS,
            format: GrammarFormat::Gbnf,
            max_sentences: None,
            max_cites_per_sentence: None,
        }
    }
}

/// `group` repeated after a first item, so there are at most `bound` in all (none: any
/// number): nothing for 1, `group{0,n-1}` (GBNF and regex alike), or `group*`.
fn rest(group: &str, bound: Option<u32>) -> String {
    match bound {
        Some(1) => String::new(),
        Some(n) => format!("{group}{{0,{}}}", n.saturating_sub(1)),
        None => format!("{group}*"),
    }
}

fn check_bound(name: &str, bound: Option<u32>) -> Result<()> {
    match bound {
        Some(0) => Err(CiteError::option(name, "must be at least 1")),
        Some(n) if n > MAX_GRAMMAR_REPEAT => Err(CiteError::option(
            name,
            format!("is at most {MAX_GRAMMAR_REPEAT}; got {n}"),
        )),
        _ => Ok(()),
    }
}

/// The grammar as text (the JSON schema serialised).
///
/// ```
/// use citeflow::cite::{citation_grammar, GrammarOptions};
/// let g = citation_grammar(GrammarOptions { source_count: 3, ..Default::default() }).unwrap();
/// assert!(g.contains(r#"cite-id ::= "[" ("1" | "2" | "3") "]""#));
/// ```
pub fn citation_grammar(options: GrammarOptions) -> Result<String> {
    if options.source_count == 0 {
        return Err(CiteError::NoSources);
    }
    if options.source_count > MAX_GRAMMAR_SOURCES {
        return Err(CiteError::option(
            "sourceCount",
            format!(
                "a citation grammar lists every source; at most {MAX_GRAMMAR_SOURCES} are supported, got {}",
                options.source_count
            ),
        ));
    }
    if options.max_content_chars == 0 {
        return Err(CiteError::option("maxContentChars", "must be at least 1"));
    }
    check_bound("maxSentences", options.max_sentences)?;
    check_bound("maxCitesPerSentence", options.max_cites_per_sentence)?;
    if options.max_sentences.is_some()
        && options.policy != Policy::Required
        && options.format != GrammarFormat::JsonSchema
    {
        return Err(CiteError::option(
            "maxSentences",
            "bounds the sentences of the `required` policy (or the segments of the JSON schema); this policy's grammar has no sentences",
        ));
    }
    Ok(match options.format {
        GrammarFormat::Gbnf => gbnf(options),
        GrammarFormat::Regex => regex(options),
        GrammarFormat::JsonSchema => json_schema(options),
    })
}

fn opener_closer(style: MarkerStyle) -> (&'static str, &'static str) {
    match style {
        MarkerStyle::Bracket => ("[", "]"),
        MarkerStyle::Paren => ("(", ")"),
        MarkerStyle::Curly => ("{", "}"),
        MarkerStyle::Caret => ("^", ""),
    }
}

fn ids(n: u32) -> impl Iterator<Item = String> {
    (1..=n).map(|i| i.to_string())
}

fn gbnf(o: GrammarOptions) -> String {
    let (open, close) = opener_closer(o.marker_style);
    let max = o.max_content_chars;
    let alternatives = ids(o.source_count)
        .map(|i| format!("\"{i}\""))
        .collect::<Vec<_>>()
        .join(" | ");
    let cite_id = if close.is_empty() {
        format!("cite-id ::= \"{open}\" ({alternatives})")
    } else {
        format!("cite-id ::= \"{open}\" ({alternatives}) \"{close}\"")
    };
    let cites = rest(" (ws cite-id)", o.max_cites_per_sentence);
    let common = format!("cite-group ::= cite-id{cites}\nws ::= \" \"\n{cite_id}\n");
    match o.policy {
        // A "." inside a sentence is a decimal point ("3.5 m"): digits on both sides. (A "."
        // merely followed by a digit lets a small model that meant to end the sentence write
        // "tall.1.2.3…" until max_tokens.) A number counts as one of the `max` characters.
        // The cites come before the sentence's end or, after a space, right after it
        // (`Paris. [1]`): a model that ended its sentence after a number ("until 1930.") is
        // not held in a decimal ("1930.3") that never reaches a cite. Policy checks and
        // verification read such cites as the sentence's own (sentence.rs).
        Policy::Required => format!(
            "root ::= sentence{}\nsentence ::= content (cite-group sent-end | sent-end ws cite-group)\ncontent ::= ([^{open}.!?0-9] | number){{1,{max}}}\nnumber ::= [0-9]{{1,{NUMBER_DIGITS}}} (\".\" [0-9]{{1,{NUMBER_DIGITS}}})?\nsent-end ::= \".\" | \"!\" | \"?\"\n{common}",
            rest(" (ws sentence)", o.max_sentences)
        ),
        Policy::Auto => format!("root ::= (text | cite-group)+\ntext ::= [^{open}]+\n{common}"),
        Policy::QuotesOnly => format!(
            "root ::= (text | quoted | cite-group)+\ntext ::= [^\"{open}]+\nquoted ::= \"\\\"\" [^\"{open}]{{1,{max}}} \"\\\"\" ws? cite-group\n{common}"
        ),
    }
}

/// Escapes a character for use inside a regex character class or as a literal.
fn esc(s: &str) -> String {
    s.chars()
        .map(|c| {
            if "\\^$.|?*+()[]{}-/\"".contains(c) {
                format!("\\{c}")
            } else {
                c.to_string()
            }
        })
        .collect()
}

fn regex(o: GrammarOptions) -> String {
    let (open, close) = opener_closer(o.marker_style);
    let (open, close) = (esc(open), esc(close));
    let max = o.max_content_chars;
    // Longest ids first, so `^12` is never read as `^1` and a stray `2`.
    let mut alternatives: Vec<String> = ids(o.source_count).collect();
    alternatives.reverse();
    let cite_id = format!("{open}(?:{}){close}", alternatives.join("|"));
    let group = format!(
        "{cite_id}{}",
        rest(&format!("(?: {cite_id})"), o.max_cites_per_sentence)
    );
    match o.policy {
        Policy::Required => {
            let number = format!("[0-9]{{1,{NUMBER_DIGITS}}}(?:\\.[0-9]{{1,{NUMBER_DIGITS}}})?");
            let sentence =
                format!("(?:[^{open}.!?0-9]|{number}){{1,{max}}}(?:{group}[.!?]|[.!?] {group})");
            let more = rest(&format!("(?: {sentence})"), o.max_sentences);
            format!("^{sentence}{more}$")
        }
        Policy::Auto => format!("^(?:[^{open}]+|{group})+$"),
        Policy::QuotesOnly => {
            format!("^(?:[^\"{open}]+|\"[^\"{open}]{{1,{max}}}\" ?{group}|{group})+$")
        }
    }
}

/// The schema as JSON text, written out (a `json!` tree of this size costs the module
/// kilobytes of code). Every value interpolated is a number or a fixed name.
fn json_schema(o: GrammarOptions) -> String {
    let ids: Vec<String> = ids(o.source_count).collect();
    let ids = ids.join(",");
    let min_cites = usize::from(o.policy == Policy::Required);
    let max_items = |bound: Option<u32>| {
        bound
            .map(|n| format!(",\"maxItems\":{n}"))
            .unwrap_or_default()
    };
    let (cites_max, segments_max) = (
        max_items(o.max_cites_per_sentence),
        max_items(o.max_sentences),
    );
    // Quotes only: a segment whose text quotes cites at least one source.
    let quotes = if o.policy == Policy::QuotesOnly {
        r#","if":{"properties":{"text":{"pattern":"[\"“]"}}},"then":{"properties":{"citations":{"minItems":1}}}"#
    } else {
        ""
    };
    format!(
        r#"{{"$schema":"https://json-schema.org/draft/2020-12/schema","title":"Cited answer ({policy} policy, {count} sources)","type":"object","properties":{{"segments":{{"type":"array","minItems":1{segments_max},"items":{{"type":"object","properties":{{"text":{{"type":"string","minLength":1,"maxLength":{max}}},"citations":{{"type":"array","items":{{"type":"integer","enum":[{ids}]}},"minItems":{min_cites}{cites_max}}}}},"required":["text","citations"],"additionalProperties":false{quotes}}}}}}},"required":["segments"],"additionalProperties":false}}"#,
        policy = o.policy.name(),
        count = o.source_count,
        max = o.max_content_chars,
    )
}
