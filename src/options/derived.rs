//! What the core module's derived option structs (the relevance components', the invoker
//! builders') use beside [`super::read`]: a key list shared by several structs, and counts.
//! Only the core module's build (and the tests) reads such structs.
#![cfg_attr(
    all(
        not(test),
        any(
            not(target_arch = "wasm32"),
            feature = "web",
            feature = "wasm-csl-module",
            feature = "wasm-stream-module"
        )
    ),
    allow(dead_code)
)]

use serde::de::{self, DeserializeOwned};
use serde::Deserialize;
use serde_json::{Map, Value};

use super::OptionError;

/// [`super::read`] for a struct several option objects share: a key not in `takes` (lists of names
/// separated by spaces) is refused first, naming it and the keys the object takes.
pub(crate) fn read_taking<T: DeserializeOwned>(
    owner: &str,
    map: &Map<String, Value>,
    takes: &[&str],
) -> Result<T, OptionError> {
    let keys = takes.iter().flat_map(|l| l.split_whitespace());
    if let Some(key) = map.keys().find(|k| !keys.clone().any(|t| t == k.as_str())) {
        let all: Vec<&str> = keys.collect();
        return Err(OptionError {
            option: key.clone(),
            reason: format!("not an option of {owner}, which takes {}", all.join(", ")),
        });
    }
    super::read(owner, map)
}

/// A count option for a struct deriving `Deserialize` (`#[serde(default, deserialize_with =
/// "count")]`): [`super::reader::count`]'s rule, `null` as absent.
pub(crate) fn count<'de, D: de::Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    use super::reader::{self, OptionValue};
    match Option::<Value>::deserialize(d)? {
        None => Ok(None),
        Some(value) => value
            .read()
            .and_then(reader::count)
            .map(Some)
            .map_err(de::Error::custom),
    }
}
