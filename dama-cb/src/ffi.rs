//! The exports CheckerBoard finds with `GetProcAddress`: `getmove`, `enginecommand`,
//! `islegal` and `enginename`, with the `__stdcall` convention (`extern "system"`, the C
//! convention on x86-64). The only module with `unsafe`: it turns CheckerBoard's pointers into
//! Rust values and back, and nothing else.
//!
//! A panic never reaches CheckerBoard (it would take the GUI down): each export runs its work
//! under `catch_unwind` (the DLL is built with `panic=unwind`), answers with the panic's
//! message in the status line or the reply, and starts a fresh session for the next call.

#![allow(unsafe_code)]

use std::ffi::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::sync::atomic::{AtomicI32, Ordering};
use std::sync::Mutex;

use crate::board::{CbBoard, CbMove};
use crate::command;
use crate::session::{Request, Session, CB_UNKNOWN};

/// The size of `getmove`'s status string and of `enginecommand`'s reply, NUL included.
const TEXT_SIZE: usize = 1024;
/// The size of `enginename`'s string, NUL included.
const NAME_SIZE: usize = 255;
/// The longest command read (CheckerBoard's `set gamehist` can outgrow its nominal 256).
const MAX_COMMAND: usize = 64 * 1024;

static SESSION: Mutex<Option<Session>> = Mutex::new(None);

/// Runs `f` on the session, made on first use; a panic in `f` drops the session (its state
/// may be half-changed) and comes back as `Err` with its message.
fn with_session<T>(f: impl FnOnce(&mut Session) -> T) -> Result<T, String> {
    let mut guard = SESSION
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let result = catch_unwind(AssertUnwindSafe(|| {
        let session = guard.get_or_insert_with(|| {
            let mut s = Session::new();
            s.home = dll_dir();
            s
        });
        f(session)
    }));
    result.map_err(|payload| {
        *guard = None;
        let why = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into());
        format!("dama: internal error ({why}); the engine starts afresh, please report it")
    })
}

/// Writes `text` into the C buffer `out` of `size` bytes, cut at a character boundary, and a
/// NUL after it: at most `size` bytes are written, and no more than the text and its NUL (a
/// caller's buffer may be smaller than the API says; the replies are cut to fit beforehand).
///
/// # Safety
/// `out` is null or valid for writes of `size` bytes.
unsafe fn write_text(out: *mut c_char, size: usize, text: &str) {
    if out.is_null() || size == 0 {
        return;
    }
    let mut len = text.len().min(size - 1);
    while !text.is_char_boundary(len) {
        len -= 1;
    }
    // SAFETY: the caller promises `size` writable bytes at `out`; `len < size`.
    unsafe {
        std::ptr::copy_nonoverlapping(text.as_ptr().cast::<c_char>(), out, len);
        out.add(len).write(0);
    }
}

/// Zeroes the last byte of the status string, so that CheckerBoard's status bar, which reads
/// it every 0.1 s while a line is being written over a longer one, always finds an end.
///
/// # Safety
/// `out` is null or valid for writes of [`TEXT_SIZE`] bytes.
unsafe fn end_status(out: *mut c_char) {
    if !out.is_null() {
        // SAFETY: the caller promises TEXT_SIZE writable bytes.
        unsafe { out.add(TEXT_SIZE - 1).write(0) };
    }
}

/// Reads a NUL-terminated command, at most [`MAX_COMMAND`] bytes, as UTF-8 (lossily).
///
/// # Safety
/// `text` is null or points to a NUL-terminated string.
unsafe fn read_text(text: *const c_char) -> String {
    if text.is_null() {
        return String::new();
    }
    let mut bytes = Vec::new();
    while bytes.len() < MAX_COMMAND {
        // SAFETY: the string is NUL-terminated, so every byte up to the NUL is readable; the
        // loop stops at the NUL (or at the cap).
        let b = unsafe { text.add(bytes.len()).read() } as u8;
        if b == 0 {
            break;
        }
        bytes.push(b);
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

/// `int getmove(int board[8][8], int color, double maxtime, char str[1024], int *playnow,
/// int info, int moreinfo, struct CBmove *move)`: plays a move on `board` (changed in place)
/// and describes it in `mv`; returns `CB_WIN`, `CB_LOSS`, `CB_DRAW` or `CB_UNKNOWN`.
///
/// # Safety
/// CheckerBoard's contract: `board` points to 64 ints, `status` to 1024 bytes, `playnow` to
/// an int that stays valid during the call, `mv` to a `CBmove`; any may be null.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "system" fn getmove(
    board: *mut CbBoard,
    color: c_int,
    maxtime: f64,
    status: *mut c_char,
    playnow: *mut c_int,
    info: c_int,
    moreinfo: c_int,
    mv: *mut CbMove,
) -> c_int {
    // SAFETY: `status` is null or 1024 writable bytes (the caller's contract).
    unsafe { end_status(status) };
    if board.is_null() {
        // SAFETY: as above.
        unsafe { write_text(status, TEXT_SIZE, "dama: getmove was given no board") };
        return CB_UNKNOWN;
    }
    // SAFETY: `board` is non-null and points to 64 ints (the caller's contract).
    let cells = unsafe { board.read() };
    let req = Request {
        board: cells,
        color,
        maxtime,
        info,
        moreinfo,
    };
    let flag = if playnow.is_null() || !playnow.cast::<AtomicI32>().is_aligned() {
        None
    } else {
        // SAFETY: non-null and aligned, and the int outlives this call (CheckerBoard's
        // contract); CheckerBoard's thread writes it, this one and the watcher read it.
        Some(unsafe { AtomicI32::from_ptr(playnow) })
    };
    let play_now = move || flag.is_some_and(|f| f.load(Ordering::Relaxed) != 0);
    let mut progress = |line: &str| {
        // SAFETY: `status` is null or 1024 writable bytes (the caller's contract).
        unsafe { write_text(status, TEXT_SIZE, line) }
    };
    let answer = with_session(|s| s.get_move(&req, &play_now, &mut progress));
    let (result, text) = match answer {
        Ok(answer) => {
            // SAFETY: `board` is non-null and valid for writes of 64 ints; `mv` is checked.
            unsafe {
                board.write(answer.board);
                if let (Some(m), false) = (answer.mv, mv.is_null()) {
                    mv.write(m);
                }
            }
            (answer.result, answer.text)
        }
        Err(why) => (CB_UNKNOWN, why),
    };
    // SAFETY: as above.
    unsafe { write_text(status, TEXT_SIZE, &text) };
    result
}

/// `int enginecommand(char command[256], char reply[1024])`: answers a command; 1 if dama
/// handled it, 0 if not.
///
/// # Safety
/// `command` is null or a NUL-terminated string; `reply` is null or 1024 writable bytes.
#[no_mangle]
pub unsafe extern "system" fn enginecommand(command: *const c_char, reply: *mut c_char) -> c_int {
    // SAFETY: the caller's contract.
    let text = unsafe { read_text(command) };
    let quick = catch_unwind(|| command::stateless(&text)).unwrap_or_else(|_| {
        Some(command::Reply {
            handled: false,
            text: "dama: internal error answering this command; please report it".into(),
        })
    });
    let answer = match quick {
        Some(reply) => Ok(command::fit(&text, reply, command::room(&text))),
        None => with_session(|s| command::run(s, &text)),
    };
    let (handled, answer) = match answer {
        Ok(r) => (r.handled, r.text),
        Err(why) => (false, why),
    };
    let room = command::room(&text);
    // SAFETY: the caller's contract; the reply was cut to `room` <= 1024 bytes.
    unsafe { write_text(reply, room, &answer) };
    c_int::from(handled)
}

/// `int islegal(int board[8][8], int color, int from, int to, struct CBmove *move)`: 1 and
/// the move in `mv` if `color` may move from square `from` to square `to`, else 0.
///
/// # Safety
/// `board` is null or 64 ints; `mv` is null or a writable `CBmove`.
#[no_mangle]
pub unsafe extern "system" fn islegal(
    board: *const CbBoard,
    color: c_int,
    from: c_int,
    to: c_int,
    mv: *mut CbMove,
) -> c_int {
    if board.is_null() {
        return 0;
    }
    // SAFETY: non-null, 64 ints (the caller's contract).
    let cells = unsafe { board.read() };
    let found = catch_unwind(|| command::islegal(&cells, color, from, to))
        .ok()
        .flatten();
    match found {
        Some(m) => {
            if !mv.is_null() {
                // SAFETY: non-null and writable (the caller's contract).
                unsafe { mv.write(m) };
            }
            1
        }
        None => 0,
    }
}

/// `int enginename(char str[255])`: the engine's name (CheckerBoard's older query).
///
/// # Safety
/// `out` is null or 255 writable bytes.
#[no_mangle]
pub unsafe extern "system" fn enginename(out: *mut c_char) -> c_int {
    // SAFETY: the caller's contract.
    unsafe { write_text(out, NAME_SIZE, &command::name()) };
    1
}

/// The folder holding this DLL (where the endgame tables are looked for by default).
#[cfg(windows)]
fn dll_dir() -> Option<PathBuf> {
    use std::ffi::c_void;
    use std::os::windows::ffi::OsStringExt;
    const FROM_ADDRESS: u32 = 0x4;
    const UNCHANGED_REFCOUNT: u32 = 0x2;
    #[link(name = "kernel32")]
    extern "system" {
        fn GetModuleHandleExW(flags: u32, name: *const u16, module: *mut *mut c_void) -> i32;
        fn GetModuleFileNameW(module: *mut c_void, name: *mut u16, size: u32) -> u32;
    }
    let mut module = std::ptr::null_mut();
    let here = dll_dir as *const u16;
    // SAFETY: with FROM_ADDRESS the name is an address inside this module; `module` is a
    // valid out-pointer; the refcount is left alone, so nothing is to be freed.
    let found = unsafe { GetModuleHandleExW(FROM_ADDRESS | UNCHANGED_REFCOUNT, here, &mut module) };
    if found == 0 {
        return None;
    }
    let mut buf = vec![0u16; 32_768];
    // SAFETY: `buf` has room for `buf.len()` UTF-16 units.
    let n = unsafe { GetModuleFileNameW(module, buf.as_mut_ptr(), buf.len() as u32) } as usize;
    if n == 0 || n >= buf.len() {
        return None;
    }
    let path = PathBuf::from(std::ffi::OsString::from_wide(&buf[..n]));
    path.parent().map(PathBuf::from)
}

/// Elsewhere (the native tests) there is no DLL: the tables are found only by `set dbpath`.
#[cfg(not(windows))]
fn dll_dir() -> Option<PathBuf> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::board::{self, CB_WHITE};

    fn command(c: &str) -> (c_int, String) {
        let text = std::ffi::CString::new(c).unwrap();
        let mut reply = [0 as c_char; TEXT_SIZE];
        // SAFETY: a NUL-terminated string and a 1024-byte buffer.
        let r = unsafe { enginecommand(text.as_ptr(), reply.as_mut_ptr()) };
        // SAFETY: `write_text` ended the reply with a NUL.
        let s = unsafe { std::ffi::CStr::from_ptr(reply.as_ptr()) };
        (r, s.to_string_lossy().into_owned())
    }

    #[test]
    fn enginecommand_through_the_c_boundary() {
        assert_eq!(command("get gametype"), (1, "22".into()));
        let (r, text) = command("no such command");
        assert_eq!(r, 0);
        assert!(text.contains("unknown command"));
    }

    #[test]
    fn a_panic_comes_back_as_a_reply_and_the_engine_goes_on() {
        let (r, text) = command("selftest panic");
        assert_eq!(r, 0);
        assert!(text.contains("internal error"), "{text}");
        assert_eq!(command("get gametype"), (1, "22".into()));
        assert_eq!(command("get book"), (1, "2".into()));
    }

    #[test]
    fn long_texts_are_cut_at_a_character_and_ended() {
        let mut buf = [1 as c_char; 8];
        // SAFETY: 8 writable bytes.
        unsafe { write_text(buf.as_mut_ptr(), 8, "ééééé") };
        // 7 bytes of room: three two-byte characters, then the NUL; the last byte untouched.
        assert_eq!(buf[6], 0);
        assert_eq!(buf[7], 1);
        let mut buf = [1 as c_char; 8];
        // SAFETY: 8 writable bytes.
        unsafe { write_text(buf.as_mut_ptr(), 8, "ab") };
        assert_eq!(buf[..4], [b'a' as c_char, b'b' as c_char, 0, 1]);
    }

    #[test]
    fn getmove_through_the_c_boundary() {
        let mut cells = board::board(&dama_rules::Position::start());
        let mut status = [0 as c_char; TEXT_SIZE];
        let mut playnow: c_int = 0;
        let mut mv = CbMove::default();
        // SAFETY: every pointer is valid for the call.
        let r = unsafe {
            getmove(
                &mut cells,
                CB_WHITE,
                0.05,
                status.as_mut_ptr(),
                &mut playnow,
                1,
                0,
                &mut mv,
            )
        };
        assert_eq!(r, CB_UNKNOWN);
        assert_ne!(cells, board::board(&dama_rules::Position::start()));
        assert!(mv.from.y >= 5);
        // SAFETY: a null board is answered without being read.
        let r = unsafe {
            getmove(
                std::ptr::null_mut(),
                CB_WHITE,
                1.0,
                status.as_mut_ptr(),
                std::ptr::null_mut(),
                0,
                0,
                std::ptr::null_mut(),
            )
        };
        assert_eq!(r, CB_UNKNOWN);
    }
}
