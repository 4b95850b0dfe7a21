//! The language-model invoker.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use crate::cite::Citation;
use crate::event::{LmOutput, OutputItem};
use crate::provider::sources::ProviderSource;
use crate::provider::{
    build_request, cited_output, enforcement, parse_response, CiteRequest, HttpRequest, ModelId,
};
use crate::transform::{OutputTransformer, OutputTransformerChain, OutputTransformerConfig};

use super::call::Call;
use super::error::{Error, ErrorCode};
use super::options::Options;
use super::stream::EventStream;
use super::transport::{Answer, Transport};
use super::usage::Usage;

/// A language model behind a provider's HTTP API: `openai/<model>`, `anthropic/<model>`,
/// `openrouter/<vendor>/<model>`, `openai-compatible/<model>` (with a base URL),
/// `google/<model>`, `openai-responses/<model>`, `perplexity/<model>`, `cohere/<model>`,
/// `mistral/<model>` or `xai/<model>`.
///
/// The request, the reading of the answer, the failure classification and the retry
/// schedule are the core's, shared with the npm package's `buildLMInvoker`; this type only
/// fetches (through `gloo-net`), waits and cancels. Cloning is cheap and shares the options.
///
/// ```no_run
/// # async fn run() -> Result<(), citeflow::web::Error> {
/// use citeflow::web::{LmInvoker, Options};
///
/// let lm = LmInvoker::new(
///     "openai-compatible/smollm2",
///     Options::new().base_url("http://127.0.0.1:8080/v1"),
/// )?;
/// let answer = lm.invoke("Name a primary colour.").await?;
/// println!("{} ({:?} tokens)", answer.text(), answer.usage().and_then(|u| u.total_tokens));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct LmInvoker {
    pub(crate) model_id: Rc<str>,
    pub(crate) id: ModelId,
    pub(crate) transport: Rc<Transport>,
    pub(crate) transformers: Rc<[OutputTransformerConfig]>,
    pub(crate) fallbacks: Rc<[LmInvoker]>,
}

impl LmInvoker {
    /// An invoker for `model_id`. The id, the base URL and the options are checked now, not at
    /// the first call.
    pub fn new(model_id: &str, options: Options) -> Result<Self, Error> {
        let id = ModelId::parse(model_id)?;
        let probe = Call::prompt("").request;
        let transport =
            Transport::checked(options, |key, base| build_request(&id, &probe, key, base))?;
        Ok(Self {
            model_id: model_id.into(),
            id,
            transport,
            transformers: Rc::new([]),
            fallbacks: Rc::new([]),
        })
    }

    /// Runs every answer through these output transformers (think tags, event filters, JSON,
    /// citations, …), in order: whole answers through their `transform`, streams inside one
    /// [`crate::engine::StreamEngine`].
    ///
    /// ```no_run
    /// use citeflow::transform::OutputTransformerConfig;
    /// use citeflow::web::{LmInvoker, Options};
    /// use serde_json::json;
    ///
    /// let citations = OutputTransformerConfig::from_value(
    ///     &json!({"type": "citations", "kwargs": {"sourceCount": 3}}),
    /// ).unwrap();
    /// let lm = LmInvoker::new("openai/gpt-4o-mini", Options::new().api_key("sk-…"))
    ///     .unwrap()
    ///     .with_output_transformers(vec![OutputTransformerConfig::think_tag(), citations])
    ///     .unwrap();
    /// # let _ = lm;
    /// ```
    pub fn with_output_transformers(
        mut self,
        configs: Vec<OutputTransformerConfig>,
    ) -> Result<Self, Error> {
        OutputTransformerChain::from_configs(&configs)?;
        self.transformers = configs.into();
        Ok(self)
    }

    /// Invokers tried in order when this one fails before answering (after its own retries;
    /// never after an abort): the first that answers wins, else the call fails with this
    /// invoker's error. A stream falls back only while no answer has started.
    ///
    /// ```no_run
    /// use citeflow::web::{LmInvoker, Options};
    ///
    /// # fn build() -> Result<LmInvoker, citeflow::web::Error> {
    /// let local = LmInvoker::new("openai-compatible/llama", Options::new().base_url("http://127.0.0.1:8080/v1"))?;
    /// let lm = LmInvoker::new("openai/gpt-4o-mini", Options::new().api_key("sk-…"))?.with_fallbacks(vec![local]);
    /// # Ok(lm) }
    /// ```
    pub fn with_fallbacks(mut self, fallbacks: Vec<LmInvoker>) -> Self {
        self.fallbacks = fallbacks.into();
        self
    }

    /// The model id it was built with.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    pub(crate) fn http(&self, call: &Call, stream: bool) -> Result<HttpRequest, Error> {
        let mut request = call.request.clone();
        request.stream = stream;
        self.transport
            .build(|key, base| build_request(&self.id, &request, key, base))
    }

    /// A whole answer, through the output transformers (or a fallback's).
    pub async fn invoke(&self, call: impl Into<Call>) -> Result<LmAnswer, Error> {
        let call = call.into();
        let error = match self.invoke_once(&call).await {
            Ok(answer) => return Ok(answer),
            Err(error) if error.code() == ErrorCode::Aborted => return Err(error),
            Err(error) => error,
        };
        for fallback in self.fallbacks.iter() {
            // Boxed: a fallback may have fallbacks of its own.
            let answer: Pin<Box<dyn Future<Output = _>>> = Box::pin(fallback.invoke(call.clone()));
            if let Ok(answer) = answer.await {
                return Ok(answer);
            }
        }
        Err(error)
    }

    /// The citations to read back from a structured answer (enforced by a schema or a tool),
    /// if the call asks for them.
    pub(crate) fn cited(&self, call: &Call) -> Result<Option<CiteRequest>, Error> {
        let mechanism = enforcement(&self.id, &call.request)
            .map_err(|e| Error::from(e).scrub(&self.transport.secrets))?;
        Ok(call
            .request
            .citations
            .filter(|_| mechanism.is_some_and(|m| m.is_structured())))
    }

    async fn invoke_once(&self, call: &Call) -> Result<LmAnswer, Error> {
        let http = self.http(call, false)?;
        let cited = self.cited(call)?;
        let provider = self.id.provider;
        let text = match self
            .transport
            .send(&http, provider.name(), call.signal.as_ref(), false)
            .await?
        {
            Answer::Text(text) => text,
            // Only a stream request is answered with a body to read on.
            Answer::Body(..) => {
                return Err(Error::new(
                    ErrorCode::InvalidProviderData,
                    format!("{}: a whole answer came as a stream", self.model_id),
                ))
            }
        };
        let secrets = &self.transport.secrets;
        let output = parse_response(provider, &text, call.structured())
            .and_then(|output| match &cited {
                // A cited answer's JSON becomes marked text and citations.
                Some(cite) => cited_output(output, cite),
                None => Ok(output),
            })
            .map_err(|e| Error::from(e).scrub(secrets))?;
        let output = if self.transformers.is_empty() {
            output
        } else {
            OutputTransformerChain::from_configs(&self.transformers)?
                .transform(output)
                .map_err(|e| Error::from(e).scrub(secrets))?
        };
        Ok(LmAnswer { output })
    }

    /// The answer as a stream of [`crate::event::Event`]s: the provider's SSE body read as it
    /// arrives and decoded by the core's streaming engine, through the output transformers
    /// (so with a `citations` transformer, markers become `citation` events as they
    /// complete). A `usage` event carries the token counts. A cut stream ends in an error,
    /// never in a short answer. Dropping the stream cancels the request.
    ///
    /// ```no_run
    /// # async fn run(lm: citeflow::web::LmInvoker) -> Result<(), citeflow::web::Error> {
    /// use futures_util::StreamExt;
    ///
    /// let mut events = lm.stream("Tell me about tides.");
    /// while let Some(event) = events.next().await {
    ///     let event = event?;
    ///     if event.kind == "response" {
    ///         print!("{}", event.text_value().unwrap_or_default());
    ///     }
    /// }
    /// # Ok(()) }
    /// ```
    pub fn stream(&self, call: impl Into<Call>) -> EventStream {
        EventStream::new(self.clone(), call.into())
    }
}

/// A whole answer: the output items (after the output transformers), with usage and finish
/// reason.
#[derive(Debug, Clone, PartialEq)]
pub struct LmAnswer {
    /// The items and the provider's extras (`usage`, `finishReason`, `logprobs`), as the npm
    /// package's `LMOutput`.
    pub output: LmOutput,
}

impl LmAnswer {
    /// The answer's text items, joined.
    pub fn text(&self) -> String {
        self.items(|item| match item {
            OutputItem::Text(t) => Some(t),
            _ => None,
        })
    }

    /// The reasoning the provider sent (or a think-tag transformer split off), joined.
    pub fn thinking(&self) -> String {
        self.items(|item| match item {
            OutputItem::Thinking(t) => Some(t),
            _ => None,
        })
    }

    fn items(&self, pick: impl Fn(&OutputItem) -> Option<&String>) -> String {
        self.output
            .outputs
            .iter()
            .filter_map(pick)
            .map(String::as_str)
            .collect()
    }

    /// Normalised token usage, when the provider reported it.
    pub fn usage(&self) -> Option<Usage> {
        self.output.extra.get("usage").map(Usage::from_normalized)
    }

    /// Why the model stopped (`"stop"`, `"length"`, `"end_turn"`, …).
    pub fn finish_reason(&self) -> Option<&str> {
        self.output
            .extra
            .get("finishReason")
            .and_then(|r| r.as_str())
    }

    /// The token log-probabilities, when asked for (OpenAI-style providers).
    pub fn logprobs(&self) -> Option<&serde_json::Value> {
        self.output.extra.get("logprobs")
    }

    /// The citations of the answer: the provider's own (positional, `span` into [`Self::text`]
    /// in UTF-16 units), or those a cited answer's JSON became.
    pub fn citations(&self) -> Vec<Citation> {
        self.output
            .extra
            .get("citations")
            .and_then(|c| serde_json::from_value(c.clone()).ok())
            .unwrap_or_default()
    }

    /// The sources the provider says the answer rests on (Gemini's grounding chunks, a
    /// search's results, …), numbered as the citations name them.
    pub fn sources(&self) -> Vec<ProviderSource> {
        self.output
            .extra
            .get("sources")
            .and_then(|s| serde_json::from_value(s.clone()).ok())
            .unwrap_or_default()
    }
}
