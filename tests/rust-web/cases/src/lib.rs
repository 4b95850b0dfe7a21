//! The web invokers' cases, run in the browser: each case is an async check that returns
//! `Err(why)` instead of panicking, so one failure is reported and the others still run.

use std::future::Future;
use std::pin::Pin;

use citeflow::transform::OutputTransformerConfig;
use citeflow::web::{
    question, Call, DmInvoker, EmInvoker, Error, ErrorCode, EventStream, LmInvoker, Options,
};
use futures_util::StreamExt;
use serde_json::{json, Map, Value};
use wasm_bindgen::prelude::*;

/// A key no fixture holds by chance; the fake provider's `echo-*` models send it back.
const SECRET: &str = "sk-live-7Qm2Xr9Lw4Tz8Vb1Nc6Hd3Jf5Kg0Pa-echo-B8e4";
const PIECE: usize = 10;

type Outcome = Result<(), String>;
type Case = Pin<Box<dyn Future<Output = Outcome>>>;

fn ensure(ok: bool, why: impl FnOnce() -> String) -> Outcome {
    if ok {
        Ok(())
    } else {
        Err(why())
    }
}

fn lm(base: &str, id: &str, options: Options) -> Result<LmInvoker, String> {
    LmInvoker::new(id, options.base_url(base)).map_err(|e| format!("{id}: {e}"))
}

fn key(key: &str) -> Options {
    Options::new().api_key(key)
}

async fn collect(stream: EventStream) -> (Vec<citeflow::web::Event>, Option<Error>) {
    let mut events = Vec::new();
    let mut stream = stream;
    while let Some(item) = stream.next().await {
        match item {
            Ok(e) => events.push(e),
            Err(e) => return (events, Some(e)),
        }
    }
    (events, None)
}

fn text_of(events: &[citeflow::web::Event], kind: &str) -> String {
    events
        .iter()
        .filter(|e| e.kind == kind)
        .filter_map(|e| e.text_value())
        .collect()
}

/// No 10-character piece of the secret anywhere in the error: Display, Debug, every field.
fn no_key(error: &Error, where_: &str) -> Outcome {
    let texts = [
        error.to_string(),
        format!("{error:?}"),
        error.message().to_owned(),
        error.provider().unwrap_or_default().to_owned(),
        error.provider_code().unwrap_or_default().to_owned(),
        error.provider_message().unwrap_or_default().to_owned(),
    ];
    let chars: Vec<char> = SECRET.chars().collect();
    for piece in chars.windows(PIECE) {
        let piece: String = piece.iter().collect();
        if texts.iter().any(|t| t.contains(&piece)) {
            return Err(format!("{where_}: a piece of the key in {error:?}"));
        }
    }
    Ok(())
}

fn expect_code(
    result: Result<impl std::fmt::Debug, Error>,
    codes: &[&str],
    where_: &str,
) -> Result<Error, String> {
    match result {
        Ok(v) => Err(format!("{where_}: expected {codes:?}, got {v:?}")),
        Err(e) if codes.contains(&e.code().as_str()) => Ok(e),
        Err(e) => Err(format!("{where_}: expected {codes:?}, got {e:?}")),
    }
}

async fn whole_answers(base: String) -> Outcome {
    let think = lm(&base, "openai-compatible/ok", key("sk-test"))?
        .with_output_transformers(vec![OutputTransformerConfig::think_tag()])
        .map_err(|e| e.to_string())?;
    let answer = think.invoke("Hi").await.map_err(|e| e.to_string())?;
    ensure(
        answer.text() == "Hello [1]." && answer.thinking() == "hidden",
        || format!("{answer:?}"),
    )?;
    let usage = answer.usage().ok_or("no usage")?;
    ensure(
        usage.total_tokens == Some(13) && usage.input_tokens == Some(9),
        || format!("{usage:?}"),
    )?;
    ensure(answer.finish_reason() == Some("stop"), || {
        format!("{:?}", answer.finish_reason())
    })?;
    let claude = lm(&base, "anthropic/claude-test", key("sk-ant-test"))?;
    let answer = claude
        .invoke(vec![
            citeflow::web::Message {
                role: "system".into(),
                content: "Be kind.".into(),
            },
            citeflow::web::Message {
                role: "user".into(),
                content: "Hi".into(),
            },
        ])
        .await
        .map_err(|e| e.to_string())?;
    ensure(
        answer.text() == "Hi there." && answer.thinking() == "Check.",
        || format!("{answer:?}"),
    )?;
    ensure(
        answer.usage().and_then(|u| u.total_tokens) == Some(15),
        || format!("{answer:?}"),
    )?;
    let structured = lm(&base, "openai-compatible/ok", key("sk-test"))?
        .invoke(Call::prompt("Hi").response_schema(json!({"type": "object"})))
        .await
        .map_err(|e| e.to_string())?;
    ensure(
        structured.output.outputs
            == [citeflow::event::OutputItem::Structured(
                json!({"answer": 42}),
            )],
        || format!("{structured:?}"),
    )
}

async fn streams(base: String) -> Outcome {
    let citations = OutputTransformerConfig::from_value(
        &json!({"type": "citations", "kwargs": {"sourceCount": 1}}),
    )
    .map_err(|e| e.to_string())?;
    let invoker = lm(&base, "openai-compatible/ok", key("sk-test"))?
        .with_output_transformers(vec![OutputTransformerConfig::think_tag(), citations])
        .map_err(|e| e.to_string())?;
    let (events, error) = collect(invoker.stream("Hi")).await;
    ensure(error.is_none(), || format!("{error:?}"))?;
    ensure(
        text_of(&events, "response") == "Water boils at 100 °C [1].",
        || format!("{events:?}"),
    )?;
    ensure(text_of(&events, "thinking") == "Think.more", || {
        format!("{events:?}")
    })?;
    let cited: Vec<&Value> = events
        .iter()
        .filter(|e| e.kind == "citation")
        .map(|e| &e.value)
        .collect();
    ensure(
        cited.len() == 1 && cited[0]["sourceId"] == 1 && cited[0]["valid"] == true,
        || format!("{cited:?}"),
    )?;
    let usage: Vec<&Value> = events
        .iter()
        .filter(|e| e.kind == "usage")
        .map(|e| &e.value)
        .collect();
    ensure(usage.len() == 1 && usage[0]["totalTokens"] == 15, || {
        format!("{usage:?}")
    })?;

    let claude = lm(&base, "anthropic/claude-test", key("sk-ant-test"))?;
    let (events, error) = collect(claude.stream("Hi")).await;
    ensure(error.is_none(), || format!("{error:?}"))?;
    let kinds: Vec<&str> = events
        .iter()
        .map(|e| e.kind.as_str())
        .filter(|k| *k != "usage")
        .collect();
    ensure(
        kinds
            == [
                "thinking_start",
                "thinking",
                "thinking_end",
                "response_start",
                "response",
                "response_end",
            ],
        || format!("{kinds:?}"),
    )?;
    // A structured stream ends in a structured event (the JSON transformer joins by itself).
    let (events, error) = collect(
        lm(&base, "openai-compatible/json-stream", key("sk-test"))?
            .stream(Call::prompt("Hi").response_schema(json!({"type": "object"}))),
    )
    .await;
    ensure(error.is_none(), || format!("{error:?}"))?;
    ensure(
        events
            .iter()
            .any(|e| e.kind == "structured" && e.value == json!({"answer": 42})),
        || format!("{events:?}"),
    )
}

async fn cut_streams(base: String) -> Outcome {
    const CUT: [&str; 4] = [
        "STREAM_INTERRUPTED",
        "STREAM_TRUNCATED",
        "SSE_TRUNCATED",
        "INVALID_PROVIDER_DATA",
    ];
    for (id, secret) in [
        ("openai-compatible/stream-cut", "sk-test"),
        ("openai-compatible/stream-garbage", "sk-test"),
        ("anthropic/stream-cut", "sk-ant-test"),
        ("anthropic/stream-garbage", "sk-ant-test"),
    ] {
        let (events, error) = collect(lm(&base, id, key(secret))?.stream("Hi")).await;
        let error = error.ok_or_else(|| format!("{id}: ended without an error: {events:?}"))?;
        ensure(CUT.contains(&error.code().as_str()), || {
            format!("{id}: {error:?}")
        })?;
        ensure(
            events
                .iter()
                .all(|e| e.kind.starts_with("response") || e.kind == "usage"),
            || format!("{id}: {events:?}"),
        )?;
    }
    Ok(())
}

async fn retries_and_failures(base: String) -> Outcome {
    for id in ["openai-compatible/flaky-500", "openai-compatible/flaky-429"] {
        let answer = lm(&base, id, key("sk-test"))?
            .invoke("Hi")
            .await
            .map_err(|e| format!("{id}: {e}"))?;
        ensure(!answer.text().is_empty(), || format!("{id}: {answer:?}"))?;
    }
    let e = expect_code(
        lm(
            &base,
            "openai-compatible/always-503",
            key("sk-test").max_retries(1),
        )?
        .invoke("Hi")
        .await,
        &["PROVIDER_ERROR"],
        "always-503",
    )?;
    ensure(
        e.status() == Some(503) && e.attempts() == Some(2) && e.is_retryable(),
        || format!("{e:?}"),
    )?;
    let e = expect_code(
        lm(&base, "openai-compatible/bad-request", key("sk-test"))?
            .invoke("Hi")
            .await,
        &["PROVIDER_ERROR"],
        "bad-request",
    )?;
    ensure(
        e.status() == Some(400)
            && e.attempts() == Some(1)
            && e.provider_code() == Some("model_not_found")
            && !e.is_retryable(),
        || format!("{e:?}"),
    )?;
    let e = expect_code(
        lm(
            &base,
            "anthropic/overloaded",
            key("sk-ant-test").max_retries(0),
        )?
        .invoke("Hi")
        .await,
        &["PROVIDER_ERROR"],
        "overloaded",
    )?;
    ensure(
        e.status() == Some(529) && e.provider_code() == Some("overloaded_error"),
        || format!("{e:?}"),
    )?;
    let e = expect_code(
        lm(
            &base,
            "openai-compatible/slow",
            key("sk-test").timeout_ms(100).max_retries(0),
        )?
        .invoke("Hi")
        .await,
        &["TIMEOUT"],
        "slow",
    )?;
    ensure(e.status() == Some(0) && e.is_retryable(), || {
        format!("{e:?}")
    })?;
    let dead = LmInvoker::new(
        "openai-compatible/ok",
        key("sk-test")
            .base_url("http://127.0.0.1:9/v1")
            .max_retries(0),
    )
    .map_err(|e| e.to_string())?;
    let e = expect_code(dead.invoke("Hi").await, &["NETWORK_ERROR"], "dead")?;
    // The error names the URL it tried (a browser's fetch error gives no cause to add).
    ensure(
        e.is_retryable()
            && e.to_string()
                .contains("could not reach http://127.0.0.1:9/v1/chat/completions: "),
        || format!("{e:?}"),
    )?;
    expect_code(
        lm(
            &base,
            "openai-compatible/big-2000",
            key("sk-test").max_response_bytes(1000),
        )?
        .invoke("Hi")
        .await,
        &["RESPONSE_TOO_LARGE"],
        "big-2000",
    )?;
    for id in [
        "openai-compatible/echo-redirect",
        "openai-compatible/redirect-302",
    ] {
        let e = expect_code(
            lm(&base, id, key("sk-test"))?.invoke("Hi").await,
            &["REDIRECT_REFUSED"],
            id,
        )?;
        ensure(!e.is_retryable(), || format!("{e:?}"))?;
        let (_, error) = collect(lm(&base, id, key("sk-test"))?.stream("Hi")).await;
        ensure(
            error.is_some_and(|e| e.code() == ErrorCode::RedirectRefused),
            || format!("{id} stream"),
        )?;
    }
    Ok(())
}

async fn fallbacks(base: String) -> Outcome {
    let ok = || lm(&base, "openai-compatible/ok", key("sk-test"));
    let failing = || {
        lm(
            &base,
            "openai-compatible/always-503",
            key("sk-test").max_retries(0),
        )
    };
    let rescued = lm(&base, "openai-compatible/bad-request", key("sk-test"))?
        .with_fallbacks(vec![failing()?, ok()?]);
    let answer = rescued.invoke("Hi").await.map_err(|e| e.to_string())?;
    ensure(answer.text() == "<think>hidden</think>Hello [1].", || {
        format!("{answer:?}")
    })?;
    let (events, error) = collect(rescued.stream("Hi")).await;
    ensure(
        error.is_none() && text_of(&events, "response").contains("Water boils"),
        || format!("{events:?} {error:?}"),
    )?;
    // All fail: the first error.
    let lost = lm(&base, "openai-compatible/bad-request", key("sk-test"))?
        .with_fallbacks(vec![failing()?]);
    let e = expect_code(lost.invoke("Hi").await, &["PROVIDER_ERROR"], "all fail")?;
    ensure(e.status() == Some(400), || format!("{e:?}"))?;
    let (_, error) = collect(lost.stream("Hi")).await;
    ensure(error.is_some_and(|e| e.status() == Some(400)), || {
        "all fail, streamed".into()
    })?;
    // A cut stream does not fall back: its answer had started.
    let cut =
        lm(&base, "openai-compatible/stream-cut", key("sk-test"))?.with_fallbacks(vec![ok()?]);
    let (_, error) = collect(cut.stream("Hi")).await;
    ensure(error.is_some(), || "a started stream fell back".into())
}

/// What the cited provider's answer reads as marked text (tests/js/support/cited-provider.mjs).
const MARKED: &str =
    "Water boils at 100 degrees Celsius [1]. Ice is 3.5 % lighter, so it floats [2] [1]!";

async fn enforced_citations(cited: String) -> Outcome {
    let cite = |style: &str| {
        citeflow::web::CiteRequest::from_value(
            &json!({"enforce": "auto", "sourceCount": 2, "markerStyle": style}),
        )
        .map_err(|e| e.to_string())
    };
    for (id, style) in [
        ("openai/gpt-4o-mini", "bracket"),
        ("anthropic/claude-sonnet-4-5", "paren"),
    ] {
        let want = if style == "paren" {
            MARKED.replace('[', "(").replace(']', ")")
        } else {
            MARKED.to_owned()
        };
        let invoker = lm(&cited, id, key("sk-test").max_retries(0))?;
        let answer = invoker
            .invoke(Call::prompt("Why does ice float?").citations(cite(style)?))
            .await
            .map_err(|e| format!("{id}: {e}"))?;
        ensure(answer.text() == want, || format!("{id}: {answer:?}"))?;
        let (events, error) =
            collect(invoker.stream(Call::prompt("Why does ice float?").citations(cite(style)?)))
                .await;
        ensure(error.is_none(), || format!("{id} stream: {error:?}"))?;
        ensure(text_of(&events, "response") == want, || {
            format!("{id} stream: {events:?}")
        })?;
        let ids: Vec<u64> = events
            .iter()
            .filter(|e| e.kind == "citation")
            .filter_map(|e| e.value["sourceId"].as_u64())
            .collect();
        ensure(ids == [1, 2, 1], || {
            format!("{id} stream citations: {ids:?}")
        })?;
    }
    // A structured mechanism and a response schema of the caller's own cannot go together.
    let e = expect_code(
        lm(&cited, "openai/gpt-4o-mini", key("sk-test"))?
            .invoke(
                Call::prompt("Hi")
                    .citations(cite("bracket")?)
                    .response_schema(json!({"type": "object"})),
            )
            .await,
        &["INVALID_OPTION"],
        "schema and citations",
    )?;
    ensure(e.message().contains("responseSchema"), || format!("{e:?}"))
}

async fn abort(base: String) -> Outcome {
    let invoker = lm(&base, "openai-compatible/slow", key("sk-test"))?;
    let controller = web_sys::AbortController::new().map_err(|_| "no AbortController")?;
    controller.abort_with_reason(&JsValue::from_str("stop"));
    let e = expect_code(
        invoker
            .invoke(Call::prompt("Hi").signal(&controller.signal()))
            .await,
        &["ABORTED"],
        "aborted before",
    )?;
    ensure(
        e.abort_reason().and_then(JsValue::as_string).as_deref() == Some("stop"),
        || format!("{e:?}"),
    )?;

    // Aborted while waiting for the answer.
    let controller = web_sys::AbortController::new().map_err(|_| "no AbortController")?;
    let call = invoker.invoke(Call::prompt("Hi").signal(&controller.signal()));
    let later = controller.clone();
    let timer = wasm_bindgen_futures::JsFuture::from(js_sys::Promise::new(&mut |resolve, _| {
        let later = later.clone();
        let fire = Closure::once_into_js(move || {
            later.abort();
            let _ = resolve.call0(&JsValue::UNDEFINED);
        });
        let _ = js_sys::Reflect::get(&js_sys::global(), &"setTimeout".into())
            .ok()
            .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
            .map(|f| f.call2(&JsValue::UNDEFINED, &fire, &JsValue::from(50)));
    }));
    let (result, _) = futures_util::future::join(call, timer).await;
    expect_code(result, &["ABORTED"], "aborted while waiting")?;

    // Aborted during a retry's wait.
    let controller = web_sys::AbortController::new().map_err(|_| "no AbortController")?;
    controller.abort();
    let always = lm(
        &base,
        "openai-compatible/always-503",
        key("sk-test").max_retries(5),
    )?;
    expect_code(
        always
            .invoke(Call::prompt("Hi").signal(&controller.signal()))
            .await,
        &["ABORTED"],
        "aborted retries",
    )?;
    Ok(())
}

async fn keys_stay_out_of_errors(base: String) -> Outcome {
    let mut checked = 0;
    for provider in ["openai-compatible", "anthropic"] {
        let invoker = |model: &str, options: Options| {
            lm(
                &base,
                &format!("{provider}/{model}"),
                options.api_key(SECRET).max_retries(0),
            )
        };
        for model in [
            "echo-json",
            "echo-text-280",
            "echo-text-290",
            "echo-text-295",
            "echo-long",
            "echo-200-error",
            "echo-200-invalid",
            "echo-redirect",
            "echo-reset",
        ] {
            let e = invoker(model, Options::new())?
                .invoke("Hi")
                .await
                .err()
                .ok_or(format!("{provider}/{model}: no error"))?;
            no_key(&e, &format!("{provider}/{model} invoke"))?;
            let (_, e) = collect(invoker(model, Options::new())?.stream("Hi")).await;
            no_key(
                &e.ok_or(format!("{provider}/{model} stream: no error"))?,
                model,
            )?;
            checked += 2;
        }
        for model in [
            "echo-stream-error",
            "echo-stream-invalid-0",
            "echo-stream-invalid-60",
            "echo-stream-invalid-75",
            "echo-stream-cut",
        ] {
            let (_, e) = collect(invoker(model, Options::new())?.stream("Hi")).await;
            no_key(
                &e.ok_or(format!("{provider}/{model} stream: no error"))?,
                model,
            )?;
            checked += 1;
        }
        let e = invoker("echo-slow", Options::new().timeout_ms(50))?
            .invoke("Hi")
            .await
            .err()
            .ok_or("echo-slow: no error")?;
        ensure(e.code() == ErrorCode::Timeout, || format!("{e:?}"))?;
        no_key(&e, "echo-slow")?;
    }
    let options = || {
        Options::new()
            .api_key(SECRET)
            .base_url(&base)
            .max_retries(0)
    };
    let mut questions = Map::new();
    questions.insert("q".into(), question::noul("?", None));
    for model in [
        "echo-json",
        "echo-text-290",
        "echo-200-error",
        "echo-200-invalid",
        "echo-redirect",
    ] {
        let em = EmInvoker::new(&format!("openai-compatible/{model}"), options())
            .map_err(|e| e.to_string())?;
        no_key(
            &em.invoke(&["a"], None).await.err().ok_or("em: no error")?,
            model,
        )?;
        let dm =
            DmInvoker::new(&format!("typesafe/{model}"), options()).map_err(|e| e.to_string())?;
        no_key(
            &dm.invoke(&json!("s"), &questions, None)
                .await
                .err()
                .ok_or("dm: no error")?,
            model,
        )?;
        let dm = DmInvoker::new(&format!("openai-compatible/{model}"), options())
            .map_err(|e| e.to_string())?;
        no_key(
            &dm.invoke(&json!("s"), &questions, None)
                .await
                .err()
                .ok_or("lm dm: no error")?,
            model,
        )?;
        checked += 3;
    }
    // Not vacuous: the provider's words came through, with the key cut out.
    let e = lm(
        &base,
        "openai-compatible/echo-json",
        Options::new().api_key(SECRET),
    )?
    .invoke("Hi")
    .await
    .err()
    .ok_or("no error")?;
    ensure(
        e.status() == Some(401)
            && e.provider_message() == Some("Incorrect API key provided: [redacted]"),
        || format!("{e:?}"),
    )?;
    let e = lm(
        &base,
        "openai-compatible/echo-text-290",
        Options::new().api_key(SECRET).max_retries(0),
    )?
    .invoke("Hi")
    .await
    .err()
    .ok_or("no error")?;
    ensure(
        e.provider_message() == Some(&format!("{}[redacted]", "e".repeat(290))),
        || format!("{e:?}"),
    )?;
    ensure(checked == 61, || format!("{checked} paths checked"))
}

async fn embeddings_and_decisions(base: String) -> Outcome {
    let em = EmInvoker::new("openai-compatible/em", key("sk-test").base_url(&base))
        .and_then(|em| em.with_batch_size(2))
        .map_err(|e| e.to_string())?;
    let vectors = em
        .invoke(&["a", "bb", "ccc"], None)
        .await
        .map_err(|e| e.to_string())?;
    ensure(
        vectors
            == [
                vec![1.0, 0.0, 0.5],
                vec![2.0, 1.0, 0.5],
                vec![3.0, 0.0, 0.5],
            ],
        || format!("{vectors:?}"),
    )?;
    let flaky = EmInvoker::new("openai-compatible/flaky-em", key("sk-test").base_url(&base))
        .map_err(|e| e.to_string())?;
    ensure(
        flaky
            .invoke_one("abcd", None)
            .await
            .map_err(|e| e.to_string())?
            == [4.0, 0.0, 0.5],
        || "flaky-em".into(),
    )?;
    expect_code(
        EmInvoker::new("anthropic/x", key("k")).map(|_| ()),
        &["INVALID_MODEL_ID"],
        "anthropic em",
    )?;

    let mut questions = Map::new();
    questions.insert(
        "relevant".into(),
        question::noul("Is it relevant?", Some(("yes", "no"))),
    );
    questions.insert(
        "kind".into(),
        question::choice("Which?", &[("a", "first"), ("b", "second")]),
    );
    let system_one =
        DmInvoker::new("typesafe/dm", key("sk-test").base_url(&base)).map_err(|e| e.to_string())?;
    let decision = system_one
        .invoke(&json!("this is relevant"), &questions, None)
        .await
        .map_err(|e| e.to_string())?;
    ensure(
        decision.answers["relevant"]["noul"] == 0.9 && decision.answers["kind"]["choice"] == "a",
        || format!("{decision:?}"),
    )?;
    ensure(decision.usage["totalTokens"] == 22, || {
        format!("{decision:?}")
    })?;

    let judge = DmInvoker::new("openai-compatible/judge", key("sk-test").base_url(&base))
        .map_err(|e| e.to_string())?;
    let decision = judge
        .invoke(&json!("this is relevant"), &questions, None)
        .await
        .map_err(|e| e.to_string())?;
    let p = decision.answers["relevant"]["noul"]
        .as_f64()
        .unwrap_or(-1.0);
    ensure((p - 0.9).abs() < 0.01, || format!("{decision:?}"))?;
    ensure(decision.answers["kind"]["type"] == "choice", || {
        format!("{decision:?}")
    })?;
    ensure(
        decision.usage["totalTokens"] == 20
            && decision.usage["raw"].as_array().map(Vec::len) == Some(2),
        || format!("{decision:?}"),
    )?;
    expect_code(
        DmInvoker::new("anthropic/claude", key("k")).map(|_| ()),
        &["INVALID_MODEL_ID"],
        "anthropic dm",
    )?;
    Ok(())
}

#[wasm_bindgen]
extern "C" {
    /// The most calls the fake provider had in flight at once for `model` (index.html).
    #[wasm_bindgen(js_name = __maxInFlight)]
    fn max_in_flight_of(model: &str) -> js_sys::Promise;
}

async fn max_in_flight(model: &str) -> Result<f64, String> {
    wasm_bindgen_futures::JsFuture::from(max_in_flight_of(model))
        .await
        .map_err(|e| format!("{model}: {e:?}"))?
        .as_f64()
        .ok_or_else(|| format!("{model}: no count"))
}

/// A language-model decision sends one request per question, at most `max_concurrency` at
/// once (the fake provider's `judge-…-gather-N-slow-M` holds calls until N are in flight, then
/// M ms, and counts the most in flight), and answers in the questions' order.
async fn decisions_bounded(base: String) -> Outcome {
    let p = |i: usize| format!("{:.3}", (i + 1) as f64 / 200.0);
    let questions: Map<String, Value> = (0..100)
        .map(|i| {
            let q = question::noul(&format!("Is it so? p={}", p(i)), None);
            (format!("q{i}"), q)
        })
        .collect();
    let first: Map<String, Value> = questions
        .iter()
        .take(30)
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    // A browser opens at most 6 HTTP/1.1 connections to one origin: bounds up to 6 show as
    // they are (an unbounded decision shows as 6).
    for (bound, model, asked) in [
        (1, "judge-rust-one-gather-1-slow-20", &first),
        (4, "judge-rust-four-gather-4-slow-30", &questions),
    ] {
        let dm = DmInvoker::new(
            &format!("openai-compatible/{model}"),
            key("sk-test").base_url(&base),
        )
        .and_then(|dm| dm.with_max_concurrency(bound))
        .map_err(|e| e.to_string())?;
        let decision = dm
            .invoke(&json!("a state"), asked, None)
            .await
            .map_err(|e| e.to_string())?;
        let names: Vec<&String> = decision.answers.keys().collect();
        let asked_names: Vec<&String> = asked.keys().collect();
        ensure(names == asked_names, || format!("{model}: answers out of order"))?;
        for (i, answer) in decision.answers.values().enumerate() {
            let got = answer["noul"].as_f64().unwrap_or(-1.0);
            let want: f64 = p(i).parse().unwrap_or(-2.0);
            ensure((got - want).abs() < 1e-9, || format!("{model}: q{i} {got}"))?;
        }
        let most = max_in_flight(model).await?;
        ensure(most == bound as f64, || {
            format!("{model}: {most} requests in flight with a bound of {bound}")
        })?;
    }
    let dm = DmInvoker::new("openai-compatible/judge", key("sk-test").base_url(&base))
        .map_err(|e| e.to_string())?;
    ensure(dm.max_concurrency() == 10, || {
        format!("default {}", dm.max_concurrency())
    })?;
    expect_code(
        dm.with_max_concurrency(0).map(|_| ()),
        &["INVALID_OPTION"],
        "max_concurrency 0",
    )
    .map(|_| ())
}

async fn options_are_checked(base: String) -> Outcome {
    expect_code(
        LmInvoker::new("gpt-4o", Options::new()).map(|_| ()),
        &["INVALID_MODEL_ID"],
        "no provider",
    )?;
    expect_code(
        LmInvoker::new("openai-compatible/x", Options::new()).map(|_| ()),
        &["INVALID_OPTION"],
        "no base",
    )?;
    expect_code(
        LmInvoker::new("openai/x", Options::new().timeout_ms(0)).map(|_| ()),
        &["INVALID_OPTION"],
        "timeout 0",
    )?;
    expect_code(
        LmInvoker::new("openai/x", Options::new().max_response_bytes(0)).map(|_| ()),
        &["INVALID_OPTION"],
        "size 0",
    )?;
    let bad = OutputTransformerConfig::from_value(
        &json!({"type": "event_filter", "kwargs": {"eventTypes": [""]}}),
    );
    ensure(bad.is_err(), || "an empty event type is refused".into())?;
    // A header the runtime refuses is an error of the call, never a thrown exception.
    let invoker = lm(
        &base,
        "openai-compatible/ok",
        key("sk-test").header("bad header", "x"),
    )?;
    expect_code(
        invoker.invoke("Hi").await,
        &["INVALID_OPTION"],
        "bad header",
    )?;
    expect_code(
        lm(&base, "openai-compatible/ok", key("sk-test"))?
            .invoke(Call::prompt("Hi").temperature(5.0))
            .await,
        &["INVALID_OPTION"],
        "temperature",
    )?;
    Ok(())
}

/// The UTF-16 length of `text`: what a citation's span counts in.
fn units(text: &str) -> usize {
    text.encode_utf16().count()
}

/// Each citation's span inside a text of `len` UTF-16 units.
fn spans_inside(citations: &[Value], len: usize, what: &str) -> Outcome {
    for c in citations {
        let (start, end) = (c["span"][0].as_u64(), c["span"][1].as_u64());
        ensure(
            matches!((start, end), (Some(s), Some(e)) if s <= e && e as usize <= len),
            || format!("{what}: citation span {} outside a text of {len} units", c["span"]),
        )?;
    }
    Ok(())
}

/// Recorded answers of every provider beyond OpenAI's and Anthropic's chat APIs
/// (tests/fixtures/providers, served by the cited-answer provider under `/recorded/`), whole
/// and streamed: the model id and the key are all that change from one provider to the next.
async fn recorded_providers(cited: String) -> Outcome {
    let origin = cited.trim_end_matches("/v1");
    // (provider, whole recording, streamed recording, whether each has citations)
    let recordings = [
        ("google", "web-search-grounding", "web-search-grounding", true),
        ("openai-responses", "web-search-url-citation", "web-search-url-citation", true),
        ("xai", "web-search-url-citation", "web-search-url-citation", false),
        ("perplexity", "text-citations", "text-citations", true),
        ("cohere", "citations-document", "stream-citation-tool", true),
        ("mistral", "thinking-content-array", "thinking-content-array", false),
    ];
    for (provider, whole, streamed, cited_both) in recordings {
        let base = format!("{origin}/recorded/{provider}");
        let whole_lm = lm(&base, &format!("{provider}/{whole}"), key(SECRET))?;
        let answer = whole_lm
            .invoke("Question?")
            .await
            .map_err(|e| format!("{provider}/{whole}: {e}"))?;
        let text = answer.text();
        ensure(!text.is_empty(), || format!("{provider}/{whole}: no text"))?;
        let citations: Vec<Value> = answer
            .citations()
            .iter()
            .map(|c| serde_json::to_value(c).unwrap_or(Value::Null))
            .collect();
        spans_inside(&citations, units(&text), whole)?;
        ensure(!cited_both || !citations.is_empty(), || {
            format!("{provider}/{whole}: no citations")
        })?;
        let stream_lm = lm(&base, &format!("{provider}/{streamed}"), key(SECRET))?;
        let (events, error) = collect(stream_lm.stream("Question?")).await;
        ensure(error.is_none(), || format!("{provider}/{streamed}: {error:?}"))?;
        let streamed_text: String = events
            .iter()
            .filter(|e| e.kind == "response")
            .filter_map(|e| e.value.as_str())
            .collect();
        let cites: Vec<Value> = events
            .iter()
            .filter(|e| e.kind == "citation")
            .map(|e| e.value.clone())
            .collect();
        ensure(!streamed_text.is_empty(), || format!("{provider}/{streamed}: no text"))?;
        spans_inside(&cites, units(&streamed_text), streamed)?;
        ensure(!cited_both || !cites.is_empty(), || {
            format!("{provider}/{streamed}: no citation events")
        })?;
    }
    Ok(())
}

/// Runs every case against the fake provider at `base` (and the cited-answer provider at
/// `cited`); resolves with
/// `[{name, ok, error?}]` as JSON.
#[wasm_bindgen]
pub async fn run_cases(base: String, cited: String) -> String {
    let cases: Vec<(&str, Case)> = vec![
        (
            "whole answers: OpenAI-style and Anthropic, transformers, usage, structured",
            Box::pin(whole_answers(base.clone())),
        ),
        (
            "streams: events through the engine, citations, usage, Anthropic blocks, structured",
            Box::pin(streams(base.clone())),
        ),
        (
            "a cut or garbled stream ends in an error, never a short answer",
            Box::pin(cut_streams(base.clone())),
        ),
        (
            "retries, provider errors, timeouts, network errors, size limit, redirects",
            Box::pin(retries_and_failures(base.clone())),
        ),
        (
            "fallbacks: in order, the first error when all fail, never once a stream started",
            Box::pin(fallbacks(base.clone())),
        ),
        (
            "citations enforced by a schema or a forced tool, read back as marked text, whole and streamed",
            Box::pin(enforced_citations(cited.clone())),
        ),
        (
            "abort: before, while waiting, during retries",
            Box::pin(abort(base.clone())),
        ),
        (
            "the API key, or any 10-character piece of it, is in no error on any path",
            Box::pin(keys_stay_out_of_errors(base.clone())),
        ),
        (
            "embeddings in order and batches; System One and LM decisions",
            Box::pin(embeddings_and_decisions(base.clone())),
        ),
        (
            "a language-model decision: at most max_concurrency requests in flight, answers in order",
            Box::pin(decisions_bounded(base.clone())),
        ),
        (
            "options and calls are checked",
            Box::pin(options_are_checked(base.clone())),
        ),
        (
            "recorded answers of Gemini, OpenAI Responses, xAI, Perplexity, Cohere and Mistral, whole and streamed",
            Box::pin(recorded_providers(cited.clone())),
        ),
    ];
    let mut results = Vec::new();
    for (name, case) in cases {
        let outcome = case.await;
        results.push(match outcome {
            Ok(()) => json!({ "name": name, "ok": true }),
            Err(error) => json!({ "name": name, "ok": false, "error": error }),
        });
    }
    Value::Array(results).to_string()
}
