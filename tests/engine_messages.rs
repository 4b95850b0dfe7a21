//! The engine fed SSE messages framed already (the JS `ProviderStreamDecoder`, which runs on
//! the engine) gives the events it gives for the same stream's bytes, for every provider
//! fixture, and the same error where a stream fails; a message's fields are checked by one rule
//! whichever reader read them.

use citeflow::engine::{EngineError, StreamEngine};
use citeflow::event::Event;
use citeflow::provider::{Given, SseDecoder, SseMessage, StreamFormat};

#[path = "support/streams.rs"]
mod streams;
use streams::provider_cases;

/// A stream's events through the engine, and the code of the error that ended it, if any:
/// `push` feeds it the stream, then it finishes.
fn events(
    format: StreamFormat,
    push: impl FnOnce(&mut StreamEngine, &mut Vec<Event>) -> Result<(), EngineError>,
) -> (Vec<Event>, Option<&'static str>) {
    let mut engine = StreamEngine::new(Some(format), &[]).unwrap();
    let mut out = Vec::new();
    let ended = push(&mut engine, &mut out).and_then(|()| {
        out.extend(engine.finish_events()?);
        Ok(())
    });
    (out, ended.err().map(|e| e.code()))
}

#[test]
fn messages_give_what_bytes_give() {
    let cases = provider_cases();
    assert!(cases.len() > 5);
    for case in cases {
        let format = StreamFormat::parse(case["format"].as_str().unwrap()).unwrap();
        let sse = case["sse"].as_str().unwrap();
        let from_bytes = events(format, |engine, out| {
            out.extend(engine.push_bytes_events(sse.as_bytes())?);
            Ok(())
        });
        let messages = SseDecoder::default().push(sse.as_bytes()).unwrap();
        let from_messages = events(format, |engine, out| {
            for m in &messages {
                out.extend(engine.push_message_events(m)?);
            }
            Ok(())
        });
        let name = &case["name"];
        assert_eq!(from_messages.1, from_bytes.1, "{name}");
        if from_bytes.1.is_none() {
            assert_eq!(from_messages.0, from_bytes.0, "{name}");
            assert!(!from_bytes.0.is_empty(), "{name}");
        } else {
            // A failed step gives nothing: the bytes' one step ends where the messages' last does.
            assert!(from_messages.0.starts_with(&from_bytes.0), "{name}");
        }
    }
}

#[test]
fn message_fields_are_checked_whichever_reader_read_them() {
    let text = |s: &str| Given::Text(s.to_owned());
    let ok = SseMessage::from_fields([Given::Absent, text("x"), Given::Null, Given::Whole(5)]);
    assert_eq!(ok.unwrap().retry, Some(5));
    for (fields, said) in [
        (
            [Given::Other, text("x"), Given::Absent, Given::Absent],
            "`event` must be a string",
        ),
        (
            [Given::Absent, Given::Absent, Given::Absent, Given::Absent],
            "missing field `data`",
        ),
        (
            [Given::Absent, Given::Whole(1), Given::Absent, Given::Absent],
            "`data` must be a string",
        ),
        (
            [Given::Absent, text("x"), Given::Other, Given::Absent],
            "`id` must be a string",
        ),
        (
            [Given::Absent, text("x"), Given::Absent, text("1")],
            "`retry` must be a whole number",
        ),
    ] {
        let e = SseMessage::from_fields(fields).unwrap_err();
        assert!(e.contains(said), "{e}");
    }
}
