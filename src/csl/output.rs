//! Rendered output as a small rich-text tree, and its writing as text or HTML with CSL's
//! punctuation rules (collisions like `?.`, punctuation moved inside quotes, flip-flopping
//! italics and inner quotes).

/// Output format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Format {
    #[default]
    Text,
    Html,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VAlign {
    Sup,
    Sub,
    Baseline,
}

/// Formatting of a span; `None` inherits.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fmt {
    pub italic: Option<bool>,
    pub bold: Option<bool>,
    pub small_caps: Option<bool>,
    pub underline: Option<bool>,
    pub valign: Option<VAlign>,
}

impl Fmt {
    pub fn is_plain(&self) -> bool {
        *self == Fmt::default()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Out {
    Text(String),
    Span(Box<Span>),
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Span {
    pub fmt: Fmt,
    pub quotes: bool,
    /// `display` attribute: block, left-margin, right-inline, indent.
    pub display: Option<String>,
    /// Text case must not touch this span (`<span class="nocase">`).
    pub nocase: bool,
    /// Markup from a field value: italic/bold/small caps flip against the surrounding state.
    pub toggle: bool,
    /// `<span class="nodecor">`: every active formatting is turned off.
    pub nodecor: bool,
    /// A link target (URL and DOI variables); HTML output links only http(s) targets.
    pub link: Option<String>,
    /// Quotes from a value whose own punctuation follows them (`"Hello there".`): that
    /// punctuation stays outside, as written.
    pub keep_after: bool,
    pub children: Vec<Out>,
}

impl Out {
    pub fn text(s: impl Into<String>) -> Out {
        Out::Text(s.into())
    }

    pub fn group(children: Vec<Out>) -> Out {
        Out::Span(Box::new(Span {
            children,
            ..Span::default()
        }))
    }

    pub fn is_empty(&self) -> bool {
        match self {
            Out::Text(s) => s.is_empty(),
            Out::Span(s) => s.children.iter().all(Out::is_empty),
        }
    }

    /// Plain text content, without quotes or formatting.
    pub fn plain(&self) -> String {
        let mut s = String::new();
        self.plain_into(&mut s);
        s
    }

    fn plain_into(&self, out: &mut String) {
        match self {
            Out::Text(t) => out.push_str(t),
            Out::Span(s) => s.children.iter().for_each(|c| c.plain_into(out)),
        }
    }

    /// Applies `f` to every text leaf outside nocase spans.
    pub fn map_text(&mut self, f: &mut dyn FnMut(&str) -> String) {
        match self {
            Out::Text(t) => *t = f(t),
            Out::Span(s) if !s.nocase => s.children.iter_mut().for_each(|c| c.map_text(f)),
            Out::Span(_) => {}
        }
    }

    /// Visits every text leaf, telling whether it is protected from text case.
    pub fn leaves_mut(&mut self, protected: bool, f: &mut dyn FnMut(&mut String, bool)) {
        match self {
            Out::Text(t) => f(t, protected),
            Out::Span(s) => {
                let p = protected || s.nocase;
                s.children.iter_mut().for_each(|c| c.leaves_mut(p, f));
            }
        }
    }

    /// The first text leaf (for capitalizing the start of an entry).
    pub fn first_text_mut(&mut self) -> Option<&mut String> {
        match self {
            Out::Text(t) if !t.is_empty() => Some(t),
            Out::Text(_) => None,
            Out::Span(s) if s.nocase => None,
            Out::Span(s) => s.children.iter_mut().find_map(|c| c.first_text_mut()),
        }
    }
}

/// Quote marks from the locale.
#[derive(Debug, Clone)]
pub struct Quotes {
    pub open: String,
    pub close: String,
    pub open_inner: String,
    pub close_inner: String,
    pub punctuation_in_quote: bool,
}

impl Default for Quotes {
    fn default() -> Self {
        Self {
            open: "\u{201c}".into(),
            close: "\u{201d}".into(),
            open_inner: "\u{2018}".into(),
            close_inner: "\u{2019}".into(),
            punctuation_in_quote: false,
        }
    }
}

/// What happens when punctuation follows punctuation (citeproc-js's table): the second mark
/// is dropped (`?.` → `?`), replaces the first (`:!` → `!`), or both stay (`.:`).
#[derive(PartialEq)]
enum Collision {
    Drop,
    Replace,
    Keep,
}

fn collide(prev: Option<char>, next: char) -> Collision {
    match (prev, next) {
        (Some(':' | ';' | '!' | '?'), ':') => Collision::Drop,
        (Some(':' | '.' | ';' | '!' | '?'), '.') => Collision::Drop,
        (Some(':' | ';'), '!' | '?') => Collision::Replace,
        (Some(p), c) if p == c => Collision::Drop,
        _ => Collision::Keep,
    }
}

enum Tok {
    Text(String),
    Tag(String),
}

struct Writer<'a> {
    format: Format,
    quotes: &'a Quotes,
    toks: Vec<Tok>,
    italic: bool,
    bold: bool,
    small_caps: bool,
    quote_depth: usize,
    /// The text just written closed quotes whose following punctuation stays outside.
    hold: bool,
}

fn is_close_quote(c: char) -> bool {
    matches!(
        c,
        '\u{201d}' | '\u{2019}' | '"' | '\'' | '\u{bb}' | '\u{203a}'
    )
}

impl Writer<'_> {
    fn last_text(&mut self) -> Option<&mut String> {
        self.toks.iter_mut().rev().find_map(|t| match t {
            Tok::Text(s) if !s.is_empty() => Some(s),
            _ => None,
        })
    }

    fn push_text(&mut self, s: &str) {
        if s.is_empty() {
            return;
        }
        let mut s = s.to_owned();
        let pq = self.quotes.punctuation_in_quote && !std::mem::take(&mut self.hold);
        if let Some(first) = s.chars().next() {
            if let Some(prev) = self.last_text() {
                // Spaces never double up.
                if first == ' ' && prev.ends_with(' ') {
                    s.remove(0);
                }
                let first = s.chars().next().unwrap_or(' ');
                if matches!(first, '.' | ',' | ';' | ':' | '!' | '?') {
                    // Trailing closing quotes of the text before.
                    let body_len = prev.trim_end_matches(is_close_quote).len();
                    let quotes_tail = prev.get(body_len..).unwrap_or("").to_owned();
                    let body_last = prev.get(..body_len).and_then(|b| b.chars().last());
                    let moves_in = pq && !quotes_tail.is_empty() && matches!(first, '.' | ',');
                    let target_last = if moves_in || quotes_tail.is_empty() {
                        body_last
                    } else {
                        quotes_tail.chars().last()
                    };
                    match collide(target_last, first) {
                        Collision::Drop => {
                            s.remove(0);
                        }
                        Collision::Replace if quotes_tail.is_empty() => {
                            s.remove(0);
                            prev.pop();
                            prev.push(first);
                        }
                        _ if moves_in => {
                            s.remove(0);
                            prev.truncate(body_len);
                            prev.push(first);
                            prev.push_str(&quotes_tail);
                        }
                        _ => {}
                    }
                }
            }
        }
        if s.is_empty() {
            return;
        }
        // Adjacent text is one run, so punctuation rules see across the pieces.
        if let Some(Tok::Text(last)) = self.toks.last_mut() {
            last.push_str(&s);
        } else {
            self.toks.push(Tok::Text(s));
        }
    }

    fn tag(&mut self, t: &str) {
        if self.format == Format::Html {
            self.toks.push(Tok::Tag(t.to_owned()));
        }
    }

    fn write(&mut self, out: &Out) {
        match out {
            Out::Text(t) => self.push_text(t),
            Out::Span(span) => self.write_span(span),
        }
    }

    fn write_span(&mut self, span: &Span) {
        if span.children.iter().all(Out::is_empty) {
            return;
        }
        let saved = (self.italic, self.bold, self.small_caps);
        let mut closes: Vec<&'static str> = Vec::new();
        if self.format == Format::Text && span.display.as_deref() == Some("right-inline") {
            // In text the margin box is a space.
            self.push_text(" ");
        }
        if let Some(d) = &span.display {
            let class = match d.as_str() {
                "block" => "csl-block",
                "left-margin" => "csl-left-margin",
                "right-inline" => "csl-right-inline",
                "indent" => "csl-indent",
                _ => "",
            };
            if !class.is_empty() {
                self.tag(&format!("<div class=\"{class}\">"));
                closes.push("</div>");
            }
        }
        let mut f = span.fmt;
        if span.toggle {
            f.italic = f.italic.map(|_| !self.italic);
            f.bold = f.bold.map(|_| !self.bold);
            f.small_caps = f.small_caps.map(|_| !self.small_caps);
        }
        if span.nodecor {
            f.italic = self.italic.then_some(false);
            f.bold = self.bold.then_some(false);
            f.small_caps = self.small_caps.then_some(false);
        }
        if let Some(b) = f.bold {
            if b != self.bold {
                self.tag(if b {
                    "<b>"
                } else {
                    "<span style=\"font-weight:normal;\">"
                });
                closes.push(if b { "</b>" } else { "</span>" });
                self.bold = b;
            }
        }
        if let Some(it) = f.italic {
            if it != self.italic {
                self.tag(if it {
                    "<i>"
                } else {
                    "<span style=\"font-style:normal;\">"
                });
                closes.push(if it { "</i>" } else { "</span>" });
                self.italic = it;
            }
        }
        if let Some(sc) = f.small_caps {
            if sc != self.small_caps {
                self.tag(if sc {
                    "<span style=\"font-variant:small-caps;\">"
                } else {
                    "<span style=\"font-variant:normal;\">"
                });
                closes.push("</span>");
                self.small_caps = sc;
            }
        }
        if f.underline == Some(true) {
            self.tag("<span style=\"text-decoration:underline;\">");
            closes.push("</span>");
        }
        match f.valign {
            Some(VAlign::Sup) => {
                self.tag("<sup>");
                closes.push("</sup>");
            }
            Some(VAlign::Sub) => {
                self.tag("<sub>");
                closes.push("</sub>");
            }
            Some(VAlign::Baseline) => {
                self.tag("<span style=\"baseline\">");
                closes.push("</span>");
            }
            None => {}
        }
        if let Some(url) = span.link.as_deref().filter(|u| crate::html::is_safe_url(u)) {
            self.tag(&format!(
                "<a href=\"{}\" rel=\"noopener noreferrer\">",
                crate::html::escape(url)
            ));
            closes.push("</a>");
        }
        if span.quotes {
            let (open, close) = if self.quote_depth.is_multiple_of(2) {
                (self.quotes.open.clone(), self.quotes.close.clone())
            } else {
                (
                    self.quotes.open_inner.clone(),
                    self.quotes.close_inner.clone(),
                )
            };
            self.push_text(&open);
            self.quote_depth += 1;
            span.children.iter().for_each(|c| self.write(c));
            self.quote_depth -= 1;
            self.push_text(&close);
            self.hold = span.keep_after;
        } else {
            span.children.iter().for_each(|c| self.write(c));
        }
        for c in closes.iter().rev() {
            self.tag(c);
        }
        (self.italic, self.bold, self.small_caps) = saved;
    }
}

pub fn escape_html(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&#38;"),
            '<' => out.push_str("&#60;"),
            '>' => out.push_str("&#62;"),
            _ => match super::superscript::base(c) {
                Some(b) => {
                    out.push_str("<sup>");
                    out.push_str(&b);
                    out.push_str("</sup>");
                }
                None => out.push(c),
            },
        }
    }
    out
}

/// Writes a rendered tree as text or HTML.
pub fn write(out: &Out, format: Format, quotes: &Quotes) -> String {
    let mut w = Writer {
        format,
        quotes,
        toks: Vec::new(),
        italic: false,
        bold: false,
        small_caps: false,
        quote_depth: 0,
        hold: false,
    };
    w.write(out);
    let mut s = String::new();
    for t in &w.toks {
        match t {
            Tok::Text(t) if format == Format::Html => s.push_str(&escape_html(t)),
            Tok::Text(t) | Tok::Tag(t) => s.push_str(t),
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn punctuation_collides_and_moves_into_quotes() {
        let q = Quotes {
            punctuation_in_quote: true,
            ..Quotes::default()
        };
        let quoted = Out::Span(Box::new(Span {
            quotes: true,
            children: vec![Out::text("Why?")],
            ..Span::default()
        }));
        let tree = Out::group(vec![quoted, Out::text(". Next.")]);
        assert_eq!(write(&tree, Format::Text, &q), "\u{201c}Why?\u{201d} Next.");
        let tree = Out::group(vec![Out::text("A."), Out::text("."), Out::text(" x")]);
        assert_eq!(write(&tree, Format::Text, &q), "A. x");
    }
}
