//! A small deserializer of one option's value, for the CSL and streaming modules (see
//! [`super::value_deserializer`]): serde's messages, composed without formatting floats.

use std::fmt;

use serde::de::value::{MapDeserializer, SeqDeserializer};
use serde::de::{self, IntoDeserializer, Unexpected, Visitor};
use serde_json::Value;

/// Why a value was refused: serde's message, composed here without formatting floats.
#[derive(Debug)]
pub(crate) struct Refusal(String);

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refusal {}

impl de::Error for Refusal {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Self(msg.to_string())
    }

    fn invalid_type(unexpected: Unexpected, expected: &dyn de::Expected) -> Self {
        Self(format!(
            "invalid type: {}, expected {expected}",
            Given(unexpected)
        ))
    }

    fn invalid_value(unexpected: Unexpected, expected: &dyn de::Expected) -> Self {
        Self(format!(
            "invalid value: {}, expected {expected}",
            Given(unexpected)
        ))
    }
}

/// What was given instead, as serde says it, but a float without its digits.
struct Given<'a>(Unexpected<'a>);

impl fmt::Display for Given<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.0 {
            Unexpected::Bool(b) => write!(f, "boolean `{b}`"),
            Unexpected::Unsigned(n) => write!(f, "integer `{n}`"),
            Unexpected::Signed(n) => write!(f, "integer `{n}`"),
            Unexpected::Float(_) => f.write_str("a fractional or very large number"),
            Unexpected::Str(s) => write!(f, "string {s:?}"),
            Unexpected::Unit => f.write_str("null"),
            Unexpected::Seq => f.write_str("an array"),
            Unexpected::Map => f.write_str("an object"),
            Unexpected::Other(other) => f.write_str(other),
            _ => f.write_str("another kind of value"),
        }
    }
}

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
