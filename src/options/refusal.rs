//! [`Refusal`]: why an option's value was refused, in serde's words ("invalid type: string
//! \"x\", expected a boolean"), composed without formatting floats or `{:?}` of strings, so
//! that the modules without those (CSL, streaming) say it as the core does.

use std::fmt;

use serde::de::{self, Unexpected};

use crate::json_escape::Quoted;

/// Why a value was refused.
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

/// What was given instead, as serde says it, but a float without its digits and a string
/// quoted as JSON writes it.
struct Given<'a>(Unexpected<'a>);

impl fmt::Display for Given<'_> {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match self.0 {
            Unexpected::Bool(b) => write!(f, "boolean `{b}`"),
            Unexpected::Unsigned(n) => write!(f, "integer `{n}`"),
            Unexpected::Signed(n) => write!(f, "integer `{n}`"),
            Unexpected::Float(_) => f.write_str("a fractional or very large number"),
            Unexpected::Str(s) => write!(f, "string {}", Quoted(s)),
            Unexpected::Unit => f.write_str("null"),
            Unexpected::Seq => f.write_str("an array"),
            Unexpected::Map => f.write_str("an object"),
            Unexpected::Other(other) => f.write_str(other),
            _ => f.write_str("another kind of value"),
        }
    }
}
