//! The engine's encoding ([`citeflow::engine::ops`]) decoded as the JS face decodes it, for
//! tests: events, ids as they are first sent, and kept events from the caller's table.
#![allow(dead_code)] // each test crate uses its own part

use citeflow::engine::ops;
use citeflow::event::Event;
use serde_json::{json, Value};

/// The caller's table of kept events (the JS face's handle table).
pub trait Kept {
    /// The event kept as `handle`.
    fn get(&self, handle: u32) -> Event;
    /// After a step: every handle sent but `kept` may go.
    fn release(&mut self, kept: &[u32]);
}

/// A caller that keeps no events (it pushes them whole).
pub struct NoHandles;

impl Kept for NoHandles {
    fn get(&self, handle: u32) -> Event {
        panic!("handle {handle} given back to a caller that kept none")
    }

    fn release(&mut self, _: &[u32]) {}
}

/// One step's events; `ids` grows by the ids the step sends.
pub fn decode(
    enc: &ops::Encoder,
    ids: &mut Vec<Option<String>>,
    table: &mut impl Kept,
) -> Vec<Event> {
    let units: Vec<u16> = enc.text.encode_utf16().collect();
    let slice = |a: u32, b: u32| String::from_utf16(&units[a as usize..b as usize]).unwrap();
    let w = &enc.words;
    assert_eq!(w[0] as usize, w.len());
    assert_eq!(w[2] as usize, enc.text.len());
    let kind = |k: u32| if k == 0 { "response" } else { "thinking" };
    let mut out = Vec::new();
    let mut kept = Vec::new();
    let mut i = ops::HEADER;
    while i < w.len() {
        match w[i] {
            ops::ID => {
                assert_eq!(w[i + 1] as usize, ids.len());
                ids.push(Some(slice(w[i + 2], w[i + 3])));
                i += 4;
            }
            ops::START | ops::END => {
                let suffix = if w[i] == ops::START { "_start" } else { "_end" };
                let ty = format!("{}{suffix}", kind(w[i + 1]));
                out.push(Event::text(&ty, ids[w[i + 2] as usize].clone(), ""));
                i += 3;
            }
            ops::TEXT => {
                let (ty, id) = (kind(w[i + 1]), ids[w[i + 2] as usize].clone());
                out.push(Event::text(ty, id, slice(w[i + 3], w[i + 4])));
                i += 5;
            }
            ops::EVENT => {
                out.push(serde_json::from_str(&slice(w[i + 1], w[i + 2])).unwrap());
                i += 3;
            }
            ops::CITATION => {
                let value = json!({
                    "sourceId": w[i + 1],
                    "marker": slice(w[i + 5], w[i + 6]),
                    "span": [w[i + 2], w[i + 3]],
                    "valid": w[i + 4] == 1,
                });
                out.push(Event::json("citation", None, value));
                i += 7;
            }
            ops::HANDLE => {
                out.push(table.get(w[i + 1]));
                i += 2;
            }
            ops::HANDLE_TEXT => {
                let mut e = table.get(w[i + 1]);
                e.value = Value::String(slice(w[i + 2], w[i + 3]));
                out.push(e);
                i += 4;
            }
            ops::RAW => {
                let (ty, id) = (slice(w[i + 2], w[i + 3]), ids[w[i + 1] as usize].clone());
                let value = slice(w[i + 4], w[i + 5]);
                out.push(match w[i + 6] {
                    1 => Event::json(&ty, id, serde_json::from_str(&value).unwrap()),
                    _ => Event::text(&ty, id, value),
                });
                i += 7;
            }
            ops::KEEP => {
                if !kept.contains(&w[i + 1]) {
                    kept.push(w[i + 1]);
                }
                i += 2;
            }
            other => panic!("unknown op {other}"),
        }
    }
    table.release(&kept);
    out
}
