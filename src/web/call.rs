//! One call of a language model: the messages and the per-call options.

use serde_json::Value;
use web_sys::AbortSignal;

use crate::provider::{CiteRequest, LmRequest, Message};

/// What to ask a language model, and how. A prompt string or a message list converts into
/// one, so `invoker.invoke("Hi")` works as `invoker.invoke(Call::prompt("Hi"))` does.
///
/// ```no_run
/// use citeflow::web::{Call, Message};
///
/// let call = Call::messages(vec![
///     Message { role: "system".into(), content: "Answer in one sentence.".into() },
///     Message { role: "user".into(), content: "Why is the sky blue?".into() },
/// ])
/// .temperature(0.2)
/// .max_tokens(64);
/// # let _ = call;
/// ```
#[derive(Debug, Clone, Default)]
pub struct Call {
    pub(crate) request: LmRequest,
    pub(crate) signal: Option<AbortSignal>,
}

impl Call {
    /// One user message.
    pub fn prompt(text: impl Into<String>) -> Self {
        Self::messages(vec![Message {
            role: "user".into(),
            content: text.into(),
        }])
    }

    /// A conversation (`system`, `user`, `assistant` roles).
    pub fn messages(messages: Vec<Message>) -> Self {
        Self {
            request: LmRequest {
                messages,
                ..LmRequest::default()
            },
            signal: None,
        }
    }

    /// Sampling temperature, 0 to 2 (Anthropic's range, 0 to 1, is clamped to).
    pub fn temperature(mut self, temperature: f64) -> Self {
        self.request.temperature = Some(temperature);
        self
    }

    /// The most tokens the answer may have.
    pub fn max_tokens(mut self, max_tokens: u64) -> Self {
        self.request.max_tokens = Some(max_tokens);
        self
    }

    /// A JSON schema the answer must follow: the answer is then one `structured` item (or a
    /// `structured` event at the end of a stream), from every provider.
    pub fn response_schema(mut self, schema: Value) -> Self {
        self.request.response_schema = Some(schema);
        self
    }

    /// The log-probabilities of the answer's tokens (OpenAI-style providers).
    pub fn logprobs(mut self, logprobs: bool) -> Self {
        self.request.logprobs = Some(logprobs);
        self
    }

    /// How many alternatives per token, 0 to 20; implies `logprobs`.
    pub fn top_logprobs(mut self, n: u8) -> Self {
        self.request.top_logprobs = Some(n);
        self
    }

    /// A GBNF grammar constraining decoding, sent to `openai-compatible/` servers (llama.cpp)
    /// only; see [`crate::cite::citation_grammar`] for the one that enforces citations.
    pub fn grammar(mut self, grammar: impl Into<String>) -> Self {
        self.request.grammar = Some(grammar.into());
        self
    }

    /// A cited answer over numbered sources, its citations enforced with the provider's own
    /// mechanism (`enforce`: a JSON schema for OpenAI-style providers, a forced tool for
    /// Anthropic, a GBNF grammar for OpenAI-compatible servers, or the prompt alone) and read
    /// back as marked text with `citation` events, as the npm package's Citeformer does it.
    ///
    /// ```no_run
    /// use citeflow::provider::CiteRequest;
    /// use citeflow::web::Call;
    /// use serde_json::json;
    ///
    /// let cite = CiteRequest::from_value(&json!({"enforce": "auto", "sourceCount": 2})).unwrap();
    /// let call = Call::prompt("Why does ice float?").citations(cite);
    /// # let _ = call;
    /// ```
    pub fn citations(mut self, citations: CiteRequest) -> Self {
        self.request.citations = Some(citations);
        self
    }

    /// Cancels the call (the fetch, a retry's wait, a running stream) when the signal aborts;
    /// the call then fails with [`crate::web::ErrorCode::Aborted`].
    pub fn signal(mut self, signal: &AbortSignal) -> Self {
        self.signal = Some(signal.clone());
        self
    }

    pub(crate) fn structured(&self) -> bool {
        self.request.response_schema.is_some()
    }
}

impl From<&str> for Call {
    fn from(prompt: &str) -> Self {
        Self::prompt(prompt)
    }
}

impl From<String> for Call {
    fn from(prompt: String) -> Self {
        Self::prompt(prompt)
    }
}

impl From<Vec<Message>> for Call {
    fn from(messages: Vec<Message>) -> Self {
        Self::messages(messages)
    }
}
