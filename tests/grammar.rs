//! Each exported grammar form against accepted and rejected samples, checked by matchers
//! that share no code with the exporter: a GBNF interpreter (tests/support) and the regex
//! crate. (The JSON-schema form is checked with Ajv in the JS tests.)

#[path = "support/gbnf.rs"]
mod gbnf;

use citeflow::cite::{
    citation_grammar, CiteError, GrammarFormat, GrammarOptions, MarkerStyle, Policy,
};

struct Case {
    policy: Policy,
    style: MarkerStyle,
    sources: u32,
    accept: &'static [&'static str],
    reject: &'static [&'static str],
}

const CASES: &[Case] = &[
    Case {
        policy: Policy::Required,
        style: MarkerStyle::Bracket,
        sources: 3,
        accept: &[
            "Water boils at 100 C [1].",
            "A [1] [2]. B [3]!",
            "Is it [1]? Yes [2]?",
            "It stood until 1930. [2]",
            "A [1]. B. [2] [3] C 3.5 m [1]!",
        ],
        reject: &[
            "No citation.",
            "Is it? Yes [2]?",
            "Bad id [4].",
            "Mid [1] and end.",
            "Two spaces [1]  [2].",
            "",
            "A [1]. B.",
            "A [0].",
            "Until 1930.[2]",
            "A. [4]",
            "A. [1].",
        ],
    },
    Case {
        policy: Policy::Required,
        style: MarkerStyle::Caret,
        sources: 12,
        accept: &["Fact ^12.", "Fact ^1 ^12. More ^3!"],
        reject: &["Fact ^13.", "Fact ^0.", "Fact^1^2."],
    },
    Case {
        policy: Policy::Required,
        style: MarkerStyle::Paren,
        sources: 2,
        accept: &["It rose (1) (2)."],
        reject: &["It rose (3).", "It rose [1]."],
    },
    Case {
        policy: Policy::Required,
        style: MarkerStyle::Curly,
        sources: 2,
        accept: &["It rose {2}."],
        reject: &["It rose {2} ."],
    },
    Case {
        policy: Policy::Auto,
        style: MarkerStyle::Bracket,
        sources: 3,
        accept: &["plain text", "text [1] more [2] [3]", "[1] first."],
        reject: &["bad [4]", "", "open [1 ]"],
    },
    Case {
        policy: Policy::QuotesOnly,
        style: MarkerStyle::Bracket,
        sources: 2,
        accept: &[
            "He said \"hi\" [1] and left.",
            "no quotes at all",
            "cite anyway [2].",
            "\"a\"[2]",
        ],
        reject: &["He said \"hi\" and left.", "\"x\" [5]", "\"unclosed [1]"],
    },
];

fn grammar(case: &Case, format: GrammarFormat) -> String {
    citation_grammar(GrammarOptions {
        policy: case.policy,
        marker_style: case.style,
        source_count: case.sources,
        format,
        ..Default::default()
    })
    .unwrap()
}

#[test]
fn gbnf_accepts_and_rejects_as_the_policy_says() {
    for case in CASES {
        let text = grammar(case, GrammarFormat::Gbnf);
        let g = gbnf::Grammar::parse(&text);
        for s in case.accept {
            assert!(
                g.matches(s),
                "{:?} should accept {s:?}:\n{text}",
                case.policy
            );
        }
        for s in case.reject {
            assert!(
                !g.matches(s),
                "{:?} should reject {s:?}:\n{text}",
                case.policy
            );
        }
    }
}

#[test]
fn regex_accepts_and_rejects_as_the_policy_says() {
    for case in CASES {
        let text = grammar(case, GrammarFormat::Regex);
        let re = regex::Regex::new(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        for s in case.accept {
            assert!(
                re.is_match(s),
                "{:?} should accept {s:?}: {text}",
                case.policy
            );
        }
        for s in case.reject {
            assert!(
                !re.is_match(s),
                "{:?} should reject {s:?}: {text}",
                case.policy
            );
        }
    }
}

#[test]
fn the_required_gbnf_has_the_reference_shape() {
    let text = grammar(&CASES[0], GrammarFormat::Gbnf);
    assert_eq!(
        text,
        "root ::= sentence (ws sentence)*\nsentence ::= content (cite-group sent-end | sent-end ws cite-group)\ncontent ::= ([^[.!?0-9] | number){1,240}\nnumber ::= [0-9]{1,12} (\".\" [0-9]{1,12})?\nsent-end ::= \".\" | \"!\" | \"?\"\ncite-group ::= cite-id (ws cite-id)*\nws ::= \" \"\ncite-id ::= \"[\" (\"1\" | \"2\" | \"3\") \"]\"\n"
    );
}

#[test]
fn a_decimal_point_is_not_a_sentence_end() {
    for format in [GrammarFormat::Gbnf, GrammarFormat::Regex] {
        let text = grammar(&CASES[0], format);
        let accepts = |s: &str| match format {
            GrammarFormat::Gbnf => gbnf::Grammar::parse(&text).matches(s),
            _ => regex::Regex::new(&text).unwrap().is_match(s),
        };
        assert!(
            accepts("It is 3.5 m tall [1]. Pi is 3.14159 [2]."),
            "{text}"
        );
        assert!(!accepts("It ends. Then [1]."), "{text}");
        assert!(!accepts("It is 3. [1]."), "{text}");
        assert!(!accepts("It is tall.1 [1]."), "{text}");
        assert!(!accepts("It is 3.5.6 [1]."), "{text}");
        assert!(accepts("Built in 1889 [1]."), "{text}");
    }
}

#[test]
fn sentences_and_markers_can_be_bounded() {
    let bounded = |format, max_sentences, max_cites| {
        citation_grammar(GrammarOptions {
            source_count: 2,
            format,
            max_sentences,
            max_cites_per_sentence: max_cites,
            ..Default::default()
        })
        .unwrap()
    };
    for format in [GrammarFormat::Gbnf, GrammarFormat::Regex] {
        let text = bounded(format, Some(2), Some(1));
        let accepts = |s: &str| match format {
            GrammarFormat::Gbnf => gbnf::Grammar::parse(&text).matches(s),
            _ => regex::Regex::new(&text).unwrap().is_match(s),
        };
        assert!(accepts("A [1]."), "{text}");
        assert!(accepts("A [1]. B [2]."), "{text}");
        assert!(!accepts("A [1]. B [2]. C [1]."), "{text}");
        assert!(!accepts("A [1] [2]."), "{text}");
        let one = bounded(format, Some(1), Some(3));
        let accepts = |s: &str| match format {
            GrammarFormat::Gbnf => gbnf::Grammar::parse(&one).matches(s),
            _ => regex::Regex::new(&one).unwrap().is_match(s),
        };
        assert!(accepts("A [1] [2] [1]."), "{one}");
        assert!(!accepts("A [1]. B [2]."), "{one}");
    }
    let schema: serde_json::Value =
        serde_json::from_str(&bounded(GrammarFormat::JsonSchema, Some(2), Some(1))).unwrap();
    assert_eq!(schema["properties"]["segments"]["maxItems"], 2);
    assert_eq!(
        schema["properties"]["segments"]["items"]["properties"]["citations"]["maxItems"],
        1
    );
    for (s, c) in [(Some(0), None), (None, Some(0)), (Some(1001), None)] {
        let e = citation_grammar(GrammarOptions {
            source_count: 2,
            max_sentences: s,
            max_cites_per_sentence: c,
            ..Default::default()
        })
        .unwrap_err();
        assert_eq!(e.code(), "INVALID_OPTION");
    }
    let e = citation_grammar(GrammarOptions {
        source_count: 2,
        policy: Policy::Auto,
        max_sentences: Some(2),
        ..Default::default()
    })
    .unwrap_err();
    assert!(e.to_string().contains("maxSentences"));
}

#[test]
fn content_is_bounded() {
    let opts = GrammarOptions {
        source_count: 1,
        max_content_chars: 5,
        ..Default::default()
    };
    let g = gbnf::Grammar::parse(&citation_grammar(opts).unwrap());
    assert!(g.matches("abcde[1]."));
    assert!(!g.matches("abcdef[1]."));
}

#[test]
fn zero_sources_is_an_error() {
    let err = citation_grammar(GrammarOptions {
        source_count: 0,
        ..Default::default()
    })
    .unwrap_err();
    assert_eq!(err, CiteError::NoSources);
    assert_eq!(err.code(), "NO_SOURCES");
}

#[test]
fn a_source_count_past_the_bound_is_an_error_not_a_huge_grammar() {
    use citeflow::cite::MAX_GRAMMAR_SOURCES;
    for format in [
        GrammarFormat::Gbnf,
        GrammarFormat::Regex,
        GrammarFormat::JsonSchema,
    ] {
        let at = |source_count| {
            citation_grammar(GrammarOptions {
                source_count,
                format,
                ..Default::default()
            })
        };
        assert!(at(MAX_GRAMMAR_SOURCES).is_ok());
        for too_many in [MAX_GRAMMAR_SOURCES + 1, u32::MAX] {
            let err = at(too_many).unwrap_err();
            assert_eq!(err.code(), "INVALID_OPTION");
            assert!(err.to_string().contains("sourceCount"), "{err}");
        }
    }
}

#[test]
fn the_json_schema_is_json_of_the_documented_shape() {
    use citeflow::cite::Policy;
    for policy in Policy::ALL {
        let text = citation_grammar(GrammarOptions {
            policy,
            source_count: 3,
            format: GrammarFormat::JsonSchema,
            ..Default::default()
        })
        .unwrap();
        let schema: serde_json::Value = serde_json::from_str(&text).unwrap();
        let segment = &schema["properties"]["segments"]["items"];
        assert_eq!(schema["required"], serde_json::json!(["segments"]));
        assert_eq!(schema["properties"]["segments"]["minItems"], 1);
        assert_eq!(
            segment["properties"]["citations"]["items"]["enum"],
            serde_json::json!([1, 2, 3])
        );
        assert_eq!(segment["properties"]["text"]["maxLength"], 240);
        assert_eq!(
            segment["properties"]["citations"]["minItems"],
            u32::from(policy == Policy::Required)
        );
        assert_eq!(
            segment["if"]["properties"]["text"]["pattern"].as_str(),
            (policy == Policy::QuotesOnly).then_some("[\"“]")
        );
        assert!(schema["properties"]["segments"].get("maxItems").is_none());
    }
}
