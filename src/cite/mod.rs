//! Citations: inline markers found as they stream, checked against sources and a policy,
//! deduplicated, and exported as grammars for constrained decoding.

pub mod error;
pub mod marker;
pub mod scanner;

pub use error::CiteError;
pub use marker::{Ids, MarkerId, MarkerStyle, MarkerText};
pub use scanner::{Found, MarkerScanner};
pub mod citation;
pub mod dedup;
pub mod policy;
pub mod sentence;

pub use citation::{parse_citations, Citation, Covers, ParseOptions};
pub use dedup::deduplicate_adjacent_cites;
pub use policy::{check_policy, Policy, PolicyReport, SentenceCheck};
pub use sentence::split_sentences;
pub mod grammar;
pub use grammar::{
    citation_grammar, GrammarFormat, GrammarOptions, DEFAULT_MAX_CONTENT_CHARS, MAX_GRAMMAR_SOURCES,
};
pub mod parser;
pub use parser::CitationParser;
pub mod options;
pub use options::{CiteOptions, CiteformerOptions};
pub mod cited_html;
pub mod prompt;
pub mod verify;
pub use enforce::{Enforce, Mechanism};
#[cfg(not(feature = "lean-stream"))]
pub use structured::CitedAnswer;
pub mod enforce;
pub mod segments_json;
// Reads whole events (JSON trees): not in the lean streaming module.
#[cfg(not(feature = "lean-stream"))]
pub mod structured;
pub use cited_html::{render_cited_html, ListedReference, MarkerLink};
pub use verify::{
    lexical_entailment, verify_plan, verify_report, Claim, UncitedSentence, VerifyPlan,
    VerifyReport,
};
