//! A streamed answer as a `futures` stream of events.

use std::collections::VecDeque;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_core::Stream;
use futures_util::stream::{self, LocalBoxStream, StreamExt};

use crate::engine::StreamEngine;
use crate::event::Event;
use crate::provider::StreamFormat;
use crate::transform::{OutputTransformerConfig, TransformerKind};

use super::body::BodyReader;
use super::call::Call;
use super::error::{Error, ErrorCode};
use super::lm::LmInvoker;
use super::timer::check_aborted;
use super::transport::{js_message, Answer, Attempt};

/// The events of one streamed answer (see [`LmInvoker::stream`]): `response` text as it
/// arrives, `thinking`, `citation`, `structured`, a `usage` event, and whatever the output
/// transformers make of them. Implements [`futures_core::Stream`]; the first error is the
/// last item. Dropping it cancels the request and the body.
#[must_use = "a stream does nothing until polled"]
pub struct EventStream {
    inner: LocalBoxStream<'static, Result<Event, Error>>,
}

impl std::fmt::Debug for EventStream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("EventStream")
    }
}

impl Stream for EventStream {
    type Item = Result<Event, Error>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.inner.poll_next_unpin(cx)
    }
}

/// Where a stream is.
enum Phase {
    Start,
    Reading {
        reader: BodyReader,
        engine: Box<StreamEngine>,
        // Keeps the caller's abort signal wired to the fetch until the stream ends.
        _attempt: Attempt,
    },
    /// A fallback's stream, after this invoker could not start one.
    Fallback(EventStream),
    Done,
}

struct State {
    lm: LmInvoker,
    call: Call,
    phase: Phase,
    ready: VecDeque<Event>,
}

impl EventStream {
    pub(crate) fn new(lm: LmInvoker, call: Call) -> Self {
        let state = State {
            lm,
            call,
            phase: Phase::Start,
            ready: VecDeque::new(),
        };
        let inner = stream::unfold(state, |mut state| async move {
            let item = state.next().await?;
            if item.is_err() {
                // The first error ends the stream (and drops the reader: the body is let go).
                state.phase = Phase::Done;
                state.ready.clear();
            }
            Some((item, state))
        });
        Self {
            inner: inner.boxed_local(),
        }
    }
}

impl State {
    async fn next(&mut self) -> Option<Result<Event, Error>> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Some(Ok(event));
            }
            let step = match &mut self.phase {
                Phase::Done => return None,
                Phase::Start => match self.start().await {
                    Err(error) if error.code() != ErrorCode::Aborted => {
                        self.fall_back(error.scrub(&self.lm.transport.secrets))
                            .await
                    }
                    started => started,
                },
                Phase::Fallback(stream) => return stream.next().await,
                Phase::Reading { reader, engine, .. } => {
                    Self::read(&self.lm, &self.call, reader, engine, &mut self.ready).await
                }
            };
            match step {
                Ok(Some(next)) => self.phase = next,
                Ok(None) => {}
                Err(error) => return Some(Err(error.scrub(&self.lm.transport.secrets))),
            }
        }
    }

    /// Sends the request; the next phase reads its body.
    async fn start(&mut self) -> Result<Option<Phase>, Error> {
        let lm = &self.lm;
        let http = lm.http(&self.call, true)?;
        let provider = lm.id.provider;
        let format = StreamFormat::parse(provider.stream_format()).unwrap_or(StreamFormat::OpenAi);
        // A structured answer ends in a `structured` event from every provider: Anthropic
        // streams its forced tool's input; OpenAI-style JSON text is read at the end. A cited
        // answer given as JSON becomes marked text and citation events first.
        let json = self.call.structured()
            && format != StreamFormat::Anthropic
            && !lm
                .transformers
                .iter()
                .any(|c| c.kind == TransformerKind::Json);
        let first = match lm.cited(&self.call)? {
            Some(cite) => {
                let mut kwargs = serde_json::Map::new();
                kwargs.insert(
                    "markerStyle".into(),
                    cite.options.marker_style.name().into(),
                );
                if let Some(n) = cite.options.source_count {
                    kwargs.insert("sourceCount".into(), n.into());
                }
                let config = serde_json::json!({ "type": "cited_answer", "kwargs": kwargs });
                Some(OutputTransformerConfig::from_value(&config)?)
            }
            None => json.then(OutputTransformerConfig::json),
        };
        let configs: Vec<OutputTransformerConfig> = first
            .into_iter()
            .chain(lm.transformers.iter().cloned())
            .collect();
        let mut engine = StreamEngine::new(Some(format), &configs)?;
        let answer = lm
            .transport
            .send(&http, provider.name(), self.call.signal.as_ref(), true)
            .await?;
        match answer {
            Answer::Body(body, attempt) => Ok(Some(Phase::Reading {
                reader: BodyReader::new(&body),
                engine: Box::new(engine),
                _attempt: attempt,
            })),
            // A stream request answered with JSON: decoded as a stream all the same, which
            // says what is wrong with it (a whole answer is not a stream).
            Answer::Text(text) => {
                self.ready
                    .extend(engine.push_bytes_events(text.as_bytes())?);
                self.ready.extend(engine.finish_events()?);
                Ok(Some(Phase::Done))
            }
        }
    }

    /// No answer started: the fallbacks, in order; the first whose stream yields an event (or
    /// ends cleanly) wins, else `error`.
    async fn fall_back(&mut self, error: Error) -> Result<Option<Phase>, Error> {
        for fallback in self.lm.fallbacks.iter() {
            let mut stream = fallback.stream(self.call.clone());
            match stream.next().await {
                Some(Ok(event)) => {
                    self.ready.push_back(event);
                    return Ok(Some(Phase::Fallback(stream)));
                }
                None => return Ok(Some(Phase::Done)),
                Some(Err(_)) => {} // the next one, or the first error
            }
        }
        Err(error)
    }

    /// Reads one chunk of the body into `ready`; `Some(Done)` at the end.
    async fn read(
        lm: &LmInvoker,
        call: &Call,
        reader: &mut BodyReader,
        engine: &mut StreamEngine,
        ready: &mut VecDeque<Event>,
    ) -> Result<Option<Phase>, Error> {
        match reader.next().await {
            Ok(Some(bytes)) => {
                ready.extend(engine.push_bytes_events(&bytes)?);
                Ok(None)
            }
            Ok(None) => {
                ready.extend(engine.finish_events()?);
                Ok(Some(Phase::Done))
            }
            Err(thrown) => {
                check_aborted(call.signal.as_ref())?;
                // The body broke off (connection reset, chunked encoding cut): say so, stably.
                Err(Error::new(
                    ErrorCode::StreamInterrupted,
                    format!(
                        "{}: the answer stream broke off: {}",
                        lm.model_id,
                        js_message(&thrown)
                    ),
                )
                .retryable(true))
            }
        }
    }
}
