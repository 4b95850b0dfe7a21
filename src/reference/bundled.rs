//! The styles the package bundles, by name: which file holds each, and whether a Citeformer's
//! `style` names one (or is CSL XML), known without loading the CSL module.

/// The bundled styles: our names (and aliases) and the file in src/csl/styles/ (the CSL
/// project's styles, CC BY-SA 3.0, comments and indentation removed) that holds each.
///
/// Styles are data: the wasm CSL module (`wasm-csl-module`) carries none of them; the npm
/// package ships each as a small JS module (generated from the same files by
/// scripts/build.mjs) that JS loads on demand. Native builds compile them in.
const BUNDLED: &[(&str, &str)] = &[
    ("apa-7", "apa"),
    ("apa", "apa"),
    ("mla-9", "modern-language-association"),
    ("mla", "modern-language-association"),
    ("chicago-author-date", "chicago-author-date"),
    ("chicago", "chicago-author-date"),
    ("chicago-notes", "chicago-notes-bibliography-17th-edition"),
    ("mhra-notes", "mhra-notes-subsequent-ibid"),
    ("ieee", "ieee"),
    ("nature", "nature"),
    ("vancouver", "vancouver"),
    ("harvard", "harvard-cite-them-right"),
];

/// The bundled style names, aliases included.
pub fn bundled_style_names() -> Vec<&'static str> {
    BUNDLED.iter().map(|(name, _)| *name).collect()
}

/// The file (stem, in src/csl/styles/ and the package's `gen/styles/`) of a bundled style
/// name; `None` for a name that is not bundled.
pub fn bundled_style_file(name: &str) -> Option<&'static str> {
    BUNDLED
        .iter()
        .find(|(ours, _)| *ours == name)
        .map(|(_, file)| *file)
}

/// Whether `style` is CSL XML (its first non-space character is `<`) rather than a name.
pub fn is_style_xml(style: &str) -> bool {
    style.trim_start().starts_with('<')
}

/// A style name that is not bundled (UNKNOWN_STYLE): its message names the bundled ones. Its
/// own type, composed without the formatting machinery, so that the core module, which only
/// checks names, carries neither that nor the other reference errors.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownStyle(String);

impl UnknownStyle {
    /// The stable code of this error.
    pub const CODE: &'static str = "UNKNOWN_STYLE";

    /// What went wrong, in words.
    pub fn message(&self) -> &str {
        &self.0
    }
}

impl core::fmt::Display for UnknownStyle {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(&self.0)
    }
}

/// The file of a bundled style name, or UNKNOWN_STYLE naming the bundled ones.
pub fn bundled_style(name: &str) -> Result<&'static str, UnknownStyle> {
    bundled_style_file(name).ok_or_else(|| {
        let mut message = String::from("unknown citation style \"");
        message.push_str(name);
        message.push_str("\"; bundled styles: ");
        message.push_str(&bundled_style_names().join(", "));
        UnknownStyle(message)
    })
}

/// `style` as a Citeformer or a reference list takes it: CSL XML, or a bundled name; any other
/// name is UNKNOWN_STYLE, found when the options are read rather than when the first reference
/// list is rendered (after the model's answer has been paid for).
pub fn check_style(style: &str) -> Result<(), UnknownStyle> {
    if !is_style_xml(style) {
        bundled_style(style)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_xml_are_styles_any_other_name_is_not() {
        for name in bundled_style_names() {
            assert_eq!(check_style(name), Ok(()));
        }
        assert_eq!(check_style("  <style/>"), Ok(()));
        let err = check_style("apa7").unwrap_err();
        assert!(err
            .message()
            .starts_with("unknown citation style \"apa7\"; bundled styles: apa-7, apa, "));
        assert_eq!(err.to_string(), err.message());
    }
}
