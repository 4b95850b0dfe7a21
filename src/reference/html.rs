//! HTML for rendered references, written by us rather than by the engine: every piece of
//! text is escaped and only http(s) links become anchors, because source metadata is
//! untrusted input (the engine's own HTML writer escapes nothing).

use hayagriva::citationberg::{
    Display, FontStyle, FontVariant, FontWeight, TextDecoration, VerticalAlign,
};
use hayagriva::{ElemChild, ElemChildren, Formatted};

use crate::html::{escape_into as escape, is_safe_url as safe_url};

pub fn write_children(children: &ElemChildren, out: &mut String) {
    /// What is left to write: a child, or the end of a block opened for one.
    enum Step<'a> {
        Child(&'a ElemChild),
        Close,
    }
    // An explicit stack, not recursion: the nesting comes from the style and the metadata.
    let mut stack: Vec<Step> = children.0.iter().rev().map(Step::Child).collect();
    while let Some(step) = stack.pop() {
        let child = match step {
            Step::Close => {
                out.push_str("</div>");
                continue;
            }
            Step::Child(child) => child,
        };
        match child {
            ElemChild::Text(f) => write_formatted(f, out),
            ElemChild::Elem(e) => {
                let class = match e.display {
                    Some(Display::Block) => Some("csl-block"),
                    Some(Display::Indent) => Some("csl-indent"),
                    Some(Display::LeftMargin) => Some("csl-left-margin"),
                    Some(Display::RightInline) => Some("csl-right-inline"),
                    None => None,
                };
                if let Some(class) = class {
                    out.push_str("<div class=\"");
                    out.push_str(class);
                    out.push_str("\">");
                    stack.push(Step::Close);
                }
                stack.extend(e.children.0.iter().rev().map(Step::Child));
            }
            ElemChild::Markup(m) => escape(m, out),
            ElemChild::Link { text, url } if safe_url(url) => {
                out.push_str("<a href=\"");
                escape(url, out);
                out.push_str("\" rel=\"noopener noreferrer\">");
                write_formatted(text, out);
                out.push_str("</a>");
            }
            ElemChild::Link { text, .. } => write_formatted(text, out),
            ElemChild::Transparent { .. } => {}
        }
    }
}

fn write_formatted(f: &Formatted, out: &mut String) {
    let fmt = &f.formatting;
    let mut close: Vec<&str> = Vec::new();
    let mut open = |tag: &str, end: &'static str, out: &mut String| {
        out.push_str(tag);
        close.push(end);
    };
    if matches!(fmt.font_style, FontStyle::Italic) {
        open("<i>", "</i>", out);
    }
    match fmt.font_weight {
        FontWeight::Bold => open("<b>", "</b>", out),
        FontWeight::Light => open("<span style=\"font-weight:lighter\">", "</span>", out),
        FontWeight::Normal => {}
    }
    if matches!(fmt.font_variant, FontVariant::SmallCaps) {
        open("<span style=\"font-variant:small-caps\">", "</span>", out);
    }
    if matches!(fmt.text_decoration, TextDecoration::Underline) {
        open("<span style=\"text-decoration:underline\">", "</span>", out);
    }
    match fmt.vertical_align {
        VerticalAlign::Sup => open("<sup>", "</sup>", out),
        VerticalAlign::Sub => open("<sub>", "</sub>", out),
        _ => {}
    }
    escape(&f.text, out);
    for end in close.into_iter().rev() {
        out.push_str(end);
    }
}
