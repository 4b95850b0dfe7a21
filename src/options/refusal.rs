//! [`Refusal`]: why an option's value was refused, in serde's words ("invalid type: string
//! \"x\", expected a boolean"), composed without formatting floats or `{:?}` of strings, so
//! that the modules without those (CSL, streaming) say it as the core does.

use std::fmt;

use serde::de::{self, Unexpected};

use crate::text::{cat, quoted, ticked, Decimal};

/// Why a value was refused.
#[derive(Debug)]
pub(crate) struct Refusal(String);

impl Refusal {
    /// A refusal in these words.
    pub(crate) fn new(why: String) -> Self {
        Self(why)
    }

    /// Its words.
    pub(crate) fn text(&self) -> &str {
        &self.0
    }

    /// `given` refused as not of the `expected` type, as serde words it.
    pub(crate) fn wrong_type(given: Unexpected, expected: &str) -> Self {
        Self::given("invalid type: ", given, expected)
    }

    /// `given` refused as not an `expected` value, as serde words it.
    pub(crate) fn wrong_value(given: Unexpected, expected: &str) -> Self {
        Self::given("invalid value: ", given, expected)
    }

    /// `what`, then what was given instead, as serde says it (but a float without its digits
    /// and a string quoted as JSON writes it), then what was `expected`.
    #[cold]
    #[inline(never)]
    fn given(what: &str, given: Unexpected, expected: &str) -> Self {
        let (digits, quoted_text);
        let (head, body, tail) = match given {
            Unexpected::Bool(b) => ("boolean `", if b { "true" } else { "false" }, "`"),
            Unexpected::Unsigned(n) => {
                digits = Decimal::new(n);
                ("integer `", digits.as_str(), "`")
            }
            Unexpected::Signed(n) => {
                digits = Decimal::new(n.unsigned_abs());
                let head = if n < 0 { "integer `-" } else { "integer `" };
                (head, digits.as_str(), "`")
            }
            Unexpected::Float(_) => ("a fractional or very large number", "", ""),
            Unexpected::Str(s) => {
                quoted_text = quoted(s);
                ("string ", quoted_text.as_str(), "")
            }
            Unexpected::Unit => ("null", "", ""),
            Unexpected::Seq => ("an array", "", ""),
            Unexpected::Map => ("an object", "", ""),
            Unexpected::Other(other) => (other, "", ""),
            _ => ("another kind of value", "", ""),
        };
        Self(cat(&[what, head, body, tail, ", expected ", expected]))
    }
}

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
        Self::wrong_type(unexpected, &expected.to_string())
    }

    fn invalid_value(unexpected: Unexpected, expected: &dyn de::Expected) -> Self {
        Self::wrong_value(unexpected, &expected.to_string())
    }

    /// serde's words, composed without `core::fmt` (a named choice's error in the streaming
    /// module).
    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Self(cat(&[
            "unknown variant `",
            variant,
            "`, ",
            &one_of(expected),
        ]))
    }
}

/// serde's "expected …" for a list of names: none, one, two or more.
#[cold]
#[inline(never)]
fn one_of(names: &[&str]) -> String {
    match names.len() {
        0 => "there are no variants".to_owned(),
        2 => cat(&["expected ", &ticked(names, " or ")]),
        1 => cat(&["expected ", &ticked(names, "")]),
        _ => cat(&["expected one of ", &ticked(names, ", ")]),
    }
}
