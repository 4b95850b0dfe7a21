//! How a decision model answers: which backend a model id names, the calls a language-model
//! decision makes (one per question, with its settings) and the decision made of their
//! answers (each question's answer, the calls' usage summed). The one place these rules live:
//! the npm package's `buildDMInvoker` and the Rust face's `DmInvoker` both ask them, and only
//! send the calls and hand back what came.

use serde_json::{Map, Value};

use super::decision::some_questions;
use super::lm_decision::{lm_decision_answer, lm_decision_messages, TOP_LOGPROBS};
use super::transport::check_whole;
use super::{is_system_one, Message, ModelId, RequestError};

/// The most HTTP requests one call has in flight at once, by default: one decision's
/// questions (a language model is asked one per request), and one relevance component's
/// call across all its batches and their questions (`maxConcurrency`).
pub const DEFAULT_MAX_CONCURRENCY: usize = 10;

/// Checks a `maxConcurrency` (a number, as JS gives it): a whole number ≥ 1.
pub fn check_max_concurrency(n: f64) -> Result<usize, RequestError> {
    check_whole("maxConcurrency", n, 1)?;
    // Whole, ≥ 1 and at most 2^53 − 1: the conversion saturates only past usize::MAX.
    Ok(n as usize)
}

/// Who answers a decision model's questions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecisionBackend {
    /// The System One wire format (`typesafe/<model>`, `openrouter/typesafe/<model>`).
    SystemOne,
    /// A language model asked one question per call ([`lm_decision_calls`]) and read from its
    /// answer's log-probabilities.
    LanguageModel,
}

impl DecisionBackend {
    /// The backend of `model_id`: System One for its ids; else a provider model whose provider
    /// returns log-probabilities (refused otherwise, as is an id that names no provider model).
    pub fn of(model_id: &str) -> Result<Self, RequestError> {
        if is_system_one(model_id) {
            return Ok(Self::SystemOne);
        }
        let id = ModelId::parse(model_id)?;
        if !id.provider.returns_logprobs() {
            return Err(RequestError::InvalidModelId {
                id: model_id.to_owned(),
                reason: format!(
                    "{} models return no log-probabilities; a decision model is typesafe/<model>, \
                     openrouter/typesafe/<model> or an OpenAI-style model",
                    id.provider.name()
                ),
            });
        }
        Ok(Self::LanguageModel)
    }

    /// `"system-one"` or `"language-model"`.
    pub fn name(self) -> &'static str {
        match self {
            Self::SystemOne => "system-one",
            Self::LanguageModel => "language-model",
        }
    }
}

/// The temperature of each call of a language-model decision.
pub const CALL_TEMPERATURE: f64 = 0.0;
/// The tokens each call may write: the one answer token.
pub const CALL_MAX_TOKENS: u64 = 1;

/// One call of a language-model decision: the question it asks and its messages. Each call
/// is sent with [`CALL_TEMPERATURE`], [`CALL_MAX_TOKENS`] and [`TOP_LOGPROBS`] alternatives;
/// at most `maxConcurrency` ([`DEFAULT_MAX_CONCURRENCY`]) of one decision's calls are in
/// flight at once, and the answers are taken back in the questions' order.
#[derive(Debug, Clone, PartialEq)]
pub struct LmDecisionCall {
    pub name: String,
    pub messages: Vec<Message>,
}

/// The settings each call is sent with, as the JS face's call options.
pub fn lm_decision_call_options() -> Value {
    object(vec![
        ("temperature", Value::from(CALL_TEMPERATURE)),
        ("maxTokens", Value::from(CALL_MAX_TOKENS)),
        ("topLogprobs", Value::from(TOP_LOGPROBS)),
    ])
}

/// A JSON object of these entries, in order.
fn object(entries: Vec<(&str, Value)>) -> Value {
    Value::Object(
        entries
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v))
            .collect(),
    )
}

/// The calls that ask `questions` (`{name: question}`, at least one) about `state`, in the
/// questions' order.
pub fn lm_decision_calls(
    state: &Value,
    questions: &Map<String, Value>,
) -> Result<Vec<LmDecisionCall>, RequestError> {
    some_questions(questions)?;
    let mut calls = Vec::with_capacity(questions.len());
    for (name, question) in questions {
        calls.push(LmDecisionCall {
            name: name.clone(),
            messages: lm_decision_messages(state, name, question)?,
        });
    }
    Ok(calls)
}

/// What one call answered: its usage as normalised (`{inputTokens, outputTokens, raw, …}`;
/// `None` when it reported none) and its `logprobs` (`Null` when it sent none).
#[derive(Debug, Clone, Copy)]
pub struct LmDecisionOutput<'a> {
    pub usage: Option<&'a Value>,
    pub logprobs: &'a Value,
}

/// The decision `{model, answers, usage}` made of the calls' answers, one per question in
/// the questions' order: each question's answer read from its call's log-probabilities, and
/// usage the calls' counts summed (a count not reported counts 0), each call's own report
/// under `raw` (`null` for a call that reported none).
pub fn lm_decision_result(
    model_id: &str,
    questions: &Map<String, Value>,
    outputs: &[LmDecisionOutput<'_>],
) -> Result<Value, RequestError> {
    if outputs.len() != questions.len() {
        return Err(RequestError::InvalidOption {
            option: "outputs",
            reason: format!(
                "one answer per question: {} answers for {} questions",
                outputs.len(),
                questions.len()
            ),
        });
    }
    let (mut input, mut output) = (0u64, 0u64);
    let mut raw = Vec::with_capacity(outputs.len());
    let mut answers = Map::new();
    for ((name, question), answer) in questions.iter().zip(outputs) {
        let field = |key| answer.usage.and_then(|u| u.get(key));
        let count = |key| field(key).and_then(Value::as_u64).unwrap_or(0);
        input = input.saturating_add(count("inputTokens"));
        output = output.saturating_add(count("outputTokens"));
        raw.push(field("raw").cloned().unwrap_or(Value::Null));
        answers.insert(
            name.clone(),
            lm_decision_answer(name, question, answer.logprobs)?,
        );
    }
    let usage = object(vec![
        ("inputTokens", Value::from(input)),
        ("outputTokens", Value::from(output)),
        ("totalTokens", Value::from(input.saturating_add(output))),
        ("raw", Value::Array(raw)),
    ]);
    Ok(object(vec![
        ("model", Value::from(model_id)),
        ("answers", Value::Object(answers)),
        ("usage", usage),
    ]))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn noul(instructions: &str) -> Value {
        json!({"type": "noul", "instructions": instructions})
    }

    fn questions(names: &[&str]) -> Map<String, Value> {
        names.iter().map(|n| ((*n).to_owned(), noul(n))).collect()
    }

    fn answered<'a>(usage: Option<&'a Value>, logprobs: &'a Value) -> LmDecisionOutput<'a> {
        LmDecisionOutput { usage, logprobs }
    }

    fn yes(p: f64) -> Value {
        json!({"content": [{"token": "Yes", "logprob": p.ln(), "top_logprobs": [
            {"token": "Yes", "logprob": p.ln()}, {"token": "No", "logprob": (1.0 - p).ln()}
        ]}]})
    }

    #[test]
    fn backends_by_model_id() {
        for (id, backend) in [
            ("typesafe/jev-1.13", DecisionBackend::SystemOne),
            ("openrouter/typesafe/jev-1.13", DecisionBackend::SystemOne),
            ("openai/gpt-4o-mini", DecisionBackend::LanguageModel),
            ("openai-compatible/judge", DecisionBackend::LanguageModel),
            // OpenRouter's OpenAI-style API, whatever the vendor.
            (
                "openrouter/anthropic/claude-sonnet-4.5",
                DecisionBackend::LanguageModel,
            ),
        ] {
            assert_eq!(DecisionBackend::of(id).unwrap(), backend, "{id}");
        }
        let e = DecisionBackend::of("anthropic/claude-sonnet-4.5").unwrap_err();
        assert_eq!(e.code(), "INVALID_MODEL_ID");
        assert!(
            e.to_string()
                .contains("anthropic models return no log-probabilities"),
            "{e}"
        );
        // Not a provider model: refused as the language-model invoker refuses it.
        assert_eq!(
            DecisionBackend::of("gpt-4o").unwrap_err(),
            ModelId::parse("gpt-4o").unwrap_err()
        );
    }

    #[test]
    fn one_call_per_question_in_order() {
        let qs = questions(&["b", "a", "__proto__"]);
        let calls = lm_decision_calls(&json!("state"), &qs).unwrap();
        let names: Vec<&str> = calls.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(names, ["b", "a", "__proto__"]);
        for call in &calls {
            let asked = lm_decision_messages(&json!("state"), &call.name, &qs[&call.name]).unwrap();
            assert_eq!(call.messages, asked);
        }
        let e = lm_decision_calls(&json!("state"), &Map::new()).unwrap_err();
        assert_eq!(e.code(), "INVALID_OPTION");
        let bad = [(
            "q".to_owned(),
            json!({"type": "score", "instructions": "?", "criteria": ["one"]}),
        )];
        assert_eq!(
            lm_decision_calls(&json!(""), &bad.into_iter().collect())
                .unwrap_err()
                .code(),
            "INVALID_OPTION"
        );
        assert_eq!(
            lm_decision_call_options(),
            json!({"temperature": 0.0, "maxTokens": 1, "topLogprobs": 20})
        );
    }

    #[test]
    fn max_concurrency_is_a_whole_number_of_requests_from_one() {
        assert_eq!(DEFAULT_MAX_CONCURRENCY, 10);
        assert_eq!(check_max_concurrency(1.0).unwrap(), 1);
        assert_eq!(check_max_concurrency(40.0).unwrap(), 40);
        for bad in [0.0, -1.0, 1.5, f64::NAN, f64::INFINITY] {
            let e = check_max_concurrency(bad).unwrap_err();
            assert_eq!(e.code(), "INVALID_OPTION", "{bad}");
            assert!(e.to_string().contains("maxConcurrency"), "{e}");
        }
    }

    #[test]
    fn answers_by_name_and_usage_summed() {
        let qs = questions(&["a", "b"]);
        let usage = json!({"inputTokens": 9, "outputTokens": 1, "totalTokens": 10, "raw": {"prompt_tokens": 9}});
        let (a, b) = (yes(0.9), yes(0.2));
        let out = lm_decision_result(
            "openai-compatible/judge",
            &qs,
            &[answered(Some(&usage), &a), answered(None, &b)],
        )
        .unwrap();
        assert_eq!(out["model"], "openai-compatible/judge");
        assert!((out["answers"]["a"]["noul"].as_f64().unwrap() - 0.9).abs() < 1e-9);
        assert!((out["answers"]["b"]["noul"].as_f64().unwrap() - 0.2).abs() < 1e-9);
        assert_eq!(
            out["usage"],
            json!({"inputTokens": 9, "outputTokens": 1, "totalTokens": 10, "raw": [{"prompt_tokens": 9}, null]})
        );
        let keys: Vec<&String> = out["answers"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["a", "b"]);
    }

    #[test]
    fn refuses_answers_that_do_not_match_the_questions() {
        let qs = questions(&["a", "b"]);
        let a = yes(0.5);
        let e = lm_decision_result("openai/m", &qs, &[answered(None, &a)]).unwrap_err();
        assert_eq!(e.code(), "INVALID_OPTION");
        let none = Value::Null;
        let e = lm_decision_result(
            "openai/m",
            &qs,
            &[answered(None, &a), answered(None, &none)],
        )
        .unwrap_err();
        assert_eq!(e.code(), "INVALID_PROVIDER_DATA");
        assert!(e.to_string().contains("log-probabilities"), "{e}");
        // Counts that are not whole numbers count 0; a huge sum saturates.
        let odd = json!({"inputTokens": "9", "outputTokens": u64::MAX});
        let out = lm_decision_result(
            "openai/m",
            &qs,
            &[answered(Some(&odd), &a), answered(Some(&odd), &a)],
        )
        .unwrap();
        assert_eq!(out["usage"]["inputTokens"], 0);
        assert_eq!(out["usage"]["outputTokens"], u64::MAX);
        assert_eq!(out["usage"]["raw"], json!([null, null]));
    }
}
