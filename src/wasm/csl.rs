//! The CSL module's JS face (`citeflow/csl`): reference rendering with citeflow's own CSL engine.

use serde_json::Value;
use wasm_bindgen::prelude::*;

use super::convert;
use super::errors::js_error;
use crate::reference::engine::{sort, Cluster, CslDocument, DocumentError, Format};
use crate::reference::{self, RefFormat, RenderOptions};

/// `renderReferences` options (see [`RenderOptions::from_map`]); `undefined` and `null` mean
/// the defaults.
fn render_options(value: JsValue) -> Result<RenderOptions, JsValue> {
    match convert::options_to_json(&value, "INVALID_OPTION", "renderReferences options")? {
        Value::Null => Ok(RenderOptions::default()),
        Value::Object(map) => Ok(RenderOptions::from_map(&map)?),
        _ => Err(js_error(
            "INVALID_OPTION",
            "invalid renderReferences options: expected an object",
        )),
    }
}

/// `citations`: Citation objects or source ids (1-based), in order of citation; `null` or
/// `undefined` renders every source.
fn cited(value: JsValue) -> Result<Option<Vec<u32>>, JsValue> {
    let what = "citations (an array of Citation objects or source ids)";
    let list = match convert::js_to_json(&value, "INVALID_OPTION", what)? {
        Value::Null => return Ok(None),
        Value::Array(list) => list,
        _ => return Err(js_error("INVALID_OPTION", &format!("invalid {what}"))),
    };
    let ids = list
        .iter()
        .enumerate()
        .map(|(i, v)| {
            v.as_u64()
                .or_else(|| v.get("sourceId").and_then(Value::as_u64))
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| js_error("INVALID_OPTION", &format!("citations[{i}] must be a source id or a Citation with a numeric sourceId")))
        })
        .collect::<Result<_, _>>()?;
    Ok(Some(ids))
}

/// `styles`: the package's loader of bundled styles, `(file) => xml | undefined` (pkg/src/csl.js),
/// asked only for a style not parsed yet. This module carries no style XML itself.
/// `collate`: the host's collation, `(lang, texts) => Uint32Array` of ranks (`Intl.Collator`,
/// pkg/src/csl.js), asked once per sort with every text key.
/// `packed`, `numbers`: the same sources packed by JS in one piece
/// ([`reference::unpack_sources`]), or `undefined` where JS could not pack them (then the
/// sources are read value by value, which names what is wrong with them).
#[wasm_bindgen(js_name = renderReferences)]
pub fn render_references(
    sources: JsValue,
    packed: Option<String>,
    numbers: Option<Vec<f64>>,
    citations: JsValue,
    options: JsValue,
    styles: &js_sys::Function,
    collate: &js_sys::Function,
) -> Result<JsValue, JsValue> {
    let unpacked = packed
        .as_deref()
        .and_then(|tape| reference::unpack_sources(tape, numbers.as_deref().unwrap_or(&[])));
    let sources = match unpacked {
        Some(sources) => sources,
        None => read_sources(&sources)?,
    };
    let render = render_options(options)?;
    // A loader that throws (it is ours, but the file may be missing) reads as "not loaded".
    let load = |file: &str| {
        styles
            .call1(&JsValue::NULL, &JsValue::from_str(file))
            .ok()
            .and_then(|xml| xml.as_string())
    };
    let cited = cited(citations)?;
    let refs = sort::with_collator(host_collation(collate.clone()), || {
        reference::render_references_with(&sources, cited.as_deref(), &render, &load)
    });
    Ok(convert::to_js(&refs?))
}

/// The sources read value by value.
fn read_sources(sources: &JsValue) -> Result<Vec<Value>, JsValue> {
    if !convert::is_array(sources) {
        return Err(js_error(
            "INVALID_SOURCE",
            "`sources` must be an array of CSL-JSON items (or {content, metadata} sources)",
        ));
    }
    match convert::js_to_json(sources, "INVALID_SOURCE", "sources")? {
        Value::Array(sources) => Ok(sources),
        _ => Err(js_error("INVALID_SOURCE", "`sources` must be an array")),
    }
}

/// The host's collation, which sorting asks for the duration of one call (a collator that
/// throws or answers something else leaves the texts in code point order). It may call
/// `renderReferences` again (a page that patched `Intl.Collator`): that call renders with its
/// own collation and this one's is back when it returns ([`sort::with_collator`]).
fn host_collation(collate: js_sys::Function) -> sort::Collator {
    std::rc::Rc::new(move |lang: &str, texts: &[String]| {
        let texts: js_sys::Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
        let ranks = collate
            .call2(&JsValue::NULL, &JsValue::from_str(lang), &texts)
            .ok()?;
        let ranks = ranks.dyn_into::<js_sys::Uint32Array>().ok()?;
        // Read one by one: `to_vec` brings an assertion and its formatting along.
        Some((0..ranks.length()).map(|i| ranks.get_index(i)).collect())
    })
}

/// The file of a bundled style (`gen/styles/<file>.js` in the package), for JS to load it:
/// `undefined` names the default style; an unknown name is UNKNOWN_STYLE.
#[wasm_bindgen(js_name = bundledStyleFile)]
pub fn bundled_style_file(name: Option<String>) -> Result<String, JsValue> {
    reference::bundled_style(name.as_deref().unwrap_or(reference::DEFAULT_STYLE))
        .map(str::to_owned)
        .map_err(|e| js_error(reference::UnknownStyle::CODE, e.message()))
}

#[wasm_bindgen(js_name = bundledStyleNames)]
pub fn bundled_style_names() -> Vec<String> {
    reference::bundled_style_names()
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// A [`CslDocument`] for JS (wrapped by the `CslDocument` class of pkg/src/csl.js), with the
/// host's collation its renders sort with.
#[wasm_bindgen]
pub struct CslDocumentHandle {
    doc: CslDocument,
    collate: js_sys::Function,
}

/// `setCluster`'s index: `undefined` or `null` for none, else a whole number.
fn cluster_index(index: &JsValue) -> Result<Option<usize>, JsValue> {
    if index.is_undefined() || index.is_null() {
        return Ok(None);
    }
    match index.as_f64() {
        Some(n) if n.fract() == 0.0 && n < 0.0 => Err(js_error(
            "INDEX_OUT_OF_RANGE",
            "the cluster index is out of range: it counts from 0",
        )),
        Some(n) if n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(Some(n as usize)),
        _ => Err(js_error(
            "INVALID_OPTION",
            "invalid option `index`: expected a whole number (the cluster's place) or undefined",
        )),
    }
}

fn doc_error(e: DocumentError) -> JsValue {
    js_error(e.code(), &e.to_string())
}

/// Items as JS gives them: an array of CSL-JSON objects.
fn document_items(value: &JsValue) -> Result<Vec<Value>, JsValue> {
    match convert::js_to_json(value, "INVALID_SOURCE", "items")? {
        Value::Array(items) => Ok(items),
        _ => Err(js_error(
            "INVALID_OPTION",
            "invalid option `items`: expected an array of CSL-JSON items",
        )),
    }
}

#[wasm_bindgen]
impl CslDocumentHandle {
    /// `options`: `{ style, locale, format, items }` (as renderReferences takes the first three).
    #[wasm_bindgen(constructor)]
    pub fn new(
        options: JsValue,
        styles: &js_sys::Function,
        collate: js_sys::Function,
    ) -> Result<CslDocumentHandle, JsValue> {
        let mut map =
            match convert::options_to_json(&options, "INVALID_OPTION", "CslDocument options")? {
                Value::Null => serde_json::Map::new(),
                Value::Object(map) => map,
                _ => {
                    return Err(js_error(
                        "INVALID_OPTION",
                        "invalid CslDocument options: expected an object",
                    ))
                }
            };
        let items = match map.remove("items") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(items)) => items,
            Some(_) => {
                return Err(js_error(
                    "INVALID_OPTION",
                    "invalid option `items`: expected an array of CSL-JSON items",
                ))
            }
        };
        let render = RenderOptions::from_map_of("CslDocument", &map)?;
        let load = |file: &str| {
            styles
                .call1(&JsValue::NULL, &JsValue::from_str(file))
                .ok()
                .and_then(|xml| xml.as_string())
        };
        let processor = reference::processor(&render, &load)?;
        let format = match render.format {
            RefFormat::Text => Format::Text,
            RefFormat::Html => Format::Html,
        };
        let doc = sort::with_collator(host_collation(collate.clone()), || {
            CslDocument::new(processor, items, format)
        })
        .map_err(doc_error)?;
        Ok(CslDocumentHandle { doc, collate })
    }

    /// Inserts or replaces a cluster: the clusters whose text changed, `[{ id, text }]`.
    #[wasm_bindgen(js_name = setCluster)]
    pub fn set_cluster(&mut self, cluster: JsValue, index: JsValue) -> Result<JsValue, JsValue> {
        let cluster = convert::options_to_json(&cluster, "INVALID_OPTION", "cluster")?;
        let cluster = Cluster::from_json(&cluster).map_err(doc_error)?;
        let index = cluster_index(&index)?;
        let doc = &mut self.doc;
        let changed = sort::with_collator(host_collation(self.collate.clone()), || {
            doc.set_cluster(cluster, index)
        })
        .map_err(doc_error)?;
        Ok(convert::to_js(&changed))
    }

    /// Removes a cluster: the other clusters whose text changed.
    #[wasm_bindgen(js_name = removeCluster)]
    pub fn remove_cluster(&mut self, id: JsValue) -> Result<JsValue, JsValue> {
        let Some(id) = id.as_string() else {
            return Err(js_error(
                "INVALID_OPTION",
                "invalid option `id`: expected the cluster's id (a string)",
            ));
        };
        let doc = &mut self.doc;
        let changed = sort::with_collator(host_collation(self.collate.clone()), || {
            doc.remove_cluster(&id)
        })
        .map_err(doc_error)?;
        Ok(convert::to_js(&changed))
    }

    /// Every cluster's text in document order, `[{ id, text }]`.
    pub fn clusters(&self) -> JsValue {
        convert::to_js(&self.doc.clusters())
    }

    /// Adds or replaces items (by id): the clusters whose text changed.
    #[wasm_bindgen(js_name = setItems)]
    pub fn set_items(&mut self, items: JsValue) -> Result<JsValue, JsValue> {
        if !convert::is_array(&items) {
            return Err(js_error(
                "INVALID_SOURCE",
                "`items` must be an array of CSL-JSON items",
            ));
        }
        let items = document_items(&items)?;
        let doc = &mut self.doc;
        let changed = sort::with_collator(host_collation(self.collate.clone()), || {
            doc.set_items(items)
        })
        .map_err(doc_error)?;
        Ok(convert::to_js(&changed))
    }

    /// `options`: `{ uncited }`, the ids of items to list though not cited.
    pub fn bibliography(&self, options: JsValue) -> Result<JsValue, JsValue> {
        let map =
            match convert::options_to_json(&options, "INVALID_OPTION", "bibliography options")? {
                Value::Null => serde_json::Map::new(),
                Value::Object(map) => map,
                _ => {
                    return Err(js_error(
                        "INVALID_OPTION",
                        "invalid bibliography options: expected an object",
                    ))
                }
            };
        if let Some(k) = map.keys().find(|k| *k != "uncited") {
            return Err(js_error(
                "INVALID_OPTION",
                &format!("invalid option `{k}`: unknown key; bibliography takes `uncited`"),
            ));
        }
        let uncited: Vec<String> = match map.get("uncited") {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(ids)) => ids
                .iter()
                .enumerate()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    _ => Err(js_error(
                        "INVALID_OPTION",
                        &format!("invalid option `uncited[{k}]`: expected an item id"),
                    )),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => {
                return Err(js_error(
                    "INVALID_OPTION",
                    "invalid option `uncited`: expected an array of item ids",
                ))
            }
        };
        let entries = sort::with_collator(host_collation(self.collate.clone()), || {
            self.doc.bibliography(&uncited)
        })
        .map_err(doc_error)?;
        Ok(convert::to_js(&entries))
    }
}
