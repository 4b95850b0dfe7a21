//! Gemini's `GenerateContentResponse` as read: only the fields citeflow uses, each of its
//! declared type (a field of another type is bad data, not something to guess at), lists
//! capped while they are read so a hostile chunk costs no more than its own bytes.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::de::{Deserializer, IgnoredAny, SeqAccess, Visitor};
use serde::Deserialize;
use serde_json::Value;

/// The most grounding chunks, supports, or chunk indices of one support kept; the rest are
/// read (checked to be JSON) and dropped.
pub(crate) const MAX_ITEMS: usize = 1024;

/// A JSON array of which the first `N` items are kept.
#[derive(Debug, Clone)]
pub(crate) struct Capped<T, const N: usize = MAX_ITEMS>(pub Vec<T>);

impl<T, const N: usize> Default for Capped<T, N> {
    fn default() -> Self {
        Self(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>, const N: usize> Deserialize<'de> for Capped<T, N> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T, const N: usize>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>, const N: usize> Visitor<'de> for V<T, N> {
            type Value = Capped<T, N>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an array")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while items.len() < N {
                    match seq.next_element::<T>()? {
                        Some(item) => items.push(item),
                        None => return Ok(Capped(items)),
                    }
                }
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Capped(items))
            }
        }
        d.deserialize_seq(V::<T, N>(PhantomData))
    }
}

/// One streamed chunk, or a whole answer.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Chunk<'a> {
    /// Only the first is read: citeflow asks for one candidate.
    #[serde(borrow, default)]
    pub candidates: Option<Capped<Candidate<'a>, 1>>,
    #[serde(default)]
    pub prompt_feedback: Option<PromptFeedback>,
    /// Kept as sent (the usage event's `raw`).
    #[serde(default)]
    pub usage_metadata: Option<Value>,
    #[serde(default)]
    pub response_id: Option<String>,
    #[serde(default)]
    pub error: Option<ErrorBody>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Candidate<'a> {
    #[serde(borrow, default)]
    pub content: Option<Content<'a>>,
    #[serde(default)]
    pub finish_reason: Option<String>,
    #[serde(default)]
    pub grounding_metadata: Option<Grounding>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Content<'a> {
    /// Every part of a chunk is text the answer needs: no part is dropped, so no cap but
    /// the message's size.
    #[serde(borrow, default)]
    pub parts: Option<Vec<Part<'a>>>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct Part<'a> {
    #[serde(borrow, default)]
    pub text: Option<Cow<'a, str>>,
    /// A thought summary (`includeThoughts`), not the answer.
    #[serde(default)]
    pub thought: Option<bool>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct PromptFeedback {
    #[serde(default)]
    pub block_reason: Option<String>,
}

#[derive(Debug, Deserialize)]
pub(crate) struct ErrorBody {
    #[serde(default)]
    pub code: Option<Value>,
    #[serde(default)]
    pub message: Option<String>,
    #[serde(default)]
    pub status: Option<String>,
}

/// `groundingMetadata`: what the answer rests on and which text each source supports.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Grounding {
    #[serde(default)]
    pub grounding_chunks: Option<Capped<GroundingChunk>>,
    #[serde(default)]
    pub grounding_supports: Option<Capped<Support>>,
}

impl Grounding {
    /// Whether it says anything (streamed chunks before the last carry `{}`).
    pub fn is_empty(&self) -> bool {
        let none = |n: Option<usize>| n.unwrap_or(0) == 0;
        none(self.grounding_chunks.as_ref().map(|c| c.0.len()))
            && none(self.grounding_supports.as_ref().map(|s| s.0.len()))
    }
}

/// One source: a web page, a retrieved document (file search, a RAG store) or a Maps place.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct GroundingChunk {
    #[serde(default)]
    pub web: Option<SourceRef>,
    #[serde(default)]
    pub retrieved_context: Option<SourceRef>,
    #[serde(default)]
    pub maps: Option<SourceRef>,
}

/// The fields of a grounding chunk's kinds that citeflow shows.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct SourceRef {
    #[serde(default)]
    pub uri: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    /// A web page's domain (`web`).
    #[serde(default)]
    pub domain: Option<String>,
    /// The retrieved passage or the place's answer text.
    #[serde(default)]
    pub text: Option<String>,
    /// A retrieved document's resource name (`retrievedContext`).
    #[serde(default)]
    pub document_name: Option<String>,
    /// A place's resource name (`maps`).
    #[serde(default)]
    pub place_id: Option<String>,
}

/// One grounded segment of the answer and the chunks that support it.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Support {
    #[serde(default)]
    pub segment: Option<Segment>,
    #[serde(default)]
    pub grounding_chunk_indices: Option<Capped<u64>>,
}

/// UTF-8 byte offsets into the candidate's text (absent: 0, proto3's default).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Segment {
    #[serde(default)]
    pub start_index: Option<u64>,
    #[serde(default)]
    pub end_index: Option<u64>,
}
