//! Progress bars on stderr for long work (indicatif): games played, positions searched,
//! bytes read, with the rate and the time left.
//!
//! A bar is drawn only when stderr is a terminal: scripts, pipes and CI see exactly the
//! output they saw before (nothing on stderr), and stdout is never written by a bar. A bar is
//! cleared when done, so the terminal keeps only the results. Lines printed while a bar is
//! up go through [`Progress::suspend`], which takes the bar off the screen for them.

use std::io::{self, BufRead, IsTerminal, Read};
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// Files smaller than this are read too fast for a bar to help.
pub const LARGE_FILE: u64 = 4 << 20;

/// A progress bar, or nothing when stderr is not a terminal.
#[derive(Clone, Default)]
pub struct Progress {
    bar: Option<ProgressBar>,
}

impl Progress {
    /// No bar.
    pub fn none() -> Progress {
        Progress::default()
    }

    /// Whether a bar would be drawn: stderr is a terminal.
    pub fn wanted() -> bool {
        io::stderr().is_terminal()
    }

    /// A bar counting `total` things called `unit` (`games`, `positions`).
    pub fn count(total: u64, unit: &str) -> Progress {
        Progress::make(
            total,
            &format!("[{{bar:30}}] {{pos}}/{{len}} {unit} · {{per_sec}} · ETA {{eta}}"),
        )
    }

    /// A line with no bar, for work of unknown length: the things called `unit` counted so
    /// far, the rate, and the text [`Progress::message`] sets.
    pub fn line(unit: &str) -> Progress {
        if !Progress::wanted() {
            return Progress::none();
        }
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr());
        let template = format!("{{pos}} {unit} · {{per_sec}} · {{msg}}");
        if let Ok(style) = ProgressStyle::with_template(&template) {
            bar.set_style(style);
        }
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress { bar: Some(bar) }
    }

    /// A bar counting `total` bytes read.
    pub fn bytes(total: u64) -> Progress {
        Progress::make(
            total,
            "[{bar:30}] {bytes}/{total_bytes} · {bytes_per_sec} · ETA {eta}",
        )
    }

    fn make(total: u64, template: &str) -> Progress {
        if !Progress::wanted() || total == 0 {
            return Progress::none();
        }
        let bar = ProgressBar::with_draw_target(Some(total), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        // The rate and time left need a few ticks; redraw at least once a second.
        bar.enable_steady_tick(Duration::from_millis(500));
        Progress { bar: Some(bar) }
    }

    /// Counts `n` more.
    pub fn inc(&self, n: u64) {
        if let Some(bar) = &self.bar {
            bar.inc(n);
        }
    }

    /// Sets the text of a [`Progress::line`].
    pub fn message(&self, text: String) {
        if let Some(bar) = &self.bar {
            bar.set_message(text);
        }
    }

    /// Runs `f` with the bar off the screen (for lines printed meanwhile).
    pub fn suspend<T>(&self, f: impl FnOnce() -> T) -> T {
        match &self.bar {
            Some(bar) => bar.suspend(f),
            None => f(),
        }
    }

    /// Takes the bar off the screen for good.
    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}

/// A reader that counts the bytes taken from it on a [`Progress`] bar.
pub struct Reading<R> {
    inner: R,
    progress: Progress,
}

impl<R> Reading<R> {
    /// Counts what is read from `inner` on `progress`.
    pub fn new(inner: R, progress: Progress) -> Reading<R> {
        Reading { inner, progress }
    }
}

impl<R: Read> Read for Reading<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.progress.inc(n as u64);
        Ok(n)
    }
}

impl<R: BufRead> BufRead for Reading<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amt: usize) {
        self.progress.inc(amt as u64);
        self.inner.consume(amt);
    }
}
