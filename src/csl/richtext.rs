//! Markup inside field values (`<i>`, `<b>`, `<sc>`, `<sup>`, `<sub>`,
//! `<span class="nocase">`, small-caps spans) and straight double quotes, read into the output
//! tree so formatting flips and text case can see them. Anything else stays literal text.

use super::output::{Fmt, Out, Span, VAlign};

/// How deeply markup in a field value may nest; deeper tags stay literal text (the output
/// tree is walked recursively).
const MAX_NESTING: usize = 16;

const TAGS: &[(&str, &str)] = &[
    ("<i>", "</i>"),
    ("<b>", "</b>"),
    ("<sc>", "</sc>"),
    ("<sup>", "</sup>"),
    ("<sub>", "</sub>"),
    ("<span class=\"nocase\">", "</span>"),
    ("<span class=\"nodecor\">", "</span>"),
    ("<span style=\"font-variant:small-caps;\">", "</span>"),
    ("<span style=\"font-variant: small-caps;\">", "</span>"),
];

fn span_for(open: &str) -> Span {
    let mut s = Span {
        toggle: true,
        ..Span::default()
    };
    // Small caps, superscript and subscript from the data are left alone by text case.
    s.nocase = !matches!(open, "<i>" | "<b>");
    match open {
        "<i>" => s.fmt.italic = Some(true),
        "<b>" => s.fmt.bold = Some(true),
        "<sup>" => s.fmt.valign = Some(VAlign::Sup),
        "<sub>" => s.fmt.valign = Some(VAlign::Sub),
        "<span class=\"nocase\">" => s.nocase = true,
        "<span class=\"nodecor\">" => s.nodecor = true,
        _ => s.fmt.small_caps = Some(true),
    }
    s
}

/// Whether a single quote later closes a quotation (one not followed by a letter).
fn has_closing_single(rest: &str) -> bool {
    let mut chars = rest.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\'' && !chars.peek().is_some_and(|n| n.is_alphanumeric()) {
            return true;
        }
    }
    false
}

/// Parses a field value. Values without markup stay one text leaf.
pub fn parse(s: &str) -> Out {
    if !s.contains(['<', '"', '\'']) {
        return Out::text(s);
    }
    // Frames: the span being built and the closing tag it waits for.
    let mut stack: Vec<(Span, &'static str)> = vec![(Span::default(), "")];
    let mut text = String::new();
    let mut rest = s;
    let flush = |stack: &mut Vec<(Span, &'static str)>, text: &mut String| {
        if !text.is_empty() {
            if let Some((top, _)) = stack.last_mut() {
                top.children.push(Out::Text(std::mem::take(text)));
            }
        }
    };
    while let Some(c) = rest.chars().next() {
        if c == '<' {
            if let Some((open, close)) = TAGS
                .iter()
                .find(|(o, _)| rest.starts_with(o))
                .filter(|_| stack.len() <= MAX_NESTING)
            {
                flush(&mut stack, &mut text);
                stack.push((span_for(open), close));
                rest = rest.get(open.len()..).unwrap_or("");
                continue;
            }
            let closing = stack.last().map(|(_, c)| *c).unwrap_or("");
            if !closing.is_empty() && rest.starts_with(closing) && stack.len() > 1 {
                flush(&mut stack, &mut text);
                if let Some((done, _)) = stack.pop() {
                    if let Some((top, _)) = stack.last_mut() {
                        top.children.push(Out::Span(Box::new(done)));
                    }
                }
                rest = rest.get(closing.len()..).unwrap_or("");
                continue;
            }
        }
        if c == '"' {
            let opening = stack.last().map(|(_, c)| *c) != Some("\"");
            let at_word_start = text.is_empty()
                || text.ends_with(|p: char| p.is_whitespace() || p == '(' || p == '[');
            if opening
                && at_word_start
                && stack.len() <= MAX_NESTING
                && rest.get(1..).is_some_and(|r| r.contains('"'))
            {
                flush(&mut stack, &mut text);
                stack.push((
                    Span {
                        quotes: true,
                        ..Span::default()
                    },
                    "\"",
                ));
                rest = rest.get(1..).unwrap_or("");
                continue;
            }
            if !opening {
                flush(&mut stack, &mut text);
                if let Some((done, _)) = stack.pop() {
                    if let Some((top, _)) = stack.last_mut() {
                        top.children.push(Out::Span(Box::new(done)));
                    }
                }
                rest = rest.get(1..).unwrap_or("");
                continue;
            }
        }
        if c == '\'' {
            let next = rest.get(1..).and_then(|r| r.chars().next());
            let in_single = stack.last().map(|(_, c)| *c) == Some("'");
            let at_word_start = text.is_empty()
                || text.ends_with(|p: char| p.is_whitespace() || p == '(' || p == '[');
            if in_single && !next.is_some_and(char::is_alphanumeric) {
                flush(&mut stack, &mut text);
                if let Some((done, _)) = stack.pop() {
                    if let Some((top, _)) = stack.last_mut() {
                        top.children.push(Out::Span(Box::new(done)));
                    }
                }
                rest = rest.get(1..).unwrap_or("");
                continue;
            }
            if at_word_start
                && next.is_some_and(char::is_alphanumeric)
                && has_closing_single(rest.get(1..).unwrap_or(""))
            {
                flush(&mut stack, &mut text);
                stack.push((
                    Span {
                        quotes: true,
                        ..Span::default()
                    },
                    "'",
                ));
                rest = rest.get(1..).unwrap_or("");
                continue;
            }
            // An apostrophe.
            text.push('\u{2019}');
            rest = rest.get(1..).unwrap_or("");
            continue;
        }
        text.push(c);
        rest = rest.get(c.len_utf8()..).unwrap_or("");
    }
    flush(&mut stack, &mut text);
    // Unclosed spans keep their content, without the formatting they never closed.
    while stack.len() > 1 {
        if let Some((done, close)) = stack.pop() {
            if let Some((top, _)) = stack.last_mut() {
                if close == "\"" {
                    top.children.push(Out::text("\""));
                } else if close == "'" {
                    top.children.push(Out::text("\u{2019}"));
                }
                top.children.extend(done.children);
            }
        }
    }
    let root = stack.pop().map(|(s, _)| s).unwrap_or_default();
    if root.children.len() == 1 && root.fmt == Fmt::default() {
        if let Some(Out::Text(t)) = root.children.first() {
            return Out::text(t.clone());
        }
    }
    Out::Span(Box::new(root))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_markup_and_quotes() {
        let out = parse("A <i>b</i> \"c\" <span class=\"nocase\">d</span>");
        assert_eq!(out.plain(), "A b c d");
        assert_eq!(parse("plain").plain(), "plain");
        assert_eq!(parse("x <i>open").plain(), "x open");
        let deep = "<i>".repeat(10_000);
        assert!(parse(&deep).plain().contains("<i>"));
    }
}
