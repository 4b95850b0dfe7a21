//! Decision-model relevance: one batch of chunks becomes a state and one named `noul` question
//! per chunk; the answers' probabilities decide.

use serde_json::{json, Map, Value};

use super::FilterError;
use crate::chunk::ChunkError;

/// Filters judge chunks against a query, formatters against an answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionKind {
    Filter,
    Formatter,
}

impl DecisionKind {
    fn state_key(self) -> &'static str {
        match self {
            Self::Filter => "query",
            Self::Formatter => "response",
        }
    }

    fn question_name(self, i: usize) -> String {
        match self {
            Self::Filter => format!("relevance_chunk_{i}"),
            Self::Formatter => format!("is_relevant_{i}"),
        }
    }

    /// The built-in question: (question, true, false).
    fn default_question(self) -> (&'static str, &'static str, &'static str) {
        match self {
            Self::Filter => (
                "Does the chunk contain information that helps answer the query?",
                "The chunk helps answer the query.",
                "The chunk does not help answer the query.",
            ),
            Self::Formatter => (
                "Does the chunk support what the response says?",
                "The response states or relies on information from the chunk.",
                "The response does not use the chunk.",
            ),
        }
    }
}

const TASK: &str = "Evaluate only the chunk identified by target_chunk.";

/// `{state, questions, names}` for chunks `start..start + texts.len()` (global indices).
/// `question` is a caller's `noul` relevance definition (instructions and optional criteria).
pub fn decision_batch(
    kind: DecisionKind,
    text: &str,
    texts: &[String],
    start: usize,
    question: Option<&Value>,
) -> Result<Value, ChunkError> {
    let (default_q, default_true, default_false) = kind.default_question();
    let (instructions, criteria) = match question {
        None => (
            json!(default_q),
            json!({"true": default_true, "false": default_false}),
        ),
        Some(q) => {
            if q.get("type").and_then(Value::as_str) != Some("noul") {
                return Err(ChunkError::InvalidOption(
                    "invalid option `relevanceQuestion`: must be a noul question (DMQuestion.noul(…))"
                        .into(),
                ));
            }
            let criteria = q
                .get("criteria")
                .cloned()
                .unwrap_or_else(|| json!({"true": default_true, "false": default_false}));
            (
                q.get("instructions").cloned().unwrap_or(Value::Null),
                criteria,
            )
        }
    };
    let mut chunks = Map::new();
    let mut questions = Map::new();
    let mut names = Vec::with_capacity(texts.len());
    for (k, t) in texts.iter().enumerate() {
        let i = start.saturating_add(k);
        let target = format!("chunk_{i}");
        chunks.insert(target.clone(), json!(t));
        // The caller's instructions, as an object, with the chunk targeting added.
        let mut ins = match &instructions {
            Value::Object(o) => o.clone(),
            Value::Null => Map::from_iter([("question".to_owned(), json!(default_q))]),
            other => Map::from_iter([("question".to_owned(), other.clone())]),
        };
        ins.insert("target_chunk".into(), json!(target));
        ins.insert("task".into(), json!(TASK));
        let name = kind.question_name(i);
        questions.insert(
            name.clone(),
            json!({"type": "noul", "instructions": ins, "criteria": criteria}),
        );
        names.push(name);
    }
    Ok(json!({
        "state": { kind.state_key(): text, "chunks": chunks },
        "questions": questions,
        "names": names,
    }))
}

/// The `noul` probability of each named answer; any other answer type is an error.
pub fn decision_scores(answers: &Value, names: &[String]) -> Result<Vec<f64>, FilterError> {
    names
        .iter()
        .map(|name| {
            let a = answers.get(name).ok_or_else(|| {
                FilterError::DecisionAnswer(format!(
                    "the decision model gave no answer to {name:?}"
                ))
            })?;
            match (
                a.get("type").and_then(Value::as_str),
                a.get("noul").and_then(Value::as_f64),
            ) {
                (Some("noul"), Some(p)) if (0.0..=1.0).contains(&p) => Ok(p),
                _ => Err(FilterError::DecisionAnswer(format!(
                    "the answer to {name:?} is not a noul probability: {a}"
                ))),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_use_global_indices() {
        let b = decision_batch(
            DecisionKind::Filter,
            "q?",
            &["a".into(), "b".into()],
            5,
            None,
        )
        .unwrap();
        assert_eq!(b["state"]["query"], "q?");
        assert_eq!(b["state"]["chunks"]["chunk_6"], "b");
        let q = &b["questions"]["relevance_chunk_5"];
        assert_eq!(q["type"], "noul");
        assert_eq!(q["instructions"]["target_chunk"], "chunk_5");
        assert_eq!(q["instructions"]["task"], TASK);
        assert_eq!(
            b["names"],
            json!(["relevance_chunk_5", "relevance_chunk_6"])
        );
        let f = decision_batch(
            DecisionKind::Formatter,
            "r",
            &["a".into()],
            0,
            Some(&json!({"type": "noul", "instructions": "Is it cited?"})),
        )
        .unwrap();
        assert_eq!(f["state"]["response"], "r");
        assert_eq!(
            f["questions"]["is_relevant_0"]["instructions"]["question"],
            "Is it cited?"
        );
        assert!(decision_batch(
            DecisionKind::Filter,
            "q",
            &[],
            0,
            Some(&json!({"type": "score"}))
        )
        .is_err());
    }

    #[test]
    fn scores() {
        let answers =
            json!({"a": {"type": "noul", "noul": 0.5}, "b": {"type": "choice", "choice": "x"}});
        assert_eq!(decision_scores(&answers, &["a".into()]).unwrap(), vec![0.5]);
        assert!(decision_scores(&answers, &["b".into()])
            .unwrap_err()
            .to_string()
            .contains("not a noul"));
        let e = decision_scores(&answers, &["c".into()]).unwrap_err();
        assert_eq!(e.code(), "INVALID_PROVIDER_DATA");
    }
}
