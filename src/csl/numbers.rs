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
        let mut out = String::new();
        for (i, piece) in value.split(", ").enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let parts: Vec<&str> = piece
                .split(['-', '\u{2013}'])
                .map(str::trim)
                .filter(|p| !p.is_empty())
                .collect();
            match parts.as_slice() {
                [a, b]
                    if a.chars().all(|c| c.is_ascii_digit())
                        && b.chars().all(|c| c.is_ascii_digit()) =>
                {
                    let full = expand(a, b);
                    let end = match format {
                        Some("minimal") => minimal(a, &full, 1),
                        Some("minimal-two") => minimal(a, &full, 2),
                        Some("chicago" | "chicago-15") => chicago(a, b, true),
                        Some("chicago-16") => chicago(a, b, false),
                        Some("expanded") => full,
                        _ => (*b).to_owned(),
                    };
                    out.push_str(a);
                    out.push_str(&delim);
                    out.push_str(&end);
                }
                [a, b] if !piece.contains(" - ") => {
                    out.push_str(a);
                    out.push_str(&delim);
                    out.push_str(b);
                }
                _ => out.push_str(piece),
            }
        }
        out
    }

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
                value.clone()
            }
        } else {
            value.clone()
        };
        let content = Out::text(text);
        Some(self.decorate(node, content, true))
    }
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
    if start < 100 || start % 100 == 0 {
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
