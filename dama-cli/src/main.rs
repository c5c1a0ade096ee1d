//! The `dama` command: play draughts against the computer, analyse, run matches, perft and more.
//!
//! Exit status: 0 success, 1 a negative answer the user asked for, 2 bad input or I/O (see
//! the end of `dama --help`). Everything is in the library (`dama_cli::run`), so that tests
//! and the fuzz target parse arguments as the command does.

// Safe Rust only (the workspace denies `unsafe`; here it cannot be allowed back).
#![forbid(unsafe_code)]

fn main() -> std::process::ExitCode {
    dama_cli::run(std::env::args_os())
}
