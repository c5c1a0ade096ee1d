//! The module's boundary with JavaScript, written by hand (no generated glue): three exports
//! and two imports, all on plain numbers, the text crossing as UTF-8 in the module's memory.
//!
//! - `dama_buffer(len) -> ptr`: room for a request of `len` bytes; JS writes it there.
//! - `dama_call(len) -> out_len`: answers the request, an answer of `out_len` bytes...
//! - `dama_output() -> ptr`: ... found there.
//! - imports `dama.now_ms() -> f64` (the host's monotonic clock, `performance.now()`) and
//!   `dama.progress(ptr, len)` (a search's progress line, read by JS at once).
//!
//! A panic (a bug) never leaves the module as a trap: the module is built with
//! `panic=unwind`, `dama_call` catches it, answers an error naming it, and starts a fresh
//! session for the next request.

#![allow(unsafe_code)]

use std::cell::RefCell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::time::Duration;

use crate::Session;

#[link(wasm_import_module = "dama")]
extern "C" {
    fn now_ms() -> f64;
    fn progress(ptr: *const u8, len: usize);
}

thread_local! {
    static SESSION: RefCell<Option<Session>> = const { RefCell::new(None) };
    static INPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static OUTPUT: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    static PANIC: RefCell<String> = const { RefCell::new(String::new()) };
}

/// The host's clock, for the search's time limits.
fn host_clock() -> Duration {
    // SAFETY: an import of the module's host taking nothing and returning a number; the JS
    // side (dama.mjs) gives `performance.now()`.
    let ms = unsafe { now_ms() };
    Duration::from_secs_f64((ms.max(0.0)) / 1000.0)
}

fn send_progress(line: &str) {
    // SAFETY: the host reads `len` bytes at `ptr` in this module's memory before it
    // returns, while `line` is borrowed here.
    unsafe { progress(line.as_ptr(), line.len()) }
}

/// Room for a request of `len` bytes: the address JS writes it at.
#[no_mangle]
pub extern "C" fn dama_buffer(len: usize) -> *mut u8 {
    INPUT.with(|input| {
        let mut input = input.borrow_mut();
        input.clear();
        input.resize(len, 0);
        input.as_mut_ptr()
    })
}

/// The address of the last answer (its length is what [`dama_call`] returned).
#[no_mangle]
pub extern "C" fn dama_output() -> *const u8 {
    OUTPUT.with(|out| out.borrow().as_ptr())
}

/// Answers the request of `len` bytes written at [`dama_buffer`]'s address.
#[no_mangle]
pub extern "C" fn dama_call(len: usize) -> usize {
    let request = INPUT.with(|input| {
        let input = input.borrow();
        String::from_utf8_lossy(&input[..len.min(input.len())]).into_owned()
    });
    let answer = guarded(|session| session.handle(&request, &mut |line| send_progress(line)));
    set_output(answer)
}

fn set_output(answer: String) -> usize {
    OUTPUT.with(|out| {
        let mut out = out.borrow_mut();
        *out = answer.into_bytes();
        out.len()
    })
}

/// Runs `f` on the session, catching a panic: the session is then dropped (the next
/// request gets a fresh one) and the answer is an error naming the panic.
fn guarded(f: impl FnOnce(&mut Session) -> String) -> String {
    static HOOK: std::sync::Once = std::sync::Once::new();
    HOOK.call_once(|| {
        dama_search::set_host_clock(host_clock);
        // No threads: the endgame classes a search on the clock needs wait for the `tables`
        // request, which the page sends between moves.
        dama_search::egtb::defer_builds(true);
        std::panic::set_hook(Box::new(|info| {
            PANIC.with(|p| *p.borrow_mut() = info.to_string());
        }));
    });
    let mut session = SESSION.with(|s| s.borrow_mut().take()).unwrap_or_default();
    let done = catch_unwind(AssertUnwindSafe(|| {
        let answer = f(&mut session);
        (session, answer)
    }));
    match done {
        Ok((session, answer)) => {
            SESSION.with(|s| *s.borrow_mut() = Some(session));
            answer
        }
        Err(_) => {
            let why = PANIC.with(|p| std::mem::take(&mut *p.borrow_mut()));
            serde_json::json!({
                "error": format!("internal error, the engine was reset: {why}"),
                "panic": true,
            })
            .to_string()
        }
    }
}

/// A panic on purpose, caught as any other, for the tests that check that a panic never
/// ends the module: the answer's length, as [`dama_call`]'s.
#[no_mangle]
pub extern "C" fn dama_panic_test() -> usize {
    set_output(guarded(|_| panic!("a panic on purpose (dama_panic_test)")))
}
