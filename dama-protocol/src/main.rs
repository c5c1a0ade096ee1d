//! `dama-engine`: dama as a Hub engine for GUIs and tools (see the `dama_protocol` docs for
//! the dialect). Starts its Hub loop with or without the `hub` argument.

// Safe Rust only (the workspace denies `unsafe`; here it cannot be allowed back).
#![forbid(unsafe_code)]

use std::process::ExitCode;

const HELP: &str =
    "dama-engine: the dama draughts engine, speaking the Hub protocol on stdin/stdout

Usage: dama-engine [hub]
       dama-engine --help | --version

Send `hub` to start (the reply lists the parameters), then `init`, `pos`, `level`, `go think`.
Logs go to stderr and are off unless DAMA_LOG sets a filter, e.g. DAMA_LOG=debug.";

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [] | ["hub"] => {}
        ["--help" | "-h"] => {
            return print(HELP);
        }
        ["--version" | "-V"] => {
            return print(&format!("dama-engine {}", env!("CARGO_PKG_VERSION")));
        }
        other => {
            eprintln!(
                "dama-engine: unexpected arguments {other:?}: expected none, hub, --help or --version"
            );
            return ExitCode::from(2);
        }
    }
    init_logging();
    let stdout = std::io::stdout();
    match dama_protocol::run(std::io::stdin(), stdout.lock()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            tracing::debug!("engine ends: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Prints `text` (a closed output is not an error worth a panic).
fn print(text: &str) -> ExitCode {
    use std::io::Write;
    let _ = writeln!(std::io::stdout(), "{text}");
    ExitCode::SUCCESS
}

/// Logs go to stderr, off unless `DAMA_LOG` sets a filter, without colours.
fn init_logging() {
    let Ok(filter) = std::env::var("DAMA_LOG") else {
        return;
    };
    use tracing_subscriber::filter::{LevelFilter, Targets};
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    // `level`, `target` and `target=level` directives, comma-separated (no span or field
    // filters: their regular-expression engine would weigh on the build); a bad one means warn.
    let filter: Targets = filter
        .parse()
        .unwrap_or_else(|_| Targets::new().with_default(LevelFilter::WARN));
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .with_max_level(tracing::Level::TRACE)
        .finish()
        .with(filter)
        .init();
}
