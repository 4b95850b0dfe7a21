//! Gemini's `GenerateContentResponse` as read: only the fields citeflow uses, each of its
//! declared type (a field of another type is bad data, not something to guess at; `null` is
//! as if absent), read from the chunk's JSON value (serde_json's `Value`, which every module
//! has already; derived readers would add their own code). Lists are capped: only their first
//! items are read, the rest were checked to be JSON when the chunk was parsed.

use serde_json::{Map, Value};

use crate::text::cat;

/// The most grounding chunks, supports, or chunk indices of one support kept; the rest are
/// dropped unread.
pub(crate) const MAX_ITEMS: usize = 1024;

/// Why a chunk is not what Gemini sends: the field and what it should be.
type Read<T> = Result<T, String>;

type Object = Map<String, Value>;

/// `what` is not `expected`, in words.
#[cold]
#[inline(never)]
fn wrong(what: &str, expected: &str) -> String {
    cat(&["`", what, "` is not ", expected])
}

/// `key`'s value in `object`, `None` when absent or `null`.
fn field<'v>(object: &'v Object, key: &str) -> Option<&'v Value> {
    object.get(key).filter(|v| !v.is_null())
}

/// `value` as an object (`what` names it in the error).
fn object<'v>(value: &'v Value, what: &str) -> Read<&'v Object> {
    value.as_object().ok_or_else(|| wrong(what, "an object"))
}

/// An item of the list `key` as an object.
fn item<'v>(value: &'v Value, key: &str) -> Read<&'v Object> {
    value.as_object().ok_or_else(|| not_object_item(key))
}

#[cold]
#[inline(never)]
fn not_object_item(key: &str) -> String {
    cat(&["an item of `", key, "` is not an object"])
}

/// `key`'s object, when there is one.
fn child<'v>(parent: &'v Object, key: &str) -> Read<Option<&'v Object>> {
    field(parent, key).map(|v| object(v, key)).transpose()
}

/// `key`'s string, when there is one.
fn string(parent: &Object, key: &str) -> Read<Option<String>> {
    match field(parent, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(wrong(key, "a string")),
    }
}

/// `key`'s whole number (≥ 0, fitting 64 bits, no fraction), when there is one.
fn whole(parent: &Object, key: &str) -> Read<Option<u64>> {
    field(parent, key)
        .map(|v| v.as_u64().ok_or_else(|| wrong(key, "a whole number ≥ 0")))
        .transpose()
}

/// `key`'s array, at most its first `max` items, each read by `item`.
fn list<T>(
    parent: &Object,
    key: &str,
    max: usize,
    item: fn(&Value, &str) -> Read<T>,
) -> Read<Option<Vec<T>>> {
    let Some(value) = field(parent, key) else {
        return Ok(None);
    };
    let items = value.as_array().ok_or_else(|| wrong(key, "an array"))?;
    items
        .iter()
        .take(max)
        .map(|v| item(v, key))
        .collect::<Read<Vec<T>>>()
        .map(Some)
}

/// One streamed chunk, or a whole answer.
#[derive(Debug)]
pub(crate) struct Chunk {
    /// The first candidate (citeflow asks for one; only the first is read).
    pub candidate: Option<Candidate>,
    /// `promptFeedback.blockReason`.
    pub block_reason: Option<String>,
    /// Kept as sent (the usage event's `raw`).
    pub usage_metadata: Option<Value>,
    pub response_id: Option<String>,
    pub error: Option<ErrorBody>,
}

impl Chunk {
    /// The chunk `value` holds, or why it is not one.
    pub(crate) fn read(mut value: Value) -> Read<Self> {
        let chunk = value
            .as_object_mut()
            .ok_or_else(|| wrong("the chunk", "an object"))?;
        let candidate =
            list(chunk, "candidates", 1, Candidate::read)?.and_then(|c| c.into_iter().next());
        let block_reason = match child(chunk, "promptFeedback")? {
            Some(feedback) => string(feedback, "blockReason")?,
            None => None,
        };
        let error = match child(chunk, "error")? {
            Some(e) => Some(ErrorBody {
                code: field(e, "code").cloned(),
                message: string(e, "message")?,
                status: string(e, "status")?,
            }),
            None => None,
        };
        let response_id = string(chunk, "responseId")?;
        let usage_metadata = chunk.remove("usageMetadata").filter(|v| !v.is_null());
        Ok(Self {
            candidate,
            block_reason,
            usage_metadata,
            response_id,
            error,
        })
    }
}

#[derive(Debug)]
pub(crate) struct Candidate {
    /// `content.parts`: every part of a chunk is text the answer needs, so no cap but the
    /// message's size.
    pub parts: Vec<Part>,
    pub finish_reason: Option<String>,
    pub grounding_metadata: Option<Grounding>,
}

impl Candidate {
    fn read(value: &Value, what: &str) -> Read<Self> {
        let candidate = item(value, what)?;
        let parts = match child(candidate, "content")? {
            Some(content) => list(content, "parts", usize::MAX, Part::read)?.unwrap_or_default(),
            None => Vec::new(),
        };
        Ok(Self {
            parts,
            finish_reason: string(candidate, "finishReason")?,
            grounding_metadata: child(candidate, "groundingMetadata")?
                .map(Grounding::read)
                .transpose()?,
        })
    }
}

#[derive(Debug)]
pub(crate) struct Part {
    pub text: Option<String>,
    /// A thought summary (`includeThoughts`), not the answer.
    pub thought: bool,
}

impl Part {
    fn read(value: &Value, what: &str) -> Read<Self> {
        let part = item(value, what)?;
        let thought = match field(part, "thought") {
            None => false,
            Some(v) => v
                .as_bool()
                .ok_or_else(|| wrong("thought", "true or false"))?,
        };
        Ok(Self {
            text: string(part, "text")?,
            thought,
        })
    }
}

#[derive(Debug)]
pub(crate) struct ErrorBody {
    pub code: Option<Value>,
    pub message: Option<String>,
    pub status: Option<String>,
}

/// `groundingMetadata`: what the answer rests on and which text each source supports.
#[derive(Debug, Clone, Default)]
pub(crate) struct Grounding {
    pub grounding_chunks: Vec<GroundingChunk>,
    pub grounding_supports: Vec<Support>,
}

impl Grounding {
    pub(super) fn read(grounding: &Object) -> Read<Self> {
        Ok(Self {
            grounding_chunks: list(
                grounding,
                "groundingChunks",
                MAX_ITEMS,
                GroundingChunk::read,
            )?
            .unwrap_or_default(),
            grounding_supports: list(grounding, "groundingSupports", MAX_ITEMS, Support::read)?
                .unwrap_or_default(),
        })
    }

    /// Whether it says anything (streamed chunks before the last carry `{}`).
    pub fn is_empty(&self) -> bool {
        self.grounding_chunks.is_empty() && self.grounding_supports.is_empty()
    }
}

/// One source: a web page, a retrieved document (file search, a RAG store) or a Maps place.
#[derive(Debug, Clone)]
pub(crate) struct GroundingChunk {
    pub web: Option<SourceRef>,
    pub retrieved_context: Option<SourceRef>,
    pub maps: Option<SourceRef>,
}

impl GroundingChunk {
    fn read(value: &Value, what: &str) -> Read<Self> {
        let chunk = item(value, what)?;
        let source = |key| child(chunk, key)?.map(SourceRef::read).transpose();
        Ok(Self {
            web: source("web")?,
            retrieved_context: source("retrievedContext")?,
            maps: source("maps")?,
        })
    }
}

/// The fields of a grounding chunk's kinds that citeflow shows.
#[derive(Debug, Clone, Default)]
pub(crate) struct SourceRef {
    pub uri: Option<String>,
    pub title: Option<String>,
    /// A web page's domain (`web`).
    pub domain: Option<String>,
    /// The retrieved passage or the place's answer text.
    pub text: Option<String>,
    /// A retrieved document's resource name (`retrievedContext`).
    pub document_name: Option<String>,
    /// A place's resource name (`maps`).
    pub place_id: Option<String>,
}

impl SourceRef {
    fn read(source: &Object) -> Read<Self> {
        Ok(Self {
            uri: string(source, "uri")?,
            title: string(source, "title")?,
            domain: string(source, "domain")?,
            text: string(source, "text")?,
            document_name: string(source, "documentName")?,
            place_id: string(source, "placeId")?,
        })
    }
}

/// One grounded segment of the answer and the chunks that support it.
#[derive(Debug, Clone)]
pub(crate) struct Support {
    /// The segment's UTF-8 byte offsets into the candidate's text (absent: 0, proto3's
    /// default).
    pub start_index: Option<u64>,
    pub end_index: Option<u64>,
    pub grounding_chunk_indices: Vec<u64>,
}

impl Support {
    fn read(value: &Value, what: &str) -> Read<Self> {
        let support = item(value, what)?;
        let (start_index, end_index) = match child(support, "segment")? {
            Some(segment) => (whole(segment, "startIndex")?, whole(segment, "endIndex")?),
            None => (None, None),
        };
        let index = |v: &Value, key: &str| {
            v.as_u64()
                .ok_or_else(|| wrong(key, "a list of whole numbers ≥ 0"))
        };
        Ok(Self {
            start_index,
            end_index,
            grounding_chunk_indices: list(support, "groundingChunkIndices", MAX_ITEMS, index)?
                .unwrap_or_default(),
        })
    }
}
