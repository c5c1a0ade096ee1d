//! The `dama` command as a library: [`run`] is the whole command (the binary's `main` calls
//! it with its arguments), [`check_args`] parses and checks arguments without running
//! anything (for tests and the fuzz target `cli_args`).
//!
//! Exit status: 0 success, 1 a negative answer the user asked for, 2 bad input or I/O (see
//! `exit::HELP`, the end of `dama --help`).
//!
//! ```
//! assert!(dama_cli::check_args(["dama", "perft", "--depth", "3"]).is_ok());
//! let err = dama_cli::check_args(["dama", "perft", "--depth", "-1"]).unwrap_err();
//! assert!(err.to_string().contains("-1"));
//! ```

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

use std::ffi::OsString;
use std::io::IsTerminal;
use std::process::ExitCode;

/// Runs the `dama` command with `args` (the program's name first, as
/// [`std::env::args_os`] gives them) and returns its exit status. Argument errors print
/// clap's message on stderr and give status 2; `--help` and `--version` print on stdout
/// and give 0.
pub fn run<I, T>(args: I) -> ExitCode
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = match parse(args) {
        Ok(args) => args,
        Err(err) => {
            // Help or version on stdout (a closed pipe is no error), a usage error on stderr.
            let _ = err.print();
            return if err.use_stderr() {
                exit::Status::BadInput.into()
            } else {
                exit::Status::Ok.into()
            };
        }
    };
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

/// Why [`check_args`] refused the arguments: the message `dama` would print (clap's, or
/// one of the checks made after parsing, such as a match player that is not one).
#[derive(Debug)]
pub struct ArgsError(String);

impl std::fmt::Display for ArgsError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for ArgsError {}

/// Parses `args` (the program's name first) as `dama` does and makes the checks that need
/// no file, terminal or search (the `--log-level` filter, match players, `--sprt`), without
/// running anything. `--help` and `--version` are accepted.
///
/// # Errors
/// The message `dama` would print for the first argument it refuses.
pub fn check_args<I, T>(args: I) -> Result<(), ArgsError>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    let args = match parse(args) {
        Ok(args) => args,
        Err(err) if !err.use_stderr() => return Ok(()),
        Err(err) => return Err(ArgsError(err.to_string())),
    };
    if let Some(level) = &args.log_level {
        log_filter(level).map_err(ArgsError)?;
    }
    commands::check(&args.command).map_err(|e| ArgsError(e.to_string()))
}

/// The command line's parser: clap's, with a negative number taken as a value by every
/// option and argument (`--depth -1` is then refused for its value, quoted, not as an
/// unknown option `-1`).
fn parse<I, T>(args: I) -> Result<cli::Cli, clap::Error>
where
    I: IntoIterator<Item = T>,
    T: Into<OsString> + Clone,
{
    use clap::FromArgMatches;
    let mut matches = command().try_get_matches_from(args)?;
    cli::Cli::from_arg_matches_mut(&mut matches)
}

/// The clap command of `dama`: every subcommand takes negative numbers as values, and an
/// option of one value takes the next word whatever it starts with, as getopt does
/// (`--level -inf` is refused for its value, not as an unknown option `-i`).
fn command() -> clap::Command {
    use clap::CommandFactory;
    fn hyphens(arg: clap::Arg) -> clap::Arg {
        let one = arg
            .get_num_args()
            .is_none_or(|n| n.min_values() == 1 && n.max_values() == 1);
        if !arg.is_positional() && arg.get_action().takes_values() && one {
            arg.allow_hyphen_values(true)
        } else {
            arg
        }
    }
    fn negatives(cmd: clap::Command) -> clap::Command {
        cmd.allow_negative_numbers(true)
            .mut_args(hyphens)
            .mut_subcommands(negatives)
    }
    negatives(cli::Cli::command())
}

/// The filter of `--log-level TEXT` (or `RUST_LOG`): comma-separated `level`, `target` or
/// `target=level` directives, as `RUST_LOG` is usually written. Span and field filters
/// (`target[span]`, `{field}`) are not supported: the regular-expression engine they need
/// would be a fifth of the lean build's time.
fn log_filter(text: &str) -> Result<tracing_subscriber::filter::Targets, String> {
    text.parse().map_err(|e| {
        format!("--log-level {text:?}: {e}: expected a level (like debug) or target=level")
    })
}

/// Whether logs on stderr are coloured: only on a terminal, and never when `NO_COLOR` is set
/// to anything but the empty string (<https://no-color.org>).
fn log_colour(stderr_is_terminal: bool, no_color: Option<OsString>) -> bool {
    stderr_is_terminal && no_color.is_none_or(|v| v.is_empty())
}

/// Logs go to stderr only; stdout carries results. Colour only on a terminal (see
/// [`log_colour`]): a log file or a CI log gets plain text.
///
/// # Errors
/// A `--log-level` that is not a filter, quoted.
fn init_logging(level: Option<&str>, verbose: u8) -> Result<(), String> {
    use tracing_subscriber::layer::SubscriberExt;
    use tracing_subscriber::util::SubscriberInitExt;
    let default = match verbose {
        0 => "warn",
        1 => "info",
        2 => "debug",
        _ => "trace",
    };
    let filter = match level {
        Some(text) => log_filter(text)?,
        None => std::env::var("RUST_LOG")
            .ok()
            .and_then(|text| log_filter(&text).ok())
            .unwrap_or_else(|| log_filter(default).expect("a level is a filter")),
    };
    let colour = log_colour(
        std::io::stderr().is_terminal(),
        std::env::var_os("NO_COLOR"),
    );
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .with_max_level(tracing::Level::TRACE)
        .finish()
        .with(filter)
        .init();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every subcommand (as the words that name it) and its clap command, leaves only.
    fn leaves(cmd: &clap::Command, path: Vec<String>, out: &mut Vec<(Vec<String>, clap::Command)>) {
        if !cmd.has_subcommands() {
            out.push((path, cmd.clone()));
            return;
        }
        for sub in cmd.get_subcommands() {
            let mut p = path.clone();
            p.push(sub.get_name().to_string());
            leaves(sub, p, out);
        }
    }

    /// A value `arg` accepts, to fill the arguments not under test.
    fn placeholder(arg: &clap::Arg) -> String {
        if let Some(v) = arg.get_possible_values().first() {
            return v.get_name().to_string();
        }
        match arg.get_id().as_str() {
            "player1" | "player2" => "depth:1".into(),
            _ if arg.is_positional() => "x".into(),
            _ => "1".into(),
        }
    }

    /// The words of `arg` given `value`.
    fn words(arg: &clap::Arg, value: OsString) -> Vec<OsString> {
        match arg.get_long() {
            Some(long) => vec![format!("--{long}").into(), value],
            None => vec![value],
        }
    }

    /// The command line of `path` with `arg` given `value` and every other required argument
    /// (and any the parser says is missing) a placeholder.
    fn line(
        path: &[String],
        cmd: &clap::Command,
        arg: &clap::Arg,
        value: &OsString,
    ) -> Vec<OsString> {
        let mut extra: Vec<OsString> = Vec::new();
        for other in cmd.get_arguments() {
            if other.get_id() != arg.get_id() && other.is_required_set() {
                extra.extend(words(other, placeholder(other).into()));
            }
        }
        let build = |extra: &[OsString]| {
            let mut args: Vec<OsString> = vec!["dama".into()];
            args.extend(path.iter().map(OsString::from));
            args.extend(extra.iter().cloned());
            args.extend(words(arg, value.clone()));
            args
        };
        // Arguments that `arg` requires (`--margin` needs `--annotate`, which needs `--pdn`).
        for _ in 0..3 {
            let Err(err) = parse(build(&extra)) else {
                break;
            };
            let missing = match err.get(clap::error::ContextKind::InvalidArg) {
                Some(clap::error::ContextValue::Strings(list))
                    if err.kind() == clap::error::ErrorKind::MissingRequiredArgument =>
                {
                    list.clone()
                }
                _ => break,
            };
            for name in missing {
                let flag = name.split_whitespace().next().unwrap_or_default();
                let Some(other) = cmd
                    .get_arguments()
                    .find(|a| a.get_long().is_some_and(|l| flag == format!("--{l}")))
                else {
                    break;
                };
                if other.get_action().takes_values() {
                    extra.extend(words(other, placeholder(other).into()));
                } else {
                    extra.push(flag.into());
                }
            }
        }
        build(&extra)
    }

    /// Every argument of every subcommand given extreme values: no panic, and a refusal
    /// quotes the value (a negative number is a value, never "unexpected argument").
    #[test]
    fn every_argument_of_every_subcommand_takes_extreme_values_without_panic() {
        let mut values: Vec<OsString> = [
            "0",
            "-1",
            "-0",
            "99999999999999999999",
            "1e308",
            "-1e308",
            "NaN",
            "-inf",
            "",
            " ",
            "999999999999999999999999999999x/0",
            "%s%n",
            "-x",
        ]
        .iter()
        .map(OsString::from)
        .collect();
        values.push("9".repeat(10_000).into());
        #[cfg(unix)]
        values.push(std::os::unix::ffi::OsStringExt::from_vec(
            b"\xff\xfe".to_vec(),
        ));
        let mut all = Vec::new();
        leaves(&command(), Vec::new(), &mut all);
        assert!(all.len() > 20, "{} subcommands", all.len());
        let mut runs = 0;
        for (path, cmd) in &all {
            let args = cmd.get_arguments().filter(|a| {
                a.get_action().takes_values() && !a.is_global_set() && a.get_id() != "help"
            });
            for arg in args {
                for value in &values {
                    let line = line(path, cmd, arg, value);
                    let shown = format!("{line:?}");
                    let shown = &shown[..shown.len().min(300)];
                    let result = std::panic::catch_unwind(|| check_args(line.clone()));
                    let Ok(result) = result else {
                        panic!("dama {shown}: a panic");
                    };
                    runs += 1;
                    let Err(err) = result else { continue };
                    let err = err.to_string();
                    let text = value.to_string_lossy();
                    let negative = text
                        .strip_prefix('-')
                        .is_some_and(|t| t.starts_with(|c: char| c.is_ascii_digit()));
                    assert!(
                        !(negative && err.contains("unexpected argument")),
                        "dama {shown}: {err}"
                    );
                    // A positional word, or one of several values, starting with '-' is
                    // read as an option, as in any command (clap's tip: put `--` first).
                    let many = arg.get_num_args().is_some_and(|n| n.max_values() > 1);
                    let flag_like =
                        (arg.is_positional() || many) && text.starts_with('-') && !negative;
                    if text.trim().is_empty() || flag_like {
                        continue;
                    }
                    let escaped = format!("{text:?}");
                    let quoted = err.contains(text.as_ref())
                        || err.contains(&escaped[1..escaped.len() - 1])
                        || (text.len() > 100 && err.contains(&text[..20]))
                        || (text.contains('\u{fffd}') && err.contains("UTF-8"));
                    assert!(
                        quoted,
                        "dama {shown}: the error does not quote the value: {err}"
                    );
                }
            }
        }
        assert!(runs > 1000, "{runs} command lines");
    }

    #[test]
    fn logs_are_coloured_only_on_a_terminal_without_no_color() {
        assert!(log_colour(true, None));
        assert!(log_colour(true, Some(OsString::new())));
        assert!(!log_colour(true, Some("1".into())));
        assert!(!log_colour(false, None));
        assert!(!log_colour(false, Some("1".into())));
    }

    #[test]
    fn check_args_refuses_what_the_command_refuses_and_quotes_it() {
        assert!(check_args(["dama", "--help"]).is_ok());
        assert!(check_args(["dama", "moves"]).is_ok());
        for (args, needle) in [
            (
                &["dama", "match", "depth:9999999999", "level:easy"][..],
                "too large",
            ),
            (&["dama", "match", "levle:easy", "level:easy"], "levle:easy"),
            (&["dama", "--log-level", "x=[", "moves"], "x=["),
            (&["dama", "analyze", "--time", "-1"], "-1"),
            (
                &[
                    "dama", "pdn", "stats", "f.pdn", "--sprt", "elo0=x", "elo1=1",
                ],
                "elo0",
            ),
        ] {
            let err = check_args(args.iter().copied()).expect_err(&args.join(" "));
            assert!(err.to_string().contains(needle), "{args:?}: {err}");
        }
    }
}
