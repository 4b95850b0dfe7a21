//! `EngineCore`: the streaming engine behind every JS stream API. Each step returns the
//! address of its encoding ([`crate::engine::ops`]): words, then one string the JS face
//! decodes once and slices.
//!
//! The steps return a plain address, not a `Result`: the glue for a `Result` reads several
//! values back on every call, which costs more than the step itself for a token-sized chunk.
//! A failed step returns 0 and keeps its error for `takeError`.

use wasm_bindgen::prelude::*;

use super::errors::js_error;
use crate::engine::{ops::Encoder, Cx, Field, KeptEvent, StreamEngine};
use crate::provider::StreamFormat;
use crate::text::{cat, decimal, quoted, utf8_error};
use crate::transform::OutputTransformerConfig;

/// The largest chunk one step takes through the input buffer.
const MAX_INPUT_BYTES: usize = 1 << 30;

#[wasm_bindgen]
pub struct EngineCore {
    inner: StreamEngine,
    encoder: Encoder,
    input: Vec<u8>,
    /// The error of the latest step that returned 0.
    error: Option<JsValue>,
    /// For an engine made of one transformer's options ([`EngineCore::for_stage`]): its engine
    /// config, `{type, kwargs}`, and what can change its stage while it holds nothing back.
    stage: Option<(JsValue, Vec<String>)>,
}

/// The transformer configs, read from the JS values in place ([`transformer::config`]).
fn configs(stages: JsValue) -> Result<Vec<OutputTransformerConfig>, JsValue> {
    use super::transformer;
    use crate::options::js_value::{self, with_cause};
    use crate::options::Refusal;

    if stages.is_undefined() || stages.is_null() {
        return Ok(Vec::new());
    }
    let refused = |e: Refusal| {
        with_cause(js_error(
            "INVALID_CONFIG",
            &cat(&["invalid the transformer configs: ", e.text()]),
        ))
    };
    let mut items = match js_value::array_items(&stages) {
        Some(items) => items.map_err(refused)?,
        None => {
            return Err(js_error(
                "INVALID_CONFIG",
                &cat(&[
                    "invalid the transformer configs: expected an array, got ",
                    js_value::kind_of(&stages),
                ]),
            ))
        }
    };
    let mut configs = Vec::new();
    while let Some(item) = items.next_item() {
        let item = item.map(js_value::JsVal::into_inner).map_err(refused)?;
        configs.push(transformer::config(&item, None)?);
    }
    Ok(configs)
}

#[wasm_bindgen]
impl EngineCore {
    /// `format`: a provider stream format ("openai", "anthropic", …) for byte input, or
    /// none for text and events; `stages`: transformer configs, applied in order.
    #[wasm_bindgen(constructor)]
    pub fn new(format: Option<String>, stages: JsValue) -> Result<EngineCore, JsValue> {
        let format = format
            .map(|name| {
                StreamFormat::parse(&name).ok_or_else(|| {
                    js_error(
                        "UNKNOWN_PROVIDER",
                        &cat(&[
                            "unknown stream format ",
                            &quoted(&name),
                            "; use a provider's name, e.g. \"openai\" or \"anthropic\"",
                        ]),
                    )
                })
            })
            .transpose()?;
        Ok(Self::of(
            StreamEngine::new(format, &configs(stages)?)?,
            None,
        ))
    }

    /// An engine core around `inner`, with the stage it was made of (`forStage`), if any.
    fn of(inner: StreamEngine, stage: Option<(JsValue, Vec<String>)>) -> Self {
        Self {
            inner,
            encoder: Encoder::default(),
            input: Vec::new(),
            error: None,
            stage,
        }
    }

    /// The engine of one transformer (`"think_tag"`, `"citations"`, …) from one read of its
    /// options, keeping its engine config (`{type, kwargs}`: the kwargs as read, and a think-tag
    /// stage's block id prefix, made here when none was given) and its triggers for the JS face
    /// (a transformer's set-up read its options three times before).
    #[wasm_bindgen(js_name = forStage)]
    pub fn for_stage(kind: &str, options: JsValue) -> Result<EngineCore, JsValue> {
        let (spec, config) = super::transformer::stage_of(kind, &options)?;
        let triggers = spec.triggers();
        let stages = [OutputTransformerConfig::from_spec(spec)];
        Ok(Self::of(
            StreamEngine::new(None, &stages)?,
            Some((config, triggers)),
        ))
    }

    /// The engine config of an engine made by `forStage` (else `undefined`).
    #[wasm_bindgen(js_name = stageConfig)]
    pub fn stage_config(&self) -> JsValue {
        self.stage
            .as_ref()
            .map_or(JsValue::UNDEFINED, |(config, _)| config.clone())
    }

    /// The strings the stage of an engine made by `forStage` answers to: a think-tag stage's
    /// tags and a citation stage's trigger characters (what can change the stage while it
    /// holds nothing back), an event filter's kept base types (none for other stages and
    /// other engines).
    #[wasm_bindgen(js_name = stageTriggers)]
    pub fn stage_triggers(&self) -> Vec<String> {
        self.stage
            .as_ref()
            .map(|(_, triggers)| triggers.clone())
            .unwrap_or_default()
    }

    fn encoded(&mut self) -> *const u32 {
        // The text's address, for JS to read it in place (wasm32 addresses fit in u32).
        let address = self.encoder.text.as_ptr() as usize as u32;
        if let Some(slot) = self.encoder.words.get_mut(1) {
            *slot = address;
        }
        self.encoder.words.as_ptr()
    }

    /// Where to write the next chunk (at most `max` bytes); then `pushBytes` or `pushUtf8`.
    #[wasm_bindgen(js_name = inputBuffer)]
    pub fn input_buffer(&mut self, max: usize) -> Result<*mut u8, JsValue> {
        if max > MAX_INPUT_BYTES {
            return Err(js_error(
                "INVALID_CHUNK",
                &cat(&[
                    "a chunk of ",
                    decimal(max).as_str(),
                    " bytes is more than one step takes (",
                    decimal(MAX_INPUT_BYTES).as_str(),
                    ")",
                ]),
            ));
        }
        if self.input.len() < max {
            self.input
                .try_reserve(max - self.input.len())
                .map_err(|_| js_error("INVALID_CHUNK", "the chunk does not fit in memory"))?;
            self.input.resize(max, 0);
        }
        Ok(self.input.as_mut_ptr())
    }

    /// A step's answer: the encoding's address, or 0 with the error kept for `takeError`.
    fn answer(&mut self, step: Result<*const u32, JsValue>) -> *const u32 {
        step.unwrap_or_else(|error| {
            self.error = Some(error);
            std::ptr::null()
        })
    }

    /// The error of the step that returned 0 (a JS `Error` with a `code`).
    #[wasm_bindgen(js_name = takeError)]
    pub fn take_error(&mut self) -> JsValue {
        self.error
            .take()
            .unwrap_or_else(|| js_error("INTERNAL", "no step of the engine failed"))
    }

    /// Response body bytes written into the input buffer; 0 for an error (`takeError`).
    #[wasm_bindgen(js_name = pushBytes)]
    pub fn push_bytes(&mut self, written: usize) -> *const u32 {
        let step = self.try_push_bytes(written);
        self.answer(step)
    }

    /// Answer text written into the input buffer as UTF-8 (by `TextEncoder.encodeInto`),
    /// whose first `skip` UTF-16 units of response text the caller has shown already: they
    /// are left out of the encoding. Before it, the caller showed `shown` bytes of text the
    /// engine moves past by their length (`StreamEngine::pass_shown`; 0: none). 0 for an
    /// error (`takeError`).
    #[wasm_bindgen(js_name = pushUtf8)]
    pub fn push_utf8(
        &mut self,
        written: usize,
        id: Option<String>,
        skip: usize,
        shown: usize,
    ) -> *const u32 {
        let step = self.try_push_utf8(written, id, skip, shown);
        self.answer(step)
    }

    /// A chunk of answer text (a `response` event with this id); 0 for an error.
    #[wasm_bindgen(js_name = pushText)]
    pub fn push_text(&mut self, text: &str, id: Option<String>) -> *const u32 {
        let step = self.try_push_text(text, id);
        self.answer(step)
    }

    /// Any event, whole (for an engine that does not take handles: one with a stage only the
    /// full streaming module holds, which alone has this); 0 for an error (`takeError`).
    #[cfg(not(feature = "lean-stream"))]
    #[wasm_bindgen(js_name = pushEvent)]
    pub fn push_event(&mut self, event: JsValue) -> *const u32 {
        let step = self.try_push_event(event);
        self.answer(step)
    }

    /// An event object the caller keeps as `handle` (see `crate::engine::handle`), as read
    /// once: `shape`, what kind of value its `type`, `id`, `value` and `valueType` are
    /// ([`kept`]), and the byte lengths of those that are strings, written one after another
    /// into the input buffer as UTF-8. 0 for an error (`takeError`), such as an event
    /// `pushEvent` would refuse, or an engine that does not take handles (`takesHandles`).
    #[wasm_bindgen(js_name = pushHandle)]
    pub fn push_handle(
        &mut self,
        handle: u32,
        shape: u32,
        ty: usize,
        id: usize,
        value: usize,
        value_type: usize,
    ) -> *const u32 {
        let step = self.try_push_kept(handle, shape, [ty, id, value, value_type]);
        self.answer(step)
    }

    /// Whether every stage works on events the caller keeps (`pushHandle`); otherwise
    /// events go whole (`pushEvent`).
    #[wasm_bindgen(js_name = takesHandles)]
    pub fn takes_handles(&self) -> bool {
        self.inner.takes_handles()
    }

    /// Whether an event, given as to `pushHandle`, is plain `response` text: what the caller
    /// may send as text (`pushUtf8`) instead.
    #[wasm_bindgen(js_name = isPlainResponse)]
    pub fn is_plain_response(
        &self,
        shape: u32,
        ty: usize,
        id: usize,
        value: usize,
        value_type: usize,
    ) -> bool {
        fields(&self.input, [ty, id, value, value_type])
            .is_ok_and(|f| kept(0, f, shape).view().is_ok_and(Cx::is_plain_response))
    }

    /// After a step that failed: the state's encoding with no events (the handles stages
    /// still keep, the flags).
    #[wasm_bindgen(js_name = idleStep)]
    pub fn idle_step(&mut self) -> *const u32 {
        let step = self.inner.idle_step();
        self.encoder.encode(step);
        self.encoded()
    }

    /// Ends the stream; 0 for an error (`takeError`).
    pub fn finish(&mut self) -> *const u32 {
        let step = self.try_finish();
        self.answer(step)
    }

    fn try_push_bytes(&mut self, written: usize) -> Result<*const u32, JsValue> {
        let bytes = self.input.get(..written).unwrap_or_default();
        let step = self.inner.push_bytes(bytes)?;
        self.encoder.encode(step);
        Ok(self.encoded())
    }

    fn try_push_utf8(
        &mut self,
        written: usize,
        id: Option<String>,
        skip: usize,
        shown: usize,
    ) -> Result<*const u32, JsValue> {
        if shown > 0 && !self.inner.pass_shown(shown)? {
            return Err(js_error(
                "INTERNAL",
                "the engine cannot move past the text the fast path showed by its length",
            ));
        }
        let bytes = self.input.get(..written).unwrap_or_default();
        let text = std::str::from_utf8(bytes).map_err(|e| {
            js_error(
                "INVALID_CHUNK",
                &cat(&["the chunk is not valid UTF-8: ", &utf8_error(&e)]),
            )
        })?;
        let step = self.inner.push_text(text, id.as_deref())?;
        self.encoder.skip = skip;
        self.encoder.encode(step);
        if std::mem::take(&mut self.encoder.skip) > 0 {
            return Err(js_error(
                "INTERNAL",
                "the engine held back text the fast path had shown",
            ));
        }
        Ok(self.encoded())
    }

    fn try_push_text(&mut self, text: &str, id: Option<String>) -> Result<*const u32, JsValue> {
        let step = self.inner.push_text(text, id.as_deref())?;
        self.encoder.encode(step);
        Ok(self.encoded())
    }

    #[cfg(not(feature = "lean-stream"))]
    fn try_push_event(&mut self, event: JsValue) -> Result<*const u32, JsValue> {
        let event: crate::event::Event = super::convert::event(event)?;
        let step = self.inner.push_event(event)?;
        self.encoder.encode(step);
        Ok(self.encoded())
    }

    fn try_push_kept(
        &mut self,
        handle: u32,
        shape: u32,
        lengths: [usize; 4],
    ) -> Result<*const u32, JsValue> {
        let event = kept(handle, fields(&self.input, lengths)?, shape);
        let step = self.inner.push_kept(event)?;
        self.encoder.encode(step);
        Ok(self.encoded())
    }

    fn try_finish(&mut self) -> Result<*const u32, JsValue> {
        let step = self.inner.finish()?;
        self.encoder.encode(step);
        let ptr = self.encoded();
        // Nothing more will be pushed: the input buffer goes now, not at collection.
        self.input = Vec::new();
        Ok(ptr)
    }

    #[wasm_bindgen(js_name = finishReason)]
    pub fn finish_reason(&self) -> Option<String> {
        self.inner.finish_reason().map(str::to_owned)
    }
}

use crate::abi::{KIND_BITS, SHAPE_EXTRA as EXTRA};

/// The string fields of a kept event, one after another in `input`, by their byte lengths.
fn fields(input: &[u8], lengths: [usize; 4]) -> Result<[&str; 4], JsValue> {
    let mut rest = input;
    let mut out = [""; 4];
    for (field, n) in out.iter_mut().zip(lengths) {
        let (text, after) = rest
            .split_at_checked(n)
            .ok_or_else(|| js_error("INTERNAL", "an event's fields are longer than the input"))?;
        // Written by `TextEncoder.encodeInto`: always UTF-8.
        *field = std::str::from_utf8(text)
            .map_err(|_| js_error("INTERNAL", "an event's field is not valid UTF-8"))?;
        rest = after;
    }
    Ok(out)
}

/// What the JS face read of a kept event: its fields' kinds (`shape`) and texts (a field's
/// text counts only when its kind is a string).
fn kept(handle: u32, [ty, id, value, value_type]: [&str; 4], shape: u32) -> KeptEvent<'_> {
    let field = |n: u32, text| Field::from_js((shape >> (n * KIND_BITS)) & 0xF, Some(text));
    KeptEvent {
        handle,
        ty: field(0, ty),
        id: field(1, id),
        value: field(2, value),
        value_type: field(3, value_type),
        extra: shape & EXTRA != 0,
    }
}
