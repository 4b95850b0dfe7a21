//! A document of citation clusters that changes as a writer edits it: clusters are inserted,
//! replaced, moved and removed one at a time, and each edit answers with the clusters whose
//! rendered text changed (positions, ibid, note numbers, disambiguation and citation numbers
//! all depend on the rest of the document).
//!
//! Each edit works out every cluster's text again, as [`Processor::citations`] does, and compares
//! it with what it was: the simplest way to be exactly right, since one edit can change any
//! other cluster (a year suffix, an ibid, a citation number). What the last render made is
//! kept (the items' registry and each cluster's text by its cites and their positions), so only
//! clusters whose cites or positions changed are rendered again, and the registry only when
//! the cited items or their order of first citation change.

use std::collections::{HashMap, HashSet};

use serde::Serialize;
use serde_json::{Map, Value};
use thiserror::Error;

use super::{CitationMemo, Cite, Format, Processor};

/// One cite of a [`Cluster`]: an item by its id, with its locator and affixes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClusterItem {
    /// The CSL-JSON `id` of the item (a numeric id reads as its decimal text).
    pub id: String,
    pub locator: Option<String>,
    /// The locator's label (`page`, `chapter`, …); CSL's default is `page`.
    pub label: Option<String>,
    pub prefix: Option<String>,
    pub suffix: Option<String>,
    pub suppress_author: bool,
    pub author_only: bool,
}

/// A citation cluster: the cites at one place in the document.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cluster {
    /// Unique within the document.
    pub id: String,
    /// The footnote the cluster sits in (note styles); 0 for the main text.
    pub note_index: u32,
    pub items: Vec<ClusterItem>,
}

/// A cluster's rendered text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RenderedCluster {
    pub id: String,
    pub text: String,
}

/// A bibliography entry of the document.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DocumentEntry {
    /// The item's id.
    pub id: String,
    /// 1-based place of the item in the document's items (as `renderReferences` numbers
    /// sources).
    pub source_id: u32,
    /// The rendered entry (text, or escaped HTML).
    pub entry: String,
}

/// What a document refused. Every refusal leaves the document as it was.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum DocumentError {
    #[error("items[{index}]: {reason}")]
    InvalidItem { index: usize, reason: String },
    #[error("items: the id {0:?} is given twice")]
    DuplicateItem(String),
    #[error("{place}: no item has the id {id:?}")]
    UnknownItem { place: String, id: String },
    #[error("no cluster has the id {0:?}")]
    UnknownCluster(String),
    #[error("cluster index {index} is out of range: the document has room for 0 to {max}")]
    IndexOutOfRange { index: usize, max: usize },
    #[error("invalid option `{option}`: {reason}")]
    InvalidOption { option: String, reason: String },
}

impl DocumentError {
    /// The stable code of the error (the `code` of the JS error).
    pub fn code(&self) -> &'static str {
        match self {
            Self::InvalidItem { .. } => "INVALID_SOURCE",
            Self::DuplicateItem(_) => "DUPLICATE_ITEM",
            Self::UnknownItem { .. } => "UNKNOWN_ITEM",
            Self::UnknownCluster(_) => "UNKNOWN_CLUSTER",
            Self::IndexOutOfRange { .. } => "INDEX_OUT_OF_RANGE",
            Self::InvalidOption { .. } => "INVALID_OPTION",
        }
    }
}

fn invalid(option: &str, reason: &str) -> DocumentError {
    DocumentError::InvalidOption {
        option: option.to_owned(),
        reason: reason.to_owned(),
    }
}

/// An id as CSL-JSON gives it: a string, or a number read as its decimal text.
fn id_text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// An optional text field: absent or `null` is none; a number reads as its text (a locator
/// is often given as `12`).
fn text_field(
    map: &Map<String, Value>,
    key: &str,
    place: &str,
) -> Result<Option<String>, DocumentError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(Value::Number(n)) if key == "locator" => Ok(Some(n.to_string())),
        Some(_) => Err(invalid(&format!("{place}.{key}"), "expected a string")),
    }
}

fn bool_field(map: &Map<String, Value>, key: &str, place: &str) -> Result<bool, DocumentError> {
    match map.get(key) {
        None | Some(Value::Null) => Ok(false),
        Some(Value::Bool(b)) => Ok(*b),
        Some(_) => Err(invalid(&format!("{place}.{key}"), "expected a boolean")),
    }
}

/// Refuses a key that is not one of `known`: a misspelt option would otherwise be dropped.
fn known_keys(map: &Map<String, Value>, known: &[&str], place: &str) -> Result<(), DocumentError> {
    match map.keys().find(|k| !known.contains(&k.as_str())) {
        Some(k) => Err(invalid(
            &format!("{place}.{k}"),
            &format!("unknown key; expected one of {}", known.join(", ")),
        )),
        None => Ok(()),
    }
}

const CLUSTER_KEYS: &[&str] = &["id", "noteIndex", "items"];
const CITE_KEYS: &[&str] = &[
    "id",
    "locator",
    "label",
    "prefix",
    "suffix",
    "suppressAuthor",
    "authorOnly",
];

impl ClusterItem {
    /// A cite as JSON: `{ id, locator, label, prefix, suffix, suppressAuthor, authorOnly }`,
    /// only `id` required; any other key is refused. `place` names it in errors.
    pub fn from_json(v: &Value, place: &str) -> Result<ClusterItem, DocumentError> {
        let Value::Object(map) = v else {
            return Err(invalid(
                place,
                "expected a cite object ({ id, locator, … })",
            ));
        };
        known_keys(map, CITE_KEYS, place)?;
        let id = map.get("id").and_then(id_text).ok_or_else(|| {
            invalid(
                &format!("{place}.id"),
                "expected the item's id (a string or number)",
            )
        })?;
        Ok(ClusterItem {
            id,
            locator: text_field(map, "locator", place)?,
            label: text_field(map, "label", place)?,
            prefix: text_field(map, "prefix", place)?,
            suffix: text_field(map, "suffix", place)?,
            suppress_author: bool_field(map, "suppressAuthor", place)?,
            author_only: bool_field(map, "authorOnly", place)?,
        })
    }
}

impl Cluster {
    /// A cluster as JSON: `{ id, noteIndex, items: [cite, …] }` (`noteIndex` optional, 0 in
    /// the main text); any other key is refused.
    pub fn from_json(v: &Value) -> Result<Cluster, DocumentError> {
        let Value::Object(map) = v else {
            return Err(invalid(
                "cluster",
                "expected a cluster object ({ id, noteIndex, items })",
            ));
        };
        known_keys(map, CLUSTER_KEYS, "cluster")?;
        let id = match map.get("id") {
            Some(Value::String(s)) => s.clone(),
            _ => return Err(invalid("cluster.id", "expected a string")),
        };
        let note_index = match map.get("noteIndex") {
            None | Some(Value::Null) => 0,
            Some(n) => n
                .as_u64()
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| invalid("cluster.noteIndex", "expected a whole number ≥ 0"))?,
        };
        let Some(Value::Array(list)) = map.get("items") else {
            return Err(invalid("cluster.items", "expected an array of cites"));
        };
        let items = list
            .iter()
            .enumerate()
            .map(|(k, c)| ClusterItem::from_json(c, &format!("cluster.items[{k}]")))
            .collect::<Result<_, _>>()?;
        Ok(Cluster {
            id,
            note_index,
            items,
        })
    }
}

/// A document of citation clusters in one style (parsed once), with its items.
///
/// ```
/// use citeflow::reference::engine::{Cluster, ClusterItem, CslDocument, Format, Processor};
/// let style = r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="note">
///   <citation><layout suffix=".">
///     <choose><if position="ibid"><text term="ibid"/></if>
///     <else><names variable="author"><name form="short"/></names></else></choose>
///   </layout></citation></style>"#;
/// let item = serde_json::json!({"id": "poe", "type": "book", "author": [{"family": "Poe"}]});
/// let mut doc = CslDocument::new(Processor::new(style, None).unwrap(), vec![item], Format::Text).unwrap();
/// let cite = |id: &str, note| Cluster {
///     id: id.into(),
///     note_index: note,
///     items: vec![ClusterItem { id: "poe".into(), ..ClusterItem::default() }],
/// };
/// doc.set_cluster(cite("a", 1), None).unwrap();
/// let changed = doc.set_cluster(cite("b", 2), None).unwrap();
/// assert_eq!(changed.len(), 1);
/// assert_eq!(changed[0].text, "Ibid.");
/// // Removing the first makes the second the first cite of the work: it changes too.
/// let changed = doc.remove_cluster("a").unwrap();
/// assert_eq!(changed[0].text, "Poe.");
/// ```
pub struct CslDocument {
    processor: Processor,
    format: Format,
    items: Vec<Value>,
    /// Item id → index in `items`.
    ids: HashMap<String, usize>,
    /// In document order.
    clusters: Vec<Cluster>,
    /// Each cluster's cites, resolved to item indices.
    cites: Vec<Vec<Cite>>,
    /// Each cluster's rendered text.
    texts: Vec<String>,
    /// What the last render can lend the next (valid while the items stay the same).
    memo: CitationMemo,
}

impl CslDocument {
    /// An empty document rendering `items` (CSL-JSON objects, each with a unique `id`).
    pub fn new(
        processor: Processor,
        items: Vec<Value>,
        format: Format,
    ) -> Result<Self, DocumentError> {
        let mut doc = CslDocument {
            processor,
            format,
            items: Vec::new(),
            ids: HashMap::new(),
            clusters: Vec::new(),
            cites: Vec::new(),
            texts: Vec::new(),
            memo: CitationMemo::default(),
        };
        doc.set_items(items)?;
        Ok(doc)
    }

    /// Adds items, or replaces the items with the same ids, and renders the document again:
    /// the clusters whose text changed.
    pub fn set_items(&mut self, items: Vec<Value>) -> Result<Vec<RenderedCluster>, DocumentError> {
        let mut given = HashSet::new();
        let mut ids = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            if !item.is_object() {
                return Err(DocumentError::InvalidItem {
                    index,
                    reason: "expected a CSL-JSON object".into(),
                });
            }
            let id =
                item.get("id")
                    .and_then(id_text)
                    .ok_or_else(|| DocumentError::InvalidItem {
                        index,
                        reason: "expected an `id` (a string or number)".into(),
                    })?;
            if !given.insert(id.clone()) {
                return Err(DocumentError::DuplicateItem(id));
            }
            ids.push(id);
        }
        self.memo = CitationMemo::default();
        for (id, item) in ids.into_iter().zip(items) {
            match self.ids.get(&id) {
                Some(&i) => {
                    if let Some(slot) = self.items.get_mut(i) {
                        *slot = item;
                    }
                }
                None => {
                    self.ids.insert(id, self.items.len());
                    self.items.push(item);
                }
            }
        }
        Ok(self.render(None))
    }

    /// Inserts `cluster` at `index` among the clusters (`None`: at the end), or replaces the
    /// cluster with the same id and puts it at `index` (`None`: where it was). Returns the
    /// clusters whose text changed, this one always included, in document order.
    pub fn set_cluster(
        &mut self,
        cluster: Cluster,
        index: Option<usize>,
    ) -> Result<Vec<RenderedCluster>, DocumentError> {
        let cites = self.resolve(&cluster)?;
        let existing = self.position(&cluster.id);
        let room = self.clusters.len() - usize::from(existing.is_some());
        let at = match (index, existing) {
            (Some(i), _) if i > room => {
                return Err(DocumentError::IndexOutOfRange {
                    index: i,
                    max: room,
                })
            }
            (Some(i), _) => i,
            (None, Some(old)) => old,
            (None, None) => room,
        };
        let mut text = String::new();
        if let Some(old) = existing {
            self.clusters.remove(old);
            self.cites.remove(old);
            text = self.texts.remove(old);
        }
        let id = cluster.id.clone();
        self.clusters.insert(at, cluster);
        self.cites.insert(at, cites);
        self.texts.insert(at, text);
        Ok(self.render(Some(&id)))
    }

    /// Removes a cluster: the other clusters whose text changed.
    pub fn remove_cluster(&mut self, id: &str) -> Result<Vec<RenderedCluster>, DocumentError> {
        let at = self
            .position(id)
            .ok_or_else(|| DocumentError::UnknownCluster(id.to_owned()))?;
        self.clusters.remove(at);
        self.cites.remove(at);
        self.texts.remove(at);
        Ok(self.render(None))
    }

    /// Every cluster's text, in document order.
    pub fn clusters(&self) -> Vec<RenderedCluster> {
        self.clusters
            .iter()
            .zip(&self.texts)
            .map(|(c, t)| RenderedCluster {
                id: c.id.clone(),
                text: t.clone(),
            })
            .collect()
    }

    /// The cluster with this id, as it was set.
    pub fn cluster(&self, id: &str) -> Option<&Cluster> {
        self.clusters.iter().find(|c| c.id == id)
    }

    /// The bibliography of the cited items (in order of first citation), then of `uncited`
    /// (item ids), in the style's order; empty for a style without a bibliography.
    pub fn bibliography(&self, uncited: &[String]) -> Result<Vec<DocumentEntry>, DocumentError> {
        let mut registered: Vec<usize> = Vec::new();
        for cite in self.cites.iter().flatten() {
            if !registered.contains(&cite.item) {
                registered.push(cite.item);
            }
        }
        for (k, id) in uncited.iter().enumerate() {
            let i = *self.ids.get(id).ok_or_else(|| DocumentError::UnknownItem {
                place: format!("uncited[{k}]"),
                id: id.clone(),
            })?;
            if !registered.contains(&i) {
                registered.push(i);
            }
        }
        if registered.is_empty() {
            return Ok(Vec::new());
        }
        let (_, entries) = self.processor.citations_and_bibliography(
            &self.items,
            &self.cites,
            &registered,
            self.format,
        );
        Ok(entries
            .into_iter()
            .map(|(i, entry)| DocumentEntry {
                id: self
                    .items
                    .get(i)
                    .and_then(|it| it.get("id"))
                    .and_then(id_text)
                    .unwrap_or_default(),
                source_id: u32::try_from(i + 1).unwrap_or(u32::MAX),
                entry,
            })
            .collect())
    }

    fn position(&self, id: &str) -> Option<usize> {
        self.clusters.iter().position(|c| c.id == id)
    }

    /// The cluster's cites with their items' indices; an id no item has is refused.
    fn resolve(&self, cluster: &Cluster) -> Result<Vec<Cite>, DocumentError> {
        let note = Some(cluster.note_index).filter(|&n| n > 0);
        cluster
            .items
            .iter()
            .enumerate()
            .map(|(k, c)| {
                let item = *self
                    .ids
                    .get(&c.id)
                    .ok_or_else(|| DocumentError::UnknownItem {
                        place: format!("cluster {:?} items[{k}]", cluster.id),
                        id: c.id.clone(),
                    })?;
                Ok(Cite {
                    item,
                    locator: c.locator.clone(),
                    label: c.label.clone(),
                    prefix: c.prefix.clone(),
                    suffix: c.suffix.clone(),
                    suppress_author: c.suppress_author,
                    author_only: c.author_only,
                    note,
                })
            })
            .collect()
    }

    /// Renders every cluster again; the clusters whose text changed, and `edited` whether or
    /// not it did.
    fn render(&mut self, edited: Option<&str>) -> Vec<RenderedCluster> {
        let keys: Vec<&str> = self.clusters.iter().map(|c| c.id.as_str()).collect();
        let fresh = self.processor.citations_memo(
            &self.items,
            &self.cites,
            &keys,
            self.format,
            &mut self.memo,
        );
        let mut changed = Vec::new();
        for ((cluster, old), new) in self.clusters.iter().zip(self.texts.iter_mut()).zip(fresh) {
            if *old != new || edited == Some(cluster.id.as_str()) {
                changed.push(RenderedCluster {
                    id: cluster.id.clone(),
                    text: new.clone(),
                });
            }
            *old = new;
        }
        changed
    }
}
