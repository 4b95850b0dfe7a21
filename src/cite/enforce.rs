//! How a citation policy is enforced on a provider: a GBNF grammar (llama.cpp-style servers),
//! structured outputs with a JSON schema (OpenAI, OpenRouter, compatible servers), a forced
//! tool with the same schema (Anthropic), or the prompt's rule alone.
//!
//! The schema and the tool answer in one shape, `{segments: [{text, citations: [id]}]}`: a
//! list of sentences, each with the ids of the sources it rests on. [`super::structured`] turns
//! that answer, streamed or whole, back into marked text and citation events, so the rest of
//! the pipeline sees the same answer whichever mechanism produced it.
//!
//! ```
//! use citeflow::cite::{Enforce, Mechanism, Policy};
//! use citeflow::provider::Provider;
//! assert_eq!(Enforce::Auto.mechanism(Provider::Anthropic).unwrap(), Mechanism::Tool);
//! assert_eq!(Enforce::Auto.mechanism(Provider::OpenaiCompatible).unwrap(), Mechanism::Grammar);
//! assert!(Enforce::Grammar.mechanism(Provider::Openai).is_err());
//! let schema = citeflow::cite::enforce::citation_schema(Policy::Required, 2);
//! assert_eq!(schema["properties"]["segments"]["items"]["required"][1], "citations");
//! ```

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::error::{CiteError, Result};
use super::policy::Policy;
use crate::provider::Provider;

/// The name of the forced tool (Anthropic) and of the response format (structured outputs).
pub const CITED_ANSWER: &str = "cited_answer";

/// What the caller asks for (Citeformer's `enforce` option).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Enforce {
    /// The provider's own mechanism: the grammar for `openai-compatible/`, the schema for
    /// `openai/` and `openrouter/`, the forced tool for `anthropic/`.
    #[default]
    Auto,
    Grammar,
    Schema,
    Tool,
    /// Only the rule in the prompt (what a provider or model without any mechanism gets).
    Prompt,
}

/// What is sent, once a provider is known.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    Grammar,
    Schema,
    Tool,
    Prompt,
}

impl Mechanism {
    pub fn name(self) -> &'static str {
        match self {
            Self::Grammar => "grammar",
            Self::Schema => "schema",
            Self::Tool => "tool",
            Self::Prompt => "prompt",
        }
    }

    /// Whether the answer comes back as the `{segments}` JSON, to be turned into marked text.
    pub fn is_structured(self) -> bool {
        matches!(self, Self::Schema | Self::Tool)
    }
}

impl Enforce {
    pub const ALL: [Enforce; 5] = [
        Self::Auto,
        Self::Grammar,
        Self::Schema,
        Self::Tool,
        Self::Prompt,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Self::Auto => "auto",
            Self::Grammar => "grammar",
            Self::Schema => "schema",
            Self::Tool => "tool",
            Self::Prompt => "prompt",
        }
    }

    pub fn parse(name: &str) -> Result<Self> {
        crate::options::choice(name).map_err(|e| CiteError::option("enforce", e.text()))
    }

    /// The mechanism for a provider; asking for one the provider has not is an error (never
    /// a silent downgrade: `auto` is the way to let the library choose).
    pub fn mechanism(self, provider: Provider) -> Result<Mechanism> {
        let compatible = provider == Provider::OpenaiCompatible;
        // A forced tool is Anthropic's structured answer; every other provider has a schema.
        let tool = provider == Provider::Anthropic;
        match self {
            Self::Auto => Ok(match provider {
                Provider::OpenaiCompatible => Mechanism::Grammar,
                Provider::Anthropic => Mechanism::Tool,
                _ => Mechanism::Schema,
            }),
            Self::Prompt => Ok(Mechanism::Prompt),
            Self::Grammar if compatible => Ok(Mechanism::Grammar),
            Self::Schema if !tool => Ok(Mechanism::Schema),
            Self::Tool if tool => Ok(Mechanism::Tool),
            other => Err(CiteError::option(
                "enforce",
                format!(
                    "{:?} is not available for {} models (grammar: openai-compatible; tool: anthropic; schema: every other provider); use \"auto\" or \"prompt\"",
                    other.name(),
                    provider.name()
                ),
            )),
        }
    }

    /// `auto`'s fallback: when the provider refuses the structured request `auto` chose for
    /// it (a schema or a forced tool) with a bad request (`status` 400 of a provider's error:
    /// a model or server without structured outputs or tools), the call is made once more
    /// with the prompt's rule alone. `None`: the failure stands (another enforcement, another
    /// failure, or a mechanism that asks nothing of the provider).
    pub fn fallback(self, provider: Provider, status: Option<u16>) -> Option<Self> {
        let structured = self.mechanism(provider).is_ok_and(Mechanism::is_structured);
        (self == Self::Auto && status == Some(BAD_REQUEST) && structured).then_some(Self::Prompt)
    }
}

/// The HTTP status with which a provider refuses a request it cannot serve as asked.
const BAD_REQUEST: u16 = 400;

/// The schema of a cited answer, its ids filled in by [`citation_schema`] (kept as text: a
/// `json!` tree of this size costs the module kilobytes of code).
const SCHEMA: &str = r#"{"type":"object","properties":{"segments":{"type":"array","items":{"type":"object","properties":{"text":{"type":"string","description":"One sentence of the answer, without citation markers."},"citations":{"type":"array","items":{"type":"integer","enum":[]}}},"required":["text","citations"],"additionalProperties":false}}},"required":["segments"],"additionalProperties":false}"#;

/// The schema of a cited answer in the subset every provider's structured output accepts
/// (every property required, no extra properties, no length or count bounds, no conditionals):
/// the policy that cannot be said in it (quotes only) stays in the prompt.
pub fn citation_schema(policy: Policy, source_count: u32) -> Value {
    let mut schema: Value = serde_json::from_str(SCHEMA).unwrap_or(Value::Null);
    if let Some(Value::Object(citations)) =
        schema.pointer_mut("/properties/segments/items/properties/citations")
    {
        if let Some(Value::Object(items)) = citations.get_mut("items") {
            let ids: Vec<Value> = (1..=source_count).map(Value::from).collect();
            items.insert("enum".into(), Value::Array(ids));
        }
        if policy == Policy::Required {
            // Accepted by Anthropic's tools and OpenAI's strict mode alike.
            citations.insert("minItems".into(), Value::from(1));
        }
    }
    schema
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_provider_gets_its_own_mechanism() {
        use Provider::*;
        let cases = [
            (Openai, Mechanism::Schema),
            (Openrouter, Mechanism::Schema),
            (OpenaiCompatible, Mechanism::Grammar),
            (Anthropic, Mechanism::Tool),
        ];
        for (provider, want) in cases {
            assert_eq!(Enforce::Auto.mechanism(provider).unwrap(), want);
            assert_eq!(
                Enforce::Prompt.mechanism(provider).unwrap(),
                Mechanism::Prompt
            );
        }
        assert_eq!(
            Enforce::Schema.mechanism(OpenaiCompatible).unwrap(),
            Mechanism::Schema
        );
        for (e, p) in [
            (Enforce::Tool, Openai),
            (Enforce::Schema, Anthropic),
            (Enforce::Grammar, Openrouter),
        ] {
            assert_eq!(e.mechanism(p).unwrap_err().code(), "INVALID_OPTION");
        }
        assert_eq!(Enforce::parse("toll").unwrap_err().code(), "INVALID_OPTION");
    }

    #[test]
    fn auto_falls_back_to_the_prompt_when_a_structured_request_is_refused() {
        use Provider::*;
        for p in [Openai, Openrouter, Anthropic] {
            assert_eq!(
                Enforce::Auto.fallback(p, Some(400)),
                Some(Enforce::Prompt),
                "{p:?}"
            );
            // Another failure (a rate limit, a server error, no status) stands.
            for status in [None, Some(429), Some(500), Some(401)] {
                assert_eq!(Enforce::Auto.fallback(p, status), None, "{p:?} {status:?}");
            }
        }
        // A grammar is not a structured request: a server that refuses it refuses the call.
        assert_eq!(Enforce::Auto.fallback(OpenaiCompatible, Some(400)), None);
        // Asked for by name, a mechanism's refusal stands.
        for e in [
            Enforce::Schema,
            Enforce::Tool,
            Enforce::Grammar,
            Enforce::Prompt,
        ] {
            for p in [Openai, Openrouter, Anthropic, OpenaiCompatible] {
                assert_eq!(e.fallback(p, Some(400)), None, "{e:?} {p:?}");
            }
        }
    }

    #[test]
    fn the_schema_is_in_the_strict_subset() {
        use serde_json::json;
        let s = citation_schema(Policy::Auto, 3);
        let text = s.to_string();
        for banned in ["maxLength", "minLength", "\"if\"", "$schema", "pattern"] {
            assert!(!text.contains(banned), "{banned}");
        }
        assert_eq!(
            s["properties"]["segments"]["items"]["properties"]["citations"]["items"]["enum"],
            json!([1, 2, 3])
        );
        assert!(citation_schema(Policy::Required, 1)
            .to_string()
            .contains("minItems"));
    }
}
