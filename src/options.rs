//! Option objects, two ways with the same words: the options the streaming modules read (stage
//! configs, citation options, the SSE decoder's limits) by hand ([`reader`], from JSON maps or
//! JS objects read in place); the core's other option objects as a struct deriving
//! `Deserialize` with `deny_unknown_fields` (and camelCase names with snake_case aliases where
//! both are accepted), read by [`read`], which turns serde's error into the option it is about
//! and why.
//!
//! serde's own messages for a bad value ("invalid type: string \"x\", expected a boolean")
//! do not say which key held it; [`read`] hands the struct its keys one by one and remembers
//! the last one given, so the error names it.

use std::cell::Cell;

use serde::de::value::StrDeserializer;
use serde::de::{self, DeserializeOwned, DeserializeSeed, IntoDeserializer, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::{Map, Value};

/// Why a function found in an options object is refused, wherever it is: options cross into
/// the core as data, where a function would be dropped without a word. The keys that take a
/// function (an `onEvent` listener, a `fetch`, a judge) are taken out in JS before the object
/// crosses.
#[cfg(all(target_arch = "wasm32", not(feature = "web")))]
pub(crate) const FUNCTION_REFUSED: &str = "got a function, which is not taken here";

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

/// A JSON map's entries.
pub(crate) fn entries(map: &Map<String, Value>) -> JsonEntries<'_> {
    JsonEntries {
        map,
        iter: map.iter(),
    }
}

/// Reads the entries of `source` as `T`, naming the refused key as [`read`] does.
fn read_from<'de, T: Deserialize<'de>>(
    owner: &str,
    source: JsonEntries<'de>,
) -> Result<T, OptionError> {
    let last = Cell::new(None);
    T::deserialize(Options {
        source,
        last: &last,
    })
    .map_err(|e| OptionError {
        option: last
            .take()
            .map_or_else(|| "options".to_owned(), |k: &str| k.to_owned()),
        reason: crate::text::cat(&[&e.to_string(), " (", owner, " options)"]),
    })
}

/// A named choice (an enum deriving `Deserialize`) read from its name, as [`read`] reads it:
/// one list of names for both. The error lists the names.
pub(crate) fn choice<T: DeserializeOwned>(name: &str) -> Result<T, Refusal> {
    T::deserialize(IntoDeserializer::<Refusal>::into_deserializer(name))
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
type ValueDeserializer<'de> = &'de Value;
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
type ValueError = serde_json::Error;

#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
fn value_deserializer(value: &Value) -> small_value::Val<'_> {
    small_value::Val(value)
}
#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
type ValueDeserializer<'de> = small_value::Val<'de>;
#[cfg(any(feature = "wasm-csl-module", feature = "wasm-stream-module"))]
type ValueError = Refusal;

pub(crate) mod derived;
#[cfg(all(target_arch = "wasm32", feature = "wasm-stream-module"))]
pub(crate) mod js_value;
pub(crate) mod reader;
mod refusal;
#[cfg(any(test, feature = "wasm-csl-module", feature = "wasm-stream-module"))]
mod small_value;
pub(crate) use refusal::Refusal;

/// A JSON map's entries, each value with the deserializer of [`value_deserializer`].
pub(crate) struct JsonEntries<'de> {
    /// The whole map.
    pub(crate) map: &'de Map<String, Value>,
    iter: serde_json::map::Iter<'de>,
}

impl<'de> JsonEntries<'de> {
    /// The next key and its value, for serde.
    fn next_serde(&mut self) -> Option<(&'de str, ValueDeserializer<'de>)> {
        self.iter
            .next()
            .map(|(k, v)| (k.as_str(), value_deserializer(v)))
    }
}

/// A map of options as a serde deserializer that records the key being read in `last`.
struct Options<'c, 'de> {
    source: JsonEntries<'de>,
    last: &'c Cell<Option<&'de str>>,
}

impl<'de> de::Deserializer<'de> for Options<'_, 'de> {
    type Error = ValueError;

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

struct Entries<'c, 'de> {
    source: JsonEntries<'de>,
    value: Option<ValueDeserializer<'de>>,
    last: &'c Cell<Option<&'de str>>,
}

impl<'de> MapAccess<'de> for Entries<'_, 'de> {
    type Error = ValueError;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        let Some((key, value)) = self.source.next_serde() else {
            // Past the last key: what fails now (a missing field) is about no key given.
            self.last.take();
            return Ok(None);
        };
        let read = seed.deserialize(StrDeserializer::<ValueError>::new(key));
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
        // serde's path to the reader's count rule, from either deserializer of a value.
        use super::derived::count;
        let counts = |v: Value| {
            let small = count(Val(&v)).map_err(|e| e.to_string());
            assert_eq!(small, count(&v).map_err(|e| e.to_string()), "{v}");
            small
        };
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
