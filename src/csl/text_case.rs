//! `text-case`: lowercase, uppercase, capitalize-first, capitalize-all, sentence and (English)
//! title case with stop words; nocase spans are left alone.

use super::output::Out;

const STOP_WORDS: &[&str] = &[
    "a",
    "according",
    "aboard",
    "about",
    "above",
    "across",
    "after",
    "against",
    "along",
    "alongside",
    "amid",
    "among",
    "an",
    "and",
    "around",
    "as",
    "at",
    "before",
    "behind",
    "below",
    "beneath",
    "beside",
    "between",
    "beyond",
    "but",
    "by",
    "down",
    "during",
    "for",
    "from",
    "in",
    "inside",
    "into",
    "like",
    "near",
    "nor",
    "of",
    "off",
    "on",
    "onto",
    "or",
    "out",
    "over",
    "per",
    "since",
    "so",
    "than",
    "the",
    "through",
    "till",
    "to",
    "toward",
    "towards",
    "under",
    "until",
    "up",
    "upon",
    "versus",
    "via",
    "vs",
    "with",
    "within",
    "without",
    "yet",
    "de",
    "d",
    "von",
    "van",
    "et",
    "v",
];

fn upper_first(w: &str) -> String {
    let mut c = w.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn is_lower_word(w: &str) -> bool {
    w.chars().any(char::is_alphabetic) && !w.chars().any(char::is_uppercase)
}

/// Applies a text case to the tree: title case only where `english`; `turkic` (Turkish,
/// Azerbaijani) keeps dotted and dotless i apart (i and İ, ı and I).
pub fn apply(out: &mut Out, case: &str, english: bool, turkic: bool) {
    match case {
        "lowercase" if turkic => out.map_text(&mut |s| s.replace('I', "ı").to_lowercase()),
        "uppercase" if turkic => out.map_text(&mut |s| s.replace('i', "İ").to_uppercase()),
        "lowercase" => out.map_text(&mut |s| s.to_lowercase()),
        "uppercase" => out.map_text(&mut |s| s.to_uppercase()),
        "capitalize-first" => capitalize_first(out),
        "sentence" => {
            let all_caps = {
                let p = out.plain();
                p.chars().any(char::is_alphabetic) && !p.chars().any(char::is_lowercase)
            };
            if all_caps {
                out.map_text(&mut |s| s.to_lowercase());
            }
            capitalize_first(out);
        }
        "capitalize-all" => {
            let mut at_start = true;
            out.leaves_mut(false, &mut |s, protected| {
                let mut r = String::with_capacity(s.len());
                for c in s.chars() {
                    if at_start && !protected && c.is_lowercase() {
                        r.extend(c.to_uppercase());
                    } else {
                        r.push(c);
                    }
                    at_start = c.is_whitespace();
                }
                *s = r;
            })
        }
        "title" if english => title(out),
        _ => {}
    }
}

fn capitalize_first(out: &mut Out) {
    let mut done = false;
    out.leaves_mut(false, &mut |s, protected| {
        if done || s.trim().is_empty() {
            return;
        }
        done = true;
        if protected {
            return;
        }
        let lead = s.len() - s.trim_start().len();
        let body = s.get(lead..).unwrap_or("");
        let first_word = body.split(char::is_whitespace).next().unwrap_or("");
        if is_lower_word(first_word) {
            *s = format!("{}{}", s.get(..lead).unwrap_or(""), upper_first(body));
        }
    });
}

fn has_alnum(w: &str) -> bool {
    w.chars().any(char::is_alphanumeric)
}

/// Title case of one part of a word (words split at hyphens, slashes and dashes).
fn title_part(p: &str, first: bool, last: bool) -> String {
    let core: String = p
        .trim_matches(|c: char| !c.is_alphanumeric())
        .to_lowercase();
    let stop = STOP_WORDS.contains(&core.as_str()) && !first && !last;
    if !is_lower_word(p) || stop {
        return p.to_owned();
    }
    let lead: String = p.chars().take_while(|c| !c.is_alphanumeric()).collect();
    let rest = p.get(lead.len()..).unwrap_or("");
    // A lone Greek letter (β-carotene) is a symbol, not a word.
    let mut chars = rest.chars();
    if chars
        .next()
        .is_some_and(|c| ('\u{370}'..='\u{3ff}').contains(&c))
        && chars.next().is_none()
    {
        return p.to_owned();
    }
    format!("{lead}{}", upper_first(rest))
}

/// Title case: lowercase words are capitalized except stop words that are neither first, last
/// nor after a colon; words with capitals stay as written.
fn title(out: &mut Out) {
    // Words of the whole title (with letters or digits), to know the last one across leaves.
    let total_words = out
        .plain()
        .split_whitespace()
        .filter(|w| has_alnum(w))
        .count();
    let mut index = 0usize;
    let mut after_colon = true;
    out.leaves_mut(false, &mut |s, protected| {
        let mut r = String::with_capacity(s.len());
        let mut word = String::new();
        let finish =
            |word: &mut String, r: &mut String, index: &mut usize, after_colon: &mut bool| {
                if word.is_empty() {
                    return;
                }
                if !has_alnum(word) {
                    r.push_str(word);
                    if word.ends_with([':', '?', '!']) {
                        *after_colon = true;
                    }
                    word.clear();
                    return;
                }
                let first = *after_colon;
                let last = *index + 1 == total_words;
                // A word that starts with a digit (07-x, 3-D) stays as written.
                if protected || word.starts_with(|c: char| c.is_ascii_digit()) {
                    r.push_str(word);
                } else {
                    // Parts between hyphens, slashes and dashes, each on its own; after a
                    // dash a stop word stays lowercase.
                    let mut part = String::new();
                    let mut k = 0;
                    for c in word.chars() {
                        if matches!(c, '-' | '/' | '\u{2013}' | '\u{2014}') {
                            r.push_str(&title_part(&part, first && k == 0, last));
                            r.push(c);
                            part.clear();
                            k += 1;
                        } else {
                            part.push(c);
                        }
                    }
                    r.push_str(&title_part(&part, first && k == 0, last));
                }
                *after_colon = word.ends_with([':', '?', '!']);
                *index += 1;
                word.clear();
            };
        for c in s.chars() {
            if c.is_whitespace() {
                finish(&mut word, &mut r, &mut index, &mut after_colon);
                r.push(c);
            } else {
                word.push(c);
            }
        }
        finish(&mut word, &mut r, &mut index, &mut after_colon);
        *s = r;
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn title_case_keeps_stop_words_and_mixed_case() {
        let mut o = Out::text("the art of war and arXiv: a study in PyTorch");
        apply(&mut o, "title", true, false);
        assert_eq!(o.plain(), "The Art of War and arXiv: A Study in PyTorch");
        let mut o = Out::text("Mémoires de guerre");
        apply(&mut o, "title", true, false);
        assert_eq!(o.plain(), "Mémoires de Guerre");
        let mut o = Out::text("saline solution of β-carotene");
        apply(&mut o, "title", true, false);
        assert_eq!(o.plain(), "Saline Solution of β-Carotene");
    }

    #[test]
    fn capitalize_first_reads_the_first_word_up_to_any_space() {
        let mut o = Out::text("o.\u{a0}A.");
        apply(&mut o, "capitalize-first", true, false);
        assert_eq!(o.plain(), "O.\u{a0}A.");
    }

    #[test]
    fn turkish_keeps_dotted_and_dotless_i_apart() {
        let mut o = Out::text("ic and ıd");
        apply(&mut o, "uppercase", false, true);
        assert_eq!(o.plain(), "İC AND ID");
        let mut o = Out::text("ic and ıd");
        apply(&mut o, "uppercase", false, false);
        assert_eq!(o.plain(), "IC AND ID");
    }
}
