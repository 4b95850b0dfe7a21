//! Reading a response body (a web `ReadableStream`) chunk by chunk, within a size limit.

use js_sys::Uint8Array;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use web_sys::{ReadableStream, ReadableStreamDefaultReader, ReadableStreamReadResult};

/// A body being read; cancelled when dropped before its end (the connection is let go).
pub(crate) struct BodyReader {
    reader: ReadableStreamDefaultReader,
    done: bool,
}

impl BodyReader {
    pub(crate) fn new(body: &ReadableStream) -> Self {
        Self {
            reader: body.get_reader().unchecked_into(),
            done: false,
        }
    }

    /// The next chunk's bytes, `None` at the end; `Err` with what the runtime threw when the
    /// body broke off.
    pub(crate) async fn next(&mut self) -> Result<Option<Vec<u8>>, JsValue> {
        if self.done {
            return Ok(None);
        }
        let result: ReadableStreamReadResult = JsFuture::from(self.reader.read())
            .await
            .inspect_err(|_| self.done = true)?
            .unchecked_into();
        if result.get_done().unwrap_or(true) {
            self.done = true;
            return Ok(None);
        }
        let value = result.get_value();
        match value.dyn_ref::<Uint8Array>() {
            Some(bytes) => Ok(Some(bytes.to_vec())),
            // A fetch body is bytes; a string chunk (a hand-made stream) is taken as text.
            None => Ok(Some(value.as_string().unwrap_or_default().into_bytes())),
        }
    }
}

impl Drop for BodyReader {
    fn drop(&mut self) {
        if !self.done {
            // The rejection of a cancel changes nothing: the body is abandoned either way.
            let _ = self.reader.cancel();
        }
    }
}

/// A body read up to a limit.
pub(crate) enum Limited {
    Whole(Vec<u8>),
    /// Longer than the limit: its first `limit` bytes.
    Cut(Vec<u8>),
}

/// Reads `body` as it arrives, never keeping more than `limit` bytes.
pub(crate) async fn read_limited(
    body: Option<ReadableStream>,
    limit: usize,
) -> Result<Limited, JsValue> {
    let Some(body) = body else {
        return Ok(Limited::Whole(Vec::new()));
    };
    let mut reader = BodyReader::new(&body);
    let mut bytes = Vec::new();
    while let Some(chunk) = reader.next().await? {
        let room = limit.saturating_sub(bytes.len());
        if chunk.len() > room {
            bytes.extend(chunk.into_iter().take(room));
            return Ok(Limited::Cut(bytes));
        }
        bytes.extend(chunk);
    }
    Ok(Limited::Whole(bytes))
}
