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

/// Byte offset of the last single quote that could close a quotation (one not followed by a
/// letter or digit): an opening quote needs one after it. Found once, so that a value full of
/// quotes costs linear time.
fn last_closing_single(s: &str) -> Option<usize> {
    let mut last = None;
    let mut chars = s.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c == '\'' && !chars.peek().is_some_and(|(_, n)| n.is_alphanumeric()) {
            last = Some(i);
        }
    }
    last
}

/// Parses an affix: markup as in a field value, but quote marks stay as written (a style's
/// `suffix='. "hello" '` is typography the style chose, as citeproc-js keeps it).
pub fn parse_affix(s: &str) -> Out {
    if !s.contains('<') {
        return Out::text(s);
    }
    parse(s)
}

/// Parses a field value. Values without markup stay one text leaf.
pub fn parse(s: &str) -> Out {
    if !s.contains(['<', '"', '\'', '\u{201c}', '\u{2018}']) {
        return Out::text(s);
    }
    // Frames: the span being built and the closing tag it waits for.
    let mut stack: Vec<(Span, &'static str)> = vec![(Span::default(), "")];
    let mut text = String::new();
    let mut rest = s;
    let closing_single = last_closing_single(s);
    let last_double = s.rfind('"');
    let last_close_double = s.rfind('\u{201d}');
    let flush = |stack: &mut Vec<(Span, &'static str)>, text: &mut String| {
        if !text.is_empty() {
            if let Some((top, _)) = stack.last_mut() {
                top.children.push(Out::Text(std::mem::take(text)));
            }
        }
    };
    // Opens a span (bounded: deeper markup stays text) or closes the innermost one.
    let open = |stack: &mut Vec<(Span, &'static str)>,
                text: &mut String,
                span: Span,
                close: &'static str| {
        flush(stack, text);
        stack.push((span, close));
    };
    let close = |stack: &mut Vec<(Span, &'static str)>, text: &mut String, after: &str| {
        flush(stack, text);
        if let Some((mut done, _)) = stack.pop() {
            done.keep_after = done.quotes && after.starts_with(['.', ',', ';', ':', '!', '?']);
            if let Some((top, _)) = stack.last_mut() {
                top.children.push(Out::Span(Box::new(done)));
            }
        }
    };
    let quote = || Span {
        quotes: true,
        ..Span::default()
    };
    while let Some(c) = rest.chars().next() {
        let room = stack.len() <= MAX_NESTING;
        let top = stack.last().map(|(_, c)| *c).unwrap_or("");
        let at_word_start =
            text.is_empty() || text.ends_with(|p: char| p.is_whitespace() || p == '(' || p == '[');
        let next = rest.get(c.len_utf8()..).and_then(|r| r.chars().next());
        if c == '<' {
            if let Some((tag, end)) = TAGS
                .iter()
                .find(|(o, _)| rest.starts_with(o))
                .filter(|_| room)
            {
                open(&mut stack, &mut text, span_for(tag), end);
                rest = rest.get(tag.len()..).unwrap_or("");
                continue;
            }
            if !top.is_empty() && rest.starts_with(top) && stack.len() > 1 {
                rest = rest.get(top.len()..).unwrap_or("");
                close(&mut stack, &mut text, rest);
                continue;
            }
        }
        if c == '"' {
            // A quote after a space opens (or stays literal), it does not close.
            let after_space = text.ends_with(char::is_whitespace);
            if top == "\"" && !after_space {
                rest = rest.get(1..).unwrap_or("");
                close(&mut stack, &mut text, rest);
                continue;
            }
            let pos = s.len() - rest.len();
            if at_word_start && room && last_double.is_some_and(|l| l > pos) {
                open(&mut stack, &mut text, quote(), "\"");
                rest = rest.get(1..).unwrap_or("");
                continue;
            }
        }
        // Typographic double quotes in the data are quotes too (they flip inside quotes).
        if c == '\u{201c}' && room && last_close_double.is_some_and(|l| l > s.len() - rest.len()) {
            open(&mut stack, &mut text, quote(), "\u{201d}");
            rest = rest.get(c.len_utf8()..).unwrap_or("");
            continue;
        }
        if c == '\u{201d}' && top == "\u{201d}" {
            rest = rest.get(c.len_utf8()..).unwrap_or("");
            close(&mut stack, &mut text, rest);
            continue;
        }
        // Typographic single quotes inside quotes from the data: an opening one with a
        // closing one (not an apostrophe) after it. (Outside quotes they stay as written.)
        let in_quotes = stack.iter().any(|(sp, _)| sp.quotes);
        if c == '\u{2018}' && in_quotes && at_word_start && room && {
            let after = rest.get(c.len_utf8()..).unwrap_or("");
            let mut it = after.char_indices().peekable();
            let mut found = false;
            while let Some((_, x)) = it.next() {
                if x == '\u{2019}' && !it.peek().is_some_and(|(_, n)| n.is_alphanumeric()) {
                    found = true;
                    break;
                }
            }
            found
        } {
            open(&mut stack, &mut text, quote(), "\u{2019}");
            rest = rest.get(c.len_utf8()..).unwrap_or("");
            continue;
        }
        if c == '\u{2019}' && top == "\u{2019}" && !next.is_some_and(char::is_alphanumeric) {
            rest = rest.get(c.len_utf8()..).unwrap_or("");
            close(&mut stack, &mut text, rest);
            continue;
        }
        if c == '\'' {
            if top == "'" && !next.is_some_and(char::is_alphanumeric) {
                rest = rest.get(1..).unwrap_or("");
                close(&mut stack, &mut text, rest);
                continue;
            }
            if at_word_start
                && room
                && next.is_some_and(|n| n.is_alphanumeric() || n == '"')
                && closing_single.is_some_and(|l| l > s.len() - rest.len())
            {
                open(&mut stack, &mut text, quote(), "'");
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
                } else if close == "\u{201d}" {
                    top.children.push(Out::text("\u{201c}"));
                } else if close == "\u{2019}" {
                    top.children.push(Out::text("\u{2018}"));
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

    fn depth(o: &Out) -> usize {
        match o {
            Out::Text(_) => 0,
            Out::Span(s) => 1 + s.children.iter().map(depth).max().unwrap_or(0),
        }
    }

    fn text(o: &Out) -> String {
        super::super::output::write(o, super::super::output::Format::Text, &Default::default())
    }

    #[test]
    fn typographic_quotes_flip_and_a_quote_after_a_space_does_not_close() {
        assert_eq!(
            text(&parse("My \u{201c}Amazing\u{201d} Title")),
            "My “Amazing” Title"
        );
        // Inside quotes from the data, single quotes are quotes too (and flip).
        assert_eq!(
            text(&parse("\u{201c}My \u{2018}Amazing\u{2019} Title\u{201d}")),
            "“My ‘Amazing’ Title”"
        );
        assert_eq!(
            text(&parse("a \"b \" c")),
            "a \"b \" c",
            "an orphan quote stays as written"
        );
        assert_eq!(text(&parse_affix(". \"hello\" ")), ". \"hello\" ");
        // Punctuation the value writes after its quotes stays there, even where the locale
        // moves punctuation into quotes.
        let q = super::super::output::Quotes {
            punctuation_in_quote: true,
            ..Default::default()
        };
        let w = |o: &Out| super::super::output::write(o, super::super::output::Format::Text, &q);
        assert_eq!(w(&parse(", \"Hello there\".")), ", “Hello there”.");
        let moved = Out::group(vec![parse("\"Hello there\""), Out::text(".")]);
        assert_eq!(w(&moved), "“Hello there.”");
    }

    #[test]
    fn reads_markup_and_quotes() {
        let out = parse("A <i>b</i> \"c\" <span class=\"nocase\">d</span>");
        assert_eq!(out.plain(), "A b c d");
        assert_eq!(parse("plain").plain(), "plain");
        assert_eq!(parse("x <i>open").plain(), "x open");
        for deep in [
            "<i>".repeat(10_000),
            "'a ".repeat(10_000),
            "\"a ".repeat(10_000),
        ] {
            assert!(depth(&parse(&deep)) <= MAX_NESTING + 2, "{}", &deep[..6]);
        }
    }
}
