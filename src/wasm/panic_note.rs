//! What a panic leaves for the JS face before the module traps: its message, in a fixed
//! buffer that JS reads from the instance's memory once the trap has reached it
//! (`__citeflowPanicMessage` in scripts/glue.mjs), and adds to the error it throws. No JS is
//! called from inside the panic: the hook only writes bytes, so it costs the module no import.
//!
//! Panics are bugs (bad input is an error with a code, never a panic), so the note is a
//! diagnostic: a failing call's `RuntimeError` then says which rule broke, where.

use std::sync::atomic::{AtomicU32, AtomicU8, Ordering};

/// Bytes of the message kept (a longer one is cut at a character boundary).
const CAP: usize = 508;

/// The note's layout in memory: the message's length in bytes, then its UTF-8.
#[repr(C)]
pub struct PanicNote {
    len: AtomicU32,
    bytes: [AtomicU8; CAP],
}

static NOTE: PanicNote = PanicNote {
    len: AtomicU32::new(0),
    bytes: [const { AtomicU8::new(0) }; CAP],
};

/// Installs the hook (once per instance, at start; not in a module built with plain traps for
/// panics, which never runs one).
#[cfg_attr(panic = "immediate-abort", allow(dead_code))]
pub fn install() {
    std::panic::set_hook(Box::new(|info| write(&info.to_string().replace('\n', " "))));
}

#[cfg_attr(panic = "immediate-abort", allow(dead_code))]
fn write(message: &str) {
    let mut n = message.len().min(CAP);
    while !message.is_char_boundary(n) {
        n -= 1;
    }
    for (slot, &b) in NOTE
        .bytes
        .iter()
        .zip(message.as_bytes().get(..n).unwrap_or_default())
    {
        slot.store(b, Ordering::Relaxed);
    }
    NOTE.len
        .store(u32::try_from(n).unwrap_or(0), Ordering::Relaxed);
}

/// Where the note is: `[length: u32, UTF-8 bytes]` (length 0: no panic). Reading it calls
/// nothing that a panic could have left half-done.
#[wasm_bindgen::prelude::wasm_bindgen(js_name = "__citeflowPanicNote")]
pub fn note() -> *const PanicNote {
    &NOTE
}
