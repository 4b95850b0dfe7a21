//! [`deduplicate_adjacent_cites`]: one mention per source in each run of adjacent markers.

use super::marker::{MarkerId, MarkerStyle};
use super::scanner::{Found, MarkerScanner};

/// Rewrites each run of two or more markers separated only by whitespace so that it names
/// each id once, in order of first appearance, as single markers joined by single spaces.
/// Single markers, and markers inside code, links or URLs, are left as they are.
///
/// ```
/// use citeflow::cite::{deduplicate_adjacent_cites, MarkerStyle};
/// let text = "Foo [1] [2] [3] [1] [2]. Bar [4].";
/// assert_eq!(deduplicate_adjacent_cites(text, MarkerStyle::Bracket), "Foo [1] [2] [3]. Bar [4].");
/// assert_eq!(deduplicate_adjacent_cites("[1][2][3][1]", MarkerStyle::Bracket), "[1] [2] [3]");
/// ```
pub fn deduplicate_adjacent_cites(text: &str, style: MarkerStyle) -> String {
    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    each_rewrite(text, style, |first, last, with| {
        // Spans come from the scanner over this very text: in order, on char boundaries.
        out.push_str(text.get(copied..first.span.start).unwrap_or_default());
        out.push_str(with);
        copied = last.span.end;
    });
    out.push_str(text.get(copied..).unwrap_or_default());
    out
}

/// Calls `each` with the first and last marker of each run that the rewrite changes, and the
/// text that replaces the run (from the first marker's start to the last one's end), in
/// order: what [`deduplicate_adjacent_cites`] does, as edits (the JS face applies them to its
/// own string).
pub(crate) fn each_rewrite(
    text: &str,
    style: MarkerStyle,
    mut each: impl FnMut(&Found, &Found, &str),
) {
    // Scanned a slice at a time, each run handled once the next one has begun, so that the
    // list of markers stays short (a whole answer's list cost more to grow and drop than to
    // find, measured in wasm).
    let mut scanner = MarkerScanner::new(style, None);
    let mut found = Vec::new();
    let mut with = String::new();
    let mut at = 0;
    while at < text.len() {
        let mut end = (at + SLICE).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        scanner.feed(text.get(at..end).unwrap_or_default(), &mut found);
        at = end;
        if at == text.len() {
            scanner.finish(&mut found);
        }
        let mut ids = Vec::new();
        let mut rest = found.as_slice();
        while !rest.is_empty() {
            let run = adjacent_run(text, rest);
            // The last run may go on in the next slice (unless this was the last one).
            if run == rest.len() && at < text.len() {
                break;
            }
            let (group, after) = rest.split_at(run.min(rest.len()));
            if let ([first, _, ..], [.., last]) = (group, group) {
                with.clear();
                rewrite(group, style, &mut with, &mut ids);
                if text.get(first.span.start..last.span.end) != Some(with.as_str()) {
                    each(first, last, &with);
                }
            }
            rest = after;
        }
        let done = found.len() - rest.len();
        found.drain(..done);
    }
}

/// Bytes of text scanned at a time by [`each_rewrite`].
const SLICE: usize = 1 << 14;

/// How many markers at the start of `found` (at least one) are separated only by whitespace.
fn adjacent_run(text: &str, found: &[Found]) -> usize {
    1 + found
        .windows(2)
        .take_while(|pair| match pair {
            [a, b] => text
                .get(a.span.end..b.span.start)
                .is_some_and(|gap| gap.chars().all(char::is_whitespace)),
            _ => false,
        })
        .count()
}

/// Appends the run's ids, each once in order of first appearance, as single markers joined
/// by single spaces.
/// (`ids`: room for the ids written, reused from run to run.)
fn rewrite<'a>(
    run: &'a [Found],
    style: MarkerStyle,
    out: &mut String,
    ids: &mut Vec<&'a MarkerId>,
) {
    ids.clear();
    for id in run.iter().flat_map(|f| f.ids.iter()) {
        if !ids.contains(&id) {
            if !ids.is_empty() {
                out.push(' ');
            }
            style.write(id, out);
            ids.push(id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_across_the_slices_scanned() {
        // Runs (and a character of two bytes) placed over the boundary of the first slice.
        for pad in 0..48 {
            for filler in ["a", "é"] {
                let head = filler.repeat((SLICE - 24 + pad) / filler.len());
                let text = format!("{head} [1] [2] [1]\n [2]  [3]. `[4] [4]` [5][5] end");
                assert_eq!(
                    deduplicate_adjacent_cites(&text, MarkerStyle::Bracket),
                    format!("{head} [1] [2] [3]. `[4] [4]` [5] end"),
                    "{pad} {filler}"
                );
            }
        }
    }

    #[test]
    fn every_style_and_run_length() {
        let d = deduplicate_adjacent_cites;
        assert_eq!(d("a [1] [1].", MarkerStyle::Bracket), "a [1].");
        assert_eq!(
            d("a [2]  [1]\n[2] b [2] [2]", MarkerStyle::Bracket),
            "a [2] [1] b [2]"
        );
        assert_eq!(
            d("a [1, 2] [2] [3-4]", MarkerStyle::Bracket),
            "a [1] [2] [3] [4]"
        );
        assert_eq!(
            d("single [1, 1] stays", MarkerStyle::Bracket),
            "single [1, 1] stays"
        );
        assert_eq!(
            d("a (1)(2)(1). (2020) (2020)", MarkerStyle::Paren),
            "a (1) (2). (2020) (2020)"
        );
        assert_eq!(d("a {3} {3}", MarkerStyle::Curly), "a {3}");
        assert_eq!(d("a ^1^2 ^1 b", MarkerStyle::Caret), "a ^1 ^2 b");
        assert_eq!(
            d("`[1] [1]` [1] x [1]", MarkerStyle::Bracket),
            "`[1] [1]` [1] x [1]"
        );
        assert_eq!(d("é [1] [1] ü", MarkerStyle::Bracket), "é [1] ü");
        assert_eq!(
            d("a [99999999999] [1] [099999999999]", MarkerStyle::Bracket),
            "a [99999999999] [1]"
        );
    }
}
