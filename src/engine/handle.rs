//! Events their caller keeps: the JS face holds an event object in a table and sends the engine
//! a handle with what it read of the object once (its `type`, `id`, `value` when a string,
//! `valueType`, whether it has other keys, and what kind of value each field is). The engine
//! decides here what such an event is, by the same rules as an event read whole
//! ([`Event::from_json`](crate::event::Event), [`super::Cx::piece`]), and refuses what
//! those refuse with the same messages. Stages see a kept event as a [`super::Piece::Opaque`];
//! the encoder gives its handle back ([`super::ops::HANDLE`]), so the caller's very object
//! comes out, and no JSON value is built for it.

use super::piece::EventView;
use crate::error::{Result, TransformError};
use crate::event::read::{expected_kind, named, value_type_named, VALUE_TYPES};
use crate::event::{types, ValueType};

/// What kind of value a field of an event object is, as the JS face numbers it (`kindOf` in
/// pkg/src/engine.js): the index in this table.
pub const JS_KINDS: [&str; 10] = [
    "undefined",
    "a string",
    "null",
    "a number",
    "a boolean",
    "a BigInt",
    "a symbol",
    "a function",
    "an object",
    "an array",
];
/// [`JS_KINDS`]' index of a string.
pub const JS_STRING: u32 = 1;
/// [`JS_KINDS`]' index of `null`.
pub const JS_NULL: u32 = 2;
/// [`JS_KINDS`]' index of an array.
pub const JS_ARRAY: u32 = 9;

/// One field of an event object as its caller read it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Field<'a> {
    /// Not there, or a value JSON leaves out of an object (`undefined`, a function, a symbol).
    Absent,
    Null,
    Text(&'a str),
    /// Any other value, named by its kind ("a number", "an object", …).
    Other(&'static str),
}

impl<'a> Field<'a> {
    /// A field from its [`JS_KINDS`] index and its text (given when it is a string).
    #[inline(never)]
    pub fn from_js(kind: u32, text: Option<&'a str>) -> Self {
        let name = usize::try_from(kind)
            .ok()
            .and_then(|k| JS_KINDS.get(k))
            .copied();
        match (kind, name) {
            (JS_STRING, _) => Field::Text(text.unwrap_or_default()),
            (JS_NULL, _) => Field::Null,
            (_, Some("undefined" | "a symbol" | "a function")) => Field::Absent,
            (_, Some(name)) => Field::Other(name),
            (_, None) => Field::Other("an unknown kind of value"),
        }
    }
}

/// An event object its caller keeps, as read once: the engine's input for
/// [`super::StreamEngine::push_kept`].
#[derive(Debug, Clone, Copy)]
pub struct KeptEvent<'a> {
    pub handle: u32,
    pub ty: Field<'a>,
    pub id: Field<'a>,
    pub value: Field<'a>,
    pub value_type: Field<'a>,
    /// Whether the object has keys other than `type`, `id`, `value` and `valueType`.
    pub extra: bool,
}

impl<'a> KeptEvent<'a> {
    /// What decides its piece, or why it is no event (the messages of
    /// [`Event::from_json`](crate::event::Event)).
    pub fn view(&self) -> Result<EventView<'a>> {
        let invalid = |field: &str, what: &str, got: &str| {
            TransformError::InvalidEvent(named(field, expected_kind(what, got)))
        };
        let ty = match self.ty {
            Field::Absent => types::RESPONSE,
            Field::Text(ty) => ty,
            Field::Null => return Err(invalid("type", "a string", "null")),
            Field::Other(got) => return Err(invalid("type", "a string", got)),
        };
        let id = match self.id {
            Field::Absent | Field::Null => None,
            Field::Text(id) => Some(id),
            Field::Other(got) => return Err(invalid("id", "a string", got)),
        };
        let value_type = match self.value_type {
            Field::Absent => ValueType::Text,
            Field::Text(name) => value_type_named(name).map_err(TransformError::InvalidEvent)?,
            Field::Null => return Err(invalid("valueType", VALUE_TYPES, "null")),
            Field::Other(got) => return Err(invalid("valueType", VALUE_TYPES, got)),
        };
        let text = match self.value {
            // JSON's default for an event without a value: empty text.
            Field::Absent => Some(""),
            Field::Text(text) => Some(text),
            Field::Null | Field::Other(_) => None,
        };
        Ok(EventView {
            ty,
            id,
            text,
            value_type,
            extra: self.extra,
        })
    }
}
