//! HTML escaping, shared by everything that writes HTML from untrusted text.

/// Escapes text for use in HTML content and in double- or single-quoted attributes.
pub fn escape_into(text: &str, out: &mut String) {
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
}

pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    escape_into(text, &mut out);
    out
}

/// Only absolute http(s) URLs may become links; anything else (`javascript:`, `data:`,
/// relative paths) stays text.
pub fn is_safe_url(url: &str) -> bool {
    let lower = url.trim_start().to_ascii_lowercase();
    (lower.starts_with("https://") || lower.starts_with("http://"))
        && !url.chars().any(char::is_control)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_and_judges_urls() {
        assert_eq!(
            escape("<a href='x'>&\"</a>"),
            "&lt;a href=&#39;x&#39;&gt;&amp;&quot;&lt;/a&gt;"
        );
        assert!(is_safe_url("https://example.org/a?b=1"));
        for bad in [
            "javascript:alert(1)",
            " JavaScript:alert(1)",
            "data:text/html,x",
            "/relative",
            "https://x\n.org",
        ] {
            assert!(!is_safe_url(bad), "{bad}");
        }
    }
}
