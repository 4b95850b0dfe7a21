//! A think-tag stage's `tags` option, typed: each pair a name (`"reasoning"` means
//! `<reasoning>` / `</reasoning>`), `[open, close]` or `{open, close}` of strings, read by any
//! options source (see [`crate::options`]) with one message for every shape refused.

use std::fmt;

use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::transform::TagPair;

/// The tag pairs, in order.
pub(super) struct TagList(pub Vec<TagPair>);

impl<'de> Deserialize<'de> for TagList {
    fn deserialize<D: de::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_seq(Pairs)
    }
}

struct Pairs;

impl<'de> Visitor<'de> for Pairs {
    type Value = TagList;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a list of tag pairs")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TagList, A::Error> {
        let mut pairs = Vec::new();
        while let Some(pair) = seq.next_element_seed(Pair(pairs.len()))? {
            pairs.push(pair);
        }
        Ok(TagList(pairs))
    }
}

/// The pair at this index of the list.
#[derive(Clone, Copy)]
struct Pair(usize);

impl Pair {
    /// Why the pair is refused (`why` after the shapes it may take, empty or ` (…)`).
    fn refused<E: de::Error>(self, why: &str) -> E {
        E::custom(format!(
            "tag pair {} must be a name, [open, close] or {{open, close}} of strings{why}",
            self.0
        ))
    }
}

impl<'de> DeserializeSeed<'de> for Pair {
    type Value = TagPair;

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<TagPair, D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for Pair {
    type Value = TagPair;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a name, [open, close] or {open, close} of strings")
    }

    fn visit_str<E: de::Error>(self, name: &str) -> Result<TagPair, E> {
        Ok(TagPair::xml(name))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TagPair, A::Error> {
        let mut string = || {
            seq.next_element::<String>()
                .ok()
                .flatten()
                .ok_or_else(|| self.refused(""))
        };
        let (open, close) = (string()?, string()?);
        match seq.next_element::<de::IgnoredAny>() {
            Ok(None) => Ok(TagPair::new(open, close)),
            _ => Err(self.refused("")),
        }
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TagPair, A::Error> {
        let (mut open, mut close) = (None, None);
        while let Some(key) = map.next_key::<String>()? {
            let slot = match key.as_str() {
                "open" => &mut open,
                "close" => &mut close,
                _ => {
                    return Err(self.refused(&format!(
                        " (`{key}`: unknown field `{key}`, expected `open` or `close`)"
                    )))
                }
            };
            let value = map
                .next_value::<String>()
                .map_err(|e| self.refused(&format!(" (`{key}`: {e})")))?;
            *slot = Some(value);
        }
        match (open, close) {
            (Some(open), Some(close)) => Ok(TagPair::new(open, close)),
            (None, _) => Err(self.refused(" (`open`: missing)")),
            (_, None) => Err(self.refused(" (`close`: missing)")),
        }
    }

    fn visit_bool<E: de::Error>(self, _: bool) -> Result<TagPair, E> {
        Err(self.refused(""))
    }

    fn visit_i64<E: de::Error>(self, _: i64) -> Result<TagPair, E> {
        Err(self.refused(""))
    }

    fn visit_u64<E: de::Error>(self, _: u64) -> Result<TagPair, E> {
        Err(self.refused(""))
    }

    fn visit_f64<E: de::Error>(self, _: f64) -> Result<TagPair, E> {
        Err(self.refused(""))
    }

    fn visit_unit<E: de::Error>(self) -> Result<TagPair, E> {
        Err(self.refused(""))
    }

    fn visit_none<E: de::Error>(self) -> Result<TagPair, E> {
        Err(self.refused(""))
    }
}
