//! The numbers the npm package's wasm bindings and its JS face agree on, in one table: the
//! engine's step ops and header flags ([`crate::engine::ops`]), the kinds of an event object's
//! fields and the bits of the `shape` that `pushHandle` reads ([`crate::engine::handle`]), and
//! the word that means "none" in the packed whole-text results.
//!
//! `pkg/src/abi.js` is written from [`TABLE`] and [`js_module`]: a unit test here fails while
//! the file differs, and `CITEFLOW_WRITE_ABI=1 cargo test --lib abi` writes it. Not an API for
//! Rust users: the numbers change with the package.

use crate::engine::{handle, ops};

/// `shape`: bits per field, each holding the field's kind (an index of [`handle::JS_KINDS`]);
/// the fields `type`, `id`, `value`, `valueType` from the lowest bits.
pub const KIND_BITS: u32 = 4;
/// `shape`'s flag: the object has keys other than `type`, `id`, `value` and `valueType`.
pub const SHAPE_EXTRA: u32 = 1 << 16;
/// A packed result's word for "none" (a sentence without a problem, say).
pub const PACKED_NONE: u32 = u32::MAX;

/// Every number JS needs, by its JS name.
pub const TABLE: &[(&str, u32)] = &[
    ("STEP_ID", ops::ID),
    ("STEP_START", ops::START),
    ("STEP_TEXT", ops::TEXT),
    ("STEP_END", ops::END),
    ("STEP_EVENT", ops::EVENT),
    ("STEP_CITATION", ops::CITATION),
    ("STEP_HANDLE", ops::HANDLE),
    ("STEP_HANDLE_TEXT", ops::HANDLE_TEXT),
    ("STEP_KEEP", ops::KEEP),
    ("STEP_RAW", ops::RAW),
    ("STEP_HEADER", ops::HEADER as u32),
    ("STEP_HOLDS", ops::HOLDS),
    ("STEP_TAKES_SHOWN", ops::TAKES_SHOWN),
    ("KIND_BITS", KIND_BITS),
    ("KIND_NULL", handle::JS_NULL),
    ("KIND_ARRAY", handle::JS_ARRAY),
    ("SHAPE_EXTRA", SHAPE_EXTRA),
    ("PACKED_NONE", PACKED_NONE),
];

/// The `typeof` answer a kind of [`handle::JS_KINDS`] stands for ("a BigInt" is `bigint`);
/// `None` for `null` and arrays, which `typeof` calls objects.
fn typeof_name(kind: &str) -> Option<String> {
    let name = kind
        .strip_prefix("an ")
        .or_else(|| kind.strip_prefix("a "))
        .unwrap_or(kind);
    (!matches!(name, "null" | "array")).then(|| name.to_ascii_lowercase())
}

/// `pkg/src/abi.js`: [`TABLE`] as constants, and `KINDS`, each `typeof` answer's kind.
pub fn js_module() -> String {
    let mut out = String::from(
        "// Written from src/abi.rs (CITEFLOW_WRITE_ABI=1 cargo test --lib abi): the numbers the wasm\n\
         // bindings and the JS face agree on. Do not edit; a test fails while the two differ.\n",
    );
    for (name, value) in TABLE {
        out.push_str(&format!("export const {name} = {value};\n"));
    }
    let kinds: Vec<String> = handle::JS_KINDS
        .iter()
        .enumerate()
        .filter_map(|(i, kind)| typeof_name(kind).map(|name| format!("{name}: {i}")))
        .collect();
    out.push_str(&format!(
        "export const KINDS = {{ {} }};\n",
        kinds.join(", ")
    ));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn abi_js_is_written_from_the_table() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/pkg/src/abi.js");
        let want = js_module();
        if std::env::var_os("CITEFLOW_WRITE_ABI").is_some() {
            std::fs::write(path, &want).unwrap();
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == want,
            "pkg/src/abi.js differs from src/abi.rs: CITEFLOW_WRITE_ABI=1 cargo test --lib abi writes it\n{want}"
        );
    }

    #[test]
    fn kinds_are_what_typeof_says() {
        assert_eq!(typeof_name("a BigInt").as_deref(), Some("bigint"));
        assert_eq!(typeof_name("an object").as_deref(), Some("object"));
        assert_eq!(typeof_name("undefined").as_deref(), Some("undefined"));
        assert_eq!(typeof_name("null"), None);
        assert_eq!(typeof_name("an array"), None);
        assert_eq!(handle::JS_KINDS[handle::JS_NULL as usize], "null");
        assert_eq!(handle::JS_KINDS[handle::JS_ARRAY as usize], "an array");
        assert_eq!(handle::JS_KINDS[handle::JS_STRING as usize], "a string");
        assert!(js_module().contains(
            "export const KINDS = { undefined: 0, string: 1, number: 3, boolean: 4, bigint: 5, symbol: 6, function: 7, object: 8 };"
        ));
    }
}
