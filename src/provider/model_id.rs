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
}

impl Provider {
    pub fn name(self) -> &'static str {
        match self {
            Self::Openai => "openai",
            Self::Openrouter => "openrouter",
            Self::OpenaiCompatible => "openai-compatible",
            Self::Anthropic => "anthropic",
        }
    }

    /// Whether its answers can carry log-probabilities (`logprobs`, `top_logprobs`): what a
    /// language-model decision reads its answers from.
    pub fn returns_logprobs(self) -> bool {
        self != Self::Anthropic
    }

    /// The wire format of its streams (see `StreamFormat::parse`).
    pub fn stream_format(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            _ => "openai",
        }
    }
}

/// `openai/<model>`, `anthropic/<model>`, `openrouter/<vendor>/<model>`, `openai-compatible/<model>`.
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
        let provider = match prefix {
            "openai" => Provider::Openai,
            "openrouter" => Provider::Openrouter,
            "openai-compatible" => Provider::OpenaiCompatible,
            "anthropic" => Provider::Anthropic,
            _ => {
                return Err(bad(
                    "the provider must be openai, anthropic, openrouter or openai-compatible",
                ))
            }
        };
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
        for bad in ["gpt-4o", "cohere/command", "openai/", "openrouter/gpt-4o"] {
            assert_eq!(
                ModelId::parse(bad).unwrap_err().code(),
                "INVALID_MODEL_ID",
                "{bad}"
            );
        }
    }
}
