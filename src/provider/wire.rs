//! Typed, borrowed shapes of provider stream messages: what [`super::stream`] reads from each
//! SSE message's `data`, without building a generic JSON tree first.
//!
//! The decoder used to parse every message into a `serde_json::Value` (an ordered map per
//! object, an allocation per string) and then look fields up; these types read the same text
//! in one pass and keep only the fields the decoder uses, borrowing strings from the message
//! when they have no escapes. They are lenient in exactly the way the lookups were:
//!
//! - every field accepts any JSON value; a value of the wrong type reads as absent (a numeric
//!   `id` is no id, as `Value::as_str` said), never as an error;
//! - a key given twice keeps its last value (as the ordered map did), and unknown keys are
//!   skipped;
//! - everything skipped is still parsed through `deserialize_any`, the path `Value` takes, so
//!   the same texts are rejected with the same messages: bad syntax, an out-of-range number,
//!   a lone surrogate escape, nesting past serde_json's depth limit. (`IgnoredAny` would skip
//!   numbers and strings without checking them, and nest without the depth limit.)
//!
//! Objects passed through to JS as they came (usage, error bodies) are kept as their JSON
//! text, checked as every value is and never built into a tree: a caller parses that text,
//! which keeps their key order and every key, `__proto__` included.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// Any JSON value, parsed (and so checked) and dropped.
pub(crate) struct Skip;

/// A JSON value read where a string, a non-negative integer or a delta's `content` is
/// expected: the string (borrowed when it has no escapes), the integer (`Value::as_u64`'s
/// case), the joined text parts of an array of content parts, or `Other` for anything else.
/// One type for all, because every reader costs the module a copy of the parser (see the note
/// on the shapes below).
#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) enum Scalar<'a> {
    #[default]
    Other,
    Str(Cow<'a, str>),
    U64(u64),
    /// An array with at least one text part: its text parts joined.
    Parts(String),
}

impl Scalar<'_> {
    /// The string, as `Value::as_str` gave it.
    pub fn str(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The integer, as `Value::as_u64` gave it.
    pub fn u64(&self) -> Option<u64> {
        match self {
            Scalar::U64(n) => Some(*n),
            _ => None,
        }
    }

    /// A delta's content: a string, or (some compatible servers) an array of content parts
    /// whose text parts are joined; `None` for anything else or an array without text parts.
    pub fn content(&self) -> Option<&str> {
        match self {
            Scalar::Str(s) => Some(s),
            Scalar::Parts(s) => Some(s),
            _ => None,
        }
    }
}

/// A nested object read only when present, boxed so that an object may hold its own kind
/// (an Anthropic `citation` inside a `delta`) and rare ones cost no room when absent.
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct Boxed<T>(pub Option<Box<T>>);

impl<T> Default for Boxed<T> {
    fn default() -> Self {
        Boxed(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Boxed<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(|t| Boxed(Some(Box::new(t))))
    }
}

/// JSON values kept as their text, read without building a tree (see
/// [`super::raw_json`]). The serde path (the hand-written reader's test oracle) has no text
/// to keep: in tests it keeps the parsed value, which is compared with the text's.
macro_rules! raw_field {
    ($($(#[$meta:meta])* $name:ident keeps $keeps:expr;)*) => {$(
        $(#[$meta])*
        #[derive(Default)]
        pub(crate) struct $name<'a> {
            pub text: Option<Cow<'a, str>>,
            #[cfg(test)]
            value: Option<Value>,
        }

        impl<'a> $name<'a> {
            /// The value's text, or none when it is not what the field keeps.
            // The update fills the test builds' `value`.
            #[allow(clippy::needless_update)]
            pub fn new(text: &'a str) -> Self {
                let keeps: fn(&str) -> bool = $keeps;
                Self {
                    text: keeps(text).then_some(Cow::Borrowed(text)),
                    ..Default::default()
                }
            }
        }

        impl<'de> Deserialize<'de> for $name<'_> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                let value = Value::deserialize(d)?;
                let text = value.to_string();
                let keeps: fn(&str) -> bool = $keeps;
                if !keeps(&text) {
                    return Ok(Self::default());
                }
                #[cfg(test)]
                return Ok(Self { text: None, value: Some(value) });
                #[cfg(not(test))]
                Ok(Self { text: Some(Cow::Owned(text)) })
            }
        }

        #[cfg(test)]
        impl $name<'_> {
            fn as_value(&self) -> Option<Result<Value, String>> {
                self.value.clone().map(Ok).or_else(|| {
                    self.text
                        .as_deref()
                        .map(|t| serde_json::from_str(t).map_err(|e| e.to_string()))
                })
            }
        }

        #[cfg(test)]
        impl PartialEq for $name<'_> {
            fn eq(&self, other: &Self) -> bool {
                self.as_value() == other.as_value()
            }
        }

        #[cfg(test)]
        impl fmt::Debug for $name<'_> {
            fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "{}({:?})", stringify!($name), self.as_value())
            }
        }
    )*};
}

raw_field! {
    /// A field kept as its JSON text whatever its type, `null` included (present ≠ absent).
    Raw keeps |_| true;
    /// A field kept as its JSON text only when it is an object (usage objects).
    RawObject keeps |text| text.starts_with('{');
}

impl<'de> Deserialize<'de> for Skip {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Skip;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_none<E: de::Error>(self) -> Result<Skip, E> {
                Ok(Skip)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Skip, A::Error> {
                while seq.next_element::<Skip>()?.is_some() {}
                Ok(Skip)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Skip, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(Skip)
            }
        }
        d.deserialize_any(V)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Scalar<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Borrowed(s)))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(s)))
            }
            // An escaped string: unescaped into the parser's scratch space, so copied.
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Scalar::Str(Cow::Owned(s.to_owned())))
            }
            // serde_json calls this for every integer without a minus sign: `as_u64`'s case.
            fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
                Ok(Scalar::U64(n))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Scalar::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut text: Option<String> = None;
                while let Some(part) = seq.next_element::<Part<'de>>()? {
                    part.join_text(&mut text);
                }
                Ok(text.map_or(Scalar::Other, Scalar::Parts))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(Scalar::Other)
            }
        }
        d.deserialize_any(V)
    }
}

/// A map key, borrowed unless it has escapes (a key is matched after unescaping, as the map
/// lookups did).
struct Key<'a>(Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Key<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an object key")
            }
            fn visit_borrowed_str<E: de::Error>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Borrowed(s)))
            }
            fn visit_str<E: de::Error>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(s.to_owned())))
            }
            fn visit_string<E: de::Error>(self, s: String) -> Result<Self::Value, E> {
                Ok(Key(Cow::Owned(s)))
            }
        }
        d.deserialize_str(V)
    }
}

/// An object read field by field: the named keys into typed fields (the last occurrence wins),
/// every other key skipped; a value that is not an object reads as all fields absent.
macro_rules! lenient_object {
    ($(#[$meta:meta])* $name:ident<$a:lifetime> { $($key:literal => $field:ident: $ty:ty,)* }) => {
        $(#[$meta])*
        #[derive(Default)]
        #[cfg_attr(test, derive(Debug, PartialEq))]
        pub(crate) struct $name<$a> {
            $(pub $field: $ty,)*
        }

        impl<'de: $a, $a> Deserialize<'de> for $name<$a> {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                struct V;
                impl<'de> Visitor<'de> for V {
                    type Value = $name<'de>;
                    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                        f.write_str("any JSON value")
                    }
                    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                        let mut out = $name::default();
                        while let Some(key) = map.next_key::<Key<'de>>()? {
                            match &*key.0 {
                                $($key => out.$field = map.next_value()?,)*
                                _ => {
                                    map.next_value::<Skip>()?;
                                }
                            }
                        }
                        Ok(out)
                    }
                    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                        Ok($name::default())
                    }
                    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                        Ok($name::default())
                    }
                    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                        Ok($name::default())
                    }
                    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                        Ok($name::default())
                    }
                    fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                        Ok($name::default())
                    }
                    fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                        Ok($name::default())
                    }
                    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                        Ok($name::default())
                    }
                    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                        while seq.next_element::<Skip>()?.is_some() {}
                        Ok($name::default())
                    }
                }
                d.deserialize_any(V)
            }
        }
    };
}

// Two shapes for both wire formats. Every reader type costs the core module its own copy
// of serde_json's parser (about 1 KB gzip each; the module has a size budget), so where the
// formats overlap they share one, and a field a given object never carries costs nothing but
// its room: an absent key is never read, and an unknown one is skipped.

lenient_object! {
    /// One stream message: an OpenAI-style chunk (`id`, `choices`, `usage`) or an Anthropic
    /// event (`type`, `index`, `message`, `content_block`, `delta`, `usage`); `error` in both.
    /// Also one of a chunk's `choices` (`index`, `delta`, `finish_reason`).
    Message<'a> {
        "id" => id: Scalar<'a>,
        "choices" => choices: Choices<'a>,
        "type" => kind: Scalar<'a>,
        "index" => index: Scalar<'a>,
        "finish_reason" => finish_reason: Scalar<'a>,
        "message" => message: Boxed<Part<'a>>,
        "content_block" => content_block: Boxed<Part<'a>>,
        "delta" => delta: Boxed<Part<'a>>,
        "usage" => usage: RawObject<'a>,
        "error" => error: Raw<'a>,
    }
}

lenient_object! {
    /// Any object inside a message: OpenAI's `delta` (`content`, `reasoning_content`,
    /// `reasoning`) and content parts (`type`, `text`); Anthropic's `message` (`id`, `usage`),
    /// `content_block` (`type`, `text`), `delta` (`type`, `text`, `thinking`, `citation`,
    /// `stop_reason`) and citation (`document_index`, `cited_text`, the span, the title).
    Part<'a> {
        "content" => content: Scalar<'a>,
        "reasoning_content" => reasoning_content: Scalar<'a>,
        "reasoning" => reasoning: Scalar<'a>,
        "id" => id: Scalar<'a>,
        "type" => kind: Scalar<'a>,
        "text" => text: Scalar<'a>,
        "thinking" => thinking: Scalar<'a>,
        "stop_reason" => stop_reason: Scalar<'a>,
        "usage" => usage: RawObject<'a>,
        "citation" => citation: Boxed<CitationPart<'a>>,
        "partial_json" => partial_json: Scalar<'a>,
        "annotations" => annotations: List<CitationPart<'a>>,
    }
}

lenient_object! {
    /// A provider's own citation, kept apart from [`Part`] so the parts every token carries
    /// stay small (they are moved several times per message). Anthropic's (`citations_delta`,
    /// a text block's `citations`): `type`, the source (`document_index`,
    /// `search_result_index`, `url`), `cited_text`, the span in the source (characters, pages
    /// or content blocks) and the title. OpenAI's annotation (`type: "url_citation"`) and its
    /// `url_citation` (`start_index`, `end_index` in the answer, `url`, `title`) too.
    CitationPart<'a> {
        "type" => kind: Scalar<'a>,
        "document_index" => document_index: Scalar<'a>,
        "search_result_index" => search_result_index: Scalar<'a>,
        "cited_text" => cited_text: Scalar<'a>,
        "start_char_index" => start_char_index: Scalar<'a>,
        "end_char_index" => end_char_index: Scalar<'a>,
        "start_page_number" => start_page_number: Scalar<'a>,
        "end_page_number" => end_page_number: Scalar<'a>,
        "start_block_index" => start_block_index: Scalar<'a>,
        "end_block_index" => end_block_index: Scalar<'a>,
        "document_title" => document_title: Scalar<'a>,
        "title" => title: Scalar<'a>,
        "url" => url: Scalar<'a>,
        "source" => source: Scalar<'a>,
        "start_index" => start_index: Scalar<'a>,
        "end_index" => end_index: Scalar<'a>,
        "url_citation" => url_citation: Boxed<CitationPart<'a>>,
    }
}

impl Part<'_> {
    /// A content part's text appended to `text`, when the part is a text part: its `type` is
    /// `text` or `output_text`, or not a string (such a part counts as text, as it always did).
    pub(crate) fn join_text(&self, text: &mut Option<String>) {
        let is_text = self
            .kind
            .str()
            .is_none_or(|t| t == "text" || t == "output_text");
        if let (true, Some(t)) = (is_text, self.text.str()) {
            text.get_or_insert_with(String::new).push_str(t);
        }
    }
}

/// The most items a [`List`] keeps (annotations of one delta or message).
pub(crate) const MAX_LIST_ITEMS: usize = 1024;

/// An array of objects read leniently: anything else reads as empty; items past
/// [`MAX_LIST_ITEMS`] are checked and dropped.
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) struct List<T>(pub Vec<T>);

impl<T> Default for List<T> {
    fn default() -> Self {
        List(Vec::new())
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for List<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for V<T> {
            type Value = List<T>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut items = Vec::new();
                while items.len() < MAX_LIST_ITEMS {
                    match seq.next_element::<T>()? {
                        Some(item) => items.push(item),
                        None => return Ok(List(items)),
                    }
                }
                while seq.next_element::<Skip>()?.is_some() {}
                Ok(List(items))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(List::default())
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(List::default())
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(List::default())
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A chunk's `choices`: absent or `null`, an array (of which only the first choice with
/// index 0, or with no integer index, is kept), or anything else (an error).
#[derive(Default)]
#[cfg_attr(test, derive(Debug, PartialEq))]
pub(crate) enum Choices<'a> {
    #[default]
    Absent,
    Array(Option<Box<Message<'a>>>),
    NotArray,
}

impl<'de: 'a, 'a> Deserialize<'de> for Choices<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Choices<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Choices::Absent)
            }
            fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Choices::Absent)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut first = None;
                loop {
                    if first.is_some() {
                        if seq.next_element::<Skip>()?.is_none() {
                            break;
                        }
                    } else {
                        match seq.next_element::<Message<'de>>()? {
                            None => break,
                            // Not a u64 (missing, negative, fractional, a string…) counts as 0.
                            Some(c) if c.index.u64().unwrap_or(0) == 0 => first = Some(Box::new(c)),
                            Some(_) => {}
                        }
                    }
                }
                Ok(Choices::Array(first))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Choices::NotArray)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Choices::NotArray)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Choices::NotArray)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Choices::NotArray)
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(Choices::NotArray)
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                while map.next_entry::<Skip, Skip>()?.is_some() {}
                Ok(Choices::NotArray)
            }
        }
        d.deserialize_any(V)
    }
}
