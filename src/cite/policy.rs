//! Citation policies and the checker that reports, sentence by sentence, whether one holds.

use std::ops::Range;

use serde::{Deserialize, Serialize};

use super::citation::{Citation, ParseOptions};
use super::error::{CiteError, Result};
use super::scanner::Found;
use super::sentence::each_marked_sentence;

/// When a sentence must cite.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Policy {
    /// Every sentence ends with one or more markers, then `.`, `!` or `?`.
    #[default]
    Required,
    /// Only quoted spans need a marker, right after the closing quote.
    #[serde(alias = "quotesOnly")]
    QuotesOnly,
    /// Markers are optional.
    Auto,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Self::Required, Self::QuotesOnly, Self::Auto];

    pub fn name(self) -> &'static str {
        match self {
            Self::Required => "required",
            Self::QuotesOnly => "quotes_only",
            Self::Auto => "auto",
        }
    }

    pub fn parse(name: &str) -> Result<Self> {
        crate::options::choice(name).map_err(|e| CiteError::option("policy", e.text()))
    }
}

/// The verdict on one sentence.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SentenceCheck {
    /// `[start, end)` in UTF-16 code units.
    pub span: [usize; 2],
    pub text: String,
    /// Every citation in the sentence, valid or not.
    pub citations: Vec<Citation>,
    pub ok: bool,
    /// Why not, when not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
}

/// The verdict on a whole text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicyReport {
    pub policy: Policy,
    /// Every sentence is ok.
    pub ok: bool,
    pub sentences: Vec<SentenceCheck>,
}

const QUOTES: [(char, char); 2] = [('"', '"'), ('“', '”')];

/// Why the sentence at `range` with the markers `found` fails `policy`, if it does.
fn problem(
    text: &str,
    range: &Range<usize>,
    found: &[Found],
    policy: Policy,
    options: ParseOptions,
) -> Option<String> {
    // Sentence ranges come from splitting this very text, so they are char boundaries.
    debug_assert!(text.get(range.clone()).is_some());
    let sentence = text.get(range.clone()).unwrap_or_default();
    let bad = found
        .iter()
        .flat_map(|f| f.ids.iter().map(move |id| (f, id)))
        .find(|(_, id)| !options.is_valid_id(id));
    if let Some((bad, id)) = bad {
        return Some(match options.source_count {
            Some(n) => format!(
                "{} names source {id}, but there are {n} sources",
                bad.marker
            ),
            None => format!(
                "{} names source {id}, but sources are numbered from 1",
                bad.marker
            ),
        });
    }
    match policy {
        Policy::Auto => None,
        Policy::Required => {
            let body = sentence.trim_end_matches(['.', '!', '?']).trim_end();
            let body_end = range.start + body.len();
            let cited_at_end = found.last().is_some_and(|f| f.span.end == body_end);
            (!cited_at_end).then(|| "the sentence does not end with a citation".to_owned())
        }
        Policy::QuotesOnly => uncited_quote(sentence, range.start, found),
    }
}

/// One sentence's verdict, borrowed from the text checked and its markers.
pub(crate) struct Verdict<'a> {
    /// Bytes of the text.
    pub range: Range<usize>,
    /// The same range in UTF-16 units.
    pub span16: [usize; 2],
    /// The marker groups in it (each gives a citation per id: [`ParseOptions::citations`]).
    pub found: &'a [Found],
    /// Why it fails the policy, when it does.
    pub problem: Option<String>,
}

/// Calls `each` with the verdict on each sentence of `text` under `policy`, in order: the
/// check itself, which [`check_policy`] and the packed report of the JS face both read.
pub(crate) fn each_verdict(
    text: &str,
    policy: Policy,
    options: ParseOptions,
    mut each: impl FnMut(Verdict<'_>),
) {
    each_marked_sentence(text, options, |marked| {
        let problem = problem(text, &marked.range, marked.found, policy, options);
        each(Verdict {
            range: marked.range,
            span16: marked.span16,
            found: marked.found,
            problem,
        });
    });
}

/// Checks `text` against `policy`: per sentence, whether the markers the policy asks for are
/// there, and whether every marker names a source.
pub fn check_policy(text: &str, policy: Policy, options: ParseOptions) -> PolicyReport {
    let mut sentences = Vec::new();
    each_verdict(text, policy, options, |v| {
        sentences.push(SentenceCheck {
            span: v.span16,
            text: text.get(v.range).unwrap_or_default().to_owned(),
            // Each marker group gives its citations (one per id).
            citations: v.found.iter().flat_map(|f| options.citations(f)).collect(),
            ok: v.problem.is_none(),
            problem: v.problem,
        });
    });
    PolicyReport {
        policy,
        ok: sentences.iter().all(|s| s.ok),
        sentences,
    }
}

/// The first quoted span not followed (after spaces and `,;:`) by a marker, as a problem.
fn uncited_quote(sentence: &str, base: usize, found: &[Found]) -> Option<String> {
    for (open, close) in QUOTES {
        // Offsets from `find` on `sentence`, plus a char's length: always char boundaries.
        let mut rest = sentence;
        while let Some((_, quoted)) = rest.split_once(open) {
            let Some((body, after)) = quoted.split_once(close) else {
                break;
            };
            let next = after.trim_start_matches([' ', ',', ';', ':']);
            let at = base + (sentence.len() - next.len());
            if !found.iter().any(|f| f.span.start == at) {
                return Some(format!(
                    "the quote {open}{body}{close} is not followed by a citation"
                ));
            }
            rest = after;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cite::MarkerStyle;

    fn check(text: &str, policy: Policy) -> Vec<(bool, Option<String>)> {
        let opts = ParseOptions {
            marker_style: MarkerStyle::Bracket,
            source_count: Some(3),
        };
        check_policy(text, policy, opts)
            .sentences
            .into_iter()
            .map(|s| (s.ok, s.problem))
            .collect()
    }

    #[test]
    fn required_wants_a_cite_before_each_end() {
        let r = check(
            "Water boils [1]. Ice melts [2] [3]! Dr. Who is fiction. It is [9].",
            Policy::Required,
        );
        assert_eq!(
            r.iter().map(|(ok, _)| *ok).collect::<Vec<_>>(),
            [true, true, false, false]
        );
        assert_eq!(
            r[3].1.as_deref(),
            Some("[9] names source 9, but there are 3 sources")
        );
        assert!(!check("Cited [1] early, not at the end.", Policy::Required)[0].0);
    }

    #[test]
    fn required_takes_cites_written_right_after_a_sentence_end() {
        // What the `required` grammar lets a model write: the cite after the period and a space.
        let r = check(
            "It stood until 1930. [2] It is tall [1] [3]. Then none.",
            Policy::Required,
        );
        assert_eq!(
            r.iter().map(|(ok, _)| *ok).collect::<Vec<_>>(),
            [true, true, false]
        );
        assert!(!check("Paris. [9]", Policy::Required)[0].0);
    }

    #[test]
    fn quotes_only_wants_a_cite_after_each_quote() {
        let r = check(
            "He said \"it works\" [1]. She said “no”, [2] twice. They said \"maybe\". Plain text.",
            Policy::QuotesOnly,
        );
        assert_eq!(
            r.iter().map(|(ok, _)| *ok).collect::<Vec<_>>(),
            [true, true, false, true]
        );
        assert_eq!(
            r[2].1.as_deref(),
            Some("the quote \"maybe\" is not followed by a citation")
        );
    }

    #[test]
    fn ids_too_large_for_u32_fail_and_are_named_as_written() {
        let report = check_policy(
            "Big [99999999999].",
            Policy::Auto,
            ParseOptions {
                marker_style: MarkerStyle::Bracket,
                source_count: None,
            },
        );
        let s = &report.sentences[0];
        assert!(!s.ok);
        assert_eq!(
            s.problem.as_deref(),
            Some("[99999999999] names source 99999999999, but sources are numbered from 1")
        );
        assert_eq!((s.citations[0].source_id, s.citations[0].valid), (0, false));
    }

    #[test]
    fn auto_only_checks_validity() {
        assert_eq!(
            check("No cites. One [1]. Bad [0].", Policy::Auto)
                .iter()
                .map(|(ok, _)| *ok)
                .collect::<Vec<_>>(),
            [true, true, false]
        );
    }
}
