//! Verification of a cited answer: what to ask a judge, and the offline lexical judge.

use serde::{Deserialize, Serialize};

use super::citation::ParseOptions;
use super::sentence::each_marked_sentence;

/// One citation to check: does source `source_id` support `hypothesis`?
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    /// Index into the answer's citations (as `parse_citations` lists them).
    pub citation_index: usize,
    /// As in [`super::Citation::source_id`]: 0 for an id too large for `u32`.
    pub source_id: u32,
    /// Whether the id names a source at all (existence).
    pub valid: bool,
    /// The sentence holding the marker, with every marker removed.
    pub hypothesis: String,
}

/// A sentence without citations, to check against every source (coverage).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct UncitedSentence {
    /// UTF-16 offsets into the answer.
    pub span: [usize; 2],
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyPlan {
    pub claims: Vec<Claim>,
    pub uncited: Vec<UncitedSentence>,
}

/// One citation's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CitationVerdict {
    pub citation_index: usize,
    pub source_id: u32,
    pub exists: bool,
    pub entailment_score: f64,
    pub supported: bool,
}

/// An uncited sentence a source supports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UncitedSupport {
    pub span: [usize; 2],
    pub candidate_source_id: usize,
    pub entailment_score: f64,
}

/// What `verify` reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VerifyReport {
    /// Supported citations / citations checked (1 when there are none).
    pub support_rate: f64,
    pub citations_checked: usize,
    /// The ids of citations that name no source, in order.
    pub missing_sources: Vec<u32>,
    pub per_citation: Vec<CitationVerdict>,
    pub uncited_but_entailed: Vec<UncitedSupport>,
}

/// The report for a plan and the judge's scores: `claim_scores[i]` for claim `i` (ignored for
/// a claim whose id names no source: it is not judged), `uncited_scores` sentence by sentence,
/// one score per source. A score counts as support from `threshold` on.
pub fn verify_report(
    plan: &VerifyPlan,
    claim_scores: &[f64],
    uncited_scores: &[f64],
    source_count: usize,
    threshold: f64,
) -> VerifyReport {
    let per_citation: Vec<CitationVerdict> = plan
        .claims
        .iter()
        .enumerate()
        .map(|(i, claim)| {
            let score = if claim.valid {
                claim_scores.get(i).copied().unwrap_or(0.0)
            } else {
                0.0
            };
            CitationVerdict {
                citation_index: claim.citation_index,
                source_id: claim.source_id,
                exists: claim.valid,
                entailment_score: score,
                supported: claim.valid && score >= threshold,
            }
        })
        .collect();
    let uncited_but_entailed = plan
        .uncited
        .iter()
        .enumerate()
        .flat_map(|(i, sentence)| {
            (0..source_count).filter_map(move |s| {
                let score = uncited_scores
                    .get(i.saturating_mul(source_count).saturating_add(s))
                    .copied()
                    .unwrap_or(0.0);
                (score >= threshold).then_some(UncitedSupport {
                    span: sentence.span,
                    candidate_source_id: s + 1,
                    entailment_score: score,
                })
            })
        })
        .collect();
    let supported = per_citation.iter().filter(|c| c.supported).count();
    VerifyReport {
        support_rate: if per_citation.is_empty() {
            1.0
        } else {
            supported as f64 / per_citation.len() as f64
        },
        citations_checked: per_citation.len(),
        missing_sources: per_citation
            .iter()
            .filter(|c| !c.exists)
            .map(|c| c.source_id)
            .collect(),
        per_citation,
        uncited_but_entailed,
    }
}

/// Splits the answer into sentences and lists the claims each citation makes.
pub fn verify_plan(text: &str, options: ParseOptions) -> VerifyPlan {
    let mut plan = VerifyPlan::default();
    let mut citation_index = 0;
    each_marked_sentence(text, options, |sentence| {
        // Sentence ranges and marker spans come from this very text: char boundaries.
        let range = sentence.range;
        if sentence.found.is_empty() {
            plan.uncited.push(UncitedSentence {
                span: sentence.span16,
                text: text.get(range).unwrap_or_default().to_owned(),
            });
            return;
        }
        let mut hypothesis = String::new();
        let mut at = range.start;
        for f in sentence.found {
            hypothesis.push_str(text.get(at..f.span.start.max(at)).unwrap_or_default());
            at = f.span.end.max(at);
        }
        hypothesis.push_str(text.get(at..range.end).unwrap_or_default());
        let hypothesis = tidy(&hypothesis);
        for id in sentence.found.iter().flat_map(|f| &f.ids) {
            plan.claims.push(Claim {
                citation_index,
                source_id: id.value().unwrap_or(0),
                valid: options.is_valid_id(id),
                hypothesis: hypothesis.clone(),
            });
            citation_index += 1;
        }
    });
    plan
}

/// Collapses whitespace and the space a removed marker leaves before punctuation.
fn tidy(s: &str) -> String {
    let collapsed = s.split_whitespace().collect::<Vec<_>>().join(" ");
    let mut out = String::with_capacity(collapsed.len());
    for c in collapsed.chars() {
        if matches!(c, '.' | ',' | ';' | ':' | '!' | '?') && out.ends_with(' ') {
            out.pop();
        }
        out.push(c);
    }
    out
}

/// Words that carry no claim.
const STOPWORDS: &[&str] = &[
    "a", "an", "and", "are", "as", "at", "be", "been", "but", "by", "for", "from", "has", "have",
    "in", "is", "it", "its", "of", "on", "or", "that", "the", "their", "this", "to", "was", "were",
    "which", "with",
];

fn content_words(text: &str) -> Vec<String> {
    let mut words: Vec<String> = text
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 2)
        .map(str::to_ascii_lowercase)
        .filter(|w| !STOPWORDS.contains(&w.as_str()))
        .collect();
    words.sort_unstable();
    words.dedup();
    words
}

/// The offline judge: the share of the hypothesis's content words (ASCII-lowercased, stop
/// words dropped) that occur in the premise, in [0, 1]. Crude, deterministic, no model.
///
/// ```
/// use citeflow::cite::lexical_entailment;
/// let s = lexical_entailment("Water boils at 100 degrees Celsius at sea level.", "Water boils at 100 degrees.");
/// assert_eq!(s, 1.0);
/// assert!(lexical_entailment("Cats purr.", "Water boils at 100 degrees.") < 0.5);
/// ```
pub fn lexical_entailment(premise: &str, hypothesis: &str) -> f64 {
    let hyp = content_words(hypothesis);
    if hyp.is_empty() {
        return 0.0;
    }
    let prem = content_words(premise);
    let held = hyp.iter().filter(|w| prem.binary_search(w).is_ok()).count();
    held as f64 / hyp.len() as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cite::MarkerStyle;

    #[test]
    fn claims_and_uncited_sentences() {
        let text = "Water boils at 100 °C [1, 2]. Nobody disputes it. Ice floats [3].";
        let plan = verify_plan(
            text,
            ParseOptions {
                marker_style: MarkerStyle::Bracket,
                source_count: Some(2),
            },
        );
        let claims: Vec<(usize, u32, bool, &str)> = plan
            .claims
            .iter()
            .map(|c| {
                (
                    c.citation_index,
                    c.source_id,
                    c.valid,
                    c.hypothesis.as_str(),
                )
            })
            .collect();
        assert_eq!(
            claims,
            [
                (0, 1, true, "Water boils at 100 °C."),
                (1, 2, true, "Water boils at 100 °C."),
                (2, 3, false, "Ice floats.")
            ]
        );
        assert_eq!(plan.uncited.len(), 1);
        assert_eq!(plan.uncited[0].text, "Nobody disputes it.");
        let units: Vec<u16> = text.encode_utf16().collect();
        let [a, b] = plan.uncited[0].span;
        assert_eq!(
            String::from_utf16(&units[a..b]).unwrap(),
            "Nobody disputes it."
        );
    }
}
