//! The `dama` command: list moves, run perft, and more for Italian draughts and its relatives.
//!
//! Exit status: 0 success, 1 a negative answer the user asked for, 2 bad input or I/O (see
//! `exit::HELP`, the end of `dama --help`).

// Safe Rust only (the workspace denies `unsafe`; here it cannot be allowed back).
#![forbid(unsafe_code)]

mod cli;
mod commands;
mod error;
mod exit;
mod output;
mod play;
#[cfg(feature = "serve")]
mod serve;

use std::process::ExitCode;

use clap::Parser;

fn main() -> ExitCode {
    let args = cli::Cli::parse();
    if let Err(why) = init_logging(args.log_level.as_deref(), args.verbose) {
        eprintln!("dama: {why}");
        return exit::Status::BadInput.into();
    }
    match commands::run(args.command) {
        Ok(code) => code.into(),
        // The reader of stdout took what it wanted (`dama perft | head -1`).
        Err(err) if err.is_closed_output() => exit::Status::Ok.into(),
        Err(err) => {
            eprintln!("dama: {err}");
            exit::Status::BadInput.into()
        }
    }
}

/// Logs go to stderr only; stdout carries results.
///
/// # Errors
/// A `--log-level` that is not a filter, quoted.
fn init_logging(level: Option<&str>, verbose: u8) -> Result<(), String> {
    use tracing_subscriber::EnvFilter;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = match level {
        Some(text) => EnvFilter::try_new(text).map_err(|e| {
            format!("--log-level {text:?}: {e}: expected a level (like debug) or target=level")
        })?,
        None => EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new(default)),
    };
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .init();
    Ok(())
}
