//! The official CSL test suite (`../shared/csl/test-suite/humans/*.txt`, read in place), run
//! through citeflow's CSL engine the way citeproc-js's runner runs it (see
//! ../shared/notes/csl-test-suite.md). The pass counts may only rise: `tests/csl/suite-floor.json`
//! holds the floors. Citation fixtures run twice: through `Processor::citations` (floor
//! `citation`), and through a `CslDocument` edited one citation at a time (floor `document`). Run
//! `cargo test --features csl --test csl_suite -- --nocapture` for the failing fixture names.
#![cfg(feature = "csl")]

use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

use citeflow::reference::engine::{Cite, Cluster, ClusterItem, CslDocument, Format, Processor};
use regex::Regex;
use serde_json::Value;

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/csl")
}

fn sections(text: &str) -> HashMap<String, String> {
    let open = Regex::new(r">>=+\s*([A-Z-]+)\s*=+>>\r?\n").unwrap();
    let mut out = HashMap::new();
    for m in open.captures_iter(text) {
        let name = m.get(1).unwrap().as_str().to_owned();
        let start = m.get(0).unwrap().end();
        let close = Regex::new(&format!(r"\r?\n?<<=+\s*{}\s*=+<<", regex::escape(&name))).unwrap();
        if let Some(c) = close.find(&text[start..]) {
            out.insert(name, text[start..start + c.start()].to_owned());
        }
    }
    out
}

fn locale_for(style_xml: &str) -> Option<String> {
    let dir = shared().join("locales");
    let lang = Processor::style_locale(style_xml).unwrap_or_else(|| "en-US".into());
    let read = |l: &str| fs::read_to_string(dir.join(format!("locales-{l}.xml"))).ok();
    if let Some(x) = read(&lang) {
        return Some(x);
    }
    let primary = lang.split('-').next().unwrap_or("en");
    let dialects: Value = fs::read_to_string(dir.join("locales.json"))
        .ok()
        .and_then(|s| serde_json::from_str(&s).ok())
        .unwrap_or(Value::Null);
    if let Some(d) = dialects
        .pointer(&format!("/primary-dialects/{primary}"))
        .and_then(Value::as_str)
    {
        if let Some(x) = read(d) {
            return Some(x);
        }
    }
    read("en-US")
}

/// Normalises formatting noise (see the notes): wrappers, whitespace, entity spelling, tag
/// spelling, `style` attribute semicolons, links.
fn normalise(s: &str, plain: bool) -> String {
    let mut s = s
        .replace("&amp;", "&#38;")
        .replace("&lt;", "&#60;")
        .replace("&gt;", "&#62;");
    s = s.replace("<strong>", "<b>").replace("</strong>", "</b>");
    s = s.replace("<em>", "<i>").replace("</em>", "</i>");
    s = Regex::new(r#"<a href="[^"]*"[^>]*>"#)
        .unwrap()
        .replace_all(&s, "")
        .replace("</a>", "");
    s = Regex::new(r#";"(\s*)>"#)
        .unwrap()
        .replace_all(&s, "\"$1>")
        .into_owned();
    s = Regex::new(r"\s+")
        .unwrap()
        .replace_all(&s, " ")
        .into_owned();
    s = Regex::new(r"\s*(</?div[^>]*>)\s*")
        .unwrap()
        .replace_all(&s, "$1")
        .into_owned();
    if plain {
        s = s
            .replace("&#38;", "&")
            .replace("&#60;", "<")
            .replace("&#62;", ">");
    }
    s.trim().to_owned()
}

fn has_markup(s: &str) -> bool {
    Regex::new(r"<(i|b|em|strong|sup|sub|span|div class=.csl-(left|right|block|indent))")
        .unwrap()
        .is_match(s)
}

/// The entries of a `csl-bib-body`.
fn entries(result: &str) -> Vec<String> {
    let open = r#"<div class="csl-entry">"#;
    let mut out = Vec::new();
    let mut rest = result;
    while let Some(i) = rest.find(open) {
        let body = &rest[i + open.len()..];
        let mut depth = 1;
        let mut pos = 0;
        while depth > 0 && pos < body.len() {
            let next_open = body[pos..].find("<div");
            let next_close = body[pos..].find("</div>");
            match (next_open, next_close) {
                (Some(o), Some(c)) if o < c => {
                    depth += 1;
                    pos += o + 4;
                }
                (_, Some(c)) => {
                    depth -= 1;
                    pos += c + if depth == 0 { 0 } else { 6 };
                }
                _ => pos = body.len(),
            }
        }
        out.push(body[..pos].to_owned());
        rest = &body[(pos + 6).min(body.len())..];
    }
    out
}

fn items_of(input: &str) -> Vec<Value> {
    serde_json::from_str::<Value>(input)
        .ok()
        .and_then(|v| v.as_array().cloned())
        .unwrap_or_default()
}

fn cite_of(v: &Value, ids: &HashMap<String, usize>) -> Option<Cite> {
    let id = match v.get("id")? {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    let s = |k: &str| {
        v.get(k).and_then(|x| match x {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    };
    Some(Cite {
        item: *ids.get(&id)?,
        locator: s("locator"),
        label: s("label"),
        prefix: s("prefix"),
        suffix: s("suffix"),
        suppress_author: v
            .get("suppress-author")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        author_only: v
            .get("author-only")
            .and_then(Value::as_bool)
            .unwrap_or(false),
        note: None,
    })
}

/// Replays `processCitationCluster` calls (each: a citation, the citations before it and after
/// it) and prints the final document the way citeproc-js's runner does: one line per citation,
/// `>>[i]` for those the last call rendered anew or changed, `..[i]` for the others.
fn replay_citations(
    p: &Processor,
    items: &[Value],
    ids: &HashMap<String, usize>,
    calls: &[Value],
    format: Format,
) -> String {
    let mut known: HashMap<String, Vec<Cite>> = HashMap::new();
    let mut previous: HashMap<String, String> = HashMap::new();
    let mut lines = Vec::new();
    for (n, call) in calls.iter().enumerate() {
        let Some((citation, id, note)) = call_citation(call) else {
            continue;
        };
        let note = Some(note).filter(|&n| n > 0);
        let cites: Vec<Cite> = citation
            .get("citationItems")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(|c| cite_of(c, ids))
            .map(|c| Cite { note, ..c })
            .collect();
        known.insert(id.to_owned(), cites);
        let order = call_order(call);
        let clusters: Vec<Vec<Cite>> = order
            .iter()
            .map(|c| known.get(c).cloned().unwrap_or_default())
            .collect();
        let rendered = p.citations(items, &clusters, format);
        let last = n + 1 == calls.len();
        lines.clear();
        for (k, (cid, text)) in order.iter().zip(rendered.iter()).enumerate() {
            if last {
                let fresh = cid == id || previous.get(cid) != Some(text);
                lines.push(format!("{}[{k}] {text}", if fresh { ">>" } else { ".." }));
            }
        }
        previous = order.iter().cloned().zip(rendered).collect();
    }
    lines.join("\n")
}

/// A `processCitationCluster` call's citation, its id and its note number (0 in the text).
fn call_citation(call: &Value) -> Option<(&Value, &str, u32)> {
    let citation = call.get(0)?;
    let id = citation.get("citationID").and_then(Value::as_str)?;
    let note = citation
        .pointer("/properties/noteIndex")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .unwrap_or(0);
    Some((citation, id, note))
}

/// The ids of a call's citations in document order: those before it, its own, those after.
fn call_order(call: &Value) -> Vec<String> {
    let mut order: Vec<String> = neighbours(call.get(1))
        .into_iter()
        .map(|(c, _)| c)
        .collect();
    if let Some((_, id, _)) = call_citation(call) {
        order.push(id.to_owned());
    }
    order.extend(neighbours(call.get(2)).into_iter().map(|(c, _)| c));
    order
}

/// The items in the order citeproc-js's registry holds them (its runner cites every item in
/// that order where a fixture gives no citations): the bibliography's order, where the style
/// sorts it; items the bibliography leaves out follow in input order.
fn registry_order(p: &Processor, items: &[Value]) -> Vec<usize> {
    let all: Vec<usize> = (0..items.len()).collect();
    let mut order: Vec<usize> = p
        .bibliography_of(items, &all, Format::Text)
        .into_iter()
        .map(|(i, _)| i)
        .collect();
    for i in all {
        if !order.contains(&i) {
            order.push(i);
        }
    }
    order
}

/// A fixture's cite as a [`ClusterItem`] (the fixtures spell its keys as citeproc-js does).
fn cluster_item_of(v: &Value) -> Option<ClusterItem> {
    let s = |k: &str| {
        v.get(k).and_then(|x| match x {
            Value::String(s) => Some(s.clone()),
            Value::Number(n) => Some(n.to_string()),
            _ => None,
        })
    };
    let flag = |k: &str| v.get(k).and_then(Value::as_bool).unwrap_or(false);
    Some(ClusterItem {
        id: s("id")?,
        locator: s("locator"),
        label: s("label"),
        prefix: s("prefix"),
        suffix: s("suffix"),
        suppress_author: flag("suppress-author"),
        author_only: flag("author-only"),
    })
}

/// The ids and note numbers of a call's citations before or after its own.
fn neighbours(v: Option<&Value>) -> Vec<(String, u32)> {
    v.and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(|p| {
                    let id = p.get(0).and_then(Value::as_str)?.to_owned();
                    let note = p.get(1).and_then(Value::as_u64).unwrap_or(0);
                    Some((id, u32::try_from(note).unwrap_or(0)))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The same calls driven through a [`CslDocument`]: each call is one `set_cluster` at its
/// index. Where a call's lists leave a citation out, or give one another note number, the
/// document is brought to that state first (a removal, or the citation set again). The lines
/// marked `>>` are the clusters the last call's edits reported changed.
fn replay_document(doc: &mut CslDocument, calls: &[Value]) -> Result<String, String> {
    let mut fresh: Vec<String> = Vec::new();
    for call in calls {
        let Some((citation, id, note)) = call_citation(call) else {
            continue;
        };
        let cluster = Cluster {
            id: id.to_owned(),
            note_index: note,
            items: citation
                .get("citationItems")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(cluster_item_of)
                .collect(),
        };
        let pre = neighbours(call.get(1));
        let post = neighbours(call.get(2));
        let mut changed: Vec<String> = Vec::new();
        let wanted: Vec<&str> = pre
            .iter()
            .chain(&post)
            .map(|(c, _)| c.as_str())
            .chain([id])
            .collect();
        for c in doc.clusters() {
            if !wanted.contains(&c.id.as_str()) {
                let ch = doc.remove_cluster(&c.id).map_err(|e| e.to_string())?;
                changed.extend(ch.into_iter().map(|c| c.id));
            }
        }
        // The neighbours in the call's order (moved where the document has them elsewhere),
        // with the call's note numbers.
        for (k, (cid, n)) in pre.iter().chain(&post).enumerate() {
            let Some(existing) = doc.cluster(cid).cloned() else {
                continue;
            };
            let order: Vec<String> = doc.clusters().into_iter().map(|c| c.id).collect();
            let others: Vec<&String> = order.iter().filter(|c| *c != id).collect();
            let moved = others.get(k).is_some_and(|c| *c != cid);
            if existing.note_index != *n || moved {
                let index = if moved {
                    others
                        .get(k)
                        .and_then(|c| order.iter().position(|o| o == *c))
                } else {
                    None
                };
                let again = Cluster {
                    note_index: *n,
                    ..existing
                };
                let before = doc.clusters().into_iter().find(|c| &c.id == cid);
                let ch = doc.set_cluster(again, index).map_err(|e| e.to_string())?;
                // The re-set neighbour counts as changed only where its text did (as
                // citeproc-js reports a call's other citations).
                changed.extend(
                    ch.into_iter()
                        .filter(|c| &c.id != cid || before.as_ref() != Some(c))
                        .map(|c| c.id),
                );
            }
        }
        let index = pre
            .len()
            .min(doc.clusters().len() - usize::from(doc.cluster(id).is_some()));
        let ch = doc
            .set_cluster(cluster, Some(index))
            .map_err(|e| e.to_string())?;
        changed.extend(ch.into_iter().map(|c| c.id));
        fresh = changed;
    }
    Ok(doc
        .clusters()
        .iter()
        .enumerate()
        .map(|(k, c)| {
            let mark = if fresh.contains(&c.id) { ">>" } else { ".." };
            format!("{mark}[{k}] {}", c.text)
        })
        .collect::<Vec<_>>()
        .join("\n"))
}

/// The items, each with an id: a document cites items by id, and a few fixtures give none
/// (they cite every item). An item without one gets `ITEM-<its place>`. An id given twice names
/// one item, the last given (citeproc-js's runner keeps its items by id), at the first's place.
fn with_ids(items: &[Value]) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for (k, item) in items.iter().enumerate() {
        let mut item = item.clone();
        if let Value::Object(map) = &mut item {
            map.entry("id")
                .or_insert_with(|| Value::String(format!("ITEM-{}", k + 1)));
        }
        match out.iter_mut().find(|o| o.get("id") == item.get("id")) {
            Some(earlier) => *earlier = item,
            None => out.push(item),
        }
    }
    out
}

/// A fixture's citations (its `CITATION-ITEMS`, else one citation of every item) set one at a
/// time in a [`CslDocument`], and its text.
fn document_of(
    csl: &str,
    locale: Option<&str>,
    items: &[Value],
    sec: &HashMap<String, String>,
    format: Format,
) -> Result<String, String> {
    let items = with_ids(items);
    let order = registry_order(&Processor::new(csl, locale)?, &items);
    let p = Processor::new(csl, locale)?;
    let mut doc = CslDocument::new(p, items.clone(), format).map_err(|e| e.to_string())?;
    let clusters: Vec<Vec<ClusterItem>> = match sec.get("CITATION-ITEMS") {
        Some(ci) => serde_json::from_str::<Value>(ci)
            .map_err(|e| e.to_string())?
            .as_array()
            .into_iter()
            .flatten()
            .map(|c| {
                c.as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(cluster_item_of)
                    .collect()
            })
            .collect(),
        None => vec![order
            .into_iter()
            .filter_map(|i| items.get(i))
            .filter_map(cluster_item_of)
            .map(|c| ClusterItem {
                id: c.id,
                ..ClusterItem::default()
            })
            .collect()],
    };
    for (k, cites) in clusters.into_iter().enumerate() {
        let cluster = Cluster {
            id: format!("cluster-{k}"),
            note_index: 0,
            items: cites,
        };
        doc.set_cluster(cluster, None).map_err(|e| e.to_string())?;
    }
    Ok(doc
        .clusters()
        .into_iter()
        .map(|c| c.text)
        .collect::<Vec<_>>()
        .join("\n"))
}

/// How citation fixtures are run: through [`Processor::citations`] (each call's whole
/// document rendered at once) or through a [`CslDocument`] edited call by call.
#[derive(Clone, Copy, PartialEq)]
enum Driver {
    Processor,
    Document,
}

enum Outcome {
    Pass,
    Fail(String),
    Unsupported,
}

fn run_fixture(sec: &HashMap<String, String>, driver: Driver) -> Outcome {
    let (Some(mode), Some(csl), Some(input), Some(result)) = (
        sec.get("MODE"),
        sec.get("CSL"),
        sec.get("INPUT"),
        sec.get("RESULT"),
    ) else {
        return Outcome::Unsupported;
    };
    let locale = locale_for(csl);
    let p = match Processor::new(csl, locale.as_deref()) {
        Ok(p) => p,
        Err(e) => return Outcome::Fail(format!("style error: {e}")),
    };
    let items = items_of(input);
    let ids: HashMap<String, usize> = items
        .iter()
        .enumerate()
        .filter_map(|(i, it)| {
            let id = match it.get("id")? {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            Some((id, i))
        })
        .collect();
    let plain = !has_markup(result);
    let format = if plain { Format::Text } else { Format::Html };
    match mode.trim() {
        "bibliography" => {
            let mut registered: Vec<usize> = (0..items.len()).collect();
            if let Some(calls) = sec
                .get("CITATIONS")
                .and_then(|c| serde_json::from_str::<Value>(c).ok())
            {
                let calls = calls.as_array().cloned().unwrap_or_default();
                let mut by_id: HashMap<String, Value> = HashMap::new();
                for call in &calls {
                    if let Some((c, id, _)) = call_citation(call) {
                        by_id.insert(id.to_owned(), c.clone());
                    }
                }
                if let Some(last) = calls.last() {
                    let order = call_order(last);
                    registered.clear();
                    for cid in order {
                        let Some(c) = by_id.get(&cid) else { continue };
                        for ci in c
                            .get("citationItems")
                            .and_then(Value::as_array)
                            .into_iter()
                            .flatten()
                        {
                            if let Some(cite) = cite_of(ci, &ids) {
                                if !registered.contains(&cite.item) {
                                    registered.push(cite.item);
                                }
                            }
                        }
                    }
                }
            }
            let got: Vec<String> = p
                .bibliography_of(&items, &registered, format)
                .into_iter()
                .map(|(_, s)| normalise(&s, plain))
                .collect();
            let want: Vec<String> = entries(result)
                .iter()
                .map(|e| normalise(e, plain))
                .collect();
            if got == want {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("want {want:#?}\n got {got:#?}"))
            }
        }
        "citation" => {
            if let Some(calls) = sec.get("CITATIONS") {
                let Ok(Value::Array(calls)) = serde_json::from_str::<Value>(calls) else {
                    return Outcome::Unsupported;
                };
                let got = match driver {
                    Driver::Processor => replay_citations(&p, &items, &ids, &calls, format),
                    Driver::Document => {
                        let doc = Processor::new(csl, locale.as_deref()).and_then(|p| {
                            CslDocument::new(p, with_ids(&items), format).map_err(|e| e.to_string())
                        });
                        match doc.and_then(|mut d| replay_document(&mut d, &calls)) {
                            Ok(got) => got,
                            Err(e) => return Outcome::Fail(format!("document: {e}")),
                        }
                    }
                };
                let (g, w) = (normalise(&got, plain), normalise(result, plain));
                return if g == w {
                    Outcome::Pass
                } else {
                    Outcome::Fail(format!("want {w:?}\n got {g:?}"))
                };
            }
            let clusters: Vec<Vec<Cite>> = match sec.get("CITATION-ITEMS") {
                Some(ci) => {
                    let v: Value = match serde_json::from_str(ci) {
                        Ok(v) => v,
                        Err(_) => return Outcome::Unsupported,
                    };
                    v.as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| {
                            c.as_array()
                                .into_iter()
                                .flatten()
                                .filter_map(|x| cite_of(x, &ids))
                                .collect()
                        })
                        .collect()
                }
                None => vec![registry_order(&p, &items)
                    .into_iter()
                    .map(|i| Cite {
                        item: i,
                        ..Cite::default()
                    })
                    .collect()],
            };
            let got = match driver {
                Driver::Processor => p.citations(&items, &clusters, format).join("\n"),
                Driver::Document => {
                    match document_of(csl, locale.as_deref(), &items, sec, format) {
                        Ok(got) => got,
                        Err(e) => return Outcome::Fail(format!("document: {e}")),
                    }
                }
            };
            let (g, w) = (normalise(&got, plain), normalise(result, plain));
            if g == w {
                Outcome::Pass
            } else {
                Outcome::Fail(format!("want {w:?}\n got {g:?}"))
            }
        }
        _ => Outcome::Unsupported,
    }
}

#[test]
fn official_csl_suite() {
    let dir = shared().join("test-suite/humans");
    let Ok(read) = fs::read_dir(&dir) else {
        panic!("the CSL test suite is missing at {}", dir.display());
    };
    let mut files: Vec<PathBuf> = read
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    let only = std::env::var("CSL_FIXTURE").ok();
    let show = std::env::var("CSL_SHOW").is_ok();
    let mut counts: HashMap<&str, (usize, usize, usize)> = HashMap::new();
    let mut failing: Vec<String> = Vec::new();
    for f in &files {
        let name = f.file_stem().unwrap().to_string_lossy().into_owned();
        if only.as_ref().is_some_and(|o| !name.contains(o.as_str())) {
            continue;
        }
        let text = fs::read_to_string(f).unwrap();
        let sec = sections(&text);
        let mode = if sec.get("MODE").is_some_and(|m| m.trim() == "bibliography") {
            "bibliography"
        } else {
            "citation"
        };
        counts.entry(mode).or_default().0 += 1;
        if mode == "citation" {
            let outcome = std::panic::catch_unwind(|| run_fixture(&sec, Driver::Document))
                .unwrap_or(Outcome::Fail("panicked".into()));
            let slot = counts.entry("document").or_default();
            slot.0 += 1;
            match outcome {
                Outcome::Pass => slot.1 += 1,
                Outcome::Unsupported => slot.2 += 1,
                Outcome::Fail(why) => {
                    failing.push(format!("document {name}"));
                    if show {
                        println!("--- document {name}\n{why}");
                    }
                }
            }
        }
        let slot = counts.entry(mode).or_default();
        let outcome = std::panic::catch_unwind(|| run_fixture(&sec, Driver::Processor))
            .unwrap_or(Outcome::Fail("panicked".into()));
        match outcome {
            Outcome::Pass => slot.1 += 1,
            Outcome::Unsupported => slot.2 += 1,
            Outcome::Fail(why) => {
                failing.push(format!("{mode} {name}"));
                if show {
                    println!("--- {name}\n{why}");
                }
            }
        }
    }
    let (bt, bp, _) = counts.get("bibliography").copied().unwrap_or_default();
    let (ct, cp, cu) = counts.get("citation").copied().unwrap_or_default();
    println!(
        "CSL suite: bibliography {bp}/{bt} pass; citation {cp}/{ct} pass ({cu} not expressible)"
    );
    let (dt, dp, du) = counts.get("document").copied().unwrap_or_default();
    println!("CSL suite through CslDocument: citation {dp}/{dt} pass ({du} not expressible)");
    println!("failing:\n  {}", failing.join("\n  "));
    if only.is_some() {
        return;
    }
    let floor: Value = serde_json::from_str(
        &fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/csl/suite-floor.json"),
        )
        .unwrap(),
    )
    .unwrap();
    let fb = floor["bibliography"].as_u64().unwrap() as usize;
    let fc = floor["citation"].as_u64().unwrap() as usize;
    let fd = floor["document"].as_u64().unwrap() as usize;
    assert!(
        dp >= fd,
        "citation fixtures through CslDocument pass {dp}, fewer than the floor of {fd}"
    );
    assert!(
        bp >= fb && cp >= fc,
        "CSL suite pass counts fell below the floor: bibliography {bp} (floor {fb}), citation {cp} (floor {fc})"
    );
}
