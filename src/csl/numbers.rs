//! `<number>` (numeric, ordinal, long-ordinal, roman) and page ranges (`page-range-format`).

use super::output::Out;
use super::render::{is_numeric, Renderer};
use super::xml::Node;

fn roman(mut n: i64) -> String {
    if !(1..4000).contains(&n) {
        return n.to_string();
    }
    const TABLE: [(i64, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut s = String::new();
    for (v, r) in TABLE {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    s
}

/// Keeps the digits of `end` that differ from `start` (minimal form), with at least `keep`.
fn minimal(start: &str, end: &str, keep: usize) -> String {
    if start.len() != end.len() {
        return end.to_owned();
    }
    let common = start
        .chars()
        .zip(end.chars())
        .take_while(|(a, b)| a == b)
        .count();
    let from = common.min(end.len().saturating_sub(keep));
    end.get(from..).unwrap_or(end).to_owned()
}

impl<'a> Renderer<'a> {
    /// Page ranges: hyphens become the locale's delimiter and the end is shortened as the
    /// style asks.
    pub fn format_page_range(&self, value: &str) -> String {
        let format = self.style.root.attr("page-range-format");
        let delim = self
            .locale
            .term("page-range-delimiter", super::locale::TermForm::Long, false)
            .unwrap_or("\u{2013}")
            .to_owned();
        // `213 & 235`: the ampersand is the locale's `and` symbol.
        let and = self
            .locale
            .term("and", super::locale::TermForm::Symbol, false)
            .unwrap_or("&");
        let pieces = value.split(", ").enumerate().flat_map(|(i, p)| {
            p.split(" & ")
                .enumerate()
                .map(move |(j, q)| (i > 0 && j == 0, j > 0, q))
        });
        let mut out = String::new();
        for (comma, ampersand, piece) in pieces {
            if comma {
                out.push_str(", ");
            } else if ampersand {
                out.push(' ');
                out.push_str(and);
                out.push(' ');
            }
            if piece.contains("\\-") {
                // An escaped hyphen is a hyphen, not a range.
                out.push_str(&piece.replace("\\-", "-"));
                continue;
            }
            let parts: Vec<&str> = piece
                .split(['-', '\u{2013}'])
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect();
            let shorten = |a: &str, b: &str| -> String {
                let full = expand(a, b);
                match format {
                    Some("minimal") => minimal(a, &full, 1),
                    Some("minimal-two") => minimal(a, &full, 2),
                    Some("chicago" | "chicago-15") => chicago(a, b, true),
                    Some("chicago-16") => chicago(a, b, false),
                    Some("expanded") => full,
                    _ => b.to_owned(),
                }
            };
            let digits = |x: &str| !x.is_empty() && x.chars().all(|c| c.is_ascii_digit());
            match parts.as_slice() {
                // Roman numerals (front matter): xxv–xxviii.
                [a, b] if roman_numeral(a) && roman_numeral(b) => {
                    out.push_str(a);
                    out.push_str(&delim);
                    out.push_str(b);
                }
                [a, b] if digits(a) && digits(b) => {
                    out.push_str(a);
                    out.push_str(&delim);
                    out.push_str(&shorten(a, b));
                }
                [a, b] => {
                    // A shared prefix (N110-N115, 8n11564-8n11568) ranges over the numbers;
                    // anything else (110-N6, Michaelson-Morely) is left with its hyphen.
                    let ((pa, na), (pb, nb)) = (split_prefix(a), split_prefix(b));
                    if !pa.is_empty() && pa == pb && digits(na) && digits(nb) {
                        out.push_str(a);
                        out.push_str(&delim);
                        let end = shorten(na, nb);
                        if format == Some("expanded") || end.len() == na.len() && format.is_none() {
                            out.push_str(pb);
                        }
                        out.push_str(&end);
                    } else {
                        out.push_str(a);
                        out.push('-');
                        out.push_str(b);
                    }
                }
                _ => out.push_str(piece),
            }
        }
        out
    }

    // Kept out of `render` (the engine's hub): a smaller function for the wasm tiers to compile.
    #[inline(never)]
    pub fn render_number(&mut self, node: &Node) -> Option<Out> {
        let var = node.attr("variable")?;
        self.vars_called += 1;
        let value = self.variable(var)?;
        self.vars_filled += 1;
        if self.in_substitute > 0 {
            self.suppressed.insert(var.to_owned());
        }
        let form = node.attr("form").unwrap_or("numeric");
        let text = if is_numeric(&value) {
            let gender = self.locale.gender(var).map(str::to_owned);
            let mut s = String::new();
            let mut num = String::new();
            let flush = |num: &mut String, s: &mut String| {
                if num.is_empty() {
                    return;
                }
                let n: i64 = num.parse().unwrap_or(0);
                match form {
                    "ordinal" => {
                        s.push_str(num);
                        s.push_str(&self.locale.ordinal_suffix(n, gender.as_deref()));
                    }
                    "long-ordinal" => match self.locale.long_ordinal(n, gender.as_deref()) {
                        Some(w) => s.push_str(&w),
                        None => {
                            s.push_str(num);
                            s.push_str(&self.locale.ordinal_suffix(n, gender.as_deref()));
                        }
                    },
                    "roman" => s.push_str(&roman(n)),
                    _ => s.push_str(num),
                }
                num.clear();
            };
            let only_digits_and_seps = value
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '-' | '\u{2013}' | ',' | '&' | ' '));
            if only_digits_and_seps {
                for c in value.chars() {
                    if c.is_ascii_digit() {
                        num.push(c);
                    } else {
                        flush(&mut num, &mut s);
                        match c {
                            '-' | '\u{2013}' => s.push('\u{2013}'),
                            _ => s.push(c),
                        }
                    }
                }
                flush(&mut num, &mut s);
                s
            } else {
                value.replace("\\-", "-")
            }
        } else {
            value.replace("\\-", "-")
        };
        let content = Out::text(text);
        Some(self.decorate(node, content, true))
    }
}

fn roman_numeral(x: &str) -> bool {
    !x.is_empty()
        && (x.chars().all(|c| "ivxlcdm".contains(c)) || x.chars().all(|c| "IVXLCDM".contains(c)))
}

/// `8n11564` → (`8n`, `11564`): the trailing digits and what comes before them.
fn split_prefix(x: &str) -> (&str, &str) {
    let num_start = x
        .char_indices()
        .rev()
        .find(|(_, c)| !c.is_ascii_digit())
        .map_or(0, |(i, c)| i + c.len_utf8());
    (
        x.get(..num_start).unwrap_or(""),
        x.get(num_start..).unwrap_or(""),
    )
}

fn expand(a: &str, b: &str) -> String {
    if b.len() < a.len() {
        format!("{}{b}", a.get(..a.len() - b.len()).unwrap_or(""))
    } else {
        b.to_owned()
    }
}

/// Chicago's rules: under 100 full; x00 full; 101-109 etc. minimal; else at least two digits;
/// in the 15th edition, four-digit numbers with three or more changed digits in full.
fn chicago(a: &str, b: &str, fifteenth: bool) -> String {
    let b = expand(a, b);
    let start: u64 = a.parse().unwrap_or(0);
    if start < 100 || start.is_multiple_of(100) {
        return b;
    }
    if start % 100 < 10 {
        return minimal(a, &b, 1);
    }
    let m = minimal(a, &b, 2);
    if fifteenth && a.len() == 4 && m.len() >= 3 {
        return b;
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_range_forms() {
        assert_eq!(minimal("321", "328", 1), "8");
        assert_eq!(minimal("321", "328", 2), "28");
        assert_eq!(chicago("321", "28", true), "28");
        assert_eq!(chicago("101", "108", true), "8");
        assert_eq!(chicago("1496", "1504", true), "1504");
        assert_eq!(chicago("6893", "6902", false), "902");
        assert_eq!(roman(14), "xiv");
    }
}
