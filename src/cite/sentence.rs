//! Sentence splitting that knows common abbreviations.

use std::ops::Range;

use super::citation::ParseOptions;
use super::scanner::{Found, MarkerScanner};
use crate::utf16::Utf16Cursor;

/// A sentence with the marker groups in it.
pub(crate) struct MarkedSentence<'a> {
    pub range: Range<usize>,
    /// The same range in UTF-16 units.
    pub span16: [usize; 2],
    pub found: &'a [Found],
}

/// Calls `each` with the sentences of `text` in order, each with its markers (what policy
/// checks and verification read): the text is scanned once, and each sentence's markers are a
/// slice of one list.
pub(crate) fn each_marked_sentence(
    text: &str,
    options: ParseOptions,
    mut each: impl FnMut(MarkedSentence<'_>),
) {
    let found = MarkerScanner::find_all(options.marker_style, options.source_count, text);
    let mut units = Utf16Cursor::new(text);
    let mut next = 0;
    for range in with_trailing_markers(text, split_sentences(text), &found) {
        let span16 = [units.to_utf16(range.start), units.to_utf16(range.end)];
        let first = next;
        next += found
            .get(first..)
            .unwrap_or_default()
            .iter()
            .take_while(|f| f.span.start < range.end)
            .count();
        each(MarkedSentence {
            range,
            span16,
            found: found.get(first..next).unwrap_or_default(),
        });
    }
}

/// The sentences with each marker group written after a sentence's end (`Paris. [1]`, as
/// many writers and models cite) moved into that sentence: a sentence after the first that
/// begins with marker groups (split there because a bracket and a digit follow the period)
/// gives them, and the whitespace between them, to the sentence before it, and is dropped
/// when nothing else is left of it. `found` is every marker group of `text`, in order.
fn with_trailing_markers(
    text: &str,
    sentences: Vec<Range<usize>>,
    found: &[Found],
) -> Vec<Range<usize>> {
    let mut out: Vec<Range<usize>> = Vec::with_capacity(sentences.len());
    let mut k = 0;
    for mut range in sentences {
        while found.get(k).is_some_and(|f| f.span.start < range.start) {
            k += 1;
        }
        if let Some(previous) = out.last_mut() {
            let mut at = range.start;
            while let Some(f) = found.get(k).filter(|f| f.span.start == at) {
                previous.end = f.span.end;
                k += 1;
                let rest = text.get(f.span.end..range.end).unwrap_or_default();
                at = range.end - rest.trim_start().len();
            }
            range.start = at;
        }
        if range.start < range.end {
            out.push(range);
        }
    }
    out
}

/// Abbreviations that end with a period without ending the sentence (compared lowercase).
const ABBREVIATIONS: &[&str] = &[
    "dr.", "mr.", "mrs.", "ms.", "prof.", "sr.", "jr.", "st.", "vs.", "etc.", "e.g.", "i.e.",
    "al.", "fig.", "figs.", "no.", "nos.", "pp.", "p.", "vol.", "eq.", "ch.", "sec.", "approx.",
    "cf.", "ca.", "inc.", "ltd.", "co.", "u.s.",
];

/// Splits at `.`, `!` or `?` (after any closing markers) followed by whitespace, when the
/// next character (after an optional quote, parenthesis or bracket) is an uppercase letter
/// or a digit, and the word ending in `.` is not a known abbreviation. Returns byte ranges
/// that cover the text, each trimmed of surrounding whitespace.
pub fn split_sentences(text: &str) -> Vec<Range<usize>> {
    let mut sentences = Vec::new();
    let mut start = 0;
    // `.`, `!` and `?` are ASCII, so their bytes are never part of another character, and the
    // byte after one starts a character.
    for i in memchr::memchr3_iter(b'.', b'!', b'?', text.as_bytes()) {
        let ws = i + 1;
        let after = text.get(ws..).unwrap_or_default();
        if !after.chars().next().is_some_and(char::is_whitespace) {
            continue;
        }
        let mut rest = after.trim_start().chars();
        let first = match rest.next() {
            Some('"' | '\'' | '“' | '‘' | '(' | '[') => rest.next(),
            other => other,
        };
        if !first.is_some_and(|f| f.is_uppercase() || f.is_ascii_digit()) {
            continue;
        }
        if text.as_bytes().get(i) == Some(&b'.') {
            let before = text.get(..i).unwrap_or_default();
            let word_start = before
                .rfind(char::is_whitespace)
                .and_then(|p| before.get(p..)?.chars().next().map(|w| p + w.len_utf8()))
                .unwrap_or(0);
            let word = text
                .get(word_start..ws)
                .unwrap_or_default()
                .trim_start_matches(['(', '"', '“', '\'']);
            if ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word)) {
                continue;
            }
        }
        push_trimmed(text, start..ws, &mut sentences);
        start = ws;
    }
    push_trimmed(text, start..text.len(), &mut sentences);
    sentences
}

fn push_trimmed(text: &str, range: Range<usize>, out: &mut Vec<Range<usize>>) {
    let Some(s) = text.get(range.clone()) else {
        return;
    };
    let lead = s.len() - s.trim_start().len();
    let trail = s.len() - s.trim_end().len();
    if lead + trail < s.len() {
        out.push(range.start + lead..range.end - trail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn split(text: &str) -> Vec<&str> {
        split_sentences(text)
            .into_iter()
            .map(|r| &text[r])
            .collect()
    }

    #[test]
    fn splits_and_keeps_abbreviations() {
        assert_eq!(
            split("Dr. Smith came. He left! Why? 3 days later."),
            ["Dr. Smith came.", "He left!", "Why?", "3 days later."]
        );
        assert_eq!(
            split("See Fig. 2 and e.g. the table. Smith et al. 2020 agree."),
            ["See Fig. 2 and e.g. the table.", "Smith et al. 2020 agree."]
        );
        assert_eq!(
            split("It rose [1]. \"Next\" came. (Then) more."),
            ["It rose [1].", "\"Next\" came.", "(Then) more."]
        );
        assert_eq!(
            split("version 1.5 is out. lower case continues. Done"),
            ["version 1.5 is out. lower case continues.", "Done"]
        );
        assert!(split("  ").is_empty());
    }

    /// The splitting rule walked character by character (how it read before the search for
    /// `.`, `!` and `?` by bytes): the oracle of the property below.
    fn split_by_chars(text: &str) -> Vec<Range<usize>> {
        let mut sentences = Vec::new();
        let mut start = 0;
        let mut chars = text.char_indices().peekable();
        while let Some((i, c)) = chars.next() {
            if !matches!(c, '.' | '!' | '?') {
                continue;
            }
            let Some(&(ws, next)) = chars.peek() else {
                continue;
            };
            if !next.is_whitespace() {
                continue;
            }
            let mut rest = text[ws..].trim_start().chars();
            let first = match rest.next() {
                Some('"' | '\'' | '“' | '‘' | '(' | '[') => rest.next(),
                other => other,
            };
            if !first.is_some_and(|f| f.is_uppercase() || f.is_ascii_digit()) {
                continue;
            }
            if c == '.' {
                let before = &text[..i];
                let word_start = before
                    .rfind(char::is_whitespace)
                    .map(|p| p + before[p..].chars().next().unwrap().len_utf8())
                    .unwrap_or(0);
                let word = text[word_start..=i].trim_start_matches(['(', '"', '“', '\'']);
                if ABBREVIATIONS.iter().any(|a| a.eq_ignore_ascii_case(word)) {
                    continue;
                }
            }
            push_trimmed(text, start..i + c.len_utf8(), &mut sentences);
            start = ws;
        }
        push_trimmed(text, start..text.len(), &mut sentences);
        sentences
    }

    proptest::proptest! {
        #[test]
        fn the_byte_search_splits_as_the_char_walk(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                ".", "!", "?", " ", "  ", "\n", "\u{a0}", "\u{3000}", "Dr.", "e.g.", "U.S.",
                "Fig.", "a", "B", "3", "\"", "“", "(", "[1]", "é", "É", "😀", "x.", "Ünï", "?!",
            ]), 0..24)
        ) {
            let text = parts.concat();
            proptest::prop_assert_eq!(split_sentences(&text), split_by_chars(&text), "{:?}", text);
        }
    }

    /// Each sentence as policy checks and verification read it, with its markers.
    fn marked(text: &str) -> Vec<(&str, Vec<&str>)> {
        let mut out = Vec::new();
        each_marked_sentence(text, ParseOptions::default(), |s| {
            let markers = s.found.iter().map(|f| &text[f.span.clone()]).collect();
            out.push((&text[s.range], markers));
        });
        out
    }

    #[test]
    fn cites_written_after_a_sentence_end_are_that_sentences() {
        assert_eq!(
            marked("It stood until 1930. [2] [1] It is tall [3]. Then [4]."),
            [
                ("It stood until 1930. [2] [1]", vec!["[2]", "[1]"]),
                ("It is tall [3].", vec!["[3]"]),
                ("Then [4].", vec!["[4]"]),
            ]
        );
        // At the end of the text the cite leaves no sentence of its own.
        assert_eq!(marked("Paris. [1]"), [("Paris. [1]", vec!["[1]"])]);
        // The first sentence keeps a cite it starts with; a cite after other text stays put.
        assert_eq!(
            marked("[1] says so. B [2] too."),
            [("[1] says so.", vec!["[1]"]), ("B [2] too.", vec!["[2]"])]
        );
        // Not a marker (a link's text): the sentence is split as before.
        assert_eq!(
            marked("See. [1](https://x.org) More [2]."),
            [
                ("See.", vec![]),
                ("[1](https://x.org) More [2].", vec!["[2]"])
            ]
        );
    }

    #[test]
    fn a_multibyte_space_before_a_period_word() {
        // The word before a period starts after a no-break or ideographic space (2 and 3
        // bytes), not one byte after it.
        assert_eq!(split("a\u{a0}b. Cd"), ["a\u{a0}b.", "Cd"]);
        assert_eq!(split("x\u{3000}Dr. Who"), ["x\u{3000}Dr. Who"]);
        // The minimal input the hostile-input property test found.
        assert_eq!(split("Dr\u{a0}Dr. [1] "), ["Dr\u{a0}Dr. [1]"]);
    }
}
