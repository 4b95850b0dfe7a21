//! A decision model made of any language model that returns log-probabilities. Each question
//! becomes a prompt answered with one token, and the answer's probabilities are read from that
//! token's alternatives: "Yes"/"No" for `noul`, a letter per label for `choice`, a digit per
//! level for `score`. So decision components work with any OpenAI-compatible server.

use serde_json::{json, Map, Value};

use super::{Message, RequestError};

/// How many alternatives the model is asked to return for its one token.
pub const TOP_LOGPROBS: u8 = 20;

const SYSTEM: &str = "You answer one question about the state you are shown. \
Reply with exactly one token, the word, letter or number the question asks for, and nothing else.";

const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";

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

/// A question's kind and its answer options (the tokens to read and what each stands for).
enum Kind<'a> {
    Noul,
    Choice(Vec<(&'a String, &'a Value)>),
    Score(&'a Vec<Value>),
}

fn kind<'a>(name: &str, question: &'a Value) -> Result<Kind<'a>, RequestError> {
    match (
        question.get("type").and_then(Value::as_str),
        question.get("criteria"),
    ) {
        (Some("noul"), _) => Ok(Kind::Noul),
        (Some("choice"), Some(Value::Object(c))) if (2..=LETTERS.len()).contains(&c.len()) => {
            Ok(Kind::Choice(c.iter().collect()))
        }
        (Some("choice"), _) => Err(invalid_question(
            name,
            "choice criteria are an object of 2 to 26 labels",
        )),
        (Some("score"), Some(Value::Array(levels))) if (2..=10).contains(&levels.len()) => {
            Ok(Kind::Score(levels))
        }
        (Some("score"), _) => Err(invalid_question(
            name,
            "score criteria are an array of 2 to 10 levels (one digit each)",
        )),
        (Some(other), _) => Err(invalid_question(name, &format!("unknown type {other:?}"))),
        (None, _) => Err(invalid_question(name, "needs a `type`")),
    }
}

/// The messages that ask one question about `state`.
pub fn lm_decision_messages(
    state: &Value,
    name: &str,
    question: &Value,
) -> Result<Vec<Message>, RequestError> {
    let kind = kind(name, question)?;
    let instructions = question
        .get("instructions")
        .filter(|v| !v.is_null())
        .ok_or_else(|| invalid_question(name, "needs `instructions`"))?;
    let mut user = format!(
        "State:\n{}\n\nQuestion:\n{}\n",
        as_text(state),
        as_text(instructions)
    );
    match kind {
        Kind::Noul => {
            if let Some(criteria) = question.get("criteria").and_then(Value::as_object) {
                for (answer, key) in [("Yes", "true"), ("No", "false")] {
                    if let Some(c) = criteria.get(key) {
                        user.push_str(&format!("{answer} means: {}\n", as_text(c)));
                    }
                }
            }
            user.push_str("\nAnswer Yes or No.");
        }
        Kind::Choice(options) => {
            user.push_str("\nOptions:\n");
            for ((label, description), letter) in options.iter().zip(LETTERS.chars()) {
                user.push_str(&format!("{letter}) {label}: {}\n", as_text(description)));
            }
            user.push_str("\nAnswer with the letter of one option.");
        }
        Kind::Score(levels) => {
            user.push_str("\nLevels, lowest first:\n");
            for (i, level) in levels.iter().enumerate() {
                user.push_str(&format!("{i}) {}\n", as_text(level)));
            }
            user.push_str("\nAnswer with the number of one level.");
        }
    }
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

fn invalid(detail: &str) -> RequestError {
    RequestError::InvalidResponse {
        provider: "language-model decision",
        detail: detail.to_owned(),
    }
}

/// The first token's alternatives as (token, probability); the token itself when the server
/// sent no alternatives.
fn alternatives(logprobs: &Value) -> Result<Vec<(String, f64)>, RequestError> {
    let first = logprobs.pointer("/content/0").ok_or_else(|| {
        invalid("no log-probabilities in the answer (the server must support `logprobs` and `top_logprobs`)")
    })?;
    let mut list: Vec<&Value> = first
        .get("top_logprobs")
        .and_then(Value::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    if list.is_empty() {
        list.push(first);
    }
    list.into_iter()
        .map(|alt| {
            match (
                alt.get("token").and_then(Value::as_str),
                alt.get("logprob").and_then(Value::as_f64),
            ) {
                (Some(t), Some(lp)) => Ok((
                    t.trim_matches(|c: char| c.is_whitespace() || c.is_ascii_punctuation())
                        .to_lowercase(),
                    lp.exp(),
                )),
                _ => Err(invalid(
                    "a log-probability entry without `token` and `logprob`",
                )),
            }
        })
        .collect()
}

/// Probability mass per option (each option matched by `matches`), normalised to sum to 1.
fn distribution(
    alts: &[(String, f64)],
    count: usize,
    matches: impl Fn(&str) -> Option<usize>,
) -> Result<Vec<f64>, RequestError> {
    let mut mass = vec![0.0; count];
    for (token, p) in alts {
        if let Some(m) = matches(token).and_then(|i| mass.get_mut(i)) {
            *m += p;
        }
    }
    let total: f64 = mass.iter().sum();
    if !total.is_finite() || total <= 0.0 {
        return Err(invalid(
            "the first token is none of the answers asked for, nor are its alternatives",
        ));
    }
    Ok(mass.into_iter().map(|m| m / total).collect())
}

/// The most likely option (the first of equals) and its probability.
fn argmax(p: &[f64]) -> (usize, f64) {
    p.iter()
        .copied()
        .enumerate()
        .max_by(|(a, pa), (b, pb)| pa.total_cmp(pb).then(b.cmp(a)))
        .unwrap_or((0, 0.0))
}

/// P(yes) from an OpenAI-style `logprobs` object (`{content: [{token, logprob,
/// top_logprobs: [{token, logprob}]}]}`): yes-like and no-like alternatives of the first token,
/// each summed ("Yes", " yes", "YES", "true"), then normalised against each other.
pub fn yes_probability(logprobs: &Value) -> Result<f64, RequestError> {
    let p = distribution(&alternatives(logprobs)?, 2, |t| match t {
        "yes" | "y" | "true" => Some(0),
        "no" | "n" | "false" => Some(1),
        _ => None,
    })?;
    Ok(p.first().copied().unwrap_or(0.0))
}

/// The System One answer to `question` read from the answer's `logprobs`.
pub fn lm_decision_answer(
    name: &str,
    question: &Value,
    logprobs: &Value,
) -> Result<Value, RequestError> {
    match kind(name, question)? {
        Kind::Noul => Ok(json!({ "type": "noul", "noul": yes_probability(logprobs)? })),
        Kind::Choice(options) => {
            let p = distribution(&alternatives(logprobs)?, options.len(), |t| {
                let mut chars = t.chars();
                match (chars.next(), chars.next()) {
                    (Some(c), None) => LETTERS
                        .find(c.to_ascii_uppercase())
                        .filter(|&i| i < options.len()),
                    _ => None,
                }
            })?;
            let (best, confidence) = argmax(&p);
            let probabilities: Map<String, Value> = options
                .iter()
                .zip(&p)
                .map(|((label, _), q)| ((*label).clone(), json!(q)))
                .collect();
            let choice = options.get(best).map(|(label, _)| *label);
            Ok(
                json!({ "type": "choice", "choice": choice, "confidence": confidence, "probabilities": probabilities }),
            )
        }
        Kind::Score(levels) => {
            let p = distribution(&alternatives(logprobs)?, levels.len(), |t| {
                t.parse::<usize>().ok().filter(|&i| i < levels.len())
            })?;
            let (best, confidence) = argmax(&p);
            let probabilities: Map<String, Value> = p
                .iter()
                .enumerate()
                .map(|(i, q)| (i.to_string(), json!(q)))
                .collect();
            Ok(
                json!({ "type": "score", "score": best, "confidence": confidence, "legend": levels, "probabilities": probabilities }),
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn reads_choices_and_scores() {
        let choice = json!({"type": "choice", "instructions": "Tone?", "criteria": {"formal": "stiff", "casual": "relaxed"}});
        let m = lm_decision_messages(&json!("Hi there"), "tone", &choice).unwrap();
        assert!(m[1]
            .content
            .contains("A) formal: stiff\nB) casual: relaxed"));
        let a = lm_decision_answer("tone", &choice, &lp(&[("B", 0.6), (" A", 0.2), ("C", 0.2)]))
            .unwrap();
        assert_eq!(a["choice"], "casual");
        assert!((a["confidence"].as_f64().unwrap() - 0.75).abs() < 1e-9);
        assert!((a["probabilities"]["formal"].as_f64().unwrap() - 0.25).abs() < 1e-9);
        let score = json!({"type": "score", "instructions": "Quality?", "criteria": ["poor", "fair", "good"]});
        let s =
            lm_decision_answer("q", &score, &lp(&[("2", 0.5), ("1", 0.3), ("7", 0.2)])).unwrap();
        assert_eq!(s["score"], 2);
        assert_eq!(s["legend"], json!(["poor", "fair", "good"]));
        assert!((s["confidence"].as_f64().unwrap() - 0.625).abs() < 1e-9);
        let eleven =
            json!({"type": "score", "instructions": "x", "criteria": (0..11).collect::<Vec<_>>()});
        assert_eq!(
            lm_decision_messages(&json!(""), "s", &eleven)
                .unwrap_err()
                .code(),
            "INVALID_OPTION"
        );
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
        assert!(lm_decision_messages(
            &json!(""),
            "x",
            &json!({"type": "rank", "instructions": "?"})
        )
        .is_err());
    }
}
