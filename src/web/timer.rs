//! Timers and abort listeners that clean up after themselves: dropping one clears the timer
//! or removes the listener, so no callback outlives the call that set it.

use js_sys::{Function, Promise};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::AbortSignal;

use super::error::Error;

#[wasm_bindgen]
extern "C" {
    // The global functions, in windows and workers alike.
    #[wasm_bindgen(js_name = setTimeout)]
    fn set_timeout(handler: &Function, ms: f64) -> JsValue;
    #[wasm_bindgen(js_name = clearTimeout)]
    fn clear_timeout(handle: &JsValue);
}

/// A pending `setTimeout`; cleared when dropped.
pub(crate) struct Timeout {
    handle: JsValue,
    _callback: Closure<dyn FnMut()>,
}

impl Timeout {
    pub(crate) fn new(ms: u64, callback: impl FnMut() + 'static) -> Self {
        let callback = Closure::<dyn FnMut()>::new(callback);
        let handle = set_timeout(callback.as_ref().unchecked_ref(), ms as f64);
        Self {
            handle,
            _callback: callback,
        }
    }
}

impl Drop for Timeout {
    fn drop(&mut self) {
        clear_timeout(&self.handle);
    }
}

/// A listener for a signal's `abort` event; removed when dropped.
pub(crate) struct AbortListener {
    signal: AbortSignal,
    callback: Closure<dyn FnMut()>,
}

impl AbortListener {
    pub(crate) fn new(signal: &AbortSignal, callback: impl FnMut() + 'static) -> Self {
        let callback = Closure::<dyn FnMut()>::new(callback);
        // Adding a listener to an AbortSignal does not throw.
        let _ = signal.add_event_listener_with_callback("abort", callback.as_ref().unchecked_ref());
        Self {
            signal: signal.clone(),
            callback,
        }
    }
}

impl Drop for AbortListener {
    fn drop(&mut self) {
        let _ = self
            .signal
            .remove_event_listener_with_callback("abort", self.callback.as_ref().unchecked_ref());
    }
}

/// `Err` with the signal's reason once it is aborted.
pub(crate) fn check_aborted(signal: Option<&AbortSignal>) -> Result<(), Error> {
    match signal {
        Some(s) if s.aborted() => Err(Error::aborted(s.reason())),
        _ => Ok(()),
    }
}

/// Waits `ms`, or less when `signal` aborts first (then the abort error).
pub(crate) async fn sleep(ms: u64, signal: Option<&AbortSignal>) -> Result<(), Error> {
    check_aborted(signal)?;
    let mut resolve = None;
    let promise = Promise::new(&mut |done, _| resolve = Some(done));
    let Some(resolve) = resolve else {
        // The executor runs synchronously: unreachable, but an error rather than a hang.
        return Ok(());
    };
    let wake = resolve.clone();
    let _timer = Timeout::new(ms, move || {
        let _ = wake.call0(&JsValue::UNDEFINED);
    });
    let _listener = signal.map(|s| {
        AbortListener::new(s, move || {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        })
    });
    let _ = JsFuture::from(promise).await;
    check_aborted(signal)
}
