//! Option objects, one way: a struct deriving `Deserialize` with `deny_unknown_fields` (and
//! camelCase names with snake_case aliases where both are accepted), read by [`read`], which
//! turns serde's error into the option it is about and why.
//!
//! serde's own messages for a bad value ("invalid type: string \"x\", expected a boolean")
//! do not say which key held it; [`read`] hands the struct its keys one by one and remembers
//! the last one given, so the error names it.

use std::cell::Cell;

use serde::de::value::StrDeserializer;
use serde::de::{
    self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Unexpected, Visitor,
};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Which option was refused and why (each caller wraps it in its own coded error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct OptionError {
    pub option: String,
    pub reason: String,
}

/// Reads `map` as `T`. A key `T` does not know, or a value of the wrong type, is an error
/// naming that key; serde's message for an unknown key lists the accepted ones.
pub(crate) fn read<T: DeserializeOwned>(
    owner: &str,
    map: &Map<String, Value>,
) -> Result<T, OptionError> {
    read_from(owner, entries(map))
}

/// A JSON map's entries as a [`Source`].
pub(crate) fn entries(map: &Map<String, Value>) -> JsonEntries<'_> {
    JsonEntries {
        map,
        iter: map.iter(),
    }
}

/// Where an options object's entries come from: a JSON map ([`read`]) or, in wasm, a JS
/// object read in place ([`js_value`]). One reader, [`read_from`], for both.
pub(crate) trait Source<'de> {
    type Error: de::Error;
    type Key: AsRef<str>;
    type Value: de::Deserializer<'de, Error = Self::Error>;
    /// The next key and its value; `None` at the end.
    fn next_entry(&mut self) -> Option<(Self::Key, Self::Value)>;
    /// A value that is an options object of its own, as its entries (`None` for `null`);
    /// any other value refused, as serde refuses a value that is not a map.
    fn entries_of(value: Self::Value) -> Result<Option<Self>, Self::Error>
    where
        Self: Sized;
}

/// Reads the entries of `source` as `T`, naming the refused key as [`read`] does.
pub(crate) fn read_from<'de, T: Deserialize<'de>, S: Source<'de>>(
    owner: &str,
    source: S,
) -> Result<T, OptionError> {
    let last = Cell::new(None);
    T::deserialize(Options {
        source,
        last: &last,
    })
    .map_err(|e| OptionError {
        option: last
            .take()
            .map_or_else(|| "options".to_owned(), |k: S::Key| k.as_ref().to_owned()),
        reason: format!("{e} ({owner} options)"),
    })
}

/// [`read`] for a struct several option objects share: a key not in `takes` (lists of names
/// separated by spaces) is refused first, naming it and the keys the object takes.
#[cfg_attr(
    all(
        not(test),
        any(
            not(target_arch = "wasm32"),
            feature = "web",
            feature = "wasm-csl-module",
            feature = "wasm-stream-module"
        )
    ),
    allow(dead_code)
)]
pub(crate) fn read_taking<T: DeserializeOwned>(
    owner: &str,
    map: &Map<String, Value>,
    takes: &[&str],
) -> Result<T, OptionError> {
    let keys = takes.iter().flat_map(|l| l.split_whitespace());
    if let Some(key) = map.keys().find(|k| !keys.clone().any(|t| t == k.as_str())) {
        let all: Vec<&str> = keys.collect();
        return Err(OptionError {
            option: key.clone(),
            reason: format!("not an option of {owner}, which takes {}", all.join(", ")),
        });
    }
    read(owner, map)
}

/// A named choice (an enum deriving `Deserialize`) read from its name, as [`read`] reads it:
/// one list of names for both. The error lists the names.
pub(crate) fn choice<T: DeserializeOwned>(name: &str) -> Result<T, de::value::Error> {
    T::deserialize(name.into_deserializer())
}

/// A named choice as an option: a string read by [`choice`], `null` as absent. For
/// `#[serde(default, deserialize_with = "named")]`.
pub(crate) fn named<'de, D: de::Deserializer<'de>, T: DeserializeOwned>(
    d: D,
) -> Result<Option<T>, D::Error> {
    Option::<String>::deserialize(d)?
        .map(|name| choice(&name).map_err(de::Error::custom))
        .transpose()
}

/// A count option: a whole number from 0 to 2^32 - 1, `null` as absent. JS numbers arrive as
/// integers or as floats (`3.0`). For `#[serde(default, deserialize_with = "count")]`.
pub(crate) fn count<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    d.deserialize_option(Count)
}

struct Count;

impl<'de> Visitor<'de> for Count {
    type Value = Option<u32>;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a whole number from 0 to 4294967295")
    }

    fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: de::Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_u64<E: de::Error>(self, n: u64) -> Result<Self::Value, E> {
        u32::try_from(n)
            .map(Some)
            .map_err(|_| E::invalid_value(Unexpected::Unsigned(n), &self))
    }

    fn visit_i64<E: de::Error>(self, n: i64) -> Result<Self::Value, E> {
        u32::try_from(n)
            .map(Some)
            .map_err(|_| E::invalid_value(Unexpected::Signed(n), &self))
    }

    fn visit_f64<E: de::Error>(self, n: f64) -> Result<Self::Value, E> {
        if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) {
            // Whole and in range: the conversion is exact.
            Ok(Some(n as u32))
        } else {
            Err(E::invalid_value(Unexpected::Float(n), &self))
        }
    }
}

/// The deserializer of one option's value: [`small_value::Val`], whose errors do not format
/// floats, in the CSL and streaming modules, which have no other use for float formatting;
/// serde_json's own in the core module, which has (serde's text for an unexpected float, and so
/// serde_json's errors, bring `core::fmt`'s float formatting, ~28 KB before gzip). Measured
/// (gzip): the CSL module 151 278 -> 139 677 B with `Val`; the streaming module 159 711 ->
/// 151 761 B with `Val` and its two other paths to float formatting gone; the core module
/// 229 777 -> 234 102 B with `Val` (it formats floats elsewhere anyway), so not there.
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
fn value_deserializer(value: &Value) -> &Value {
    value
}
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
fn json_value(value: &Value) -> &Value {
    value
}
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
type ValueDeserializer<'a> = &'a Value;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
type ValueError = serde_json::Error;

#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
fn value_deserializer(value: &Value) -> small_value::Val<'_> {
    small_value::Val(value)
}
#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
fn json_value(value: small_value::Val<'_>) -> &Value {
    value.0
}
#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
type ValueDeserializer<'a> = small_value::Val<'a>;
#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
type ValueError = Refusal;

#[cfg(all(target_arch = "wasm32", feature = "wasm-stream-module"))]
pub(crate) mod js_value;
#[cfg(any(test, feature = "wasm-csl-module", feature = "wasm-stream-module"))]
mod small_value;
#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
pub(crate) use small_value::Refusal;

/// A JSON map's entries, each value with the deserializer of [`value_deserializer`].
pub(crate) struct JsonEntries<'a> {
    /// The whole map.
    pub(crate) map: &'a Map<String, Value>,
    iter: serde_json::map::Iter<'a>,
}

impl<'a> Source<'a> for JsonEntries<'a> {
    type Error = ValueError;
    type Key = &'a str;
    type Value = ValueDeserializer<'a>;

    fn next_entry(&mut self) -> Option<(&'a str, Self::Value)> {
        self.iter
            .next()
            .map(|(k, v)| (k.as_str(), value_deserializer(v)))
    }

    fn entries_of(value: Self::Value) -> Result<Option<Self>, ValueError> {
        match json_value(value) {
            Value::Object(map) => Ok(Some(entries(map))),
            Value::Null => Ok(None),
            other => Err(de::Error::invalid_type(unexpected(other), &"a map")),
        }
    }
}

/// What serde calls a JSON value that is not what was expected.
fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(n), _) => Unexpected::Unsigned(n),
            (None, Some(n)) => Unexpected::Signed(n),
            _ => Unexpected::Float(n.as_f64().unwrap_or_default()),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

/// A map of options as a serde deserializer that records the key being read in `last`.
pub(crate) struct Options<'c, 'de, S: Source<'de>> {
    pub(crate) source: S,
    pub(crate) last: &'c Cell<Option<S::Key>>,
}

impl<'de, S: Source<'de>> de::Deserializer<'de> for Options<'_, 'de, S> {
    type Error = S::Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Self::Error> {
        visitor.visit_map(Entries {
            source: self.source,
            value: None,
            last: self.last,
        })
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf
        option unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

struct Entries<'c, 'de, S: Source<'de>> {
    source: S,
    value: Option<S::Value>,
    last: &'c Cell<Option<S::Key>>,
}

impl<'de, S: Source<'de>> MapAccess<'de> for Entries<'_, 'de, S> {
    type Error = S::Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.source.next_entry() else {
            // Past the last key: what fails now (a missing field) is about no key given.
            self.last.take();
            return Ok(None);
        };
        let read = seed.deserialize(StrDeserializer::<S::Error>::new(key.as_ref()));
        self.last.set(Some(key));
        self.value = Some(value);
        read.map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(
        &mut self,
        seed: V,
    ) -> Result<V::Value, Self::Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(value),
            None => Err(de::Error::custom("a value without its key")),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::small_value::Val;
    use super::*;

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase", deny_unknown_fields)]
    struct Example {
        #[serde(default, alias = "id_prefix")]
        id_prefix: Option<String>,
        #[serde(default)]
        tags: Option<Vec<String>>,
    }

    fn example(v: Value) -> Result<Example, OptionError> {
        read("Example", v.as_object().unwrap())
    }

    /// The CSL module's value deserializer reads what serde_json's reads, and says why not
    /// without a float's digits.
    #[test]
    fn the_small_value_deserializer() {
        let v = json!({"idPrefix": "p", "tags": ["a", "b"]});
        assert_eq!(
            Example::deserialize(Val(&v)).unwrap(),
            Example::deserialize(v.clone()).unwrap()
        );
        let v = json!({"a": [1, -2, 2.5, null, true, {"b": "c"}]});
        assert_eq!(Value::deserialize(Val(&v)).unwrap(), v);
        let e = Example::deserialize(Val(&json!({"tags": [1.5]}))).unwrap_err();
        assert_eq!(
            e.to_string(),
            "invalid type: a fractional or very large number, expected a string"
        );
        let e = Example::deserialize(Val(&json!({"idPrefx": "p"}))).unwrap_err();
        assert!(e.to_string().contains("unknown field `idPrefx`"), "{e}");
        let counts = |v: Value| count(Val(&v)).map_err(|e| e.to_string());
        assert_eq!(counts(json!(3.0)), Ok(Some(3)));
        assert_eq!(counts(json!(null)), Ok(None));
        assert!(counts(json!(-1)).unwrap_err().contains("integer `-1`"));
        assert!(counts(json!("3")).unwrap_err().contains("string \"3\""));
    }

    #[test]
    fn both_spellings_null_as_absent_and_the_refused_key_named() {
        let want = Example {
            id_prefix: Some("p".into()),
            tags: None,
        };
        assert_eq!(example(json!({"idPrefix": "p"})).unwrap(), want);
        assert_eq!(
            example(json!({"id_prefix": "p", "tags": null})).unwrap(),
            want
        );
        let e = example(json!({"tags": ["a"], "idPrefx": "p"})).unwrap_err();
        assert_eq!(e.option, "idPrefx");
        assert!(
            e.reason.contains("idPrefix") && e.reason.contains("Example"),
            "{}",
            e.reason
        );
        let e = example(json!({"idPrefix": "p", "tags": [1]})).unwrap_err();
        assert_eq!(e.option, "tags");
        assert!(e.reason.contains("expected a string"), "{}", e.reason);
    }
}
