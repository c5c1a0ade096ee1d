//! Standard output, and what a closed one means.
//!
//! When the reader of a pipe goes away before the end (`dama perft --depth 11 | head -1`), the
//! next write fails with [`io::ErrorKind::BrokenPipe`]. The command then stops at once,
//! prints nothing more (on stdout or stderr) and exits with status 0: the reader took what it
//! wanted, as ripgrep does. Every write to stdout goes through a `Result` ([`line`], or
//! `writeln!` mapped to [`CliError::Output`]), never `println!`, which would panic.

use std::cell::Cell;
use std::fmt::Display;
use std::io::{self, Write};
use std::rc::Rc;

use crate::error::CliError;

/// Whether `err` says that the reader of standard output went away.
pub fn is_closed(err: &io::Error) -> bool {
    err.kind() == io::ErrorKind::BrokenPipe
}

/// Writes `text` and a newline to standard output.
///
/// # Errors
/// [`CliError::Output`] when stdout cannot be written (a closed pipe, a full disk).
pub fn line(text: impl Display) -> Result<(), CliError> {
    writeln!(io::stdout().lock(), "{text}").map_err(CliError::Output)
}

/// A writer that remembers whether its reader went away, for code that reports write errors
/// in its own error type (the Hub loop of `dama engine`).
pub struct Watched<W> {
    inner: W,
    closed: Rc<Cell<bool>>,
}

impl<W: Write> Watched<W> {
    /// `inner`, watched; the flag turns true at the first [`is_closed`] error.
    pub fn new(inner: W) -> (Watched<W>, Rc<Cell<bool>>) {
        let closed = Rc::new(Cell::new(false));
        let watched = Watched {
            inner,
            closed: Rc::clone(&closed),
        };
        (watched, closed)
    }

    fn note<T>(&self, result: io::Result<T>) -> io::Result<T> {
        if let Err(e) = &result {
            if is_closed(e) {
                self.closed.set(true);
            }
        }
        result
    }
}

impl<W: Write> Write for Watched<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let result = self.inner.write(buf);
        self.note(result)
    }

    fn flush(&mut self) -> io::Result<()> {
        let result = self.inner.flush();
        self.note(result)
    }
}
