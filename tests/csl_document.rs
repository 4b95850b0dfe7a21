//! `CslDocument`: a document of citation clusters edited one at a time. Each edit answers with
//! exactly the clusters whose text changed; positions, note numbers, citation numbers and year
//! suffixes follow the whole document; bad input is refused with a stable code and leaves the
//! document as it was.
#![cfg(feature = "csl")]

use citeflow::reference::engine::{
    Cite, Cluster, ClusterItem, CslDocument, DocumentError, Format, Processor, RenderedCluster,
};
use serde_json::{json, Value};

const NOTE_STYLE: &str = r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="note">
  <citation><layout>
    <choose>
      <if position="ibid-with-locator"><text term="ibid"/><text variable="locator" prefix=", "/></if>
      <else-if position="ibid"><text term="ibid"/></else-if>
      <else-if position="subsequent">
        <names variable="author"><name form="short"/></names>
        <text variable="first-reference-note-number" prefix=" (n. " suffix=")"/>
        <text variable="locator" prefix=", "/>
      </else-if>
      <else>
        <names variable="author"><name form="short"/></names><text variable="title" prefix=", "/>
        <text variable="locator" prefix=", "/>
      </else>
    </choose>
  </layout></citation>
  <bibliography><sort><key variable="title"/></sort>
    <layout><names variable="author"><name name-as-sort-order="all"/></names><text variable="title" prefix=". "/></layout>
  </bibliography>
</style>"#;

const AUTHOR_DATE: &str = r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="in-text">
  <citation disambiguate-add-year-suffix="true"><layout prefix="(" suffix=")" delimiter="; ">
    <names variable="author"><name form="short"/></names>
    <date variable="issued" prefix=" "><date-part name="year"/></date>
    <text variable="year-suffix"/>
  </layout></citation>
</style>"#;

const NUMERIC: &str = r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="in-text">
  <citation><layout prefix="[" suffix="]" delimiter=", "><text variable="citation-number"/></layout></citation>
  <bibliography><layout><text variable="citation-number" suffix=". "/><text variable="title"/></layout></bibliography>
</style>"#;

fn items() -> Vec<Value> {
    vec![
        json!({"id": "raven", "type": "book", "title": "The Raven",
            "author": [{"family": "Poe", "given": "Edgar Allan"}], "issued": {"date-parts": [[1845]]}}),
        json!({"id": "gold", "type": "book", "title": "The Gold-Bug",
            "author": [{"family": "Poe", "given": "Edgar Allan"}], "issued": {"date-parts": [[1845]]}}),
        json!({"id": "tom", "type": "book", "title": "Tom Sawyer",
            "author": [{"family": "Twain", "given": "Mark"}], "issued": {"date-parts": [[1876]]}}),
        json!({"id": 7, "type": "book", "title": "Walden",
            "author": [{"family": "Thoreau", "given": "Henry David"}], "issued": {"date-parts": [[1854]]}}),
    ]
}

fn doc(style: &str) -> CslDocument {
    CslDocument::new(Processor::new(style, None).unwrap(), items(), Format::Text).unwrap()
}

fn cluster(id: &str, note: u32, cites: &[&str]) -> Cluster {
    Cluster {
        id: id.into(),
        note_index: note,
        items: cites
            .iter()
            .map(|c| ClusterItem {
                id: (*c).into(),
                ..ClusterItem::default()
            })
            .collect(),
    }
}

fn pairs(list: &[RenderedCluster]) -> Vec<(&str, &str)> {
    list.iter()
        .map(|c| (c.id.as_str(), c.text.as_str()))
        .collect()
}

#[test]
fn positions_follow_inserts_and_removals_before_a_cluster() {
    let mut d = doc(NOTE_STYLE);
    let changed = d.set_cluster(cluster("c2", 2, &["raven"]), None).unwrap();
    assert_eq!(pairs(&changed), [("c2", "Poe, The Raven")]);
    // A cite of the same work before it: the later one becomes ibid.
    let changed = d
        .set_cluster(cluster("c1", 1, &["raven"]), Some(0))
        .unwrap();
    assert_eq!(pairs(&changed), [("c1", "Poe, The Raven"), ("c2", "Ibid.")]);
    // A cite of another work between them: ibid becomes subsequent, with the first note.
    let changed = d.set_cluster(cluster("m", 2, &["tom"]), Some(1)).unwrap();
    assert_eq!(
        pairs(&changed),
        [("m", "Twain, Tom Sawyer"), ("c2", "Poe (n. 1)")]
    );
    assert_eq!(
        pairs(&d.clusters()),
        [
            ("c1", "Poe, The Raven"),
            ("m", "Twain, Tom Sawyer"),
            ("c2", "Poe (n. 1)")
        ]
    );
    // Removed again: ibid again; the removed cluster is not in the list.
    let changed = d.remove_cluster("m").unwrap();
    assert_eq!(pairs(&changed), [("c2", "Ibid.")]);
    // The first cite removed: the other is the first cite of the work now.
    let changed = d.remove_cluster("c1").unwrap();
    assert_eq!(pairs(&changed), [("c2", "Poe, The Raven")]);
    assert_eq!(pairs(&d.clusters()), [("c2", "Poe, The Raven")]);
}

#[test]
fn a_locator_makes_ibid_with_locator_and_a_move_reorders() {
    let mut d = doc(NOTE_STYLE);
    d.set_cluster(cluster("a", 1, &["raven"]), None).unwrap();
    let mut b = cluster("b", 2, &["raven"]);
    b.items[0].locator = Some("12".into());
    assert_eq!(
        pairs(&d.set_cluster(b.clone(), None).unwrap()),
        [("b", "Ibid., 12")]
    );
    // Setting the same cluster again changes nothing else, and answers with it alone.
    assert_eq!(
        pairs(&d.set_cluster(b, None).unwrap()),
        [("b", "Ibid., 12")]
    );
    // Moving `a` after `b` (into note 3): `b` is the first cite now (with its locator), `a`
    // the ibid... without a locator after one, which CSL makes subsequent.
    let changed = d.set_cluster(cluster("a", 3, &["raven"]), Some(1)).unwrap();
    assert_eq!(
        pairs(&changed),
        [("b", "Poe, The Raven, 12"), ("a", "Poe (n. 2)")]
    );
    assert_eq!(d.clusters().len(), 2);
}

#[test]
fn notes_numbered_lower_than_the_note_before_start_positions_again() {
    let mut d = doc(NOTE_STYLE);
    d.set_cluster(cluster("a", 2, &["raven"]), None).unwrap();
    // Note 1 after note 2 (a document whose notes are being renumbered): its cite is a
    // first cite again, as citeproc-js counts it.
    assert_eq!(
        pairs(&d.set_cluster(cluster("b", 1, &["raven"]), None).unwrap()),
        [("b", "Poe, The Raven")]
    );
}

#[test]
fn in_text_cites_are_ibid_after_the_text_cite_before_whatever_the_notes_between() {
    let mut d = doc(NOTE_STYLE);
    d.set_cluster(cluster("t1", 0, &["raven"]), None).unwrap();
    d.set_cluster(cluster("n1", 1, &["tom"]), None).unwrap();
    assert_eq!(
        pairs(&d.set_cluster(cluster("t2", 0, &["raven"]), None).unwrap()),
        [("t2", "Ibid.")]
    );
}

#[test]
fn year_suffixes_appear_and_go_with_the_cluster_that_needs_them() {
    let mut d = doc(AUTHOR_DATE);
    assert_eq!(
        pairs(&d.set_cluster(cluster("x", 0, &["raven"]), None).unwrap()),
        [("x", "(Poe 1845)")]
    );
    assert_eq!(
        pairs(&d.set_cluster(cluster("t", 0, &["tom"]), None).unwrap()),
        [("t", "(Twain 1876)")]
    );
    // A second work by Poe in 1845 anywhere in the document: both take a suffix.
    let changed = d.set_cluster(cluster("y", 0, &["gold"]), None).unwrap();
    assert_eq!(changed.len(), 2, "{changed:?}");
    let texts: Vec<&str> = changed.iter().map(|c| c.text.as_str()).collect();
    assert_eq!(changed[0].id, "x");
    assert_eq!(changed[1].id, "y");
    assert!(
        texts.contains(&"(Poe 1845a)") && texts.contains(&"(Poe 1845b)"),
        "{texts:?}"
    );
    // Removed: the suffix goes again.
    assert_eq!(
        pairs(&d.remove_cluster("y").unwrap()),
        [("x", "(Poe 1845)")]
    );
}

#[test]
fn citation_numbers_follow_the_order_of_first_citation() {
    let mut d = doc(NUMERIC);
    assert_eq!(
        pairs(&d.set_cluster(cluster("b", 0, &["tom"]), None).unwrap()),
        [("b", "[1]")]
    );
    let changed = d.set_cluster(cluster("a", 0, &["raven"]), Some(0)).unwrap();
    assert_eq!(pairs(&changed), [("a", "[1]"), ("b", "[2]")]);
    // Numeric ids are ids like any other.
    let changed = d
        .set_cluster(cluster("c", 0, &["7", "raven"]), None)
        .unwrap();
    assert_eq!(pairs(&changed), [("c", "[3, 1]")]);
    // The bibliography: cited works in citation order, then the uncited ones asked for.
    let bib = d.bibliography(&["gold".into()]).unwrap();
    let entries: Vec<(&str, &str)> = bib
        .iter()
        .map(|e| (e.id.as_str(), e.entry.as_str()))
        .collect();
    assert_eq!(
        entries,
        [
            ("raven", "1. The Raven"),
            ("tom", "2. Tom Sawyer"),
            ("7", "3. Walden"),
            ("gold", "4. The Gold-Bug")
        ]
    );
    assert_eq!(bib[3].source_id, 2);
}

#[test]
fn changed_items_change_the_clusters_that_cite_them() {
    let mut d = doc(NOTE_STYLE);
    d.set_cluster(cluster("a", 1, &["raven"]), None).unwrap();
    d.set_cluster(cluster("b", 2, &["tom"]), None).unwrap();
    let changed = d
        .set_items(vec![
            json!({"id": "tom", "type": "book", "title": "Huckleberry Finn",
            "author": [{"family": "Twain"}]}),
        ])
        .unwrap();
    assert_eq!(pairs(&changed), [("b", "Twain, Huckleberry Finn")]);
    // A new item changes nothing until cited.
    let changed = d
        .set_items(vec![
            json!({"id": "new", "type": "book", "title": "New", "author": [{"family": "Doe"}]}),
        ])
        .unwrap();
    assert!(changed.is_empty());
    assert_eq!(
        pairs(&d.set_cluster(cluster("c", 3, &["new"]), None).unwrap()),
        [("c", "Doe, New")]
    );
}

#[test]
fn bad_input_is_refused_with_a_code_and_changes_nothing() {
    let mut d = doc(NOTE_STYLE);
    d.set_cluster(cluster("a", 1, &["raven"]), None).unwrap();
    let before = d.clusters();
    let code = |e: DocumentError| e.code();

    assert_eq!(
        code(d.set_cluster(cluster("b", 2, &["nope"]), None).unwrap_err()),
        "UNKNOWN_ITEM"
    );
    // Replacing `a` with a cite of an unknown item keeps the old `a`.
    assert_eq!(
        code(
            d.set_cluster(cluster("a", 1, &["raven", "nope"]), None)
                .unwrap_err()
        ),
        "UNKNOWN_ITEM"
    );
    // One cluster: a new one goes at 0 or 1, the existing one only at 0.
    assert_eq!(
        code(
            d.set_cluster(cluster("b", 2, &["tom"]), Some(2))
                .unwrap_err()
        ),
        "INDEX_OUT_OF_RANGE"
    );
    assert_eq!(
        code(
            d.set_cluster(cluster("a", 1, &["tom"]), Some(1))
                .unwrap_err()
        ),
        "INDEX_OUT_OF_RANGE"
    );
    assert_eq!(code(d.remove_cluster("b").unwrap_err()), "UNKNOWN_CLUSTER");
    assert_eq!(
        code(d.bibliography(&["nope".into()]).unwrap_err()),
        "UNKNOWN_ITEM"
    );
    assert_eq!(
        code(
            d.set_items(vec![
                json!({"id": "q", "type": "book"}),
                json!({"id": "q", "type": "book"})
            ])
            .unwrap_err()
        ),
        "DUPLICATE_ITEM"
    );
    assert_eq!(
        code(d.set_items(vec![json!({"type": "book"})]).unwrap_err()),
        "INVALID_SOURCE"
    );
    assert_eq!(
        code(d.set_items(vec![json!("raven")]).unwrap_err()),
        "INVALID_SOURCE"
    );
    assert_eq!(d.clusters(), before);
    // The same id set twice is one cluster, replaced: ids stay unique.
    d.set_cluster(cluster("a", 1, &["tom"]), Some(0)).unwrap();
    assert_eq!(pairs(&d.clusters()), [("a", "Twain, Tom Sawyer")]);
    // `q` was refused with its duplicate: it is not an item.
    assert_eq!(
        code(d.set_cluster(cluster("q", 2, &["q"]), None).unwrap_err()),
        "UNKNOWN_ITEM"
    );
}

#[test]
fn clusters_from_json_refuse_unknown_keys_and_wrong_types() {
    let ok = Cluster::from_json(&json!({"id": "c", "noteIndex": 3, "items": [
        {"id": "raven", "locator": 12, "label": "page", "prefix": "see ", "suffix": "",
         "suppressAuthor": true, "authorOnly": false}, {"id": 7}]}))
    .unwrap();
    assert_eq!(ok.note_index, 3);
    assert_eq!(ok.items[0].locator.as_deref(), Some("12"));
    assert!(ok.items[0].suppress_author);
    assert_eq!(ok.items[1].id, "7");
    let refused = |v: Value| Cluster::from_json(&v).unwrap_err();
    for (bad, option) in [
        (json!({"id": "c", "items": [], "note": 1}), "cluster.note"),
        (
            json!({"id": "c", "items": [{"id": "a", "suppress-author": true}]}),
            "cluster.items[0].suppress-author",
        ),
        (
            json!({"id": "c", "items": [{"id": "a", "locator": true}]}),
            "cluster.items[0].locator",
        ),
        (
            json!({"id": "c", "items": [{"id": "a", "authorOnly": "yes"}]}),
            "cluster.items[0].authorOnly",
        ),
        (
            json!({"id": "c", "items": [{"locator": "1"}]}),
            "cluster.items[0].id",
        ),
        (json!({"id": "c", "items": ["a"]}), "cluster.items[0]"),
        (
            json!({"id": "c", "noteIndex": -1, "items": []}),
            "cluster.noteIndex",
        ),
        (
            json!({"id": "c", "noteIndex": 1.5, "items": []}),
            "cluster.noteIndex",
        ),
        (json!({"id": 3, "items": []}), "cluster.id"),
        (json!({"id": "c"}), "cluster.items"),
        (json!(["c"]), "cluster"),
    ] {
        match refused(bad.clone()) {
            DocumentError::InvalidOption { option: o, .. } => assert_eq!(o, option, "{bad}"),
            other => panic!("{bad}: {other:?}"),
        }
        assert_eq!(refused(bad).code(), "INVALID_OPTION");
    }
}

#[test]
fn odd_documents_render_without_panicking() {
    let mut d = doc(AUTHOR_DATE);
    d.set_cluster(cluster("empty", 0, &[]), None).unwrap();
    d.set_cluster(cluster("twice", 0, &["raven", "raven", "raven"]), Some(0))
        .unwrap();
    for k in 0..50 {
        d.set_cluster(
            cluster(&format!("c{k}"), k, &["gold", "7"]),
            Some(k as usize % 3),
        )
        .unwrap();
    }
    for k in (0..50).step_by(2) {
        d.remove_cluster(&format!("c{k}")).unwrap();
    }
    assert_eq!(d.clusters().len(), 27);
    // A style without a bibliography has none.
    assert!(d.bibliography(&[]).unwrap().is_empty());
}

/// A small deterministic generator (the tests need no crate for it).
struct Lcg(u64);

impl Lcg {
    fn below(&mut self, n: usize) -> usize {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 33) as usize) % n.max(1)
    }
}

const NEAR_NOTE_STYLE: &str = r#"<style xmlns="http://purl.org/net/xbiblio/csl" version="1.0" class="note">
  <citation near-note-distance="2" disambiguate-add-year-suffix="true"><sort><key variable="title"/></sort>
  <layout delimiter="; ">
    <choose>
      <if position="ibid-with-locator"><text term="ibid"/><text variable="locator" prefix=", "/></if>
      <else-if position="ibid"><text term="ibid"/></else-if>
      <else-if position="near-note"><names variable="author"><name form="short"/></names><text value="near" prefix=" "/></else-if>
      <else-if position="subsequent"><names variable="author"><name form="short"/></names><text variable="first-reference-note-number" prefix=" n. "/></else-if>
      <else><names variable="author"><name form="short"/></names><date variable="issued" prefix=" "><date-part name="year"/></date><text variable="year-suffix"/></else>
    </choose>
  </layout></citation>
</style>"#;

/// After every edit of a random sequence, the document's texts are those of the whole
/// document rendered afresh: what the document keeps between renders never shows.
#[test]
fn every_edit_leaves_the_texts_of_a_fresh_render() {
    for style in [NOTE_STYLE, AUTHOR_DATE, NUMERIC, NEAR_NOTE_STYLE] {
        let fresh = Processor::new(style, None).unwrap();
        let mut d = doc(style);
        let mut items = items();
        let ids = ["raven", "gold", "tom", "7"];
        let mut rng = Lcg(7);
        let mut order: Vec<Cluster> = Vec::new();
        for n in 0..150 {
            let before = d.clusters();
            let op = rng.below(10);
            let edited = if order.is_empty() || op < 4 {
                let cites: Vec<&str> = (0..1 + rng.below(2)).map(|_| ids[rng.below(4)]).collect();
                let mut c = cluster(&format!("c{n}"), 0, &cites);
                if rng.below(3) == 0 {
                    c.items[0].locator = Some(format!("{}", 1 + rng.below(3)));
                }
                let at = rng.below(order.len() + 1);
                order.insert(at, c.clone());
                Some((c, at))
            } else if op < 6 {
                let at = rng.below(order.len());
                let c = order.remove(at);
                let to = rng.below(order.len() + 1);
                order.insert(to, c.clone());
                Some((c, to))
            } else if op < 9 {
                let c = order.remove(rng.below(order.len()));
                d.remove_cluster(&c.id).unwrap();
                None
            } else {
                // An item's date changes: suffixes come or go.
                let year = 1845 + rng.below(2) as i64;
                items[1]["issued"] = json!({"date-parts": [[year]]});
                d.set_items(vec![items[1].clone()]).unwrap();
                None
            };
            // Footnotes numbered in document order.
            for (k, c) in order.iter_mut().enumerate() {
                c.note_index = k as u32 + 1;
            }
            if let Some((c, at)) = edited {
                let c = Cluster {
                    note_index: at as u32 + 1,
                    ..c
                };
                d.set_cluster(c, Some(at)).unwrap();
            }
            for c in &order {
                if d.cluster(&c.id).unwrap().note_index != c.note_index {
                    d.set_cluster(c.clone(), None).unwrap();
                }
            }
            let ix = |id: &str| items.iter().position(|it| id_of(it) == id).unwrap();
            let cites: Vec<Vec<Cite>> = order
                .iter()
                .map(|c| {
                    c.items
                        .iter()
                        .map(|i| Cite {
                            item: ix(&i.id),
                            locator: i.locator.clone(),
                            note: Some(c.note_index),
                            ..Cite::default()
                        })
                        .collect()
                })
                .collect();
            let want = fresh.citations(&items, &cites, Format::Text);
            let got: Vec<String> = d.clusters().into_iter().map(|c| c.text).collect();
            assert_eq!(got, want, "edit {n}, before: {before:?}");
        }
    }
}

fn id_of(item: &Value) -> String {
    match &item["id"] {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}
