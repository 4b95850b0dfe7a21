//! [`deduplicate_adjacent_cites`]: one mention per source in each run of adjacent markers.

use super::marker::MarkerStyle;
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
    let found = MarkerScanner::find_all(style, None, text);

    let mut out = String::with_capacity(text.len());
    let mut copied = 0;
    let mut i = 0;
    while i < found.len() {
        let mut end = i + 1;
        while end < found.len()
            && text[found[end - 1].span.end..found[end].span.start]
                .chars()
                .all(char::is_whitespace)
        {
            end += 1;
        }
        if end - i >= 2 {
            out.push_str(&text[copied..found[i].span.start]);
            out.push_str(&rewrite(&found[i..end], style));
            copied = found[end - 1].span.end;
        }
        i = end;
    }
    out.push_str(&text[copied..]);
    out
}

fn rewrite(run: &[Found], style: MarkerStyle) -> String {
    let mut ids: Vec<u32> = Vec::new();
    for id in run.iter().flat_map(|f| f.ids.iter().copied()) {
        if !ids.contains(&id) {
            ids.push(id);
        }
    }
    ids.into_iter()
        .map(|id| style.format(id))
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

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
    }
}
