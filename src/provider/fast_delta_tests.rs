//! The fast reader against serde's path: whatever it accepts, it reads exactly as
//! `serde_json::from_str::<Message>` does; the token-carrying shapes it accepts.

use proptest::prelude::*;

use super::{read, read_noting};
use crate::provider::message_reader::{read_message, MESSAGE_KEYS, PART_KEYS};
use crate::provider::token_shape::Ignored;
use crate::provider::wire::Message;

/// `data` through both readers: equal whenever the fast one accepts. Whether it accepted.
/// The hand-written reader of every message (the lean module's only one) then reads the same
/// and notes the same ignored strings (the token shape's holes).
fn agree(data: &str) -> bool {
    let mut noted = Ignored::default();
    let Some(fast) = read_noting(data, &mut noted) else {
        return false;
    };
    let slow: Message = serde_json::from_str(data)
        .unwrap_or_else(|e| panic!("the fast reader accepted what serde rejects ({e}): {data}"));
    assert_eq!(fast, slow, "{data}");
    let mut by_reader = Ignored::default();
    let whole = read_message(data, &mut by_reader).unwrap_or_else(|e| {
        panic!("the fast reader accepted what the reader rejects ({e}): {data}")
    });
    assert_eq!(whole, slow, "{data}");
    assert_eq!(by_reader.spans(), noted.spans(), "{data}");
    true
}

/// Pieces of a JSON string's contents without escapes.
const PLAIN: &[&str] = &[
    "the ",
    "study",
    " ",
    "[1]",
    "<think>",
    "</think>",
    "é",
    "😀",
    "\u{7f}",
    "'",
    "\u{feff}",
    "\u{fffe}",
    "\u{fdd0}",
    "\u{10ffff}",
];

/// Pieces of a JSON string's contents: text, and every kind of escape.
const PIECES: &[&str] = &[
    "the ",
    "study",
    " ",
    "[1]",
    "<think>",
    "</think>",
    "é",
    "😀",
    "中文",
    "\u{7f}",
    "\u{2028}",
    "\u{feff}",
    "\u{fffe}",
    "\u{fdef}",
    "\u{1fffe}",
    r"\uFEFF",
    r"\uFFFE",
    r"\udbff\udfff",
    r"\n",
    r#"\""#,
    r"\\",
    r"\/",
    r"\t",
    r"\r",
    r"\b",
    r"\f",
    r"\u00e9",
    r"\u0000",
    r"\u001F",
    r"\uD83D\uDE00",
    r"\ud83d\ude00",
    r"\uFFFF",
    r"\u2028",
];

fn text(pieces: &'static [&'static str]) -> impl Strategy<Value = String> {
    proptest::collection::vec(proptest::sample::select(pieces), 0..8).prop_map(|p| p.concat())
}

/// JSON whitespace, usually none.
fn ws() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(&["", "", "", " ", "\n", " \t\r\n "][..])
}

/// An object from its entries, in the given order, spaced by `ws`.
fn object(entries: Vec<(String, String)>, ws: &str) -> String {
    let fields: Vec<String> = entries
        .into_iter()
        .map(|(k, v)| format!("{ws}\"{k}\"{ws}:{ws}{v}{ws}"))
        .collect();
    format!("{ws}{{{}}}{ws}", fields.join(","))
}

fn quoted(s: &str) -> String {
    format!("\"{s}\"")
}

/// An OpenAI-style chunk carrying a token, its keys in any order, every optional key maybe.
fn openai_chunk(pieces: &'static [&'static str]) -> impl Strategy<Value = String> {
    let delta = (
        proptest::option::of(text(pieces)),
        proptest::option::of(text(pieces)),
        proptest::option::of(text(pieces)),
        any::<bool>(),
        any::<bool>(),
    )
        .prop_flat_map(|(content, reasoning_content, reasoning, role, null)| {
            let mut e = Vec::new();
            if role {
                e.push(("role".to_owned(), quoted("assistant")));
            }
            for (k, v) in [
                ("content", content),
                ("reasoning_content", reasoning_content),
                ("reasoning", reasoning),
            ] {
                match v {
                    Some(v) => e.push((k.to_owned(), quoted(&v))),
                    None if null => e.push((k.to_owned(), "null".to_owned())),
                    None => {}
                }
            }
            Just(e).prop_shuffle()
        });
    let choice = (
        delta,
        ws(),
        proptest::sample::select(&["null", "\"stop\"", "\"length\""][..]),
        proptest::sample::select(&["0", "", "null", "3"][..]),
        any::<bool>(),
    )
        .prop_flat_map(|(delta, ws, finish, index, logprobs)| {
            let mut e = vec![
                ("delta".to_owned(), object(delta, ws)),
                ("finish_reason".to_owned(), finish.to_owned()),
            ];
            if !index.is_empty() {
                e.push(("index".to_owned(), index.to_owned()));
            }
            if logprobs {
                e.push(("logprobs".to_owned(), "null".to_owned()));
                e.push(("native_finish_reason".to_owned(), "null".to_owned()));
            }
            (Just(e).prop_shuffle(), Just(ws))
        })
        .prop_map(|(e, ws)| object(e, ws));
    (choice, text(pieces), ws(), any::<u32>(), any::<bool>())
        .prop_flat_map(|(choice, id, ws, created, extra)| {
            let mut e = vec![
                ("id".to_owned(), quoted(&id)),
                ("object".to_owned(), quoted("chat.completion.chunk")),
                ("choices".to_owned(), format!("[{ws}{choice}{ws}]")),
            ];
            if extra {
                e.push(("created".to_owned(), created.to_string()));
                e.push(("model".to_owned(), quoted("gpt-4o-mini")));
                e.push(("system_fingerprint".to_owned(), "null".to_owned()));
                e.push(("usage".to_owned(), "null".to_owned()));
            }
            (Just(e).prop_shuffle(), Just(ws))
        })
        .prop_map(|(e, ws)| object(e, ws))
}

/// An Anthropic `content_block_delta` carrying text or thinking.
fn anthropic_delta(pieces: &'static [&'static str]) -> impl Strategy<Value = String> {
    (
        text(pieces),
        any::<bool>(),
        proptest::sample::select(&["0", "1", "7", "4294967295", "18446744073"][..]),
        ws(),
    )
        .prop_flat_map(|(text, thinking, index, ws)| {
            let delta = if thinking {
                vec![
                    ("type".to_owned(), quoted("thinking_delta")),
                    ("thinking".to_owned(), quoted(&text)),
                ]
            } else {
                vec![
                    ("type".to_owned(), quoted("text_delta")),
                    ("text".to_owned(), quoted(&text)),
                ]
            };
            (Just(delta).prop_shuffle(), Just(index), Just(ws))
        })
        .prop_flat_map(|(delta, index, ws)| {
            Just(vec![
                ("type".to_owned(), quoted("content_block_delta")),
                ("index".to_owned(), index.to_owned()),
                ("delta".to_owned(), object(delta, ws)),
            ])
            .prop_shuffle()
            .prop_map(move |e| object(e, ws))
        })
}

/// Hot messages without escapes: the fast reader takes every one.
fn hot() -> impl Strategy<Value = String> {
    prop_oneof![openai_chunk(PLAIN), anthropic_delta(PLAIN)]
}

/// Hot messages with escapes (and so declined today).
fn escaped() -> impl Strategy<Value = String> {
    prop_oneof![openai_chunk(PIECES), anthropic_delta(PIECES)]
}

/// What a mutation splices in: syntax, wrong types, duplicates, nesting, bad escapes.
const SPLICES: &[&str] = &[
    "\"",
    "\\",
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    " ",
    "0",
    "-",
    "01",
    "1.5",
    "1e5",
    "-0",
    "1E2",
    "12345678901234567890",
    "9999999999999999999",
    "true",
    "nul",
    "null",
    "\u{1}",
    "\t",
    r"\ud800",
    r"\udc00",
    r"\u12",
    r"\x",
    r"\'",
    r#""id":"d","#,
    r#""id":7,"#,
    r#""error":null,"#,
    r#""error":{"message":"x"},"#,
    r#""choices":[],"#,
    r#""choices":null,"#,
    r#""choices":"x","#,
    r#""usage":{"total_tokens":1},"#,
    r#""usage":[],"#,
    r#""delta":null,"#,
    r#""delta":[],"#,
    r#""delta":7,"#,
    r#""content":[{"type":"text","text":"p"}],"#,
    r#""content":[],"#,
    r#""annotations":[],"#,
    r#""annotations":[{"type":"url_citation"}],"#,
    r#""citation":null,"#,
    r#""citation":{"cited_text":"c"},"#,
    r#""index":1,"#,
    r#""index":"0","#,
    r#""text":5,"#,
    r#""type":"text_delta","#,
    r#""thinking":"t","#,
    r#""\u0069d":"e","#,
    r#""finish_reason":"stop","#,
    r#"{"index":1,"delta":{"content":"two"}},"#,
    r#",{"index":0}"#,
    r#""message":{"id":"m"},"#,
    r#""content_block":{"type":"text","text":""},"#,
    r#""stop_reason":"end_turn","#,
    r#""partial_json":"{\"a\"","#,
    r#""x":{"deep":[1]},"#,
    r#""tool_calls":[{"index":0}],"#,
];

/// A hot message, mutated: bytes cut out, something spliced in, a stretch repeated.
fn hostile() -> impl Strategy<Value = String> {
    (
        prop_oneof![hot(), escaped()],
        proptest::collection::vec(
            (
                0u8..3,
                any::<prop::sample::Index>(),
                any::<prop::sample::Index>(),
                proptest::sample::select(SPLICES),
            ),
            1..4,
        ),
    )
        .prop_map(|(mut s, edits)| {
            for (op, at, len, splice) in edits {
                let boundary = |s: &str, i: usize| (0..=i).rev().find(|&i| s.is_char_boundary(i));
                let Some(a) = boundary(&s, at.index(s.len() + 1)) else {
                    continue;
                };
                let Some(b) = boundary(&s, (a + len.index(12)).min(s.len())) else {
                    continue;
                };
                let b = b.max(a);
                s = match op {
                    0 => format!("{}{}", &s[..a], &s[b..]),
                    1 => format!("{}{splice}{}", &s[..a], &s[a..]),
                    _ => format!("{}{}", &s[..b], &s[a..]),
                };
            }
            s
        })
}

/// Keys the readers know, at every level (the full reader's own tables), and some they do not.
fn keys() -> Vec<&'static str> {
    let others = ["object", "role", "url", "__proto__", r"\u0069d", "other"];
    [MESSAGE_KEYS, PART_KEYS, &others[..]].concat()
}

const LEAVES: &[&str] = &[
    "null",
    "true",
    "false",
    "0",
    "1",
    "-1",
    "-0",
    "0.5",
    "1e2",
    "18446744073709551616",
    "\"\"",
    "\"x\"",
    "\"text_delta\"",
    "\"content_block_delta\"",
    r#""a\nb""#,
    r#""\u00e9""#,
    r#""\ud800""#,
    "[]",
    "{}",
];

/// Random JSON text over the known keys.
fn json() -> impl Strategy<Value = String> {
    let leaf = proptest::sample::select(LEAVES).prop_map(str::to_owned);
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..3)
                .prop_map(|v| format!("[{}]", v.join(","))),
            proptest::collection::vec((proptest::sample::select(keys()), inner), 0..6).prop_map(
                |e| {
                    let e = e.into_iter().map(|(k, v)| (k.to_owned(), v)).collect();
                    object(e, "")
                }
            ),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn hot_shapes_are_read_fast_and_the_same(data in hot()) {
        // Every generated hot message is valid and of a shape the fast reader takes.
        prop_assert!(agree(&data), "declined: {}", data);
    }

    #[test]
    fn mutated_messages_read_the_same_when_accepted(data in prop_oneof![escaped(), hostile()]) {
        agree(&data);
    }

    #[test]
    fn random_json_reads_the_same_when_accepted(data in json()) {
        agree(&data);
    }

    #[test]
    fn any_text_never_panics(data in any::<String>(), bytes in proptest::collection::vec(
        proptest::sample::select(&b"{}[]\",:\\ 0123456789-.eEtrufalsn\n\x01u"[..]), 0..40)) {
        agree(&data);
        agree(&String::from_utf8(bytes).unwrap_or_default());
    }
}

#[test]
fn real_token_messages_are_read_fast() {
    let accepted = [
        r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"the "},"finish_reason":null}]}"#,
        r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1732000000,"model":"gpt-4o-mini","system_fingerprint":"fp_1","choices":[{"index":0,"delta":{"role":"assistant","content":"","refusal":null},"logprobs":null,"finish_reason":null}],"usage":null,"obfuscation":"abc"}"#,
        r#"{"id":"gen-1","provider":"OpenAI","model":"openai/gpt-4o","object":"chat.completion.chunk","created":1,"choices":[{"index":0,"delta":{"role":"assistant","content":"Hi é","reasoning":null},"finish_reason":null,"native_finish_reason":null,"logprobs":null}]}"#,
        r#"{"id":"d1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":null,"reasoning_content":"Let me think 😀"},"finish_reason":null}]}"#,
        r#"{ "id": "v1", "choices": [ { "index": 0, "delta": { "content": "x" }, "finish_reason": null } ], "usage": null }"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello world"}}"#,
        r#"{"type":"content_block_delta","index":1,"delta":{"type":"thinking_delta","thinking":"hmm"}}"#,
        r#"{"type":"content_block_stop","index":0}"#,
        r#"{"type":"ping"}"#,
    ];
    for data in accepted {
        assert!(agree(data), "declined: {data}");
    }
    let declined = [
        r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
        r#"{"error":null}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"Hi \"there\"\n"}}]}"#,
        r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"a\u00e9"}}"#,
        r#"{"choices":[{"index":-1,"delta":{"content":"d"}}]}"#,
        r#"{"choices":null}"#,
        r#"{"choices":[{"delta":{"content":"a"}}],"done":false}"#,
        r#"{"id":"c1","choices":[],"usage":{"total_tokens":3}}"#,
        r#"{"id":"a","id":"b","choices":[]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"a","content":"b"}}]}"#,
        r#"{"choices":[{"index":1,"delta":{"content":"no"}},{"delta":{"content":"yes"}}]}"#,
        r#"{"choices":[{"delta":{"content":[{"type":"text","text":"a"}]}}]}"#,
        r#"{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}"#,
        r#"{"\u0069d":"esc"}"#,
        r#"{"other":1e400}"#,
        r#"{"other":1.5}"#,
        r#"{"index":12345678901234567890}"#,
        r#"{"id":"\ud800"}"#,
        r#"{"id":"\udc00x"}"#,
        r#"{"id":"\q"}"#,
        "{\"id\":\"tab\there\"}",
        r#"{"id":"c1""#,
        r#"{"id":"c1"} x"#,
        r#"{"id":"c1",}"#,
        r#"{"index":01}"#,
        "[1,2]",
        "null",
        "",
    ];
    for data in declined {
        assert!(read(data).is_none(), "accepted: {data}");
    }
}

/// Native timing of both readers over the pipeline benchmark's messages. Informative only:
/// `cargo test --release --lib fast_delta -- --ignored --nocapture`.
#[test]
#[ignore]
fn time_fast_against_serde() {
    use std::time::Instant;
    let words = [
        "the ", "study ", "found ", "that ", "rates ", "rose ", "[1]", "in ",
    ];
    let datas: Vec<String> = (0..20_000)
        .map(|i| {
            let content = serde_json::to_string(words[i % words.len()]).unwrap();
            if i % 2 == 0 {
                format!(r#"{{"id":"c1","object":"chat.completion.chunk","choices":[{{"index":0,"delta":{{"content":{content}}},"finish_reason":null}}]}}"#)
            } else {
                format!(r#"{{"type":"content_block_delta","index":0,"delta":{{"type":"text_delta","text":{content}}}}}"#)
            }
        })
        .collect();
    let mut best = [f64::MAX; 2];
    for _ in 0..15 {
        let t = Instant::now();
        let n = datas.iter().filter(|d| read(d).is_some()).count();
        best[0] = best[0].min(t.elapsed().as_secs_f64());
        let t = Instant::now();
        let m = datas
            .iter()
            .filter(|d| serde_json::from_str::<Message>(d).is_ok())
            .count();
        best[1] = best[1].min(t.elapsed().as_secs_f64());
        assert_eq!((n, m), (datas.len(), datas.len()));
    }
    let per = |s: f64| s * 1e9 / datas.len() as f64;
    println!(
        "per message: fast {:.0} ns, serde {:.0} ns (serde / fast = {:.2})",
        per(best[0]),
        per(best[1]),
        best[1] / best[0]
    );
}
