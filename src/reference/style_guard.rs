//! Bounds on the work a CSL style or locale given as XML can cause, checked before the XML
//! reaches the engine. A style is code written by whoever supplied it: nesting thousands of
//! elements deep exhausts the stack of a recursive parser or renderer, a macro that calls
//! itself never ends, and macros that each call the next one twice double the work per level.
//!
//! The check is a small scan of the XML's tags (no tree is built): element depth, and the macro
//! call graph, which must be acyclic with a bounded number of expansions per rendered item.
//! Within `<choose>` only one branch runs, so a choose costs its dearest branch; everything else
//! adds up. The real styles shipped with CSL need at most a few hundred expansions this way
//! (Chicago author-date: 432), so the bound leaves a wide margin.

use std::collections::HashMap;

use super::ReferenceError;

/// How deeply the elements of a style or locale may nest (real styles: at most 15).
pub const MAX_XML_DEPTH: usize = 64;
/// How many macro expansions rendering one item may need (real styles: at most 432).
pub const MAX_MACRO_EXPANSIONS: u64 = 10_000;

/// One node of the scanned element tree: what it costs to render, built bottom-up.
struct Open {
    name: String,
    /// The macro this element calls (`macro="…"`), if any.
    calls: Option<String>,
    /// Children's costs as symbolic terms, resolved once every macro is known.
    children: Vec<Cost>,
}

/// A cost expression: macro calls stay symbolic until the whole style is read.
#[derive(Clone)]
enum Cost {
    Call(String),
    Sum(Vec<Cost>),
    Max(Vec<Cost>),
}

/// Checks a CSL locale's element depth.
pub fn check_locale(xml: &str) -> Result<(), ReferenceError> {
    scan(xml, |_| {}).map_err(|e| ReferenceError::InvalidLocale(e.describe("locale")))
}

/// Checks a CSL style's depth and macro graph.
pub fn check_style(xml: &str) -> Result<(), ReferenceError> {
    let mut stack: Vec<Open> = Vec::new();
    let mut macros: HashMap<String, Cost> = HashMap::new();
    let mut roots: Vec<Cost> = Vec::new();
    scan(xml, |event| match event {
        Event::Open(tag) => stack.push(Open {
            // A macro's name rides on its element until it closes.
            name: match tag.macro_name {
                Some(name) => format!("macro:{name}"),
                None => tag.name,
            },
            calls: tag.macro_call,
            children: Vec::new(),
        }),
        Event::Close => {
            let Some(node) = stack.pop() else { return };
            let mut terms = node.children;
            let cost = if node.name == "choose" {
                Cost::Max(terms)
            } else {
                if let Some(callee) = node.calls {
                    terms.push(Cost::Call(callee));
                }
                Cost::Sum(terms)
            };
            if let Some(name) = node.name.strip_prefix("macro:") {
                macros.insert(name.to_owned(), cost);
            } else if let Some(parent) = stack.last_mut() {
                parent.children.push(cost);
            } else {
                roots.push(cost);
            }
        }
    })
    .map_err(|e| ReferenceError::InvalidStyle(e.describe("style")))?;
    let mut memo: HashMap<String, u64> = HashMap::new();
    let mut resolving: Vec<String> = Vec::new();
    let total = roots.iter().try_fold(0u64, |acc, c| {
        Ok::<u64, ReferenceError>(acc.saturating_add(cost_of(
            c,
            &macros,
            &mut memo,
            &mut resolving,
        )?))
    })?;
    if total > MAX_MACRO_EXPANSIONS {
        return Err(ReferenceError::InvalidStyle(format!(
            "rendering one item could take {total} macro expansions, more than the limit of {MAX_MACRO_EXPANSIONS}"
        )));
    }
    Ok(())
}

fn cost_of(
    cost: &Cost,
    macros: &HashMap<String, Cost>,
    memo: &mut HashMap<String, u64>,
    resolving: &mut Vec<String>,
) -> Result<u64, ReferenceError> {
    match cost {
        Cost::Sum(terms) => terms.iter().try_fold(0u64, |acc, t| {
            Ok(acc.saturating_add(cost_of(t, macros, memo, resolving)?))
        }),
        Cost::Max(terms) => terms.iter().try_fold(0u64, |acc, t| {
            Ok(acc.max(cost_of(t, macros, memo, resolving)?))
        }),
        Cost::Call(name) => {
            if let Some(&known) = memo.get(name) {
                return Ok(known);
            }
            // An unknown macro is the engine's error to report.
            let Some(body) = macros.get(name) else {
                return Ok(0);
            };
            if let Some(start) = resolving.iter().position(|m| m == name) {
                let cycle: Vec<&str> = resolving
                    .iter()
                    .skip(start)
                    .map(String::as_str)
                    .chain(std::iter::once(name.as_str()))
                    .collect();
                return Err(ReferenceError::InvalidStyle(format!(
                    "macros call each other in a cycle: {}",
                    cycle.join(" → ")
                )));
            }
            resolving.push(name.clone());
            let inner = cost_of(body, macros, memo, resolving);
            resolving.pop();
            let total = inner?.saturating_add(1);
            memo.insert(name.clone(), total);
            Ok(total)
        }
    }
}

/// What the scanner reports: a start tag, or the end of the innermost open element.
enum Event {
    Open(Tag),
    Close,
}

/// A start tag as the scanner reports it.
struct Tag {
    /// The local name (any `prefix:` removed).
    name: String,
    /// `name="…"` on a `<macro>`.
    macro_name: Option<String>,
    /// `macro="…"` on any element.
    macro_call: Option<String>,
}

enum ScanError {
    TooDeep,
}

impl ScanError {
    fn describe(&self, what: &str) -> String {
        match self {
            Self::TooDeep => {
                format!("the {what}'s elements nest more than {MAX_XML_DEPTH} levels deep")
            }
        }
    }
}

/// Walks the tags of `xml`, reporting each start tag and each end (an empty element `<a/>`
/// gives both). Malformed XML stops the scan quietly: the real parser reports it better.
fn scan(xml: &str, mut on: impl FnMut(Event)) -> Result<(), ScanError> {
    let mut rest = xml;
    let mut depth = 0usize;
    while let Some(lt) = rest.find('<') {
        rest = rest.get(lt..).unwrap_or_default();
        let skip_to = |rest: &str, end: &str| rest.find(end).map(|i| i + end.len());
        let consumed = if rest.starts_with("<!--") {
            skip_to(rest, "-->")
        } else if rest.starts_with("<![CDATA[") {
            skip_to(rest, "]]>")
        } else if rest.starts_with("<?") {
            skip_to(rest, "?>")
        } else if rest.starts_with("<!") {
            skip_to(rest, ">")
        } else if let Some(after) = rest.strip_prefix("</") {
            let end = after.find('>');
            if end.is_some() {
                depth = depth.saturating_sub(1);
                on(Event::Close);
            }
            end.map(|e| e + 3)
        } else {
            let (len, tag, empty) = match start_tag(rest) {
                Some(t) => t,
                None => return Ok(()),
            };
            depth += 1;
            if depth > MAX_XML_DEPTH {
                return Err(ScanError::TooDeep);
            }
            on(Event::Open(tag));
            if empty {
                depth -= 1;
                on(Event::Close);
            }
            Some(len)
        };
        match consumed {
            Some(n) => rest = rest.get(n..).unwrap_or_default(),
            None => return Ok(()),
        }
    }
    Ok(())
}

fn local_name(name: &str) -> &str {
    name.rsplit(':').next().unwrap_or(name)
}

/// Parses `<name attr="v" …>` at the start of `s`: its length, the tag, and whether it is
/// empty (`/>`). `None` when it is not a well-formed start tag.
fn start_tag(s: &str) -> Option<(usize, Tag, bool)> {
    let body = s.strip_prefix('<')?;
    let name_len = body
        .find(|c: char| c.is_whitespace() || c == '>' || c == '/')
        .unwrap_or(body.len());
    let name = local_name(body.get(..name_len)?).to_owned();
    let mut tag = Tag {
        macro_name: None,
        macro_call: None,
        name,
    };
    let mut i = name_len;
    loop {
        let rest = body.get(i..)?;
        let trimmed = rest.trim_start();
        i += rest.len() - trimmed.len();
        if trimmed.starts_with("/>") {
            return Some((1 + i + 2, tag, true));
        }
        if trimmed.starts_with('>') {
            return Some((1 + i + 1, tag, false));
        }
        // attr = "value" | 'value'
        let eq = trimmed.find('=')?;
        let attr = local_name(trimmed.get(..eq)?.trim());
        let after_eq = trimmed.get(eq + 1..)?;
        let value_start = after_eq.len() - after_eq.trim_start().len();
        let quoted = after_eq.get(value_start..)?;
        let quote = quoted.chars().next().filter(|q| *q == '"' || *q == '\'')?;
        let value_len = quoted.get(1..)?.find(quote)?;
        let value = quoted.get(1..1 + value_len)?.to_owned();
        match attr {
            "macro" => tag.macro_call = Some(value),
            "name" if tag.name == "macro" => tag.macro_name = Some(value),
            _ => {}
        }
        i += eq + 1 + value_start + 1 + value_len + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn style(body: &str) -> String {
        format!(
            r#"<?xml version="1.0"?><style xmlns="http://purl.org/net/xbiblio/csl" class="in-text" version="1.0"><!-- a > b -->{body}</style>"#
        )
    }

    #[test]
    fn real_styles_pass() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/csl/styles");
        let Ok(entries) = std::fs::read_dir(dir) else {
            return; // shared/ is not next to the checkout: nothing to read
        };
        let mut checked = 0;
        for entry in entries.flatten() {
            let xml = std::fs::read_to_string(entry.path()).unwrap();
            check_style(&xml).unwrap_or_else(|e| panic!("{:?}: {e}", entry.path()));
            checked += 1;
        }
        assert!(checked > 0);
    }

    #[test]
    fn deep_nesting_is_refused() {
        let xml = style(&format!(
            "<bibliography><layout>{}{}</layout></bibliography>",
            "<group>".repeat(2000),
            "</group>".repeat(2000)
        ));
        let err = check_style(&xml).unwrap_err();
        assert!(err.to_string().contains("nest more than 64"), "{err}");
        let ok = style(&format!(
            "<bibliography><layout>{}{}</layout></bibliography>",
            "<group>".repeat(50),
            "</group>".repeat(50)
        ));
        check_style(&ok).unwrap();
    }

    #[test]
    fn recursive_macros_are_refused() {
        let direct = style(
            r#"<macro name="a"><text macro="a"/></macro><bibliography><layout><text macro="a"/></layout></bibliography>"#,
        );
        let err = check_style(&direct).unwrap_err().to_string();
        assert!(err.contains("a → a"), "{err}");
        let indirect = style(
            r#"<macro name="a"><group><text macro="b"/></group></macro><macro name='b'><choose><if type="book"><text macro="a"/></if></choose></macro><citation><layout><text macro="a"/></layout></citation>"#,
        );
        let err = check_style(&indirect).unwrap_err().to_string();
        assert!(err.contains("a → b → a"), "{err}");
    }

    #[test]
    fn exponential_macros_are_refused() {
        let mut body = String::from(r#"<macro name="m0"><text variable="title"/></macro>"#);
        for i in 1..=20 {
            body.push_str(&format!(
                r#"<macro name="m{i}"><text macro="m{p}"/><text macro="m{p}"/></macro>"#,
                p = i - 1
            ));
        }
        body.push_str(r#"<bibliography><layout><text macro="m20"/></layout></bibliography>"#);
        let err = check_style(&style(&body)).unwrap_err().to_string();
        assert!(err.contains("macro expansions"), "{err}");
    }

    #[test]
    fn choose_costs_its_dearest_branch() {
        let mut body = String::from(r#"<macro name="leaf"><text variable="title"/></macro>"#);
        // 1000 branches of 20 calls each: 20,000 as a sum, 20 as a choice.
        body.push_str(r#"<bibliography><layout><choose>"#);
        for _ in 0..1000 {
            body.push_str(r#"<if type="book">"#);
            body.push_str(&r#"<text macro="leaf"/>"#.repeat(20));
            body.push_str("</if>");
        }
        body.push_str("</choose></layout></bibliography>");
        check_style(&style(&body)).unwrap();
    }
}
