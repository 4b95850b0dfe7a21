//! A parsed CSL style: the element tree plus its macros, citation, bibliography and locale
//! overrides. Rendering reads the elements directly; the bounds of [`MAX_STYLE_DEPTH`] and the
//! renderer's expansion budget keep hostile styles cheap.

use std::collections::HashMap;

use super::xml::{self, Node};

/// How deeply a style's elements may nest (real styles: at most 15).
pub const MAX_STYLE_DEPTH: usize = 64;

#[derive(Debug, Clone)]
pub struct Style {
    pub root: Node,
    pub macros: HashMap<String, Node>,
    pub citation: Option<Node>,
    pub bibliography: Option<Node>,
    pub locales: Vec<Node>,
    pub default_locale: Option<String>,
    pub class: String,
    /// Whether any element renders `year-suffix` itself (else it follows the first year).
    pub renders_year_suffix: bool,
    /// Whether any condition tests `disambiguate="true"`.
    pub tests_disambiguate: bool,
    /// Whether citations print citation numbers (a numeric style): every registered item
    /// then keeps its numbered place in the bibliography.
    pub numeric: bool,
}

/// Whether `node` prints the citation number (`cs:text`, through macros too).
fn prints_number(node: &Node, macros: &HashMap<String, Node>, depth: usize) -> bool {
    if node.name == "text" {
        if node.attr("variable") == Some("citation-number") {
            return true;
        }
        if let Some(m) = node.attr("macro").and_then(|m| macros.get(m)) {
            return depth < 16 && prints_number(m, macros, depth + 1);
        }
    }
    node.children
        .iter()
        .any(|c| prints_number(c, macros, depth))
}

fn tests_disambiguate(node: &Node) -> bool {
    node.attr("disambiguate") == Some("true") || node.children.iter().any(tests_disambiguate)
}

fn uses_var(node: &Node, var: &str) -> bool {
    node.attr("variable")
        .is_some_and(|v| v.split_whitespace().any(|x| x == var))
        || node.children.iter().any(|c| uses_var(c, var))
}

impl Style {
    pub fn parse(text: &str) -> Result<Style, String> {
        let mut root = xml::parse(text, MAX_STYLE_DEPTH)?;
        if root.name != "style" {
            return Err(format!("the root element is <{}>, not <style>", root.name));
        }
        let renders_year_suffix = uses_var(&root, "year-suffix");
        let tests_disambiguate = tests_disambiguate(&root);
        let mut macros = HashMap::new();
        let mut citation = None;
        let mut bibliography = None;
        let mut locales = Vec::new();
        // The parts move out of the tree (no copies); `root` keeps its attributes and info.
        for c in std::mem::take(&mut root.children) {
            match c.name.as_str() {
                "macro" => {
                    if let Some(n) = c.attr("name") {
                        macros.insert(n.to_owned(), c);
                    }
                }
                "citation" => citation = Some(c),
                "bibliography" => bibliography = Some(c),
                "locale" => locales.push(c),
                _ => root.children.push(c),
            }
        }
        if citation.is_none() && bibliography.is_none() {
            if root.child("info").is_some_and(|i| {
                i.children_named("link")
                    .any(|l| l.attr("rel") == Some("independent-parent"))
            }) {
                return Err("this is a dependent style; pass its parent style's XML".into());
            }
            return Err("the style has neither a citation nor a bibliography".into());
        }
        let numeric = citation
            .as_ref()
            .is_some_and(|c| prints_number(c, &macros, 0));
        Ok(Style {
            numeric,
            default_locale: root.attr("default-locale").map(str::to_owned),
            class: root.attr("class").unwrap_or("in-text").to_owned(),
            root,
            macros,
            citation,
            bibliography,
            locales,
            renders_year_suffix,
            tests_disambiguate,
        })
    }
}
