//! Options read straight from JS values, for the streaming modules: a `JsValue` ([`JsVal`])
//! and an object's entries ([`Entries`]) as a source of the options reader
//! ([`super::reader`]), so that option objects reach the typed options with no JSON copy on
//! the way.
//!
//! What is read follows JSON's rules, as the JSON copy did: `toJSON` is honoured; an object's
//! keys are `Object.keys` in order, and a key whose value is `undefined` or a symbol is left
//! out; in an array (and as a whole value) those read as `null`. A number reads as an
//! integer when it is whole and within ±2^53, else as a float. What JSON cannot hold is
//! refused with an error worded as [`Refusal`] words the others: a `BigInt`, `NaN` and the
//! infinities, nesting deeper than [`MAX_DEPTH`], arrays longer than [`MAX_ITEMS`]. A function,
//! at any depth, is refused too ([`FUNCTION_REFUSED`]): JSON would drop it, and an option
//! dropped without a word is a listener never called or a limit never applied. Every JS
//! operation that can run the caller's code (getters, `Proxy` traps) is an import marked
//! `catch`: an exception becomes an error (its value kept for [`with_cause`]), never an unwind
//! through wasm frames.

use std::cell::Cell;

use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use super::reader::{refused, Entry, OptionEntries, OptionValue, Read};
use super::{OptionError, Refusal, FUNCTION_REFUSED};
use crate::text::{cat, decimal, Decimal};

/// How deeply a value may nest (objects and arrays) before it is refused.
pub(crate) const MAX_DEPTH: usize = 128;
/// How many items one array may hold.
pub(crate) const MAX_ITEMS: u32 = 1 << 22;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn js_is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn js_keys(value: &JsValue) -> Result<Array, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = get)]
    fn js_get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = apply)]
    fn js_apply(f: &JsValue, this: &JsValue, args: &Array) -> Result<JsValue, JsValue>;
    // Typed as src/wasm/errors.rs types it (one import signature for both).
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = set)]
    fn js_set(target: &JsValue, key: &JsValue, value: &JsValue) -> Result<JsValue, JsValue>;
}

thread_local! {
    /// The exception the latest read caught (the caller's getter or trap threw it).
    static THROWN: Cell<Option<JsValue>> = const { Cell::new(None) };
}

fn threw(exception: JsValue) -> Refusal {
    THROWN.with(|t| t.set(Some(exception)));
    Refusal::new("threw an exception when read (see `cause`)".to_owned())
}

/// Forgets any exception caught before: each reader of a whole value starts with it.
pub(crate) fn forget_thrown() {
    THROWN.with(Cell::take);
}

/// `error` with the exception the latest read caught as its `cause`, if one did.
pub(crate) fn with_cause(error: JsValue) -> JsValue {
    if let Some(cause) = THROWN.with(Cell::take) {
        let _ = js_set(&error, &JsValue::from_str("cause"), &cause);
    }
    error
}

/// Sets `key` of an object this module made (nothing of the caller's runs).
pub(crate) fn set(target: &JsValue, key: &str, value: &JsValue) {
    let _ = js_set(target, &JsValue::from_str(key), value);
}

/// An array index as the property key it is (`"0"`, `"1"`, …): see src/wasm/convert.rs.
fn index_key(i: u32) -> JsValue {
    JsValue::from_str(Decimal::new(u64::from(i)).as_str())
}

/// Whether `value` is an object and not an array (`Array.isArray` can throw: a revoked `Proxy`).
pub(crate) fn is_plain_object(value: &JsValue) -> Result<bool, Refusal> {
    Ok(value.is_object() && !js_is_array(value).map_err(threw)?)
}

thread_local! {
    /// Property names read again and again, made JS strings once.
    static TO_JSON: JsValue = JsValue::from_str("toJSON");
    static LENGTH: JsValue = JsValue::from_str("length");
}

/// The value JSON reads for `value`: what its `toJSON` gives, when it is an object that has
/// one (a `Date` gives its ISO string), else the value itself.
pub(crate) fn json_form(value: JsValue) -> Result<JsValue, Refusal> {
    if !value.is_object() {
        return Ok(value);
    }
    let to_json = TO_JSON.with(|name| js_get(&value, name)).map_err(threw)?;
    if !to_json.is_function() {
        return Ok(value);
    }
    js_apply(&to_json, &value, &Array::of1(&JsValue::from_str(""))).map_err(threw)
}

/// What JSON leaves out of an object (and reads as `null` elsewhere); functions are refused
/// (see the module's note).
fn left_out(value: &JsValue) -> bool {
    value.is_undefined() || value.is_symbol()
}

fn function_refused() -> Refusal {
    Refusal::new(FUNCTION_REFUSED.to_owned())
}

/// What kind of value this is, for messages ("a string", "an object", …); what JSON leaves
/// out reads as `null`.
pub(crate) fn kind_of(value: &JsValue) -> &'static str {
    if value.as_string().is_some() {
        "a string"
    } else if value.as_f64().is_some() || value.is_bigint() {
        "a number"
    } else if value.as_bool().is_some() {
        "a boolean"
    } else if !value.is_object() {
        "null"
    } else if js_is_array(value).unwrap_or(false) {
        "an array"
    } else {
        "an object"
    }
}

/// The items of a JS array: its length read once (at most [`MAX_ITEMS`]), then each item.
pub(crate) struct Items {
    array: JsValue,
    length: u32,
    next: u32,
    depth: usize,
}

impl Items {
    /// The items of `array` (a value `Array.isArray` said yes to), for values `depth` deep.
    pub(crate) fn of(array: JsValue, depth: usize) -> Result<Self, Refusal> {
        let length = LENGTH
            .with(|name| js_get(&array, name))
            .map_err(threw)?
            .as_f64()
            .unwrap_or(0.0);
        if length > f64::from(MAX_ITEMS) {
            return Err(Refusal::new(cat(&[
                "holds more than ",
                Decimal::new(u64::from(MAX_ITEMS)).as_str(),
                " items",
            ])));
        }
        Ok(Self {
            array,
            // In range after the check above; a negative or fractional length reads as none.
            length: length.max(0.0) as u32,
            next: 0,
            depth,
        })
    }

    /// The next item, `None` past the last.
    pub(crate) fn next_item(&mut self) -> Option<Result<JsVal, Refusal>> {
        if self.next >= self.length {
            return None;
        }
        let i = self.next;
        self.next += 1;
        Some(
            js_get(&self.array, &index_key(i))
                .map(|value| JsVal::at(value, self.depth))
                .map_err(threw),
        )
    }
}

impl Iterator for Items {
    type Item = Result<JsVal, Refusal>;

    fn next(&mut self) -> Option<Self::Item> {
        self.next_item()
    }
}

/// An object's entries (`Object.keys` in order, values JSON leaves out skipped); each entry
/// read is also set on `kept`, when given, except the key `leave_out`: the object as read.
pub(crate) struct Entries {
    object: JsValue,
    keys: Option<Array>,
    next: u32,
    depth: usize,
    kept: Option<(Object, &'static str)>,
}

impl Entries {
    /// The entries of `object` (any object), for values `depth` deep.
    fn of(object: JsValue, depth: usize) -> Result<Self, Refusal> {
        let keys = js_keys(&object).map_err(threw)?;
        Ok(Self {
            object,
            keys: Some(keys),
            next: 0,
            depth,
            kept: None,
        })
    }

    /// No entries.
    pub(crate) fn none() -> Self {
        Self {
            object: JsValue::NULL,
            keys: None,
            next: 0,
            depth: 0,
            kept: None,
        }
    }

    /// The entries of a plain object (one [`is_plain_object`] said yes to, `toJSON` applied).
    pub(crate) fn object(value: JsValue) -> Result<Self, Refusal> {
        Self::of(value, 0)
    }

    /// An options object's entries: `undefined`, `null` (and what JSON leaves out) are no
    /// options; an array, a function or a primitive is refused ("`owner` options must be an
    /// object").
    pub(crate) fn options(owner: &str, value: &JsValue) -> Result<Self, OptionError> {
        forget_thrown();
        let read = |e: Refusal| refused(owner, "options", e);
        let value = json_form(value.clone()).map_err(read)?;
        if value.is_null() || left_out(&value) {
            return Ok(Self::none());
        }
        if !is_plain_object(&value).map_err(read)? {
            return Err(OptionError {
                option: "options".to_owned(),
                reason: cat(&[owner, " options must be an object"]),
            });
        }
        Self::object(value).map_err(read)
    }

    /// The same entries, each one read also set on `kept` (but `leave_out`).
    pub(crate) fn keeping(mut self, kept: Object, leave_out: &'static str) -> Self {
        self.kept = Some((kept, leave_out));
        self
    }
}

impl OptionEntries for Entries {
    type Key = String;
    type Value = JsVal;

    fn next_entry(&mut self) -> Option<Entry<Self>> {
        let keys = self.keys.as_ref()?;
        loop {
            if self.next >= keys.length() {
                return None;
            }
            let i = self.next;
            self.next += 1;
            // Object.keys gives a fresh array of strings: reading it runs nothing.
            let Ok(key_js) = js_get(keys, &index_key(i)) else {
                continue;
            };
            let Some(key) = key_js.as_string() else {
                continue;
            };
            let value = match js_get(&self.object, &key_js) {
                Ok(value) => value,
                Err(e) => return Some((key, Err(threw(e)))),
            };
            if left_out(&value) {
                continue;
            }
            if value.is_function() {
                return Some((key, Err(function_refused())));
            }
            if let Some((kept, leave_out)) = &self.kept {
                if key != *leave_out {
                    let _ = js_set(kept, &key_js, &value);
                }
            }
            return Some((key, Ok(JsVal::at(value, self.depth + 1))));
        }
    }
}

/// One JS value, read as [`super::reader`] reads values (see the module's note for what it
/// reads how).
pub(crate) struct JsVal {
    value: JsValue,
    depth: usize,
}

impl JsVal {
    fn at(value: JsValue, depth: usize) -> Self {
        Self { value, depth }
    }

    /// The value itself.
    pub(crate) fn into_inner(self) -> JsValue {
        self.value
    }
}

impl OptionValue for JsVal {
    type Items = Items;
    type Entries = Entries;

    fn read(self) -> Result<Read<Self>, Refusal> {
        /// 2^53: every whole `f64` within ± this converts to an integer exactly.
        const EXACT: f64 = 9_007_199_254_740_992.0;
        let value = json_form(self.value)?;
        if let Some(s) = value.as_string() {
            return Ok(Read::Str(s));
        }
        if let Some(n) = value.as_f64() {
            // Integers as integers (as serde_json reads them), other finite numbers as floats.
            return if !n.is_finite() {
                Err(Refusal::new("is not a finite number".to_owned()))
            } else if n.fract() != 0.0 || n.abs() > EXACT {
                Ok(Read::Float(n))
            } else if n >= 0.0 {
                Ok(Read::Unsigned(n as u64))
            } else {
                Ok(Read::Signed(n as i64))
            };
        }
        if let Some(b) = value.as_bool() {
            return Ok(Read::Bool(b));
        }
        if value.is_bigint() {
            return Err(Refusal::new("is a BigInt; use a number".to_owned()));
        }
        if value.is_function() {
            return Err(function_refused());
        }
        if !value.is_object() {
            return Ok(Read::Null);
        }
        if self.depth >= MAX_DEPTH {
            return Err(Refusal::new(cat(&[
                "is nested more than ",
                decimal(MAX_DEPTH).as_str(),
                " levels deep",
            ])));
        }
        if js_is_array(&value).map_err(threw)? {
            return Ok(Read::List(Items::of(value, self.depth + 1)?));
        }
        Ok(Read::Map(Entries::of(value, self.depth)?))
    }
}

/// The items of `value` when it is an array (`Array.isArray`); `None` when it is not.
pub(crate) fn array_items(value: &JsValue) -> Option<Result<Items, Refusal>> {
    forget_thrown();
    match js_is_array(value) {
        Ok(true) => Some(Items::of(value.clone(), 1)),
        Ok(false) => None,
        Err(e) => Some(Err(threw(e))),
    }
}
