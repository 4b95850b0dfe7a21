//! The call machine's cases, and a property over random outcome sequences.

use proptest::prelude::*;

use super::*;
use crate::provider::redact::Secrets;
use crate::provider::transport::{ERROR_BODY_BYTES, MAX_REDIRECTS};
use crate::provider::RETRY_MAX_MS;

const KEY: &str = "sk-live-7Qm2Xr9Lw4Tz8Vb1Nc6Hd3Jf5Kg0Pa-echo-B8e4";
const URL: &str = "https://api.test/v1/chat/completions";

fn settings(max_retries: u32, stream: bool) -> CallSettings {
    CallSettings {
        timeout_ms: 10,
        max_retries,
        max_response_bytes: 1000,
        stream,
        secrets: Secrets::new(Some(KEY), &[]),
    }
}

fn machine(max_retries: u32, stream: bool) -> CallMachine {
    CallMachine::new("openai", URL, settings(max_retries, stream), || 0.0)
}

fn head(status: u16, content_type: &str) -> Outcome<'_> {
    Outcome::Answered(Head {
        status,
        content_type: Some(content_type),
        ..Head::default()
    })
}

/// A new attempt's send to the request's address, under `settings`' timer.
fn attempt() -> Step<'static> {
    Step::Send {
        url: URL,
        timeout_ms: Some(10),
    }
}

fn body(text: &str) -> Outcome<'_> {
    Outcome::Body {
        text,
        complete: true,
    }
}

fn failed(m: &CallMachine) -> CallError {
    match m.next() {
        Step::Failed(e) => e.clone(),
        other => panic!("expected a failure, got {other:?}"),
    }
}

#[test]
fn a_whole_answer_is_sent_then_read_within_the_limit() {
    let mut m = machine(2, false);
    assert_eq!(m.next(), attempt());
    assert_eq!(m.next(), m.next(), "asking again changes nothing");
    assert!(m.report(head(200, "application/json")));
    assert_eq!(m.next(), Step::Read { limit: 1000 });
    assert!(m.report(body(r#"{"choices":[{"message":{"content":"hi"}}]}"#)));
    assert_eq!(m.next(), Step::Done);
    assert!(m.next().is_final());
    assert!(!m.report(Outcome::Aborted), "a call over stays over");
    assert_eq!(m.next(), Step::Done);
}

#[test]
fn a_stream_is_handed_over_unless_it_came_as_json() {
    let mut m = machine(2, true);
    m.report(head(200, "text/event-stream"));
    assert_eq!(m.next(), Step::Stream);
    let mut m = machine(2, true);
    m.report(Outcome::Answered(Head {
        status: 200,
        without_body: true,
        ..Head::default()
    }));
    let e = failed(&m);
    assert_eq!(
        (e.code, e.status, e.retryable),
        ("INVALID_PROVIDER_DATA", Some(200), false)
    );
    assert_eq!(e.message, "openai answered a stream request without a body");
    // A stream request answered with JSON is read whole: here an error sent with a 200,
    // retryable as OpenRouter's upstream code says.
    let mut m = machine(1, true);
    m.report(head(200, "application/json; charset=utf-8"));
    assert_eq!(m.next(), Step::Read { limit: 1000 });
    m.report(body(
        r#"{"error":{"message":"Upstream overloaded","code":502}}"#,
    ));
    assert_eq!(m.next(), Step::Wait { ms: 250 });
    m.report(Outcome::Waited);
    m.report(head(200, "application/json"));
    m.report(body(r#"{"choices":[]}"#));
    assert_eq!(
        m.next(),
        Step::Done,
        "JSON without an error: read as the answer"
    );
}

#[test]
fn retryable_failures_wait_then_try_again_until_the_retries_are_used_up() {
    let mut m = machine(2, false);
    m.report(head(503, "text/plain"));
    assert_eq!(
        m.next(),
        Step::Read {
            limit: ERROR_BODY_BYTES
        },
        "an error body is read only to a bound"
    );
    m.report(body("down"));
    assert_eq!(
        m.next(),
        Step::Wait { ms: 250 },
        "half of 500 ms at jitter 0"
    );
    assert!(
        !m.report(head(200, "application/json")),
        "a wait is answered by Waited"
    );
    m.report(Outcome::Waited);
    assert_eq!(m.next(), attempt());
    m.report(Outcome::Answered(Head {
        status: 429,
        retry_after: Some("2"),
        ..Head::default()
    }));
    m.report(body("slow down"));
    assert_eq!(m.next(), Step::Wait { ms: 2000 }, "Retry-After honoured");
    m.report(Outcome::Waited);
    m.report(head(503, "text/plain"));
    m.report(body("down"));
    let e = failed(&m);
    assert_eq!(
        (e.code, e.status, e.retryable),
        ("PROVIDER_ERROR", Some(503), true)
    );
    assert_eq!(e.message, "openai answered 503: down");
    let gave_up = e.gave_up.unwrap();
    assert_eq!(
        (gave_up.attempts, gave_up.provider_message.as_str()),
        (3, "down")
    );
}

#[test]
fn other_client_errors_are_not_retried() {
    let mut m = machine(2, false);
    m.report(head(400, "application/json"));
    m.report(body(
        r#"{"error":{"message":"The model does not exist","code":"model_not_found"}}"#,
    ));
    let e = failed(&m);
    assert_eq!((e.code, e.retryable), ("PROVIDER_ERROR", false));
    let gave_up = e.gave_up.unwrap();
    assert_eq!(gave_up.provider_code.as_deref(), Some("model_not_found"));
    assert_eq!(gave_up.attempts, 1);
}

#[test]
fn timeouts_and_network_failures_are_retried_then_given_up_with_their_own_code() {
    let mut m = machine(1, false);
    m.report(Outcome::TimedOut);
    m.report(Outcome::Waited);
    m.report(head(200, "application/json"));
    m.report(Outcome::TimedOut); // while reading the body
    let e = failed(&m);
    assert_eq!(e.code, "TIMEOUT");
    assert_eq!(e.message, "openai no answer within 10 ms");
    assert_eq!((e.status, e.retryable), (Some(0), true));

    let url = "https://u:p@h.test/v1?key=k1";
    let mut m = CallMachine::new("openai", url, settings(0, false), || 0.0);
    m.report(Outcome::NetworkFailed {
        message: "fetch failed",
        cause_code: Some("ECONNREFUSED"),
        cause_message: Some("connect ECONNREFUSED 127.0.0.1:9"),
    });
    let e = failed(&m);
    assert_eq!(e.code, "NETWORK_ERROR");
    assert_eq!(
        e.message,
        "openai could not reach https://h.test/v1?key=[redacted]: fetch failed (connect ECONNREFUSED 127.0.0.1:9)"
    );
}

fn redirect<'a>(status: u16, href: &'a str, same_origin: bool) -> Outcome<'a> {
    Outcome::Answered(Head {
        status,
        location: Some(Target {
            href,
            origin: "https://api.test",
            same_origin,
        }),
        ..Head::default()
    })
}

#[test]
fn only_same_origin_307_and_308_are_followed_a_bounded_number_of_times() {
    let mut m = machine(0, false);
    m.report(redirect(307, "https://api.test/v1/chat?hop=1", true));
    assert_eq!(
        m.next(),
        Step::Send {
            url: "https://api.test/v1/chat?hop=1",
            timeout_ms: None
        },
        "followed under the attempt's timer"
    );
    for _ in 1..MAX_REDIRECTS {
        m.report(redirect(308, "https://api.test/v1/chat?hop=n", true));
    }
    assert!(matches!(m.next(), Step::Send { .. }));
    m.report(redirect(308, "https://api.test/v1/chat?hop=6", true));
    let e = failed(&m);
    assert_eq!((e.code, e.retryable), ("REDIRECT_REFUSED", false));
    assert!(e.message.contains("more than 5 redirects"), "{}", e.message);

    for (outcome, status, says) in [
        (
            redirect(302, "https://api.test/x", true),
            302,
            "turn the POST into a GET",
        ),
        (
            redirect(307, "https://evil.test/x", false),
            307,
            "another origin",
        ),
        (
            Outcome::Answered(Head {
                opaque_redirect: true,
                ..Head::default()
            }),
            0,
            "baseUrl",
        ),
        (head(308, "text/html"), 308, "missing or hidden"),
    ] {
        let mut m = machine(2, false);
        m.report(outcome);
        let e = failed(&m);
        assert_eq!((e.code, e.status), ("REDIRECT_REFUSED", Some(status)));
        assert!(e.message.contains(says), "{}", e.message);
    }
}

#[test]
fn the_redirect_count_starts_again_with_each_attempt() {
    let mut m = machine(1, false);
    for _ in 0..MAX_REDIRECTS {
        m.report(redirect(307, "https://api.test/b", true));
    }
    m.report(head(500, "text/plain"));
    m.report(body("oops"));
    m.report(Outcome::Waited);
    assert_eq!(
        m.next(),
        attempt(),
        "a new attempt starts at the request's address"
    );
    m.report(redirect(307, "https://api.test/b", true));
    assert!(matches!(
        m.next(),
        Step::Send {
            timeout_ms: None,
            ..
        }
    ));
}

#[test]
fn an_answer_past_the_limit_is_refused_at_once() {
    let mut m = machine(2, false);
    m.report(head(200, "application/json"));
    m.report(Outcome::Body {
        text: "{",
        complete: false,
    });
    let e = failed(&m);
    assert_eq!(
        (e.code, e.status, e.retryable),
        ("RESPONSE_TOO_LARGE", Some(200), false)
    );
    assert_eq!(
        e.message,
        "openai sent an answer larger than 1000 bytes (maxResponseBytes); it was not read"
    );
    // An error body past its bound is a failure all the same (its start is enough).
    let mut m = machine(0, false);
    m.report(head(500, "text/plain"));
    m.report(Outcome::Body {
        text: "<p>error</p>",
        complete: false,
    });
    assert_eq!(failed(&m).code, "PROVIDER_ERROR");
}

#[test]
fn an_abort_ends_any_step() {
    for steps in 0..4 {
        let mut m = machine(3, false);
        let script = [head(503, "text/plain"), body("x"), Outcome::Waited];
        for outcome in script.into_iter().take(steps) {
            m.report(outcome);
        }
        assert!(m.report(Outcome::Aborted));
        assert_eq!(failed(&m).code, "ABORTED");
    }
}

#[test]
fn errors_never_carry_the_key() {
    let echo = format!(r#"{{"error":{{"message":"Incorrect API key provided: {KEY}"}}}}"#);
    let mut m = machine(0, false);
    m.report(head(401, "application/json"));
    m.report(body(&echo));
    let e = failed(&m);
    assert_eq!(
        e.gave_up.unwrap().provider_message,
        "Incorrect API key provided: [redacted]"
    );
    // Redacted before the 300-character cut, so no piece survives it.
    let long = format!("{}{KEY}", "e".repeat(290));
    let mut m = machine(0, false);
    m.report(head(500, "text/plain"));
    m.report(body(&long));
    let e = failed(&m);
    assert_eq!(
        e.gave_up.unwrap().provider_message,
        format!("{}[redacted]", "e".repeat(290))
    );
}

#[test]
fn your_headers_replace_the_requests_whatever_the_case() {
    let pair = |n: &str, v: &str| (n.to_owned(), v.to_owned());
    let request = [
        pair("Authorization", "Bearer k"),
        pair("content-type", "application/json"),
    ];
    assert_eq!(
        merge_headers(&request, &[pair("AUTHORIZATION", "Bearer mine")]),
        [
            pair("authorization", "Bearer mine"),
            pair("content-type", "application/json")
        ]
    );
}

// The property: whatever the runtime answers, in any order, the call ends, within its
// limits, and its error has a stable code and no piece of the key.

fn outcome_strategy() -> impl Strategy<Value = Pick> {
    prop_oneof![
        (
            prop::sample::select(vec![
                200u16, 201, 204, 301, 302, 303, 307, 308, 400, 401, 404, 408, 409, 429, 500, 503,
                529
            ]),
            0..4usize,
            0..5usize,
            0..4usize,
            any::<bool>()
        )
            .prop_map(|(status, ct, ra, loc, opaque)| Pick::Head(status, ct, ra, loc, opaque)),
        (0..BODIES, any::<bool>()).prop_map(|(b, complete)| Pick::Body(b, complete)),
        (0..3usize).prop_map(Pick::Network),
        Just(Pick::TimedOut),
        Just(Pick::Waited),
        prop::bool::weighted(0.02).prop_map(Pick::Abort),
    ]
}

#[derive(Debug, Clone)]
enum Pick {
    Head(u16, usize, usize, usize, bool),
    Body(usize, bool),
    Network(usize),
    TimedOut,
    Waited,
    Abort(bool),
}

const BODIES: usize = 6;

fn bodies() -> [String; BODIES] {
    [
        r#"{"choices":[{"message":{"content":"ok"}}]}"#.to_owned(),
        format!(r#"{{"error":{{"message":"bad key {KEY}","code":502}}}}"#),
        format!(r#"{{"error":{{"message":"no {KEY}","code":"invalid_api_key"}}}}"#),
        format!("{}{KEY}", "e".repeat(295)),
        KEY.get(3..20).unwrap_or_default().to_owned(),
        String::new(),
    ]
}

fn run(m: &mut CallMachine, pick: &Pick, bodies: &[String; BODIES]) -> bool {
    const TYPES: [Option<&str>; 4] = [
        None,
        Some("application/json"),
        Some("text/event-stream"),
        Some("application/problem+json"),
    ];
    const RETRY_AFTER: [Option<&str>; 5] =
        [None, Some("0"), Some("1.5"), Some("99999"), Some("soon")];
    let key_url = format!("https://api.test/{KEY}");
    match *pick {
        Pick::Head(status, ct, ra, loc, opaque) => {
            let location = match loc {
                0 => None,
                1 => Some(Target {
                    href: "https://api.test/next",
                    origin: "https://api.test",
                    same_origin: true,
                }),
                2 => Some(Target {
                    href: &key_url,
                    origin: "https://evil.test",
                    same_origin: false,
                }),
                _ => Some(Target {
                    href: &key_url,
                    origin: "https://api.test",
                    same_origin: true,
                }),
            };
            m.report(Outcome::Answered(Head {
                status,
                without_body: ct == 0 && ra == 0,
                opaque_redirect: opaque && loc == 0,
                content_type: TYPES.get(ct).copied().flatten(),
                retry_after: RETRY_AFTER.get(ra).copied().flatten(),
                location,
            }))
        }
        Pick::Body(b, complete) => m.report(Outcome::Body {
            text: bodies.get(b).map_or("", String::as_str),
            complete,
        }),
        Pick::Network(n) => m.report(Outcome::NetworkFailed {
            message: ["fetch failed", "", KEY]
                .get(n)
                .copied()
                .unwrap_or_default(),
            cause_code: (n == 0).then_some("ECONNRESET"),
            cause_message: (n == 1).then_some(KEY),
        }),
        Pick::TimedOut => m.report(Outcome::TimedOut),
        Pick::Waited => m.report(Outcome::Waited),
        Pick::Abort(abort) => abort && m.report(Outcome::Aborted),
    }
}

fn holds_a_piece_of_the_key(text: &str) -> bool {
    (0..=KEY.len() - 10).any(|i| KEY.get(i..i + 10).is_some_and(|piece| text.contains(piece)))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(1000))]
    #[test]
    fn any_outcome_sequence_ends_within_the_limits(
        max_retries in 0u32..4,
        stream in any::<bool>(),
        jitter in 0.0f64..1.0,
        picks in prop::collection::vec(outcome_strategy(), 0..200),
    ) {
        let mut m = CallMachine::new("openai", URL, CallSettings { max_retries, stream, ..settings(0, false) }, move || jitter);
        let bodies = bodies();
        let (mut attempts, mut sends, mut waits, mut accepted) = (0u32, 0u32, 0u32, 0u32);
        // The random outcomes, then a runtime that only ever times out: the call must end.
        let tail = std::iter::repeat_n([Pick::TimedOut, Pick::Waited], 100).flatten();
        for pick in picks.iter().cloned().chain(tail) {
            let step = m.next();
            if step.is_final() {
                break;
            }
            let starts_attempt = matches!(step, Step::Send { timeout_ms: Some(_), .. });
            match step {
                Step::Wait { ms } => prop_assert!(ms <= RETRY_MAX_MS, "waited {ms}"),
                Step::Read { limit } => prop_assert!(limit == 1000 || limit == ERROR_BODY_BYTES),
                _ => {}
            }
            let was_send = matches!(step, Step::Send { .. });
            let was_wait = matches!(step, Step::Wait { .. });
            if run(&mut m, &pick, &bodies) {
                accepted += 1;
                attempts += u32::from(starts_attempt);
                sends += u32::from(was_send);
                waits += u32::from(was_wait);
            }
        }
        prop_assert!(m.next().is_final(), "never ended: {m:?}");
        prop_assert!(attempts <= max_retries + 1, "{attempts} attempts");
        prop_assert!(sends <= (max_retries + 1) * (MAX_REDIRECTS + 1), "{sends} sends");
        prop_assert!(waits <= max_retries, "{waits} waits");
        prop_assert!(accepted <= (max_retries + 1) * (MAX_REDIRECTS + 4));
        if let Step::Failed(e) = m.next() {
            let codes = ["PROVIDER_ERROR", "TIMEOUT", "NETWORK_ERROR", "REDIRECT_REFUSED", "RESPONSE_TOO_LARGE", "INVALID_PROVIDER_DATA", "ABORTED"];
            prop_assert!(codes.contains(&e.code), "{}", e.code);
            let mut texts = vec![e.message.as_str(), e.provider.as_str()];
            if let Some(g) = &e.gave_up {
                prop_assert!(g.attempts <= max_retries + 1);
                texts.push(&g.provider_message);
                texts.extend(g.provider_code.as_deref());
            }
            for text in texts {
                prop_assert!(!holds_a_piece_of_the_key(text), "{text}");
            }
        }
    }
}
