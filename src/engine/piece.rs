//! The engine's events: typed [`Piece`]s whose text lives in one [`Arena`] per step, and the
//! [`Ids`] table that names blocks without a string per event.

use std::ops::Range;

use crate::cite::Citation;
use crate::event::{split_event_type, types, Event, Phase, ValueType};

/// The two kinds of block the engine handles without a generic event.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Response,
    Thinking,
}

impl Kind {
    /// The base event type: `response` or `thinking`.
    pub fn base(self) -> &'static str {
        match self {
            Kind::Response => types::RESPONSE,
            Kind::Thinking => types::THINKING,
        }
    }

    pub fn parse(base: &str) -> Option<Self> {
        match base {
            types::RESPONSE => Some(Kind::Response),
            types::THINKING => Some(Kind::Thinking),
            _ => None,
        }
    }

    /// The full event type of this kind in a phase: `thinking_start`, `response`, ….
    pub fn event_type(self, phase: Phase) -> &'static str {
        match (self, phase) {
            (Kind::Response, Phase::Start) => "response_start",
            (Kind::Response, Phase::Content) => types::RESPONSE,
            (Kind::Response, Phase::End) => "response_end",
            (Kind::Thinking, Phase::Start) => "thinking_start",
            (Kind::Thinking, Phase::Content) => types::THINKING,
            (Kind::Thinking, Phase::End) => "thinking_end",
        }
    }
}

/// An interned block id: 0 is "no id", `n` is the `n`-th string of the [`Ids`] table.
pub type IdRef = u32;

/// One event flowing through the engine.
#[derive(Debug, Clone, PartialEq)]
pub enum Piece {
    Start {
        kind: Kind,
        id: IdRef,
    },
    /// Text of a block; `text` is a byte range of the step's [`Arena`].
    Text {
        kind: Kind,
        id: IdRef,
        text: Range<usize>,
    },
    End {
        kind: Kind,
        id: IdRef,
    },
    /// A `citation` event found at a marker: `{sourceId, marker, span, valid}` with the marker
    /// text a byte range of the step's [`Arena`] (no JSON value built per citation).
    Citation {
        source_id: u32,
        marker: Range<usize>,
        span: [usize; 2],
        valid: bool,
    },
    /// Any other event (JSON values, fields of its own, other types), carried as given (boxed:
    /// it is rare, and unboxed it would make every piece, moved through each stage, its size).
    /// Not in the lean streaming module, which has no event as a JSON tree (the stages that
    /// need one are in the full module).
    #[cfg(not(feature = "lean-stream"))]
    Event(Box<Event>),
    /// Any other event whose object its caller keeps (the JS face's handle table): stages see
    /// its type (`ty`, a string of [`Cx::types`]), its id and, for a `response` event, its
    /// value's text (`value` says what `text` is). It goes out as the caller's object itself,
    /// or as a copy with `text` for its value ([`KeptValue::NewText`]: text a stage released
    /// in its shape). See [`super::handle`]. (Not an `Option` of a range: every piece is this
    /// size, moved through each stage.)
    Opaque {
        handle: u32,
        ty: u32,
        id: IdRef,
        text: Range<usize>,
        value: KeptValue,
    },
    /// An event the core made (usage, a tool's input or its deltas, a provider's citation),
    /// no fields of its own: its type (`ty`, a string of [`Cx::types`]), its id, and its value
    /// as a range of the arena: JSON text when `json` (no JSON tree built), else the text.
    Raw {
        ty: u32,
        id: IdRef,
        value: Range<usize>,
        json: bool,
    },
}

/// What a kept event's `text` is ([`Piece::Opaque`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeptValue {
    /// Its value is not a string, or it is not a `response` event (no text).
    Other,
    /// Its own value, a string.
    Text,
    /// Text a stage released in its shape: it goes out as a copy with this value.
    NewText,
}

/// What a stage reads of a generic event (one given whole, or one its caller keeps).
#[derive(Debug, Clone, Copy)]
pub struct Generic<'a> {
    pub ty: &'a str,
    /// A `response` event's text: `Err` with what its value is when it is not a string.
    text: Result<&'a str, &'a str>,
}

impl<'a> Generic<'a> {
    /// The text of a `response` event, or the error a stage that reads it gives.
    pub fn response_text(&self) -> crate::error::Result<&'a str> {
        self.text.map_err(|got| {
            crate::error::TransformError::InvalidEvent(crate::text::cat(&[
                "a `response` event needs a string value, got ",
                got,
            ]))
        })
    }
}

impl Piece {
    /// The type and `response` text of a generic event (given whole or kept by its caller);
    /// `None` for a typed piece.
    pub fn generic<'a>(&'a self, cx: &'a Cx) -> Option<Generic<'a>> {
        match self {
            #[cfg(not(feature = "lean-stream"))]
            Piece::Event(event) => Some(Generic {
                ty: &event.kind,
                text: event
                    .text_value()
                    .ok_or_else(|| crate::transform::json_kind(&event.value)),
            }),
            Piece::Opaque {
                ty, text, value, ..
            } => Some(Generic {
                ty: cx.types.name(*ty).unwrap_or_default(),
                text: match value {
                    KeptValue::Other => Err("a value of another type"),
                    KeptValue::Text | KeptValue::NewText => Ok(cx.arena.get(text)),
                },
            }),
            Piece::Raw {
                ty, value, json, ..
            } => Some(Generic {
                ty: cx.types.name(*ty).unwrap_or_default(),
                text: if *json {
                    Err("a JSON value")
                } else {
                    Ok(cx.arena.get(value))
                },
            }),
            _ => None,
        }
    }
}

/// The text of one engine step: every piece's text is a range of it. Cleared per step.
#[derive(Debug, Default, Clone)]
pub struct Arena {
    text: String,
}

impl Arena {
    /// Appends `text`; returns its range.
    pub fn push(&mut self, text: &str) -> Range<usize> {
        let start = self.text.len();
        self.text.push_str(text);
        start..self.text.len()
    }

    /// The text of a range (empty for a range this arena never handed out).
    pub fn get(&self, range: &Range<usize>) -> &str {
        self.text.get(range.clone()).unwrap_or_default()
    }

    pub fn clear(&mut self) {
        self.text.clear();
    }
}

/// Block ids seen by one engine, numbered in order of use. A string is looked up among the
/// `RECENT` (32) ids numbered last (a stream names few blocks at a time: the same id token after
/// token, a handful of blocks interleaved); one not among them gets a new number, even if it
/// had one before. So interning costs at most `RECENT` (32) short comparisons whatever the
/// stream sends (a stream of unique ids too, which a search tree made O(log n) and 4.7 KB of
/// code), numbers stay equal for equal strings wherever a stream uses no more than
/// `RECENT` (32) ids at a time, and the table grows only with what the stream itself sends.
#[derive(Debug, Clone)]
pub struct Ids {
    names: Vec<String>,
    /// Unique per table, so a stage can tell whether an [`IdRef`] it kept is of this table.
    generation: u64,
    /// The id interned last: a stream names the same block token after token.
    last: IdRef,
}

/// How many of the latest numbered ids a string is looked up among.
pub const RECENT: usize = 32;

impl Default for Ids {
    fn default() -> Self {
        use std::sync::atomic::{AtomicU64, Ordering};
        static NEXT: AtomicU64 = AtomicU64::new(1);
        Self {
            names: Vec::new(),
            generation: NEXT.fetch_add(1, Ordering::Relaxed),
            last: 0,
        }
    }
}

impl Ids {
    pub fn intern(&mut self, id: &str) -> IdRef {
        if self.name(self.last) == Some(id) {
            return self.last;
        }
        let from = self.names.len().saturating_sub(RECENT);
        let tail = self.names.get(from..).unwrap_or_default();
        let n = match tail.iter().rposition(|name| name == id) {
            // Numbers start at 1; a table of more than 2^32 - 1 ids is not reachable.
            Some(at) => u32::try_from(from + at + 1).unwrap_or(u32::MAX),
            None => {
                self.names.push(id.to_owned());
                u32::try_from(self.names.len()).unwrap_or(u32::MAX)
            }
        };
        self.last = n;
        n
    }

    pub fn intern_opt(&mut self, id: Option<&str>) -> IdRef {
        id.map_or(0, |id| self.intern(id))
    }

    /// The string of an id (`None` for 0 or an unknown number).
    pub fn name(&self, id: IdRef) -> Option<&str> {
        let n = usize::try_from(id).ok()?.checked_sub(1)?;
        self.names.get(n).map(String::as_str)
    }

    /// How many ids there are (the highest [`IdRef`] handed out).
    pub fn len(&self) -> usize {
        self.names.len()
    }

    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

/// What stages share during a step: the arena their pieces' text lives in, the ids, and the
/// types of events kept by their caller ([`Piece::Opaque`]).
#[derive(Debug, Default, Clone)]
pub struct Cx {
    pub arena: Arena,
    pub ids: Ids,
    pub types: Ids,
}

/// What decides an event's piece: its type, id, value's text (when a string), value type and
/// whether it has fields of its own.
#[derive(Debug, Clone, Copy)]
pub struct EventView<'a> {
    pub ty: &'a str,
    pub id: Option<&'a str>,
    pub text: Option<&'a str>,
    pub value_type: ValueType,
    pub extra: bool,
}

impl Cx {
    /// A piece for an event: typed when it is plain response/thinking text (a string value,
    /// no fields of its own), else the event itself. The lean streaming module holds no
    /// generic event (its events come from JS as handles, or from the core as text): there,
    /// such an event is refused.
    pub fn piece(&mut self, event: Event) -> crate::error::Result<Piece> {
        match self.typed(Self::view(&event)) {
            Some(piece) => Ok(piece),
            #[cfg(not(feature = "lean-stream"))]
            None => Ok(Piece::Event(Box::new(event))),
            #[cfg(feature = "lean-stream")]
            None => Err(crate::error::TransformError::InvalidEvent(
                crate::text::cat(&[
                    "a `",
                    &event.kind,
                    "` event whole needs the full streaming module",
                ]),
            )),
        }
    }

    /// A piece for an event its caller keeps as `handle`: typed as [`Cx::piece`] types it,
    /// else [`Piece::Opaque`].
    pub fn kept_piece(&mut self, handle: u32, view: EventView<'_>) -> Piece {
        if let Some(piece) = self.typed(view) {
            return piece;
        }
        let (text, value) = match view.text {
            Some(text) if view.ty == types::RESPONSE => (self.arena.push(text), KeptValue::Text),
            _ => (0..0, KeptValue::Other),
        };
        Piece::Opaque {
            handle,
            ty: self.types.intern(view.ty),
            id: self.ids.intern_opt(view.id),
            text,
            value,
        }
    }

    /// A piece for a text event the core made (no fields of its own): typed as
    /// [`Cx::piece`] types it, else [`Piece::Raw`].
    pub fn made_text(&mut self, ty: &str, id: Option<&str>, text: &str) -> Piece {
        let view = EventView {
            ty,
            id,
            text: Some(text),
            value_type: ValueType::Text,
            extra: false,
        };
        match self.typed(view) {
            Some(piece) => piece,
            None => {
                let value = self.arena.push(text);
                self.raw(ty, id, value, false)
            }
        }
    }

    /// A piece for an event the core made whose value is this JSON text.
    pub fn made_json(&mut self, ty: &str, id: Option<&str>, json: &str) -> Piece {
        let value = self.arena.push(json);
        self.raw(ty, id, value, true)
    }

    fn raw(&mut self, ty: &str, id: Option<&str>, value: Range<usize>, json: bool) -> Piece {
        Piece::Raw {
            ty: self.types.intern(ty),
            id: self.ids.intern_opt(id),
            value,
            json,
        }
    }

    fn view(event: &Event) -> EventView<'_> {
        EventView {
            ty: &event.kind,
            id: event.id.as_deref(),
            text: event.text_value(),
            value_type: event.value_type,
            extra: !event.extra.is_empty(),
        }
    }

    /// Whether an event is plain `response` text (a typed piece of the answer): what a caller
    /// may send as text instead (see the JS face's `pushText`).
    pub fn is_plain_response(view: EventView<'_>) -> bool {
        Self::plain(view) == Some((Kind::Response, Phase::Content))
    }

    /// The rule: plain response/thinking text (a string value, text type, no fields of its
    /// own; a start or end with no text) is typed.
    fn plain(view: EventView<'_>) -> Option<(Kind, Phase)> {
        if view.value_type != ValueType::Text || view.extra {
            return None;
        }
        let (base, phase) = split_event_type(view.ty);
        let kind = Kind::parse(base)?;
        let text = view.text?;
        (phase == Phase::Content || text.is_empty()).then_some((kind, phase))
    }

    #[inline]
    fn typed(&mut self, view: EventView<'_>) -> Option<Piece> {
        let (kind, phase) = Self::plain(view)?;
        let text = view.text.unwrap_or_default();
        let id = self.ids.intern_opt(view.id);
        Some(match phase {
            Phase::Start => Piece::Start { kind, id },
            Phase::End => Piece::End { kind, id },
            Phase::Content => Piece::Text {
                kind,
                id,
                text: self.arena.push(text),
            },
        })
    }

    /// The event a piece stands for.
    pub fn event(&self, piece: Piece) -> Event {
        let (kind, id, phase, text) = match piece {
            #[cfg(not(feature = "lean-stream"))]
            Piece::Event(event) => return *event,
            Piece::Citation {
                source_id,
                marker,
                span,
                valid,
            } => {
                let marker = self.arena.get(&marker).to_owned();
                let value = Citation::at_marker(source_id, marker, span, valid).to_json();
                return Event::json(types::CITATION, None, value);
            }
            Piece::Raw {
                ty,
                id,
                value,
                json,
            } => {
                let (ty, id) = (self.types.name(ty).unwrap_or_default(), self.ids.name(id));
                let id = id.map(str::to_owned);
                let text = self.arena.get(&value);
                return if json {
                    let value = serde_json::from_str(text).unwrap_or(serde_json::Value::Null);
                    Event::json(ty, id, value)
                } else {
                    Event::text(ty, id, text)
                };
            }
            // The caller keeps the event: here only its type, id and text.
            Piece::Opaque { ty, id, text, .. } => {
                let text = self.arena.get(&text);
                let ty = self.types.name(ty).unwrap_or_default();
                return Event::text(ty, self.ids.name(id).map(str::to_owned), text);
            }
            Piece::Start { kind, id } => (kind, id, Phase::Start, ""),
            Piece::End { kind, id } => (kind, id, Phase::End, ""),
            Piece::Text { kind, id, text } => (kind, id, Phase::Content, self.arena.get(&text)),
        };
        Event::text(
            kind.event_type(phase),
            self.ids.name(id).map(str::to_owned),
            text,
        )
    }
}

/// A block id a stage keeps across steps (the template of the text it releases, say): its
/// string, and its [`IdRef`] in the table it was last seen in, so the common case (the same
/// table, the same id) costs a comparison and no string.
#[derive(Debug, Clone, Default)]
pub struct HeldId {
    name: Option<String>,
    seen: Option<(u64, IdRef)>,
}

impl HeldId {
    pub fn set(&mut self, id: IdRef, ids: &Ids) {
        if self.seen != Some((ids.generation, id)) {
            self.name = ids.name(id).map(str::to_owned);
            self.seen = Some((ids.generation, id));
        }
    }

    pub fn get(&mut self, ids: &mut Ids) -> IdRef {
        match self.seen {
            Some((generation, id)) if generation == ids.generation => id,
            _ => {
                let id = ids.intern_opt(self.name.as_deref());
                self.seen = Some((ids.generation, id));
                id
            }
        }
    }
}

/// The id of numbered blocks (`{prefix}-{n}`), interned once per block.
#[derive(Debug, Clone, Default)]
pub struct NumberedId {
    seen: Option<(u64, u32, IdRef)>,
}

impl NumberedId {
    pub fn get(&mut self, prefix: &str, n: u32, ids: &mut Ids) -> IdRef {
        match self.seen {
            Some((generation, seen, id)) if generation == ids.generation && seen == n => id,
            _ => {
                let digits = crate::text::Decimal::new(u64::from(n));
                let id = ids.intern(&crate::text::cat(&[prefix, "-", digits.as_str()]));
                self.seen = Some((ids.generation, n, id));
                id
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{Ids, RECENT};

    #[test]
    fn equal_strings_get_one_number_while_few_are_in_use() {
        let mut ids = Ids::default();
        let names: Vec<String> = (0..RECENT).map(|i| format!("block-{i}")).collect();
        let first: Vec<u32> = names.iter().map(|n| ids.intern(n)).collect();
        assert_eq!(first, (1..=RECENT as u32).collect::<Vec<_>>());
        // Interleaved in any order, again and again: the same numbers, no new entries.
        for round in 0..3 {
            for (i, n) in names.iter().enumerate().rev().skip(round) {
                assert_eq!(ids.intern(n), first[i]);
            }
        }
        assert_eq!(ids.len(), RECENT);
        assert_eq!(ids.name(first[3]), Some("block-3"));
        assert_eq!(ids.intern_opt(None), 0);
        assert_eq!(ids.name(0), None);
    }

    #[test]
    fn an_id_out_of_the_recent_ones_gets_a_new_number_with_its_string() {
        let mut ids = Ids::default();
        let a = ids.intern("a");
        for i in 0..RECENT {
            ids.intern(&format!("other-{i}"));
        }
        let again = ids.intern("a");
        assert_ne!(again, a);
        assert_eq!(ids.name(again), Some("a"));
        assert_eq!(ids.name(a), Some("a"));
        assert_eq!(ids.intern("a"), again);
    }

    #[test]
    fn a_stream_of_unique_ids_grows_the_table_by_one_each() {
        let mut ids = Ids::default();
        for i in 0..100_000u32 {
            assert_eq!(ids.intern(&i.to_string()), i + 1);
        }
        assert_eq!(ids.len(), 100_000);
        assert_eq!(ids.name(77_778), Some("77777"));
    }
}
