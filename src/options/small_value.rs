//! A small deserializer of one option's value, for the CSL and streaming modules (see
//! [`super::value_deserializer`]): serde's messages, composed without formatting floats.

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer, Visitor};
use serde_json::Value;

use super::Refusal;

/// One option's value (any JSON data, read by reference) as a serde deserializer.
#[derive(Clone, Copy)]
pub(crate) struct Val<'a>(pub &'a Value);

impl<'de> IntoDeserializer<'de, Refusal> for Val<'de> {
    type Deserializer = Self;

    fn into_deserializer(self) -> Self {
        self
    }
}

impl<'de> de::Deserializer<'de> for Val<'de> {
    type Error = Refusal;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(n), _) => visitor.visit_u64(n),
                (None, Some(n)) => visitor.visit_i64(n),
                // Neither integer: a float (JSON numbers are finite).
                _ => visitor.visit_f64(n.as_f64().unwrap_or_default()),
            },
            Value::String(s) => visitor.visit_borrowed_str(s),
            Value::Array(items) => {
                SeqDeserializer::new(items.iter().map(Val)).deserialize_any(visitor)
            }
            Value::Object(map) => {
                MapDeserializer::new(map.iter().map(|(k, v)| (k.as_str(), Val(v))))
                    .deserialize_any(visitor)
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    /// Enums by name (the only form options use); anything else is refused by the enum.
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        match self.0 {
            Value::String(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            _ => self.deserialize_any(visitor),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Self::Error> {
        visitor.visit_newtype_struct(self)
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        unit unit_struct seq tuple tuple_struct map struct identifier ignored_any
    }
}
