//! The every-split check of `provider_fixtures` made affordable for larger recordings in
//! debug builds: 2-cuts at every byte inside or beside a non-ASCII character and wherever
//! `dense` says (message boundaries, the places a stream changes form), at every
//! `stride`-th byte elsewhere, and `random` random k-cuts (k up to 12).

use citeflow::event::Event;

use crate::provider_fixtures::{decode, pieces, Cuts};

pub fn decode_sampled_splits(
    format: &str,
    bytes: &[u8],
    dense: &dyn Fn(usize) -> bool,
    stride: usize,
    random: usize,
) -> (Vec<Event>, Option<&'static str>) {
    let whole = decode(format, &[bytes]);
    let wide = |at: usize| {
        let from = at.saturating_sub(3);
        let to = (at + 3).min(bytes.len());
        bytes[from..to].iter().any(|&b| b >= 0x80)
    };
    for cut in (0..=bytes.len()).filter(|&at| at % stride == 0 || wide(at) || dense(at)) {
        let got = decode(format, &pieces(bytes, &[cut]));
        assert_eq!(got, whole, "{format}: the stream cut at byte {cut}");
    }
    let mut cuts = Cuts::new(bytes.len() as u64 ^ 0x9e37_79b9_7f4a_7c15);
    for round in 0..random {
        let k = 2 + round % 11;
        let at = cuts.positions(bytes.len(), k);
        let got = decode(format, &pieces(bytes, &at));
        assert_eq!(got, whole, "{format}: the stream cut at {at:?}");
    }
    whole
}
