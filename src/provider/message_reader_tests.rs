//! The hand-written reader against serde's derived path (`serde_json::from_str::<Message>`,
//! the oracle): on every text, realistic or hostile, both accept and read the same `Message`
//! (down to key order and the sign of zero in the generic values), or both reject it.

use std::borrow::Cow;

use proptest::prelude::*;

use super::{Read, CITATION_KEYS, MESSAGE_KEYS, PART_KEYS};
use crate::provider::token_shape::Ignored;
use crate::provider::wire::{Message, Scalar};

/// A message read without looking at what it notes.
fn read_message(data: &str) -> Read<Message<'_>> {
    super::read_message(data, &mut Ignored::default())
}

/// The number of cases per property: `n`, or `CITEFLOW_PROPTEST_CASES` for a longer hunt.
fn cases(n: u32) -> u32 {
    std::env::var("CITEFLOW_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(n)
}

/// `data` through both readers: the same message, or both rejecting it. Whether accepted.
fn agree(data: &str) -> bool {
    let ours = read_message(data);
    let serde = serde_json::from_str::<Message>(data);
    match (ours, serde) {
        (Ok(ours), Ok(serde)) => {
            // Debug shows what `==` overlooks: a map's key order, `-0.0` against `0.0`.
            assert_eq!(format!("{ours:?}"), format!("{serde:?}"), "{data:?}");
            assert_eq!(ours, serde, "{data:?}");
            true
        }
        (Err(_), Err(_)) => false,
        (Ok(_), Err(e)) => panic!("the reader accepts what serde rejects ({e}): {data:?}"),
        (Err(e), Ok(_)) => panic!("the reader rejects what serde accepts ({e}): {data:?}"),
    }
}

/// Realistic messages of both formats, every field the decoder reads and some it does not.
const REALISTIC: &[&str] = &[
    r#"{"id":"chatcmpl-1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant","content":"The study [1]"},"logprobs":null,"finish_reason":null}]}"#,
    r#"{"id":"c","choices":[{"index":0,"delta":{"reasoning_content":"hmm","reasoning":"x"},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":0}}}"#,
    r#"{"id":"c","choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"f","arguments":"{\"a\":1}"}}]},"finish_reason":"tool_calls"}]}"#,
    r#"{"id":"c","choices":[{"index":0,"delta":{"refusal":"no"},"logprobs":{"content":[{"token":"a","logprob":-0.5,"bytes":[97],"top_logprobs":[]}]},"finish_reason":null}]}"#,
    r#"{"id":"c","choices":[{"index":0,"delta":{"content":"","annotations":[{"type":"url_citation","url_citation":{"start_index":3,"end_index":20,"url":"https://e.org","title":"E"}}]}}]}"#,
    r#"{"id":"c","choices":[{"index":1,"delta":{"content":"b"}},{"index":0,"delta":{"content":[{"type":"text","text":"a"},{"type":"image_url"},{"text":"c"}]}}]}"#,
    r#"{"id":"c","choices":[],"usage":{"prompt_tokens":1,"completion_tokens":2,"cost":1.5e-3}}"#,
    r#"{"error":{"message":"Rate limit","type":"rate_limit_error","code":429,"param":null}}"#,
    r#"{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","content":[],"model":"claude","stop_reason":null,"usage":{"input_tokens":25,"output_tokens":1}}}"#,
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}"#,
    r#"{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_1","name":"get","input":{}}}"#,
    r#"{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"Let me"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQB"}}"#,
    r#"{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"loc"}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"char_location","cited_text":"x","document_index":0,"document_title":"D","start_char_index":0,"end_char_index":5}}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"search_result_location","source":"s","title":"T","search_result_index":2,"start_block_index":0,"end_block_index":1,"cited_text":"y"}}}"#,
    r#"{"type":"content_block_delta","index":0,"delta":{"type":"citations_delta","citation":{"type":"page_location","document_index":1,"start_page_number":1,"end_page_number":2,"cited_text":"z"}}}"#,
    r#"{"type":"content_block_stop","index":0}"#,
    r#"{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}"#,
    r#"{"type":"message_stop"}"#,
    r#"{"type":"ping"}"#,
    r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
];

/// Keys of every shape the reader knows (its own tables), some escaped, and keys it does not
/// know.
fn keys() -> Vec<&'static str> {
    let others = [
        r"t\u0065xt",
        r"\u0074ype",
        r"id\u0000",
        "__proto__",
        "role",
        "tool_calls",
        "",
    ];
    [MESSAGE_KEYS, PART_KEYS, CITATION_KEYS, &others[..]].concat()
}

/// Values that are not arrays or objects, hostile ones among them.
const LEAVES: &[&str] = &[
    r#""""#,
    r#""text""#,
    r#""output_text""#,
    r#""content_block_delta""#,
    r#""a\"b\\c\/d\b\f\n\r\t""#,
    r#""\u00e9\u0000\u001F\uFFFF""#,
    r#""\uD83D\uDE00 😀 é""#,
    r#""\ud800""#,
    r#""\udc00""#,
    r#""\ud800\u0041""#,
    r#""\ud800\ud800""#,
    r#""\ud800x""#,
    r#""\u12""#,
    r#""\uzzzz""#,
    r#""\x""#,
    "\"\u{1}\"",
    "\"\t\"",
    "\"\u{7f}\"",
    "0",
    "-0",
    "1",
    "7",
    "-1",
    "4294967295",
    "18446744073709551615",
    "18446744073709551616",
    "-9223372036854775808",
    "-9223372036854775809",
    "123456789012345678901234567890",
    "123456789012345678901234567890.5",
    "18446744073709551616.0",
    "1844674407370955161.60",
    "18446744073709551616.05e-3",
    "1.5",
    "-0.0",
    "0.0",
    "1e308",
    "1.7976931348623157e308",
    "1.7976931348623158e308",
    "1.7976931348623159e308",
    "17976931348623157e292",
    "18446744073709551615e288",
    "18446744073709551615e289",
    "179769313486231570000e288",
    "0e309",
    "0.000e400",
    "1e309",
    "-1e400",
    "1e-400",
    "0e99999999999",
    "1e99999999999",
    "1e-99999999999",
    "0.0000000000000000000000000000001e330",
    "2.5E+3",
    "1E-2",
    "01",
    "1.",
    ".5",
    "+1",
    "1e",
    "1e+",
    "-",
    "--1",
    "0x1",
    "true",
    "false",
    "null",
    "nul",
    "tru",
    "NaN",
    "[]",
    "{}",
];

/// Whitespace, usually none.
fn ws() -> impl Strategy<Value = &'static str> {
    proptest::sample::select(&["", "", "", " ", "\n", " \t\r\n "][..])
}

/// A number from a random significand and exponent, to hit the edges of `f64`'s range.
fn number() -> impl Strategy<Value = String> {
    (any::<u64>(), 0u8..30, -400i32..400, any::<bool>(), 0u8..4).prop_map(
        |(m, frac, e, neg, form)| {
            let sign = if neg { "-" } else { "" };
            let digits = m.to_string();
            let split = usize::from(frac).min(digits.len().saturating_sub(1));
            let (int, rest) = digits.split_at(digits.len() - split);
            match form {
                0 => format!("{sign}{digits}"),
                1 => format!("{sign}{digits}e{e}"),
                2 if !rest.is_empty() => format!("{sign}{int}.{rest}E{e:+}"),
                _ => format!("{sign}{digits}{}e{e}", "0".repeat(usize::from(frac))),
            }
        },
    )
}

/// A number whose value is near `f64::MAX`: digits around its own (or any), scaled by the
/// powers of ten where a value can overflow, in every form `number` writes.
fn large_number() -> impl Strategy<Value = String> {
    let digits = prop_oneof![
        (17976931348623150u64..17976931348623170).prop_map(|d| d.to_string()),
        (1797693134862310u64..1797693134862320).prop_map(|d| d.to_string()),
        any::<u64>().prop_map(|d| d.to_string()),
        (0u8..8).prop_map(|n| format!("17976931348623157{}", "9".repeat(usize::from(n)))),
    ];
    (digits, 0usize..25, 280i32..330, 0u8..3).prop_map(|(digits, point, e, form)| {
        let point = point.min(digits.len().saturating_sub(1));
        let (int, frac) = digits.split_at(digits.len() - point);
        match form {
            0 => format!("{digits}e{e}"),
            1 if !frac.is_empty() => format!("{int}.{frac}e+{e}"),
            _ => format!("-{digits}E{e}"),
        }
    })
}

/// Any JSON-ish value: leaves, numbers, text, and arrays and objects of the known keys.
fn value() -> impl Strategy<Value = String> {
    value_of(false)
}

/// [`value`], or (`json_only`) built only of leaves serde_json accepts, so that a realistic
/// message with it swapped in is often still JSON.
fn value_of(json_only: bool) -> impl Strategy<Value = String> {
    let leaves: Vec<&str> = LEAVES
        .iter()
        .copied()
        .filter(|l| !json_only || serde_json::from_str::<serde_json::Value>(l).is_ok())
        .collect();
    let text = if json_only {
        "[a-z <>\\[\\]é😀]{0,6}"
    } else {
        "[a-z \"\\\\/<>\\[\\]é😀]{0,6}"
    };
    let leaf = prop_oneof![
        3 => proptest::sample::select(leaves).prop_map(str::to_owned),
        1 => number(),
        1 => text.prop_map(|s| format!("\"{s}\"")),
    ];
    leaf.prop_recursive(5, 40, 5, |inner| {
        prop_oneof![
            (
                proptest::collection::vec((proptest::sample::select(keys()), inner.clone()), 0..6),
                ws()
            )
                .prop_map(|(entries, ws)| {
                    let fields: Vec<String> = entries
                        .into_iter()
                        .map(|(k, v)| format!("{ws}\"{k}\"{ws}:{ws}{v}{ws}"))
                        .collect();
                    format!("{{{}}}", fields.join(","))
                }),
            (proptest::collection::vec(inner, 0..5), ws())
                .prop_map(|(items, ws)| format!("[{ws}{}{ws}]", items.join(","))),
        ]
    })
}

/// A realistic message with an entry or item added first or last in one of its objects or
/// arrays: a wrong type, a duplicate key (first or last), an unknown key, hostile values.
fn swapped() -> impl Strategy<Value = String> {
    (
        proptest::sample::select(REALISTIC),
        any::<prop::sample::Index>(),
        any::<prop::sample::Index>(),
        prop_oneof![3 => value_of(true), 1 => value_of(false)],
    )
        .prop_map(|(m, at, key, v)| {
            // Just inside a non-empty object's or array's brackets.
            let bytes = m.as_bytes();
            let places: Vec<(usize, u8)> = (1..m.len())
                .filter_map(|i| match (bytes[i - 1], bytes[i]) {
                    (b'{' | b'[', b'}' | b']') => None,
                    (open @ (b'{' | b'['), _) => Some((i, open)),
                    (_, close @ (b'}' | b']')) => Some((i, close)),
                    _ => None,
                })
                .collect();
            if places.is_empty() {
                return m.to_owned();
            }
            let (p, bracket) = places[at.index(places.len())];
            let keys = keys();
            let key = keys[key.index(keys.len())];
            let (head, tail) = m.split_at(p);
            match bracket {
                b'{' => format!("{head}\"{key}\":{v},{tail}"),
                b'}' => format!("{head},\"{key}\":{v}{tail}"),
                b'[' => format!("{head}{v},{tail}"),
                _ => format!("{head},{v}{tail}"),
            }
        })
}

/// What a mutation splices in: syntax, escapes, nesting, numbers.
const SPLICES: &[&str] = &[
    "\"", "\\", "{", "}", "[", "]", ",", ":", " ", "\n", "0", "-", "01", "1e999", ".", "e", "null",
    "\\u", "\\ud800", "\\udc00", "é", "\u{0}", "\t", "x",
];

/// A text cut short, grown by a splice, or followed by garbage.
fn mutated(base: impl Strategy<Value = String>) -> impl Strategy<Value = String> {
    (
        base,
        any::<prop::sample::Index>(),
        proptest::sample::select(SPLICES),
        0u8..4,
    )
        .prop_map(|(s, at, splice, how)| {
            let bounds: Vec<usize> = s.char_indices().map(|(i, _)| i).chain([s.len()]).collect();
            let i = bounds[at.index(bounds.len())];
            let (head, tail) = s.split_at(i);
            match how {
                0 => head.to_owned(),
                1 => format!("{head}{splice}{tail}"),
                2 => format!("{s}{splice}"),
                _ => format!("{head}{tail}", tail = tail.get(1..).unwrap_or("")),
            }
        })
}

/// Arrays and objects nested around 128 deep, through every kind of field the reader has.
fn deep() -> impl Strategy<Value = String> {
    const WRAPS: &[(&str, &str)] = &[
        ("[", "]"),
        ("{\"x\":", "}"),
        ("{\"choices\":[", "]}"),
        ("{\"delta\":", "}"),
        ("{\"content\":[", "]}"),
        ("{\"citation\":", "}"),
        ("{\"url_citation\":", "}"),
        ("{\"error\":[", "]}"),
        ("{\"usage\":{\"a\":", "}}"),
        ("{\"annotations\":[", "]}"),
    ];
    (
        proptest::sample::select(WRAPS),
        proptest::sample::select(WRAPS),
        60usize..66,
        0usize..8,
        proptest::sample::select(&["1", "{}", "[]", "\"t\"", "{\"text\":\"a\"}"][..]),
    )
        .prop_map(|((open, close), (open2, close2), n, m, core)| {
            format!(
                "{}{}{core}{}{}",
                open.repeat(n),
                open2.repeat(m),
                close2.repeat(m),
                close.repeat(n)
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(cases(600)))]

    #[test]
    fn realistic_messages_read_as_serde_reads_them(m in proptest::sample::select(REALISTIC), w in ws()) {
        prop_assert!(agree(m));
        let spaced = format!("{w}{m}{w}");
        prop_assert!(agree(&spaced));
    }

    #[test]
    fn messages_with_swapped_values_read_as_serde_reads_them(m in swapped()) {
        agree(&m);
    }

    #[test]
    fn any_value_reads_as_serde_reads_it(v in value()) {
        agree(&v);
    }

    #[test]
    fn mutated_texts_read_or_fail_as_serde_does(m in mutated(prop_oneof![swapped(), value()])) {
        agree(&m);
    }

    #[test]
    fn numbers_read_as_serde_reads_them(n in number()) {
        agree(&format!("{{\"error\":[{n}],\"usage\":{{\"n\":{n}}},\"index\":{n}}}"));
    }

    #[test]
    fn numbers_near_the_largest_float_read_as_serde_reads_them(n in large_number()) {
        agree(&format!("{{\"usage\":{{\"n\":{n}}}}}"));
    }

    #[test]
    fn deep_nesting_fails_where_serde_fails(m in deep()) {
        agree(&m);
    }
}

#[test]
fn every_leaf_in_every_field_reads_as_serde_reads_it() {
    for key in keys() {
        for leaf in LEAVES {
            agree(&format!("{{\"{key}\":{leaf}}}"));
            agree(&format!(
                "{{\"choices\":[{{\"delta\":{{\"{key}\":{leaf}}}}}]}}"
            ));
            agree(&format!(
                "{{\"delta\":{{\"citation\":{{\"{key}\":[{leaf}]}}}}}}"
            ));
        }
    }
    for leaf in LEAVES {
        agree(&format!("{{\"error\":{leaf},\"usage\":{{\"n\":{leaf}}}}}"));
        agree(leaf);
        agree(&format!("[{leaf}]"));
    }
}

#[test]
fn the_nesting_limit_is_serdes() {
    for n in 120..=130 {
        let deep = format!("{}1{}", "[".repeat(n), "]".repeat(n));
        agree(&deep);
        let deep = format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
        agree(&deep);
    }
    assert!(read_message(&format!("{}{}", "[".repeat(127), "]".repeat(127))).is_ok());
    assert!(read_message(&format!("{}{}", "[".repeat(128), "]".repeat(128))).is_err());
}

#[test]
fn empty_and_blank_texts_fail_as_serde_fails() {
    for data in [
        "",
        " ",
        "\n",
        "{",
        "}",
        "{}x",
        "{} {}",
        "{\"a\":1,}",
        "[1,]",
        "{,}",
    ] {
        assert!(!agree(data), "{data:?}");
    }
}

#[test]
fn strings_without_escapes_are_borrowed() {
    let m = read_message(r#"{"id":"plain","type":"a\nb"}"#).unwrap();
    assert!(matches!(m.id, Scalar::Str(Cow::Borrowed("plain"))));
    assert!(matches!(m.kind, Scalar::Str(Cow::Owned(ref s)) if s == "a\nb"));
}

#[test]
fn errors_say_what_and_where() {
    let e = read_message(r#"{"id":"x"} y"#).unwrap_err();
    assert_eq!(e.to_string(), "trailing characters at byte 11");
    let e = read_message(r#"{"id":"\ud800"}"#).unwrap_err();
    assert_eq!(e.what, "lone surrogate escape");
    let e = read_message(r#"{"usage":{"a":1e400}}"#).unwrap_err();
    assert_eq!(e.what, "number out of range");
}

/// Nanoseconds per message of `read` over `messages`, `rounds` times over.
fn per_message(messages: &[&str], rounds: u32, read: &dyn Fn(&str) -> bool) -> f64 {
    let start = std::time::Instant::now();
    for _ in 0..rounds {
        for m in messages {
            assert!(read(std::hint::black_box(m)));
        }
    }
    start.elapsed().as_nanos() as f64 / (f64::from(rounds) * messages.len() as f64)
}

/// `ours` against `theirs` on `messages`, timed in turns: ns/message of the median round (by
/// the ratio theirs/ours), that ratio and its range.
fn compare(
    messages: &[&str],
    ours: &dyn Fn(&str) -> bool,
    theirs: &dyn Fn(&str) -> bool,
) -> String {
    let mut rounds: Vec<(f64, f64)> = (0..15)
        .map(|_| {
            (
                per_message(messages, 2000, ours),
                per_message(messages, 2000, theirs),
            )
        })
        .collect();
    rounds.sort_by(|a, b| (a.1 / a.0).total_cmp(&(b.1 / b.0)));
    let ratio = |(o, t): (f64, f64)| t / o;
    let (o, t) = rounds[rounds.len() / 2];
    format!(
        "{} messages: reader {o:.0} ns/message, other {t:.0} ns/message; other/reader median \
         {:.2} (range {:.2}-{:.2})",
        messages.len(),
        t / o,
        ratio(rounds[0]),
        ratio(rounds[rounds.len() - 1])
    )
}

/// Not a check (timing never decides pass/fail): the slow path's speed, this reader against
/// serde's derived readers, on the realistic messages the fast reader declines; and on the
/// token messages it takes, this reader against it (what replacing it would cost). Run with
/// `cargo test --release --lib message_reader -- --ignored --nocapture`
/// (`CITEFLOW_SLOW_PATH_EACH=1`: each slow message too).
#[test]
#[ignore]
fn slow_path_speed() {
    use crate::provider::fast_delta;
    let (hot, slow): (Vec<&str>, Vec<&str>) = REALISTIC
        .iter()
        .partition(|m| fast_delta::read(m).is_some());
    let ours = |m: &str| read_message(m).is_ok();
    let serde = |m: &str| serde_json::from_str::<Message>(m).is_ok();
    let fast = |m: &str| fast_delta::read(m).is_some();
    if std::env::var("CITEFLOW_SLOW_PATH_EACH").is_ok() {
        for m in &slow {
            let (o, s) = (
                per_message(&[m], 20000, &ours),
                per_message(&[m], 20000, &serde),
            );
            println!("{o:.0} {s:.0} {:.2} {}", s / o, m.get(..60).unwrap_or(m));
        }
    }
    println!(
        "slow path (other: serde), {}",
        compare(&slow, &ours, &serde)
    );
    println!(
        "token messages (other: fast_delta), {}",
        compare(&hot, &ours, &fast)
    );
}
