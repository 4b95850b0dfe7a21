//! The table both readers of transformer configs answer to: generated configs (type names,
//! `{type, kwargs}` objects with known, misspelt and mistyped options of every kind) and what
//! the JSON reader ([`OutputTransformerConfig::from_value`]) makes of each: the canonical
//! config and the stage's triggers, or the error's code and the key it names.
//!
//! tests/fixtures/stage_configs.json holds the table; this test fails when the JSON reader's
//! answers differ from it (`CITEFLOW_WRITE_FIXTURES=1` writes it anew), and
//! tests/js/js_options.test.mjs checks that the streaming module, which reads the same configs
//! from JS values in place, gives every answer of the table.

use serde_json::{json, Map, Value};

use super::{OutputTransformerConfig, StageSpec};
use crate::options;

const FIXTURE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/fixtures/stage_configs.json"
);
const CASES: usize = 600;

/// xorshift64*: a fixed sequence, so the table is the same on every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    fn pick<T: Clone>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())].clone()
    }
}

const TYPES: [&str; 11] = [
    "identity",
    "json",
    "think_tag",
    "thinkTag",
    "event_filter",
    "eventFilter",
    "validation",
    "citations",
    "cited_answer",
    "citedAnswer",
    "magic",
];

/// Every option any stage takes (both spellings), and some no stage takes.
const KEYS: [&str; 22] = [
    "tags",
    "startInThinking",
    "start_in_thinking",
    "idPrefix",
    "id_prefix",
    "eventTypes",
    "event_types",
    "requiredTypes",
    "required_types",
    "mode",
    "markerStyle",
    "sourceCount",
    "policy",
    "maxContentChars",
    "format",
    "maxSentences",
    "maxCitesPerSentence",
    "enforce",
    "strict",
    "idPrefx",
    "sourcecount",
    "pretty",
];

fn scalar(rng: &mut Rng) -> Value {
    rng.pick(&[
        json!("text"),
        json!("thinking"),
        json!("structured"),
        json!("all"),
        json!("any"),
        json!("some"),
        json!(""),
        json!(" "),
        json!("response"),
        json!("reasoning"),
        json!("<a>"),
        json!("</a>"),
        json!("bracket"),
        json!("paren"),
        json!("angle"),
        json!("required"),
        json!("quotes_only"),
        json!("gbnf"),
        json!("auto"),
        json!(0),
        json!(3),
        json!(-1),
        json!(1.5),
        json!(4_294_967_296_u64),
        json!(true),
        json!(false),
        Value::Null,
    ])
}

fn value(rng: &mut Rng, depth: usize) -> Value {
    match rng.below(if depth > 2 { 1 } else { 6 }) {
        0 | 1 => scalar(rng),
        2 => Value::Array((0..rng.below(4)).map(|_| scalar(rng)).collect()),
        3 => Value::Array(
            (0..rng.below(3))
                .map(|_| {
                    let (a, b) = (scalar(rng), scalar(rng));
                    match rng.below(3) {
                        0 => json!([a, b]),
                        1 => json!({"open": a, "close": b}),
                        _ => a,
                    }
                })
                .collect(),
        ),
        4 => {
            let mut pair = Map::new();
            for key in ["open", "close", "clos"] {
                if rng.below(3) > 0 {
                    pair.insert(key.to_owned(), scalar(rng));
                }
            }
            Value::Object(pair)
        }
        _ => Value::Array(vec![value(rng, depth + 1)]),
    }
}

fn kwargs(rng: &mut Rng) -> Value {
    match rng.below(10) {
        0 => Value::Null,
        1 => scalar(rng),
        2 => json!([]),
        _ => {
            let mut map = Map::new();
            for _ in 0..rng.below(4) {
                map.insert(rng.pick(&KEYS).to_owned(), value(rng, 0));
            }
            Value::Object(map)
        }
    }
}

fn config(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => json!(rng.pick(&TYPES)),
        1 => scalar(rng),
        2 => json!({"kwargs": {}}),
        3 => json!({"type": rng.pick(&TYPES), "kwarg": {}}),
        4 => json!({"type": scalar(rng)}),
        _ => {
            let mut obj = Map::new();
            obj.insert("type".to_owned(), json!(rng.pick(&TYPES)));
            if rng.below(5) > 0 {
                obj.insert("kwargs".to_owned(), kwargs(rng));
            }
            Value::Object(obj)
        }
    }
}

/// Configs written out: each shape of every check.
fn written() -> Vec<Value> {
    vec![
        json!({"type": "think_tag", "kwargs": {"tags": ["reasoning", ["[[", "]]"], {"open": "<a>", "close": "</a>"}]}}),
        json!({"type": "think_tag", "kwargs": {"tags": [], "startInThinking": true, "idPrefix": "p"}}),
        json!({"type": "think_tag", "kwargs": {"tags": [["<a>"]]}}),
        json!({"type": "think_tag", "kwargs": {"tags": [["<a>", "</a>", "x"]]}}),
        json!({"type": "think_tag", "kwargs": {"tags": [{"open": "<a>"}]}}),
        json!({"type": "think_tag", "kwargs": {"tags": [{"open": "<a>", "close": "</a>", "clos": 1}]}}),
        json!({"type": "think_tag", "kwargs": {"tags": [""]}}),
        json!({"type": "think_tag", "kwargs": {"tags": "reasoning"}}),
        json!({"type": "think_tag", "kwargs": {"idPrefix": "a", "id_prefix": "b"}}),
        json!({"type": "event_filter", "kwargs": {"eventTypes": ["response", ""]}}),
        json!({"type": "event_filter", "kwargs": {"eventTypes": [" "]}}),
        json!({"type": "event_filter", "kwargs": {"event_types": ["thinking"]}}),
        json!({"type": "event_filter", "kwargs": {}}),
        json!({"type": "validation", "kwargs": {"requiredTypes": ["text", "structured"], "mode": "any"}}),
        json!({"type": "validation", "kwargs": {"requiredTypes": []}}),
        json!({"type": "validation", "kwargs": {"requiredTypes": ["prose"]}}),
        json!({"type": "citations", "kwargs": {"markerStyle": "paren", "sourceCount": 3.0}}),
        json!({"type": "citations", "kwargs": {"sourceCount": 4294967295_u64, "policy": "required"}}),
        json!({"type": "citations", "kwargs": {"enforce": "auto"}}),
        json!({"type": "cited_answer", "kwargs": {"markerStyle": "bracket", "maxSentences": 2}}),
        json!({"type": "identity", "kwargs": {"x": null}}),
        json!({"type": "json", "kwargs": null}),
        json!({"type": "thinkTag", "kwargs": {"tags": null, "start_in_thinking": null}}),
    ]
}

/// The first name in backquotes of a message (the option or key it is about), if any.
fn named(message: &str) -> Value {
    let mut parts = message.split('`');
    match (parts.next(), parts.next(), parts.next()) {
        (Some(_), Some(name), Some(_)) => json!(name),
        _ => Value::Null,
    }
}

/// What the JSON reader makes of `config`.
fn answer(config: &Value) -> Value {
    match OutputTransformerConfig::from_value(config) {
        Ok(c) => {
            let spec = StageSpec::read(c.kind, options::entries(&c.kwargs));
            let triggers = spec.map(|s| s.triggers()).unwrap_or_default();
            json!({"config": c.to_value(), "triggers": triggers})
        }
        Err(e) => json!({"code": e.code(), "named": named(&e.to_string())}),
    }
}

#[test]
fn the_table_of_configs_is_what_the_json_reader_answers() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let cases: Vec<Value> = written()
        .into_iter()
        .chain((0..CASES).map(|_| config(&mut rng)))
        .map(|c| json!({"answer": answer(&c), "input": c}))
        .collect();
    // One case a line: the table diffs by case.
    let lines: Vec<String> = cases.iter().map(Value::to_string).collect();
    let table = format!("{{\"cases\": [\n{}\n]}}\n", lines.join(",\n"));
    if std::env::var_os("CITEFLOW_WRITE_FIXTURES").is_some() {
        std::fs::write(FIXTURE, &table).unwrap();
    }
    let stored = std::fs::read_to_string(FIXTURE).unwrap_or_default();
    assert!(
        stored == table,
        "{FIXTURE} is not what the JSON reader answers now; CITEFLOW_WRITE_FIXTURES=1 writes it"
    );
    // The table covers both outcomes of every kind of config.
    let ok = cases
        .iter()
        .filter(|c| c["answer"]["config"].is_object())
        .count();
    assert!(
        ok > CASES / 10 && ok < CASES * 9 / 10,
        "{ok} of {CASES} read"
    );
}
