//! A decision model made of any language model that returns log-probabilities: a `noul`
//! (yes/no) question becomes a one-token prompt, and the probability of "yes" is read from the
//! first token's alternatives, so decision components work with OpenAI-compatible servers.

use serde_json::Value;

use super::request::{Message, RequestError};

/// How many alternatives the model is asked to return for its one token.
pub const TOP_LOGPROBS: u8 = 10;

const SYSTEM: &str = "You judge one yes/no question about the state you are shown. \
Answer with exactly one word, Yes or No, and nothing else.";

fn as_text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => serde_json::to_string_pretty(other).unwrap_or_default(),
    }
}

fn invalid_question(name: &str, reason: &str) -> RequestError {
    RequestError::InvalidOption {
        option: "questions",
        reason: format!("{name:?}: {reason}"),
    }
}

/// The messages that ask one `noul` question about `state`.
pub fn lm_decision_messages(
    state: &Value,
    name: &str,
    question: &Value,
) -> Result<Vec<Message>, RequestError> {
    match question.get("type").and_then(Value::as_str) {
        Some("noul") => {}
        Some(other) => {
            return Err(invalid_question(
                name,
                &format!(
                "a language-model decision model answers noul (yes/no) questions only, not {other}"
            ),
            ))
        }
        None => return Err(invalid_question(name, "needs a `type`")),
    }
    let instructions = question
        .get("instructions")
        .filter(|v| !v.is_null())
        .ok_or_else(|| invalid_question(name, "needs `instructions`"))?;
    let mut user = format!(
        "State:\n{}\n\nQuestion:\n{}\n",
        as_text(state),
        as_text(instructions)
    );
    if let Some(criteria) = question.get("criteria").and_then(Value::as_object) {
        for (answer, key) in [("Yes", "true"), ("No", "false")] {
            if let Some(c) = criteria.get(key) {
                user.push_str(&format!("{answer} means: {}\n", as_text(c)));
            }
        }
    }
    user.push_str("\nAnswer Yes or No.");
    Ok(vec![
        Message {
            role: "system".into(),
            content: SYSTEM.into(),
        },
        Message {
            role: "user".into(),
            content: user,
        },
    ])
}

fn verdict(token: &str) -> Option<bool> {
    let word = token
        .trim_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation())
        .to_lowercase();
    match word.as_str() {
        "yes" | "y" | "true" => Some(true),
        "no" | "n" | "false" => Some(false),
        _ => None,
    }
}

/// P(yes) from an OpenAI-style `logprobs` object (`{content: [{token, logprob,
/// top_logprobs: [{token, logprob}]}]}`): the yes-like and no-like alternatives of the first
/// token, each summed ("Yes", " yes", "YES"), then normalised against each other.
pub fn yes_probability(logprobs: &Value) -> Result<f64, RequestError> {
    let invalid = |detail: &str| RequestError::InvalidResponse {
        provider: "language-model decision",
        detail: detail.to_owned(),
    };
    let first = logprobs
        .pointer("/content/0")
        .ok_or_else(|| invalid("no log-probabilities in the answer (the server must support `logprobs` and `top_logprobs`)"))?;
    let mut alternatives: Vec<&Value> = first
        .get("top_logprobs")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    if alternatives.is_empty() {
        alternatives.push(first);
    }
    let (mut yes, mut no) = (0.0_f64, 0.0_f64);
    for alt in alternatives {
        let (Some(token), Some(lp)) = (
            alt.get("token").and_then(Value::as_str),
            alt.get("logprob").and_then(Value::as_f64),
        ) else {
            return Err(invalid(
                "a log-probability entry without `token` and `logprob`",
            ));
        };
        match verdict(token) {
            Some(true) => yes += lp.exp(),
            Some(false) => no += lp.exp(),
            None => {}
        }
    }
    if !(yes + no).is_finite() || yes + no <= 0.0 {
        return Err(invalid(
            "the first token is neither yes nor no, nor are its alternatives",
        ));
    }
    Ok(yes / (yes + no))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn lp(pairs: &[(&str, f64)]) -> Value {
        let top: Vec<Value> = pairs
            .iter()
            .map(|(t, p)| json!({"token": t, "logprob": p.ln()}))
            .collect();
        json!({"content": [{"token": pairs[0].0, "logprob": pairs[0].1.ln(), "top_logprobs": top}]})
    }

    #[test]
    fn reads_yes_against_no() {
        let p = yes_probability(&lp(&[
            ("Yes", 0.6),
            (" yes", 0.1),
            ("No", 0.2),
            ("Maybe", 0.1),
        ]))
        .unwrap();
        assert!((p - 0.7 / 0.9).abs() < 1e-9, "{p}");
        assert!((yes_probability(&lp(&[("no", 0.5)])).unwrap()).abs() < 1e-12);
        let only_first = json!({"content": [{"token": "Yes", "logprob": -0.1}]});
        assert_eq!(yes_probability(&only_first).unwrap(), 1.0);
    }

    #[test]
    fn explains_what_is_missing() {
        for bad in [json!(null), json!({"content": []}), lp(&[("Perhaps", 0.9)])] {
            let e = yes_probability(&bad).unwrap_err();
            assert_eq!(e.code(), "INVALID_PROVIDER_DATA", "{bad}");
        }
        let e = yes_probability(&json!({"content": [{"top_logprobs": [{"token": "Yes"}]}]}))
            .unwrap_err();
        assert!(e.to_string().contains("logprob"));
    }

    #[test]
    fn prompts_with_state_question_and_criteria() {
        let q = json!({"type": "noul", "instructions": {"question": "Relevant?", "target_chunk": "chunk_0"}, "criteria": {"true": "it helps", "false": "it does not"}});
        let m = lm_decision_messages(&json!({"query": "q"}), "r", &q).unwrap();
        assert_eq!(m[0].role, "system");
        assert!(m[1].content.contains("\"target_chunk\": \"chunk_0\""));
        assert!(m[1].content.contains("Yes means: it helps"));
        assert!(m[1].content.contains("No means: it does not"));
        let choice =
            json!({"type": "choice", "instructions": "x", "criteria": {"a": "a", "b": "b"}});
        assert_eq!(
            lm_decision_messages(&json!(""), "c", &choice)
                .unwrap_err()
                .code(),
            "INVALID_OPTION"
        );
    }
}
