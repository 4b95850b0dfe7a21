//! Conversions across the boundary, with one configuration for all of them.
//!
//! JS → Rust: every value is read by [`js_to_json`] with JSON's rules (what `JSON.stringify`
//! would keep), bounded depth and size, cycles reported, and every JS operation that could run
//! user code (getters, `Proxy` traps, `toJSON`) called through imports marked `catch`, so a
//! throwing getter becomes a `CiteflowError` instead of unwinding through wasm frames (which
//! would leak the shadow stack and, repeated, poison the instance). An options object is read
//! by [`options_to_json`], which refuses a function anywhere in it where JSON would drop it (an
//! option dropped without a word is a listener never called, a limit never applied).
//!
//! Rust → JS: JSON text and the engine's `JSON.parse`, which is fast for many small objects
//! and, unlike property assignment, keeps a `__proto__` key as an own data property.

use serde::Serialize;
use serde_json::{Map, Number, Value};
use wasm_bindgen::prelude::*;

use super::errors::{js_error, js_error_with_cause};
use crate::event::{json_text, Event, LmOutput};

/// How deeply a JS value may nest (objects and arrays) before it is refused.
pub const MAX_DEPTH: usize = 128;
/// How many values (of any kind, at any depth) one JS value may hold.
pub const MAX_NODES: usize = 1 << 22;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn js_is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Object, js_name = keys)]
    fn js_keys(value: &JsValue) -> Result<js_sys::Array, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = get)]
    fn js_get(target: &JsValue, key: &JsValue) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = Reflect, js_name = apply)]
    fn js_apply(f: &JsValue, this: &JsValue, args: &js_sys::Array) -> Result<JsValue, JsValue>;
    // `Object.is` as a value (read by `as_bool`): `a == b` on JsValues, or a `bool` result,
    // would each add an import signature of its own, and V8 compiles one JS wrapper per
    // distinct import signature when it compiles the module (~70 µs each).
    #[wasm_bindgen(js_namespace = Object, js_name = is)]
    fn js_same(a: &JsValue, b: &JsValue) -> JsValue;
}

/// Why a JS value could not be read, and where (outermost key first once complete).
struct ReadError {
    problem: Problem,
    path: Vec<Segment>,
}

enum Problem {
    TooDeep,
    Cyclic,
    TooLarge,
    Threw(JsValue),
    NotFinite,
    BigInt,
    /// A function in an options object.
    Function,
}

enum Segment {
    Key(String),
    Index(u32),
}

impl ReadError {
    fn new(problem: Problem) -> Self {
        Self {
            problem,
            path: Vec::new(),
        }
    }

    fn at(mut self, segment: Segment) -> Self {
        self.path.push(segment);
        self
    }

    /// Where in the value: "the value itself" or "`.a[0].b`" (the path was built innermost
    /// first while the error went up).
    fn location(&self) -> String {
        const SHOWN: usize = 12;
        if self.path.is_empty() {
            return "the value itself".to_owned();
        }
        let mut out = "`".to_owned();
        for (i, segment) in self.path.iter().rev().enumerate() {
            if i == SHOWN {
                out.push('…');
                break;
            }
            match segment {
                Segment::Key(k) if is_identifier(k) => out.push_str(&format!(".{k}")),
                Segment::Key(k) => {
                    out.push('[');
                    out.push_str(&json_text(&Value::from(k.as_str())));
                    out.push(']');
                }
                Segment::Index(i) => out.push_str(&format!("[{i}]")),
            }
        }
        out.push('`');
        out
    }

    fn into_js(self, code: &str, what: &str) -> JsValue {
        let at = self.location();
        let problem = match &self.problem {
            Problem::TooDeep => format!("is nested more than {MAX_DEPTH} levels deep"),
            Problem::Cyclic => "refers back to itself (a cycle); pass plain data".to_owned(),
            Problem::TooLarge => format!("holds more than {MAX_NODES} values"),
            Problem::Threw(_) => "threw an exception when read (see `cause`)".to_owned(),
            Problem::NotFinite => "is not a finite number".to_owned(),
            Problem::BigInt => "is a BigInt; use a number".to_owned(),
            Problem::Function => format!("is refused: {}", crate::options::FUNCTION_REFUSED),
        };
        let message = format!("invalid {what}: {at} {problem}");
        match self.problem {
            Problem::Threw(cause) => js_error_with_cause(code, &message, cause),
            // An option of the wrong kind, whatever the object's domain.
            Problem::Function => js_error("INVALID_OPTION", &message),
            _ => js_error(code, &message),
        }
    }
}

fn is_identifier(key: &str) -> bool {
    let mut chars = key.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

/// Reads a JS value as JSON data, by `JSON.stringify`'s rules: `toJSON` is honoured; in objects,
/// `undefined`, functions and symbols are left out; in arrays they become `null`. Reading an
/// options object (`options`), a function is refused wherever it is.
struct Reader {
    /// The objects and arrays being read, outermost first: for telling a cycle from depth.
    ancestors: Vec<JsValue>,
    nodes: usize,
    options: bool,
}

impl Reader {
    fn read(&mut self, value: &JsValue) -> Result<Option<Value>, ReadError> {
        self.nodes += 1;
        if self.nodes > MAX_NODES {
            return Err(ReadError::new(Problem::TooLarge));
        }
        if let Some(s) = value.as_string() {
            return Ok(Some(Value::String(s)));
        }
        if let Some(n) = value.as_f64() {
            return number(n).map(Some);
        }
        if let Some(b) = value.as_bool() {
            return Ok(Some(Value::Bool(b)));
        }
        if value.is_null() {
            return Ok(Some(Value::Null));
        }
        if value.is_bigint() {
            return Err(ReadError::new(Problem::BigInt));
        }
        if self.options && value.is_function() {
            return Err(ReadError::new(Problem::Function));
        }
        if !value.is_object() {
            // undefined, functions, symbols
            return Ok(None);
        }
        let value = Self::json_form(value)?;
        if !value.is_object() {
            // `toJSON` gave a primitive (a Date gives its ISO string)
            return self.read(&value);
        }
        if self.ancestors.len() >= MAX_DEPTH {
            let cyclic = self
                .ancestors
                .iter()
                .any(|a| js_same(a, &value).as_bool() == Some(true));
            return Err(ReadError::new(if cyclic {
                Problem::Cyclic
            } else {
                Problem::TooDeep
            }));
        }
        self.ancestors.push(value.clone());
        let out = if js_is_array(&value).map_err(threw)? {
            self.array(&value)
        } else {
            self.object(&value)
        };
        self.ancestors.pop();
        out.map(Some)
    }

    /// The value `toJSON` gives, when the object has one.
    fn json_form(value: &JsValue) -> Result<JsValue, ReadError> {
        let to_json = js_get(value, &JsValue::from_str("toJSON")).map_err(threw)?;
        if !to_json.is_function() {
            return Ok(value.clone());
        }
        js_apply(&to_json, value, &js_sys::Array::of1(&JsValue::from_str(""))).map_err(threw)
    }

    fn array(&mut self, array: &JsValue) -> Result<Value, ReadError> {
        let length = js_get(array, &JsValue::from_str("length"))
            .map_err(threw)?
            .as_f64()
            .unwrap_or(0.0);
        if length > MAX_NODES as f64 {
            return Err(ReadError::new(Problem::TooLarge));
        }
        // In range after the check above; a negative or fractional length reads as no items.
        let length = length.max(0.0) as u32;
        let mut items = Vec::new();
        for i in 0..length {
            let item = js_get(array, &index_key(i)).map_err(|e| threw(e).at(Segment::Index(i)))?;
            let item = self.read(&item).map_err(|e| e.at(Segment::Index(i)))?;
            items.push(item.unwrap_or(Value::Null));
        }
        Ok(Value::Array(items))
    }

    fn object(&mut self, object: &JsValue) -> Result<Value, ReadError> {
        let keys = js_keys(object).map_err(threw)?;
        let mut map = Map::new();
        // By index through `Reflect.get` (a fresh array of strings: nothing runs), not
        // `Array::iter`, whose indexed read would be one more import signature.
        for i in 0..keys.length() {
            let key = js_get(&keys, &index_key(i)).map_err(threw)?;
            // Object.keys gives strings only.
            let Some(name) = key.as_string() else {
                continue;
            };
            let item = js_get(object, &key).map_err(|e| threw(e).at(Segment::Key(name.clone())))?;
            match self.read(&item) {
                Ok(Some(v)) => {
                    map.insert(name, v);
                }
                Ok(None) => {}
                Err(e) => return Err(e.at(Segment::Key(name))),
            }
        }
        Ok(Value::Object(map))
    }
}

/// An array index as the property key it is (`"0"`, `"1"`, …). A JS number would need the
/// f64-to-value import, whose signature is the module's only one of its kind (V8 compiles a
/// JS wrapper per distinct import signature when it compiles the module).
fn index_key(i: u32) -> JsValue {
    JsValue::from_str(&i.to_string())
}

fn threw(exception: JsValue) -> ReadError {
    ReadError::new(Problem::Threw(exception))
}

/// Integers as integers (so `as_u64` works on counts and ids), the rest as floats.
fn number(n: f64) -> Result<Value, ReadError> {
    const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53: integers up to here are exact
    if n.fract() == 0.0 && n.abs() <= EXACT {
        // Exact: an integral f64 within ±2^53 converts to i64 without loss.
        return Ok(Value::Number(Number::from(n as i64)));
    }
    Number::from_f64(n)
        .map(Value::Number)
        .ok_or_else(|| ReadError::new(Problem::NotFinite))
}

/// Reads any JS value as JSON data (see [`Reader`]); `undefined` reads as `null`.
pub fn js_to_json(value: &JsValue, code: &str, what: &str) -> Result<Value, JsValue> {
    read_json(value, code, what, false)
}

/// Reads an options object as JSON data, as [`js_to_json`] does, but a function anywhere in
/// it is an `INVALID_OPTION` error naming where it is. (The streaming modules read their
/// options in place: [`crate::options::js_value`].)
#[cfg(not(feature = "wasm-stream-module"))]
pub fn options_to_json(value: &JsValue, code: &str, what: &str) -> Result<Value, JsValue> {
    read_json(value, code, what, true)
}

fn read_json(value: &JsValue, code: &str, what: &str, options: bool) -> Result<Value, JsValue> {
    let mut reader = Reader {
        ancestors: Vec::new(),
        nodes: 0,
        options,
    };
    match reader.read(value) {
        Ok(v) => Ok(v.unwrap_or(Value::Null)),
        Err(e) => Err(e.into_js(code, what)),
    }
}

/// Plain objects for maps, numbers for 64-bit integers: what JS code expects.
#[cfg_attr(feature = "lean-stream", allow(dead_code))]
pub fn to_js<T: Serialize + ?Sized>(value: &T) -> JsValue {
    serde_json::to_string(value)
        .map_err(|e| e.to_string())
        .and_then(|json| js_sys::JSON::parse(&json).map_err(|_| "JSON.parse failed".to_owned()))
        .unwrap_or_else(|e| conversion_error(&e))
}

#[cfg_attr(feature = "lean-stream", allow(dead_code))]
fn conversion_error(e: &dyn std::fmt::Display) -> JsValue {
    js_error(
        "INTERNAL",
        &format!("could not convert a result to JS: {e}"),
    )
}

/// A JS value as `T`. Every key is seen by serde, so `deny_unknown_fields` refuses misspelt
/// options.
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
pub fn from_js<T: serde::de::DeserializeOwned>(
    value: JsValue,
    code: &str,
    what: &str,
) -> Result<T, JsValue> {
    let value = js_to_json(&value, code, what)?;
    serde_json::from_value(value).map_err(|e| js_error(code, &format!("invalid {what}: {e}")))
}

/// Whether a value is an array, without letting a revoked `Proxy` throw through wasm.
#[cfg_attr(feature = "wasm-stream-module", allow(dead_code))]
pub fn is_array(value: &JsValue) -> bool {
    js_is_array(value).unwrap_or(false)
}

/// An options object: `undefined` and `null` mean no options. (The streaming module reads its
/// options in place: [`crate::options::js_value`].)
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
pub fn options(value: JsValue, owner: &str) -> Result<Map<String, Value>, JsValue> {
    if value.is_undefined() || value.is_null() {
        return Ok(Map::new());
    }
    match options_to_json(&value, "INVALID_OPTION", &format!("{owner} options"))? {
        Value::Object(map) => Ok(map),
        _ => Err(crate::error::TransformError::option(
            "options",
            format!("{owner} options must be an object"),
        )
        .into()),
    }
}

/// An options object read as `T` through the one options reader ([`crate::options`]): an
/// `INVALID_OPTION` error naming the refused key.
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
pub fn options_as<T: serde::de::DeserializeOwned>(
    value: JsValue,
    owner: &str,
) -> Result<T, JsValue> {
    options_coded(value, owner, "INVALID_OPTION")
}

/// The same with the code of the object's own domain (a `ContextConfig` is
/// `INVALID_CONTEXT_CONFIG`); `undefined` and `null` read as `{}`.
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
pub fn options_coded<T: serde::de::DeserializeOwned>(
    value: JsValue,
    owner: &str,
    code: &str,
) -> Result<T, JsValue> {
    let map = match options_to_json(&value, code, &format!("{owner} options"))? {
        Value::Null => Map::new(),
        Value::Object(map) => map,
        _ => {
            return Err(js_error(
                code,
                &format!("invalid option `options`: {owner} options must be an object"),
            ))
        }
    };
    crate::options::read(owner, &map).map_err(|e| option_error(code, &e))
}

/// The options reader's refusal as a JS `Error` of `code`: "invalid option `name`: reason".
#[cfg(not(any(feature = "wasm-csl-module", feature = "wasm-stream-module")))]
pub fn option_error(code: &str, e: &crate::options::OptionError) -> JsValue {
    js_error(code, &crate::text::invalid_option(&e.option, &e.reason))
}

#[cfg_attr(
    any(not(feature = "wasm-stream-module"), feature = "lean-stream"),
    allow(dead_code)
)]
pub fn output(value: JsValue) -> Result<LmOutput, JsValue> {
    let value = js_to_json(&value, "INVALID_OUTPUT", "LMOutput")?;
    LmOutput::from_json(value)
        .map_err(|e| js_error("INVALID_OUTPUT", &format!("invalid LMOutput: {e}")))
}

/// A stream event (read by hand, see [`Event::from_json`]).
#[cfg_attr(
    any(not(feature = "wasm-stream-module"), feature = "lean-stream"),
    allow(dead_code)
)]
pub fn event(value: JsValue) -> Result<Event, JsValue> {
    let value = js_to_json(&value, "INVALID_EVENT", "event")?;
    Event::from_json(value).map_err(|e| js_error("INVALID_EVENT", &format!("invalid event: {e}")))
}
