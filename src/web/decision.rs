//! The decision-model invoker.

use std::rc::Rc;

use futures_util::stream::{self, StreamExt, TryStreamExt};
use serde_json::{Map, Value};
use web_sys::AbortSignal;

use crate::provider::transport::check_at_least_one;
use crate::provider::{
    build_dm_request, lm_decision_calls, lm_decision_result, parse_dm_response, DecisionBackend,
    LmDecisionOutput, CALL_MAX_TOKENS, CALL_TEMPERATURE, DEFAULT_MAX_CONCURRENCY, TOP_LOGPROBS,
};

use super::call::Call;
use super::error::{Error, ErrorCode};
use super::lm::LmInvoker;
use super::options::Options;
use super::transport::{Answer, Transport};

/// Who answers a decision model's questions.
#[derive(Debug, Clone)]
enum Backend {
    /// The System One wire format (`typesafe/<model>`, `openrouter/typesafe/<model>`).
    SystemOne(Rc<Transport>),
    /// A language model asked one question per call, read from one token's log-probabilities.
    Lm(LmInvoker),
}

/// A decision model: questions about a state, answered with probabilities. The npm
/// package's `buildDMInvoker`, in Rust. Questions are System One's JSON
/// (`{"type": "noul" | "choice" | "score", "instructions": …, "criteria": …}`); see
/// [`question`] for builders.
///
/// ```no_run
/// # async fn run() -> Result<(), citeflow::web::Error> {
/// use citeflow::web::{question, DmInvoker, Options};
/// use serde_json::{json, Map};
///
/// let dm = DmInvoker::new(
///     "openai-compatible/smollm2",
///     Options::new().base_url("http://127.0.0.1:8080/v1"),
/// )?;
/// let mut questions = Map::new();
/// questions.insert("relevant".into(), question::noul("Is the text about the sea?", None));
/// let decision = dm.invoke(&json!("Tides follow the moon."), &questions, None).await?;
/// println!("{}", decision.answers["relevant"]["noul"]);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct DmInvoker {
    model_id: Rc<str>,
    backend: Backend,
    max_concurrency: usize,
}

/// A decision model's answers.
#[derive(Debug, Clone, PartialEq)]
pub struct Decision {
    /// The model that answered.
    pub model: Value,
    /// One answer per question, by name (`{"type": "noul", "noul": 0.93}`, …).
    pub answers: Map<String, Value>,
    /// Normalised usage (for a language model: the calls' counts summed, each call's own
    /// report under `raw`).
    pub usage: Value,
}

impl DmInvoker {
    /// `typesafe/<model>` and `openrouter/typesafe/<model>` speak System One; any other
    /// OpenAI-style model id becomes a language-model decision model (Anthropic models give no
    /// log-probabilities and are refused).
    pub fn new(model_id: &str, options: Options) -> Result<Self, Error> {
        let backend = match DecisionBackend::of(model_id)? {
            DecisionBackend::SystemOne => {
                let mut probe = Map::new();
                probe.insert("probe".into(), question::noul("probe", None));
                let state = Value::String(String::new());
                Backend::SystemOne(Transport::checked(options, |key, base| {
                    build_dm_request(model_id, &state, &probe, key, base)
                })?)
            }
            DecisionBackend::LanguageModel => Backend::Lm(LmInvoker::new(model_id, options)?),
        };
        Ok(Self {
            model_id: model_id.into(),
            backend,
            max_concurrency: DEFAULT_MAX_CONCURRENCY,
        })
    }

    /// The most HTTP requests one [`invoke`](Self::invoke) has in flight at once (default 10,
    /// at least 1): a language model is asked one question per request, so a decision of 100
    /// questions sends 10 at a time by default; a System One model answers all of a call's
    /// questions in one request. The answers keep the questions' order whatever order the
    /// requests finish in. (A browser also opens at most 6 HTTP/1.1 connections to one
    /// origin.)
    pub fn with_max_concurrency(mut self, max_concurrency: usize) -> Result<Self, Error> {
        self.max_concurrency = check_at_least_one("maxConcurrency", max_concurrency)?;
        Ok(self)
    }

    /// The most HTTP requests one call has in flight at once.
    pub fn max_concurrency(&self) -> usize {
        self.max_concurrency
    }

    /// The model id it was built with.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// Asks `questions` (`{name: question}`, at least one) about `state`; `signal` cancels.
    pub async fn invoke(
        &self,
        state: &Value,
        questions: &Map<String, Value>,
        signal: Option<&AbortSignal>,
    ) -> Result<Decision, Error> {
        let value = match &self.backend {
            Backend::SystemOne(transport) => {
                let http = transport.build(|key, base| {
                    build_dm_request(&self.model_id, state, questions, key, base)
                })?;
                let Answer::Text(text) = transport
                    .send(&http, "decision-model", signal, false)
                    .await?
                else {
                    return Err(Error::new(
                        ErrorCode::InvalidProviderData,
                        "a decision came as a stream",
                    ));
                };
                parse_dm_response(&text, questions)
                    .map_err(|e| Error::from(e).scrub(&transport.secrets))?
            }
            Backend::Lm(lm) => self.ask_lm(lm, state, questions, signal).await?,
        };
        Ok(Decision {
            model: value.get("model").cloned().unwrap_or(Value::Null),
            answers: value
                .get("answers")
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default(),
            usage: value.get("usage").cloned().unwrap_or(Value::Null),
        })
    }

    async fn ask_lm(
        &self,
        lm: &LmInvoker,
        state: &Value,
        questions: &Map<String, Value>,
        signal: Option<&AbortSignal>,
    ) -> Result<Value, Error> {
        let secrets = &lm.transport.secrets;
        let asked = lm_decision_calls(state, questions)?;
        let calls = asked.into_iter().map(|asked| {
            let mut call = Call::messages(asked.messages)
                .temperature(CALL_TEMPERATURE)
                .max_tokens(CALL_MAX_TOKENS)
                .top_logprobs(TOP_LOGPROBS);
            if let Some(signal) = signal {
                call = call.signal(signal);
            }
            lm.invoke(call)
        });
        // At most `max_concurrency` requests in flight; the answers in the questions' order. A
        // failure ends the call: no request starts after it.
        let outputs: Vec<_> = stream::iter(calls)
            .buffered(self.max_concurrency)
            .try_collect()
            .await?;
        let answers: Vec<LmDecisionOutput<'_>> = outputs
            .iter()
            .map(|o| LmDecisionOutput {
                usage: o.output.extra.get("usage"),
                logprobs: o.logprobs().unwrap_or(&Value::Null),
            })
            .collect();
        lm_decision_result(&self.model_id, questions, &answers)
            .map_err(|e| Error::from(e).scrub(secrets))
    }
}

/// Builders for decision-model questions (System One's JSON), as the npm package's
/// `DMQuestion`.
pub mod question {
    use serde_json::{json, Value};

    /// A yes/no question answered with a probability; `criteria` says what yes and no mean.
    pub fn noul(instructions: &str, criteria: Option<(&str, &str)>) -> Value {
        match criteria {
            Some((yes, no)) => {
                json!({ "type": "noul", "instructions": instructions, "criteria": { "true": yes, "false": no } })
            }
            None => json!({ "type": "noul", "instructions": instructions }),
        }
    }

    /// Pick one of `options` (`(label, description)`).
    pub fn choice(instructions: &str, options: &[(&str, &str)]) -> Value {
        let criteria: serde_json::Map<String, Value> = options
            .iter()
            .map(|(label, description)| ((*label).to_owned(), json!(description)))
            .collect();
        json!({ "type": "choice", "instructions": instructions, "criteria": criteria })
    }

    /// Place on a scale of `levels`, lowest first.
    pub fn score(instructions: &str, levels: &[&str]) -> Value {
        json!({ "type": "score", "instructions": instructions, "criteria": levels })
    }
}
