//! Cite positions (`first`, `subsequent`, `ibid`, `ibid-with-locator`, `near-note`) and
//! `first-reference-note-number`, worked out citation by citation in document order.
//!
//! Citations in the text (no note number) and citations in footnotes are two separate
//! sequences: a cite in the text is `ibid` after a cite of the same work in the text before it,
//! whatever the notes between them hold (as citeproc-js evaluates them).

use std::collections::HashMap;

use super::render::{
    CiteInfo, POSITION_FIRST, POSITION_IBID, POSITION_IBID_WITH_LOCATOR, POSITION_SUBSEQUENT,
};
use super::Cite;

/// One cite as a later cite compares with it: its item and its locator with its label.
#[derive(Clone)]
struct Seen {
    item: usize,
    locator: Option<String>,
}

fn seen(cite: &Cite) -> Seen {
    Seen {
        item: cite.item,
        locator: cite
            .locator
            .as_ref()
            .map(|l| format!("{l}{}", cite.label.as_deref().unwrap_or(""))),
    }
}

/// One sequence (the text, or the notes): where each work was first and last cited, and the
/// citation before.
#[derive(Default)]
struct Sequence {
    first_note: HashMap<usize, u32>,
    last_note: HashMap<usize, u32>,
    previous: Option<(u32, Vec<Seen>)>,
}

/// The running state of a document's positions.
pub(crate) struct Positions {
    text: Sequence,
    notes: Sequence,
    /// How many cites each note holds so far.
    cites_in_note: HashMap<u32, usize>,
    near_distance: u32,
}

impl Positions {
    pub(crate) fn new(near_distance: u32) -> Positions {
        Positions {
            text: Sequence::default(),
            notes: Sequence::default(),
            cites_in_note: HashMap::new(),
            near_distance,
        }
    }

    /// The positions of the next citation's cites (in their sorted order).
    pub(crate) fn next(&mut self, sorted: &[&Cite]) -> Vec<CiteInfo> {
        let note = sorted.first().and_then(|c| c.note).unwrap_or(0);
        let seq = if note > 0 {
            &mut self.notes
        } else {
            &mut self.text
        };
        // Notes numbered lower than the note before start the count again.
        if note > 0 && seq.previous.as_ref().is_some_and(|(n, _)| *n > note) {
            self.cites_in_note.clear();
            seq.first_note.clear();
            seq.last_note.clear();
        }
        *self.cites_in_note.entry(note).or_default() += sorted.len();
        let mut infos = Vec::with_capacity(sorted.len());
        for (k, cite) in sorted.iter().enumerate() {
            let mut info = CiteInfo {
                locator: cite.locator.clone(),
                label: cite.label.clone(),
                ..CiteInfo::default()
            };
            let this = seen(cite);
            if let Some(&last) = seq.last_note.get(&cite.item) {
                let before = k
                    .checked_sub(1)
                    .and_then(|p| sorted.get(p))
                    .map(|c| seen(c));
                let previous = seq.previous.as_ref();
                let ibid = match (&before, previous) {
                    // The cite before, in the same citation.
                    (Some(b), _) => b.item == cite.item,
                    // The citation before, in another note: ibid where that note cites this
                    // work alone, and is this note or the one before.
                    (None, Some((n, cites))) if *n != note => {
                        cites.first().is_some_and(|c| c.item == cite.item)
                            && n + 1 >= note
                            && (*n == 0 || self.cites_in_note.get(n) == Some(&1))
                    }
                    // The citation before, in the same note: its last cite.
                    (None, Some((_, cites))) => cites.last().is_some_and(|c| c.item == cite.item),
                    (None, None) => false,
                };
                // The locator compared with is that of the cite before in this citation, else
                // of the first cite of the citation before.
                let prev_locator = match (&before, previous) {
                    (Some(b), _) => b.locator.clone(),
                    (None, Some((_, cites))) => cites.first().and_then(|c| c.locator.clone()),
                    (None, None) => None,
                };
                info.position = match (ibid, &prev_locator, &this.locator) {
                    (false, _, _) | (true, Some(_), None) => POSITION_SUBSEQUENT,
                    (true, None, None) => POSITION_IBID,
                    (true, None, Some(_)) => POSITION_IBID_WITH_LOCATOR,
                    (true, Some(p), Some(c)) if p == c => POSITION_IBID,
                    (true, Some(_), Some(_)) => POSITION_IBID_WITH_LOCATOR,
                };
                info.first_note = seq
                    .first_note
                    .get(&cite.item)
                    .copied()
                    .filter(|&f| f != note);
                info.near_note = note == 0 || note.saturating_sub(last) <= self.near_distance;
            } else {
                info.position = POSITION_FIRST;
                seq.first_note.insert(cite.item, note);
            }
            seq.last_note.insert(cite.item, note);
            infos.push(info);
        }
        seq.previous = Some((note, sorted.iter().map(|c| seen(c)).collect()));
        infos
    }
}
