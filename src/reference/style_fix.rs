//! Adjustments to a parsed style that work around engine faults without changing what the
//! style means.

use hayagriva::citationberg::{IndependentStyle, LayoutRenderingElement as El, Name, NamesChild};

/// CSL lets `<names>` omit `<name>` (the names then take the inherited options), as the NLM
/// (Vancouver) style does for authors, with only a `<label>` inside. hayagriva 0.10 renders
/// no names at all for such a `<names>`, so an empty `<name/>` is added there. (Only there:
/// elsewhere the engine handles a missing `<name>`, and an explicit empty one would stop it
/// inheriting the options of `<bibliography>`.)
pub fn add_missing_name_elements(style: &mut IndependentStyle) {
    walk(&mut style.citation.layout.elements);
    if let Some(bibliography) = &mut style.bibliography {
        walk(&mut bibliography.layout.elements);
    }
    for m in &mut style.macros {
        walk(&mut m.children);
    }
}

fn walk(elements: &mut [El]) {
    // An explicit stack, not recursion: the nesting comes from the style, which can be a
    // caller's XML.
    let mut stack: Vec<&mut [El]> = vec![elements];
    while let Some(level) = stack.pop() {
        for element in level {
            match element {
                El::Names(names) => {
                    let has_name = names
                        .children
                        .iter()
                        .any(|c| matches!(c, NamesChild::Name(_)));
                    let has_label = names
                        .children
                        .iter()
                        .any(|c| matches!(c, NamesChild::Label(_)));
                    if has_label && !has_name {
                        names.children.insert(0, NamesChild::Name(Name::default()));
                    }
                    for child in names.children.iter_mut() {
                        if let NamesChild::Substitute(s) = child {
                            stack.push(&mut s.children);
                        }
                    }
                }
                El::Group(g) => stack.push(&mut g.children),
                El::Choose(c) => {
                    stack.push(&mut c.if_.children);
                    for branch in c.else_if.iter_mut() {
                        stack.push(&mut branch.children);
                    }
                    if let Some(otherwise) = &mut c.otherwise {
                        stack.push(&mut otherwise.children);
                    }
                }
                _ => {}
            }
        }
    }
}
