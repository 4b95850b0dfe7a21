//! A small XML reader for CSL styles and locales: elements, attributes, text, comments,
//! processing instructions, CDATA and the predefined and numeric entities. Namespace prefixes
//! are dropped (CSL has one namespace). Nesting is bounded so hostile input cannot exhaust the
//! stack of the recursive renderer later on.

/// One element: its local name, attributes in document order, child elements and the
/// concatenated text directly inside it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Node {
    pub name: String,
    pub attrs: Vec<(String, String)>,
    pub children: Vec<Node>,
    pub text: String,
}

impl Node {
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn child(&self, name: &str) -> Option<&Node> {
        self.children.iter().find(|c| c.name == name)
    }

    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Node> + 'a {
        self.children.iter().filter(move |c| c.name == name)
    }
}

fn local(name: &str) -> String {
    match name.rsplit_once(':') {
        // `xml:lang` keeps its prefix: it is the one prefixed attribute CSL uses.
        Some(("xml", _)) | None => name.to_owned(),
        Some((_, rest)) => rest.to_owned(),
    }
}

/// Decodes the predefined and numeric character references.
pub fn decode_entities(s: &str) -> String {
    if !s.contains('&') {
        return s.to_owned();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(rest.get(..i).unwrap_or(""));
        let after = rest.get(i + 1..).unwrap_or("");
        let Some(end) = after.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = after;
            continue;
        };
        let name = after.get(..end).unwrap_or("");
        let decoded = match name {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => name
                .strip_prefix("#x")
                .or_else(|| name.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| name.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match decoded {
            Some(c) => {
                out.push(c);
                rest = after.get(end + 1..).unwrap_or("");
            }
            None => {
                out.push('&');
                rest = after;
            }
        }
    }
    out.push_str(rest);
    out
}

/// Parses a document and returns its root element.
pub fn parse(xml: &str, max_depth: usize) -> Result<Node, String> {
    let mut stack: Vec<Node> = Vec::new();
    let mut root: Option<Node> = None;
    let mut rest = xml.trim_start_matches('\u{feff}');
    while !rest.is_empty() {
        let Some(lt) = rest.find('<') else {
            if let Some(top) = stack.last_mut() {
                top.text.push_str(&decode_entities(rest));
            }
            break;
        };
        if lt > 0 {
            if let Some(top) = stack.last_mut() {
                top.text
                    .push_str(&decode_entities(rest.get(..lt).unwrap_or("")));
            }
        }
        let tag = rest.get(lt..).unwrap_or("");
        if let Some(after) = tag.strip_prefix("<!--") {
            let end = after.find("-->").ok_or("unterminated comment")?;
            rest = after.get(end + 3..).unwrap_or("");
        } else if let Some(after) = tag.strip_prefix("<![CDATA[") {
            let end = after.find("]]>").ok_or("unterminated CDATA section")?;
            if let Some(top) = stack.last_mut() {
                top.text.push_str(after.get(..end).unwrap_or(""));
            }
            rest = after.get(end + 3..).unwrap_or("");
        } else if let Some(after) = tag.strip_prefix("<?") {
            let end = after
                .find("?>")
                .ok_or("unterminated processing instruction")?;
            rest = after.get(end + 2..).unwrap_or("");
        } else if let Some(after) = tag.strip_prefix("<!") {
            let end = after.find('>').ok_or("unterminated declaration")?;
            rest = after.get(end + 1..).unwrap_or("");
        } else if let Some(after) = tag.strip_prefix("</") {
            let end = after.find('>').ok_or("unterminated end tag")?;
            let name = local(after.get(..end).unwrap_or("").trim());
            let node = stack.pop().ok_or("end tag without a start tag")?;
            if node.name != name {
                return Err(format!("</{name}> closes <{}>", node.name));
            }
            attach(&mut stack, &mut root, node)?;
            rest = after.get(end + 1..).unwrap_or("");
        } else {
            let body = tag.get(1..).unwrap_or("");
            let (node, self_closing, used) = start_tag(body)?;
            rest = body.get(used..).unwrap_or("");
            if self_closing {
                if stack.len() + 1 > max_depth {
                    return Err(format!("elements nest deeper than {max_depth} levels"));
                }
                attach(&mut stack, &mut root, node)?;
            } else {
                stack.push(node);
                if stack.len() > max_depth {
                    return Err(format!("elements nest deeper than {max_depth} levels"));
                }
            }
        }
    }
    if let Some(open) = stack.last() {
        return Err(format!("<{}> is never closed", open.name));
    }
    root.ok_or_else(|| "no root element".to_owned())
}

fn attach(stack: &mut [Node], root: &mut Option<Node>, node: Node) -> Result<(), String> {
    match stack.last_mut() {
        Some(parent) => parent.children.push(node),
        None if root.is_none() => *root = Some(node),
        None => return Err("more than one root element".into()),
    }
    Ok(())
}

/// XML's white space (`S`): the four ASCII characters, nothing else.
fn is_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\r' | b'\n')
}

/// Reads `name attr="v" ...>` or `.../>`; returns the node, whether it closed itself and the
/// bytes consumed. Scans bytes: every delimiter is ASCII, so each position found is a character
/// boundary.
fn start_tag(body: &str) -> Result<(Node, bool, usize), String> {
    let bytes = body.as_bytes();
    let after = |from: usize, found: Option<usize>| found.map(|at| from + at);
    let name_end = bytes
        .iter()
        .position(|&b| is_space(b) || b == b'>' || b == b'/')
        .ok_or("unterminated start tag")?;
    let mut node = Node {
        name: local(body.get(..name_end).unwrap_or("")),
        ..Node::default()
    };
    if node.name.is_empty() {
        return Err("empty element name".into());
    }
    let skip_space = |mut at: usize| {
        while bytes.get(at).copied().is_some_and(is_space) {
            at += 1;
        }
        at
    };
    let mut pos = name_end;
    loop {
        pos = skip_space(pos);
        match bytes.get(pos) {
            None => return Err("unterminated start tag".into()),
            Some(b'/') if bytes.get(pos + 1) == Some(&b'>') => return Ok((node, true, pos + 2)),
            Some(b'>') => return Ok((node, false, pos + 1)),
            Some(_) => {}
        }
        let rest = bytes.get(pos..).unwrap_or_default();
        let eq =
            after(pos, rest.iter().position(|&b| b == b'=')).ok_or("attribute without a value")?;
        let key = local(body.get(pos..eq).unwrap_or("").trim());
        let open = skip_space(eq + 1);
        let quote = *bytes.get(open).ok_or("attribute without a value")?;
        if quote != b'"' && quote != b'\'' {
            return Err("unquoted attribute value".into());
        }
        let value = bytes.get(open + 1..).unwrap_or_default();
        let close = after(open + 1, value.iter().position(|&b| b == quote))
            .ok_or("unterminated attribute value")?;
        let value = decode_entities(body.get(open + 1..close).unwrap_or(""));
        node.attrs.push((key, value));
        pos = close + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_elements_attributes_and_text() {
        let doc = parse(
            "<?xml version=\"1.0\"?><!-- c --><cs:a x='1' y=\"a&amp;b\"><b/>t&#38;<c>u</c></cs:a>",
            8,
        )
        .unwrap();
        assert_eq!(doc.name, "a");
        assert_eq!(doc.attr("y"), Some("a&b"));
        assert_eq!(doc.children.len(), 2);
        assert_eq!(doc.text, "t&");
        assert!(parse("<a><b></a>", 8).is_err());
        assert!(parse("<a><a><a/></a></a>", 2).is_err());
    }
}
