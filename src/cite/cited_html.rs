//! [`render_cited_html`]: the answer as safe HTML, each marker a link to its reference.

use serde::{Deserialize, Serialize};

use crate::html::{escape, escape_into};
use crate::utf16::ByteCursor;

/// What a marker needs to become a link.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkerLink {
    pub source_id: u32,
    /// UTF-16 offsets of the marker in the text.
    pub span: [usize; 2],
    #[serde(default = "yes")]
    pub valid: bool,
}

fn yes() -> bool {
    true
}

/// One entry of the list under the answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ListedReference {
    pub source_id: u32,
    /// Plain text (it is escaped here).
    pub entry: String,
}

/// The answer's text as paragraphs with escaped text; every marker group becomes an anchor to
/// `#{id_prefix}{first valid source}` (with all its ids in `data-source-ids` and the entries in
/// `title`), or a span marked invalid when no id in it names a source; then an ordered list
/// of the references with matching ids. Nothing from the text or the metadata is ever
/// emitted unescaped.
pub fn render_cited_html(
    text: &str,
    markers: &[MarkerLink],
    references: &[ListedReference],
    id_prefix: &str,
) -> String {
    let mut groups: Vec<([usize; 2], Vec<&MarkerLink>)> = Vec::new();
    let mut sorted: Vec<&MarkerLink> = markers.iter().collect();
    sorted.sort_by_key(|m| m.span);
    for m in sorted {
        match groups.last_mut() {
            Some((span, members)) if *span == m.span => members.push(m),
            _ => groups.push((m.span, vec![m])),
        }
    }
    // The first entry listed for each id (a map: markers times references could be large).
    let mut entries: std::collections::HashMap<u32, &str> = std::collections::HashMap::new();
    for r in references {
        entries.entry(r.source_id).or_insert(r.entry.as_str());
    }
    let entry_of = |id: u32| entries.get(&id).copied();

    // Escaping only grows the text; this is a hint, never more than the text's own size.
    let mut body = String::with_capacity(text.len());
    let mut at = 0;
    // Groups are sorted and each is checked to start at or after the previous one's end and
    // to end after it starts, so the offsets converted only grow: one pass over the text.
    let mut at16 = 0;
    let mut bytes = ByteCursor::new(text);
    for (span, members) in &groups {
        // Spans are caller data: ones that do not fall on characters, overlap or run
        // backwards are left as text.
        if span[0] < at16 || span[1] <= span[0] {
            continue;
        }
        let (Some(start), Some(end)) = (bytes.to_byte(span[0]), bytes.to_byte(span[1])) else {
            continue;
        };
        let (Some(before), Some(marker)) = (text.get(at..start), text.get(start..end)) else {
            continue;
        };
        if marker.is_empty() {
            continue;
        }
        body.push_str(&escape(before));
        let marker = escape(marker);
        at16 = span[1];
        let ids: Vec<String> = members.iter().map(|m| m.source_id.to_string()).collect();
        match members.iter().find(|m| m.valid) {
            Some(first) => {
                let titles: Vec<&str> = members
                    .iter()
                    .filter_map(|m| entry_of(m.source_id))
                    .collect();
                body.push_str(&format!(
                    "<a class=\"citeflow-cite\" href=\"#{}{}\" data-source-ids=\"{}\" title=\"",
                    escape(id_prefix),
                    first.source_id,
                    ids.join(" ")
                ));
                escape_into(&titles.join("\n"), &mut body);
                body.push_str("\">");
                body.push_str(&marker);
                body.push_str("</a>");
            }
            None => {
                body.push_str(&format!("<span class=\"citeflow-cite citeflow-invalid\" data-source-ids=\"{}\" title=\"No such source\">", ids.join(" ")));
                body.push_str(&marker);
                body.push_str("</span>");
            }
        }
        at = end;
    }
    body.push_str(&escape(text.get(at..).unwrap_or_default()));

    let mut out = String::new();
    for paragraph in body.split("\n\n").filter(|p| !p.trim().is_empty()) {
        out.push_str("<p>");
        out.push_str(&paragraph.trim().replace('\n', "<br>"));
        out.push_str("</p>\n");
    }
    if !references.is_empty() {
        out.push_str("<ol class=\"citeflow-references\">\n");
        for r in references {
            out.push_str(&format!(
                "<li id=\"{}{}\" value=\"{}\">",
                escape(id_prefix),
                r.source_id,
                r.source_id
            ));
            escape_into(&r.entry, &mut out);
            out.push_str("</li>\n");
        }
        out.push_str("</ol>\n");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn links_markers_and_escapes_everything() {
        let text = "A <b>bold</b> claim [1].\n\nBad [9].";
        let markers = [
            MarkerLink {
                source_id: 1,
                span: [20, 23],
                valid: true,
            },
            MarkerLink {
                source_id: 9,
                span: [30, 33],
                valid: false,
            },
        ];
        let refs = [ListedReference {
            source_id: 1,
            entry: "Evil \"><script>x</script>".into(),
        }];
        let html = render_cited_html(text, &markers, &refs, "ref-");
        assert_eq!(
            html,
            "<p>A &lt;b&gt;bold&lt;/b&gt; claim <a class=\"citeflow-cite\" href=\"#ref-1\" data-source-ids=\"1\" title=\"Evil &quot;&gt;&lt;script&gt;x&lt;/script&gt;\">[1]</a>.</p>\n\
             <p>Bad <span class=\"citeflow-cite citeflow-invalid\" data-source-ids=\"9\" title=\"No such source\">[9]</span>.</p>\n\
             <ol class=\"citeflow-references\">\n<li id=\"ref-1\" value=\"1\">Evil &quot;&gt;&lt;script&gt;x&lt;/script&gt;</li>\n</ol>\n"
        );
    }
}
