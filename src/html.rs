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
/// relative paths) stays text. Leading spaces are allowed (a URL parser drops them); other
/// leading whitespace is not (a parser keeps it, and the URL becomes a relative one), nor
/// is a control character anywhere.
pub fn is_safe_url(url: &str) -> bool {
    let bytes = url.as_bytes();
    let spaces = bytes.iter().take_while(|&&b| b == b' ').count();
    let rest = bytes.get(spaces..).unwrap_or_default();
    // `http` in any case (`| 0x20` lower-cases exactly the letters' capitals here), an
    // optional `s`, then `://`; the four letters compared as one word, which the module
    // built for speed keeps small where a byte loop would be unrolled.
    let http = rest
        .first_chunk::<4>()
        .map(|w| u32::from_le_bytes(*w) | 0x2020_2020);
    if http != Some(u32::from_le_bytes(*b"http")) {
        return false;
    }
    let s = usize::from(rest.get(4).is_some_and(|&b| b | 0x20 == b's'));
    if rest.get(4 + s..7 + s) != Some(b"://") {
        return false;
    }
    // No control character: C0 and DEL are one byte each in UTF-8, C1 (U+0080 to U+009F) is
    // 0xC2 followed by 0x80 to 0x9F. (One plain loop: the module built for speed would
    // otherwise unroll several.)
    let mut previous = 0u8;
    for &b in bytes {
        if b < 0x20 || b == 0x7f || (previous == 0xc2 && b < 0xa0) {
            return false;
        }
        previous = b;
    }
    true
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
        assert!(is_safe_url("  HTTP://example.org"));
        assert!(is_safe_url("hTtPs://example.org"));
        assert!(is_safe_url("https://example.org/é\u{a0}ÿ"));
        for bad in [
            "javascript:alert(1)",
            " JavaScript:alert(1)",
            "data:text/html,x",
            "/relative",
            "https://x\n.org",
            "\u{a0}https://x.org",
            "\u{3000}https://x.org",
            "\thttps://x.org",
            "https://x.org/\u{85}",
            "https://x.org/\u{7f}",
            "httpss://x.org",
            "http:/x.org",
            "https:",
            "http",
            "hxxp://x.org",
            "\u{8}ttp://x.org",
        ] {
            assert!(!is_safe_url(bad), "{bad}");
        }
    }
}
