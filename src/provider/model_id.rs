//! Model ids (`provider/model`) and the providers they name.

use serde::{Deserialize, Serialize};

use super::RequestError;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Provider {
    Openai,
    Openrouter,
    OpenaiCompatible,
    Anthropic,
    /// Gemini (`generateContent`, `streamGenerateContent`).
    Google,
    /// OpenAI's Responses API (`/v1/responses`).
    OpenaiResponses,
    Perplexity,
    /// Cohere's v2 chat.
    Cohere,
    Mistral,
    /// xAI's Responses API.
    Xai,
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Openrouter => "openrouter",
            Self::OpenaiCompatible => "openai-compatible",
            Self::Anthropic => "anthropic",
            Self::Google => "google",
            Self::OpenaiResponses => "openai-responses",
            Self::Perplexity => "perplexity",
            Self::Cohere => "cohere",
            Self::Mistral => "mistral",
            Self::Xai => "xai",
        }
    }

    /// Every provider, in the order the docs list them.
    pub const ALL: [Self; 10] = [
        Self::Openai,
        Self::Anthropic,
        Self::Openrouter,
        Self::OpenaiCompatible,
        Self::Google,
        Self::OpenaiResponses,
        Self::Perplexity,
        Self::Cohere,
        Self::Mistral,
        Self::Xai,
    ];

    /// The provider a model id's prefix names.
    pub fn parse(prefix: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == prefix)
    }

    /// Where its API is when no `baseUrl` is given (`None`: it needs one).
    pub fn base_url(self) -> Option<&'static str> {
        match self {
            Self::Openai | Self::OpenaiResponses => Some(super::OPENAI_BASE),
            Self::Openrouter => Some(super::OPENROUTER_BASE),
            Self::OpenaiCompatible => None,
            Self::Anthropic => Some(super::ANTHROPIC_BASE),
            Self::Google => Some("https://generativelanguage.googleapis.com/v1beta"),
            Self::Perplexity => Some("https://api.perplexity.ai"),
            Self::Cohere => Some("https://api.cohere.com/v2"),
            Self::Mistral => Some("https://api.mistral.ai/v1"),
            Self::Xai => Some("https://api.x.ai/v1"),
        }
    }

    /// Whether it speaks OpenAI's Chat Completions (requests, answers, streams, embeddings).
    pub fn is_openai_chat(self) -> bool {
        matches!(self, Self::Openai | Self::Openrouter | Self::OpenaiCompatible)
    }

    /// Whether its answers can carry log-probabilities (`logprobs`, `top_logprobs`): what a
    /// language-model decision reads its answers from.
    pub fn returns_logprobs(self) -> bool {
        self.is_openai_chat()
    }

    /// The wire format of its streams (see `StreamFormat::parse`).
    pub fn stream_format(self) -> &'static str {
        match self {
            Self::Openai | Self::Openrouter | Self::OpenaiCompatible => "openai",
            other => other.name(),
        }
    }
}

/// `openai/<model>`, `anthropic/<model>`, `openrouter/<vendor>/<model>`, `openai-compatible/<model>`,
/// `google/<model>`, `openai-responses/<model>`, `perplexity/<model>`, `cohere/<model>`,
/// `mistral/<model>`, `xai/<model>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelId {
    pub provider: Provider,
    /// The model name sent to the provider (without the provider prefix).
    pub model: String,
}

impl ModelId {
    pub fn parse(id: &str) -> Result<Self, RequestError> {
        let bad = |reason: &str| RequestError::InvalidModelId {
            id: id.to_owned(),
            reason: reason.to_owned(),
        };
        let (prefix, model) = id
            .split_once('/')
            .ok_or_else(|| bad("expected provider/model, e.g. \"openai/gpt-4o-mini\""))?;
        let provider = Provider::parse(prefix).ok_or_else(|| {
            bad("the provider must be openai, anthropic, openrouter, openai-compatible, google, openai-responses, perplexity, cohere, mistral or xai")
        })?;
        if model.trim().is_empty() {
            return Err(bad("the model name is empty"));
        }
        if provider == Provider::Openrouter && !model.contains('/') {
            return Err(bad("OpenRouter models are vendor/model, e.g. \"openrouter/anthropic/claude-sonnet-4.5\""));
        }
        Ok(Self {
            provider,
            model: model.to_owned(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_ids() {
        assert_eq!(
            ModelId::parse("openai/gpt-4o-mini").unwrap(),
            ModelId {
                provider: Provider::Openai,
                model: "gpt-4o-mini".into()
            }
        );
        assert_eq!(
            ModelId::parse("openrouter/anthropic/claude-sonnet-4.5")
                .unwrap()
                .model,
            "anthropic/claude-sonnet-4.5"
        );
        for bad in ["gpt-4o", "gemini/x", "Google/x", "openai/", "openrouter/gpt-4o"] {
            assert_eq!(
                ModelId::parse(bad).unwrap_err().code(),
                "INVALID_MODEL_ID",
                "{bad}"
            );
        }
    }
}
