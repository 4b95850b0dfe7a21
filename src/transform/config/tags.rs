//! A think-tag stage's `tags` option: each pair a name (`"reasoning"` means `<reasoning>` /
//! `</reasoning>`), `[open, close]` or `{open, close}` of strings, read from either source of
//! options (see [`crate::options::reader`]) with one message for every shape refused.

use crate::options::reader::{string, wrong_type, OptionEntries, OptionValue, Read};
use crate::options::Refusal;
use crate::text::{cat, decimal};
use crate::transform::TagPair;

/// The tag pairs, in order.
pub(super) fn tag_list<V: OptionValue>(read: Read<V>) -> Result<Vec<TagPair>, Refusal> {
    let Read::List(items) = read else {
        return Err(wrong_type(&read, "a list of tag pairs"));
    };
    let mut pairs = Vec::new();
    for (i, item) in items.enumerate() {
        pairs.push(pair(i, item?.read()?)?);
    }
    Ok(pairs)
}

/// Why the pair at index `i` is refused (`why` after the shapes it may take, empty or ` (…)`).
#[cold]
#[inline(never)]
fn refused(i: usize, why: &str) -> Refusal {
    Refusal::new(cat(&[
        "tag pair ",
        decimal(i).as_str(),
        " must be a name, [open, close] or {open, close} of strings",
        why,
    ]))
}

/// The pair at index `i` of the list.
fn pair<V: OptionValue>(i: usize, read: Read<V>) -> Result<TagPair, Refusal> {
    match read {
        Read::Str(name) => Ok(TagPair::xml(&name)),
        Read::List(mut items) => {
            let mut tag = || {
                items
                    .next()
                    .and_then(|item| string(item.ok()?.read().ok()?).ok())
                    .ok_or_else(|| refused(i, ""))
            };
            let (open, close) = (tag()?, tag()?);
            match items.next() {
                None => Ok(TagPair::new(open, close)),
                Some(_) => Err(refused(i, "")),
            }
        }
        Read::Map(mut entries) => {
            let (mut open, mut close) = (None, None);
            while let Some((key, value)) = entries.next_entry() {
                let key = key.as_ref();
                let slot = match key {
                    "open" => &mut open,
                    "close" => &mut close,
                    _ => {
                        return Err(refused(
                            i,
                            &cat(&[
                                " (`",
                                key,
                                "`: unknown field `",
                                key,
                                "`, expected `open` or `close`)",
                            ]),
                        ))
                    }
                };
                let tag = value
                    .and_then(OptionValue::read)
                    .and_then(string)
                    .map_err(|e| refused(i, &cat(&[" (`", key, "`: ", e.text(), ")"])))?;
                *slot = Some(tag);
            }
            match (open, close) {
                (Some(open), Some(close)) => Ok(TagPair::new(open, close)),
                (None, _) => Err(refused(i, " (`open`: missing)")),
                (_, None) => Err(refused(i, " (`close`: missing)")),
            }
        }
        _ => Err(refused(i, "")),
    }
}
