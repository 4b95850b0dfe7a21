//! The typed options reader, by hand: an options object's entries looked up in a key table
//! ([`fields`]) and each value read as what it must be ([`string`], [`boolean`], [`count`],
//! [`choice`], [`strings`], …), from either source of values: a JSON map (the core) or a JS
//! object read in place ([`super::js_value`], the streaming modules).
//!
//! What it says follows serde's words (see [`Refusal`]), so that options read here and those
//! still read by serde's derive (src/options.rs) are refused alike. It exists because serde's
//! derived readers, one per options struct and per source, were the largest part of the
//! streaming module after provider decoding (about 40 KB before gzip).

use serde::de::{self, Unexpected};
use serde_json::Value;

use super::{JsonEntries, OptionError, Refusal};
use crate::text::{cat, ticked};

/// One value, told apart once.
pub(crate) enum Read<V: OptionValue> {
    /// `null` (and, from JS, what JSON reads as `null`).
    Null,
    Bool(bool),
    /// A whole number from 0 to 2^64 - 1.
    Unsigned(u64),
    /// A negative whole number.
    Signed(i64),
    /// Any other finite number.
    Float(f64),
    Str(String),
    List(V::Items),
    Map(V::Entries),
}

/// A value of an options object (or of one of its lists or objects).
pub(crate) trait OptionValue: Sized {
    type Items: Iterator<Item = Result<Self, Refusal>>;
    type Entries: OptionEntries<Value = Self>;
    /// What the value is (or why it cannot be read: a getter threw, a `BigInt`, …).
    fn read(self) -> Result<Read<Self>, Refusal>;
}

/// An options object's entries, in order.
pub(crate) trait OptionEntries: Sized {
    type Key: AsRef<str>;
    type Value: OptionValue<Entries = Self>;
    /// The next key and its value (or why the value cannot be read); `None` at the end.
    fn next_entry(&mut self) -> Option<Entry<Self>>;
}

/// A key and its value (or why the value cannot be read).
pub(crate) type Entry<E> = (
    <E as OptionEntries>::Key,
    Result<<E as OptionEntries>::Value, Refusal>,
);

/// What serde calls a value that is not what was expected.
#[inline(never)]
fn unexpected<V: OptionValue>(read: &Read<V>) -> Unexpected<'_> {
    match read {
        Read::Null => Unexpected::Unit,
        Read::Bool(b) => Unexpected::Bool(*b),
        Read::Unsigned(n) => Unexpected::Unsigned(*n),
        Read::Signed(n) => Unexpected::Signed(*n),
        Read::Float(n) => Unexpected::Float(*n),
        Read::Str(s) => Unexpected::Str(s),
        Read::List(_) => Unexpected::Seq,
        Read::Map(_) => Unexpected::Map,
    }
}

/// `read` refused as not `expected`.
#[inline(never)]
pub(crate) fn wrong_type<V: OptionValue>(read: &Read<V>, expected: &str) -> Refusal {
    Refusal::wrong_type(unexpected(read), expected)
}

/// A value that must be a string.
#[inline(never)]
pub(crate) fn string<V: OptionValue>(read: Read<V>) -> Result<String, Refusal> {
    match read {
        Read::Str(s) => Ok(s),
        other => Err(wrong_type(&other, "a string")),
    }
}

/// A value that must be `true` or `false`.
#[inline(never)]
pub(crate) fn boolean<V: OptionValue>(read: Read<V>) -> Result<bool, Refusal> {
    match read {
        Read::Bool(b) => Ok(b),
        other => Err(wrong_type(&other, "a boolean")),
    }
}

/// A count: a whole number from 0 to 2^32 - 1 (JS numbers may arrive as floats, `3.0`).
pub(crate) fn count<V: OptionValue>(read: Read<V>) -> Result<u32, Refusal> {
    whole_from(read, 0, "a whole number from 0 to 4294967295")
}

/// A whole number from `min` to 2^32 - 1 (JS numbers may arrive as floats, `3.0`), refused as
/// not `expected` (which says so).
#[inline(never)]
pub(crate) fn whole_from<V: OptionValue>(
    read: Read<V>,
    min: u32,
    expected: &'static str,
) -> Result<u32, Refusal> {
    let n = match read {
        Read::Unsigned(n) => u32::try_from(n).ok(),
        Read::Signed(_) => None,
        Read::Float(n) if n.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&n) => {
            // Whole and in range: the conversion is exact.
            Some(n as u32)
        }
        Read::Float(_) => None,
        ref other => return Err(wrong_type(other, expected)),
    };
    n.filter(|&n| n >= min)
        .ok_or_else(|| Refusal::wrong_value(unexpected(&read), expected))
}

/// A named choice (an enum deriving `Deserialize` by name): a string, read by
/// [`super::choice`], whose error lists the names.
#[inline(never)]
pub(crate) fn choice<V: OptionValue, T: de::DeserializeOwned>(read: Read<V>) -> Result<T, Refusal> {
    super::choice(&string(read)?)
}

/// A list of strings.
#[inline(never)]
pub(crate) fn strings<V: OptionValue>(read: Read<V>) -> Result<Vec<String>, Refusal> {
    let Read::List(items) = read else {
        return Err(wrong_type(&read, "a sequence"));
    };
    let mut strings = Vec::new();
    for item in items {
        strings.push(string(item?.read()?)?);
    }
    Ok(strings)
}

/// A value that is an object of its own, as its entries; `None` for `null`.
#[inline(never)]
pub(crate) fn object<V: OptionValue>(read: Read<V>) -> Result<Option<V::Entries>, Refusal> {
    match read {
        Read::Map(entries) => Ok(Some(entries)),
        Read::Null => Ok(None),
        other => Err(wrong_type(&other, "a map")),
    }
}

/// An option's value read by `typed`, `None` when it is `null` (not given). (From JS,
/// `undefined` never gets here: an object's entries leave it out.)
pub(crate) fn optional<V: OptionValue, T>(
    read: Read<V>,
    typed: impl FnOnce(Read<V>) -> Result<T, Refusal>,
) -> Result<Option<T>, Refusal> {
    match read {
        Read::Null => Ok(None),
        read => typed(read).map(Some),
    }
}

/// The keys an options object takes: each name (a camelCase name and, where both are taken,
/// its snake_case spelling) with the slot it fills. The first name of a slot is the one
/// messages use.
pub(crate) type Keys = [(&'static str, u8)];

/// Reads the options object `entries` of `owner` by its key table: each value goes to
/// `fill(slot, value)`, `null` ones too (each reader says what `null` means). A key not in
/// `keys`, a slot given twice (in either spelling) or a value `fill` refuses is an error naming
/// the key as given; its reason ends with ` (owner options)`.
pub(crate) fn fields<E: OptionEntries>(
    owner: &str,
    entries: E,
    keys: &Keys,
    mut fill: impl FnMut(u8, Read<E::Value>) -> Result<(), Refusal>,
) -> Result<(), OptionError> {
    entries_by_slot(owner, entries, keys, &mut fill)
}

/// [`fields`]' loop, one copy per source of values (not one per options object's `fill`).
#[inline(never)]
fn entries_by_slot<E: OptionEntries>(
    owner: &str,
    mut entries: E,
    keys: &Keys,
    fill: &mut dyn FnMut(u8, Read<E::Value>) -> Result<(), Refusal>,
) -> Result<(), OptionError> {
    let mut given = 0u64;
    while let Some((key, value)) = entries.next_entry() {
        let name = key.as_ref();
        let read = slot(name, keys, &mut given).and_then(|slot| {
            value
                .and_then(OptionValue::read)
                .and_then(|read| fill(slot, read))
        });
        read.map_err(|e| refused(owner, name, e))?;
    }
    Ok(())
}

/// The slot of key `name`, marked `given`: an unknown key and a slot given before refused.
#[inline(never)]
fn slot(name: &str, keys: &Keys, given: &mut u64) -> Result<u8, Refusal> {
    match keys.iter().find(|(k, _)| *k == name) {
        None => Err(unknown_field(name, keys)),
        Some(&(_, slot)) if *given & (1 << slot) != 0 => Err(Refusal::new(cat(&[
            "duplicate field `",
            first_name(keys, slot),
            "`",
        ]))),
        Some(&(_, slot)) => {
            *given |= 1 << slot;
            Ok(slot)
        }
    }
}

/// The key `name` of `owner`'s options refused.
#[inline(never)]
pub(crate) fn refused(owner: &str, name: &str, e: Refusal) -> OptionError {
    OptionError {
        option: name.to_owned(),
        reason: cat(&[e.text(), " (", owner, " options)"]),
    }
}

/// The name messages use for `slot`.
#[inline(never)]
fn first_name(keys: &Keys, slot: u8) -> &'static str {
    keys.iter()
        .find(|(_, s)| *s == slot)
        .map_or("", |(name, _)| name)
}

/// A key the object does not take, and the keys it does.
#[inline(never)]
fn unknown_field(name: &str, keys: &Keys) -> Refusal {
    if keys.is_empty() {
        return Refusal::new("takes no options".to_owned());
    }
    let names: Vec<&str> = keys.iter().map(|(key, _)| *key).collect();
    Refusal::new(cat(&[
        "unknown field `",
        name,
        "`, expected one of ",
        &ticked(&names, ", "),
    ]))
}

/// JSON values, read by reference.
impl<'a> OptionValue for &'a Value {
    type Items = JsonItems<'a>;
    type Entries = JsonEntries<'a>;

    fn read(self) -> Result<Read<Self>, Refusal> {
        Ok(match self {
            Value::Null => Read::Null,
            Value::Bool(b) => Read::Bool(*b),
            Value::Number(n) => match (n.as_u64(), n.as_i64()) {
                (Some(n), _) => Read::Unsigned(n),
                (None, Some(n)) => Read::Signed(n),
                // Neither integer: a float (JSON numbers are finite).
                _ => Read::Float(n.as_f64().unwrap_or_default()),
            },
            Value::String(s) => Read::Str(s.clone()),
            Value::Array(items) => Read::List(JsonItems(items.iter())),
            Value::Object(map) => Read::Map(super::entries(map)),
        })
    }
}

/// A JSON list's items.
pub(crate) struct JsonItems<'a>(std::slice::Iter<'a, Value>);

impl<'a> Iterator for JsonItems<'a> {
    type Item = Result<&'a Value, Refusal>;

    fn next(&mut self) -> Option<Self::Item> {
        self.0.next().map(Ok)
    }
}

impl<'a> OptionEntries for JsonEntries<'a> {
    type Key = &'a str;
    type Value = &'a Value;

    fn next_entry(&mut self) -> Option<Entry<Self>> {
        self.iter.next().map(|(k, v)| (k.as_str(), Ok(v)))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    const KEYS: &Keys = &[("idPrefix", 0), ("id_prefix", 0), ("count", 1)];

    /// Reads `{idPrefix?, count?}` from `v`.
    fn read(v: Value) -> Result<(Option<String>, Option<u32>), OptionError> {
        let (mut prefix, mut n) = (None, None);
        fields(
            "Example",
            crate::options::entries(v.as_object().unwrap()),
            KEYS,
            |slot, read| {
                match slot {
                    0 => prefix = optional(read, string)?,
                    _ => n = optional(read, count)?,
                }
                Ok(())
            },
        )?;
        Ok((prefix, n))
    }

    fn refused(v: Value) -> (String, String) {
        let e = read(v).unwrap_err();
        (e.option, e.reason)
    }

    #[test]
    fn either_spelling_null_as_absent() {
        assert_eq!(
            read(json!({"idPrefix": "p", "count": 3.0})).unwrap(),
            (Some("p".into()), Some(3))
        );
        assert_eq!(
            read(json!({"id_prefix": "p", "count": null})).unwrap(),
            (Some("p".into()), None)
        );
        assert_eq!(read(json!({})).unwrap(), (None, None));
    }

    #[test]
    fn the_refused_key_is_named_as_given_and_why_in_serdes_words() {
        let (option, reason) = refused(json!({"count": 1, "idPrefx": "p"}));
        assert_eq!(option, "idPrefx");
        assert_eq!(
            reason,
            "unknown field `idPrefx`, expected one of `idPrefix`, `id_prefix`, `count` (Example options)"
        );
        // A slot given twice, in either spelling (null counts as given, as serde's derive has it).
        let (option, reason) = refused(json!({"idPrefix": null, "id_prefix": "b"}));
        assert_eq!(option, "id_prefix");
        assert!(reason.starts_with("duplicate field `idPrefix`"), "{reason}");
        let (option, reason) = refused(json!({"idPrefix": 2.5}));
        assert_eq!(option, "idPrefix");
        assert_eq!(
            reason,
            "invalid type: a fractional or very large number, expected a string (Example options)"
        );
        let (_, reason) = refused(json!({"idPrefix": "p", "count": "3\n"}));
        assert!(
            reason.starts_with(r#"invalid type: string "3\n", expected a whole number"#),
            "{reason}"
        );
        for (n, why) in [
            (json!(-1), "invalid value: integer `-1`"),
            (
                json!(4_294_967_296u64),
                "invalid value: integer `4294967296`",
            ),
            (
                json!(1.5),
                "invalid value: a fractional or very large number",
            ),
            (json!(true), "invalid type: boolean `true`"),
            (json!([1]), "invalid type: an array"),
        ] {
            let (option, reason) = refused(json!({ "count": n }));
            assert_eq!(option, "count");
            assert!(reason.starts_with(why), "{n}: {reason}");
        }
    }

    #[test]
    fn an_object_that_takes_no_options() {
        let e = fields(
            "Nothing",
            crate::options::entries(json!({"x": 1}).as_object().unwrap()),
            &[],
            |_, _| Ok(()),
        );
        let e = e.unwrap_err();
        assert_eq!(
            (e.option.as_str(), e.reason.as_str()),
            ("x", "takes no options (Nothing options)")
        );
    }

    #[test]
    fn lists_objects_and_choices() {
        let v = json!(["a", "b"]);
        assert_eq!(strings(v.read().unwrap()).unwrap(), ["a", "b"]);
        let v = json!(["a", 1]);
        assert!(strings(v.read().unwrap())
            .unwrap_err()
            .to_string()
            .contains("integer `1`, expected a string"));
        let v = json!("a");
        assert!(strings(v.read().unwrap())
            .unwrap_err()
            .to_string()
            .contains("expected a sequence"));
        assert!(object(json!(null).read().unwrap()).unwrap().is_none());
        assert!(object(json!({}).read().unwrap()).unwrap().is_some());
        assert!(object(json!(3).read().unwrap()).is_err());
        let style: crate::cite::MarkerStyle = choice(json!("paren").read().unwrap()).unwrap();
        assert_eq!(style, crate::cite::MarkerStyle::Paren);
        let e = choice::<_, crate::cite::MarkerStyle>(json!("angle").read().unwrap()).unwrap_err();
        assert!(e.to_string().contains("bracket"), "{e}");
        let limit = |v: Value| whole_from(v.read().unwrap(), 1, "a whole number from 1");
        assert_eq!(limit(json!(1)).unwrap(), 1);
        assert_eq!(limit(json!(4_294_967_295.0)).unwrap(), u32::MAX);
        for v in [json!(0), json!(-2), json!(1.5), json!(4_294_967_296_u64)] {
            let e = limit(v.clone()).unwrap_err().to_string();
            assert!(
                e.contains("invalid value") && e.ends_with("expected a whole number from 1"),
                "{v}: {e}"
            );
        }
        assert!(limit(json!("3"))
            .unwrap_err()
            .to_string()
            .contains("invalid type"));
        assert!(boolean(json!(0).read().unwrap()).is_err());
    }
}
