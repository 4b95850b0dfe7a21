//! The embedding invoker.

use std::rc::Rc;

use web_sys::AbortSignal;

use crate::provider::transport::{check_at_least_one, DEFAULT_EM_BATCH_SIZE};
use crate::provider::{build_embeddings_request, parse_embeddings, ModelId};

use super::error::{Error, ErrorCode};
use super::options::Options;
use super::transport::{Answer, Transport};

/// An embedding model behind an OpenAI-style `/embeddings` endpoint (`openai/`,
/// `openrouter/`, `openai-compatible/`): texts in, vectors out in input order, sent in
/// batches. The npm package's `buildEMInvoker`, in Rust.
///
/// ```no_run
/// # async fn run() -> Result<(), citeflow::web::Error> {
/// use citeflow::web::{EmInvoker, Options};
///
/// let em = EmInvoker::new(
///     "openai-compatible/all-minilm",
///     Options::new().base_url("http://127.0.0.1:8080/v1"),
/// )?;
/// let vectors = em.invoke(&["tides", "the moon"], None).await?;
/// assert_eq!(vectors.len(), 2);
/// # Ok(()) }
/// ```
#[derive(Debug, Clone)]
pub struct EmInvoker {
    model_id: Rc<str>,
    id: ModelId,
    transport: Rc<Transport>,
    batch_size: usize,
}

impl EmInvoker {
    /// An invoker for `model_id`; the id and base URL are checked now.
    pub fn new(model_id: &str, options: Options) -> Result<Self, Error> {
        let id = ModelId::parse(model_id)?;
        let transport = Transport::checked(options, |key, base| {
            build_embeddings_request(&id, &[String::new()], key, base)
        })?;
        Ok(Self {
            model_id: model_id.into(),
            id,
            transport,
            batch_size: DEFAULT_EM_BATCH_SIZE,
        })
    }

    /// Texts per request (default 100).
    pub fn with_batch_size(mut self, batch_size: usize) -> Result<Self, Error> {
        self.batch_size = check_at_least_one("batchSize", batch_size)?;
        Ok(self)
    }

    /// The model id it was built with.
    pub fn model_id(&self) -> &str {
        &self.model_id
    }

    /// One vector per text, in the same order; `signal` cancels.
    pub async fn invoke<S: AsRef<str>>(
        &self,
        texts: &[S],
        signal: Option<&AbortSignal>,
    ) -> Result<Vec<Vec<f32>>, Error> {
        if texts.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidOption,
                "an embedding invoker takes a non-empty list of texts",
            ));
        }
        let secrets = &self.transport.secrets;
        let mut vectors = Vec::with_capacity(texts.len());
        for batch in texts.chunks(self.batch_size) {
            let batch: Vec<String> = batch.iter().map(|t| t.as_ref().to_owned()).collect();
            let http = self
                .transport
                .build(|key, base| build_embeddings_request(&self.id, &batch, key, base))?;
            let provider = self.id.provider;
            let Answer::Text(text) = self
                .transport
                .send(&http, provider.name(), signal, false)
                .await?
            else {
                return Err(Error::new(
                    ErrorCode::InvalidProviderData,
                    format!("{}: an embeddings answer came as a stream", self.model_id),
                ));
            };
            let flat = parse_embeddings(provider, &text, batch.len())
                .map_err(|e| Error::from(e).scrub(secrets))?;
            // The core checked that every vector has the same, non-zero dimension.
            let dims = flat.len() / batch.len();
            vectors.extend(flat.chunks(dims.max(1)).map(<[f32]>::to_vec));
        }
        Ok(vectors)
    }

    /// The vector of one text.
    pub async fn invoke_one(
        &self,
        text: &str,
        signal: Option<&AbortSignal>,
    ) -> Result<Vec<f32>, Error> {
        let mut vectors = self.invoke(&[text], signal).await?;
        vectors.pop().ok_or_else(|| {
            Error::new(
                ErrorCode::InvalidProviderData,
                format!("{}: no embedding", self.model_id),
            )
        })
    }
}
