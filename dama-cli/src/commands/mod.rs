//! One module per subcommand.

mod analyze;
mod bench;
mod board;
mod book;
mod convert;
mod egtb;
mod matches;
mod moves;
mod pdn;
mod perft;
mod progress;
mod source;
mod sprt;
mod tune;

pub use matches::parse_shard;
pub use sprt::sprt_word;

use dama_rules::notation::fen;
use dama_rules::{Error, Position};

use crate::cli::{Command, PdnAction, PositionArgs, ShellArg};
use crate::error::CliError;
use crate::exit::Status;

/// Runs a subcommand.
pub fn run(command: Command) -> Result<Status, CliError> {
    match command {
        Command::Moves {
            variant,
            fen,
            format,
            stdin,
        } => moves::run(variant, fen.as_deref(), format, stdin),
        Command::Perft {
            variant,
            fen,
            depth,
            divide,
        } => perft::run(variant, fen.as_deref(), depth, divide),
        Command::Pdn {
            variant,
            action:
                PdnAction::Stats {
                    files,
                    player,
                    json,
                    sprt: test,
                },
        } => matches::stats(
            &files,
            player.as_deref(),
            variant,
            sprt::parse(&test)?,
            json,
        ),
        Command::Pdn { variant, action } => pdn::run(variant, action),
        Command::Egtb { action } => egtb::run(action),
        Command::Tune { action } => tune::run(action),
        Command::Book { action } => book::run(action),
        Command::Analyze {
            position,
            depth,
            time,
            nodes,
            level,
            multipv,
            threads,
            json,
            annotate,
            margin,
        } => {
            let budget = analyze::Budget {
                depth,
                time,
                nodes,
                level,
            };
            if annotate {
                let path = position.pdn.as_deref().expect("clap requires --pdn");
                let record = source::pdn_game(path, position.game, position.variant)?;
                return analyze::annotate(&record, budget, threads, margin);
            }
            let game = game_of(&position)?;
            let output = analyze::Output {
                multipv,
                threads,
                json,
            };
            analyze::run(&game, budget, output)
        }
        Command::Match {
            player1,
            player2,
            games,
            movetime,
            clock,
            nodes,
            concurrency,
            openings,
            pdn,
            json,
            shard,
            resume,
            seed,
            variant,
            egtb1,
            egtb2,
            sprt: test,
        } => matches::run(matches::Options {
            first: player1.parse().map_err(CliError::Usage)?,
            second: player2.parse().map_err(CliError::Usage)?,
            games,
            movetime,
            clock,
            nodes,
            concurrency,
            openings,
            pdn,
            json,
            shard,
            resume,
            seed,
            variant,
            egtb: [egtb1, egtb2],
            sprt: sprt::parse(&test)?,
        }),
        Command::Board {
            position,
            svg,
            png,
            highlight,
            plain,
        } => {
            let mut game = game_of(&position)?;
            let mv = match highlight {
                Some(text) => {
                    let engine = dama_rules::notation::pdn::engine_text(game.variant(), &text);
                    let m = game.play_text(&engine)?;
                    game.undo();
                    Some(m)
                }
                None => None,
            };
            board::run(
                game.variant(),
                game.position(),
                mv,
                svg.as_deref(),
                png.as_deref(),
                plain,
            )
        }
        Command::Engine => {
            // The Hub loop owns stdout (the protocol); logs stay on stderr.
            let (out, closed) = crate::output::Watched::new(std::io::stdout().lock());
            match dama_protocol::run(std::io::stdin(), out) {
                // The GUI closed its end of the pipe: the session is over.
                Err(_) if closed.get() => Ok(Status::Ok),
                Err(e) => Err(CliError::Internal(e.to_string())),
                Ok(()) => Ok(Status::Ok),
            }
        }
        Command::Bench {
            depth,
            knobs,
            eval_file,
        } => bench::run(depth, knobs.as_deref(), eval_file.as_deref()),
        Command::Completions { shell } => {
            use clap_complete::Shell;
            let shell = match shell {
                ShellArg::Bash => Shell::Bash,
                ShellArg::Zsh => Shell::Zsh,
                ShellArg::Fish => Shell::Fish,
                ShellArg::Elvish => Shell::Elvish,
                ShellArg::Powershell => Shell::PowerShell,
            };
            let mut cmd = crate::command();
            let mut script = Vec::new();
            clap_complete::generate(shell, &mut cmd, "dama", &mut script);
            std::io::Write::write_all(&mut std::io::stdout(), &script).map_err(CliError::Output)?;
            Ok(Status::Ok)
        }
        #[cfg(not(feature = "serve"))]
        Command::Serve { .. } => Err(CliError::Usage(
            "this dama was built without the web server (cargo feature `serve`): \
             build it with the default features, e.g. `cargo run --release -p dama-cli -- serve`"
                .into(),
        )),
        #[cfg(feature = "serve")]
        Command::Serve {
            export: Some(dir), ..
        } => crate::serve::export(&dir),
        #[cfg(feature = "serve")]
        Command::Serve {
            port,
            bind,
            open,
            max_games,
            idle,
            searchers,
            analysts,
            data,
            memory,
            database,
            keep_days,
            max_connections,
            connections_per_address,
            streams_per_address,
            stream_seconds,
            request_timeout,
            games_per_minute,
            replies_per_minute,
            trust_proxy,
            egtb,
            export: None,
        } => crate::serve::run(
            crate::serve::Options {
                bind,
                port,
                max_games: usize::try_from(max_games).unwrap_or(usize::MAX),
                idle: std::time::Duration::from_secs(idle),
                searchers: searchers.map_or_else(default_searchers, |n| n as usize),
                analysts: analysts.map_or_else(default_analysts, |n| n as usize),
                // --database, else $DAMA_DATABASE unless --data or --memory says otherwise.
                database: database
                    .clone()
                    .or_else(|| (data.is_none() && !memory).then(crate::serve::env_database)?),
                data: if memory
                    || database.is_some()
                    || (data.is_none() && crate::serve::env_database().is_some())
                {
                    None
                } else {
                    Some(data.map_or_else(crate::serve::default_data_dir, Ok)?)
                },
                keep: std::time::Duration::from_secs(keep_days * 24 * 3600),
                max_connections: usize::try_from(max_connections).unwrap_or(usize::MAX),
                connections_per_address: usize::try_from(connections_per_address)
                    .unwrap_or(usize::MAX),
                streams_per_address: usize::try_from(streams_per_address).unwrap_or(usize::MAX),
                stream_lifetime: std::time::Duration::from_secs(stream_seconds),
                header_timeout: std::time::Duration::from_secs(request_timeout),
                body_timeout: std::time::Duration::from_secs(request_timeout),
                games_per_minute,
                replies_per_minute,
                trust_proxy,
                egtb: Some(match egtb {
                    Some(dir) if !dir.is_dir() => return Err(egtb::no_such_dir("--egtb", &dir)),
                    Some(dir) => dir,
                    None => dama_search::egtb::default_dir(),
                }),
            },
            open,
        ),
        Command::Play {
            plain,
            level,
            seed,
            fen,
            color,
            variant,
        } => {
            let start = position(fen.as_deref())?;
            let human = match color {
                Some(crate::cli::ColorArg::Light) => dama_rules::Color::White,
                Some(crate::cli::ColorArg::Dark) => dama_rules::Color::Black,
                None if fen.is_some() => start.turn(),
                None => dama_rules::Color::White,
            };
            crate::play::run(crate::play::Options {
                plain,
                level,
                seed,
                start,
                human,
                variant,
            })
        }
    }
}

/// The checks of `command`'s arguments that clap cannot make and that need no file, terminal
/// or search: match players (a player that reads a `weights=` file is read only when run)
/// and `--sprt`. For `dama_cli::check_args`.
pub fn check(command: &Command) -> Result<(), CliError> {
    match command {
        Command::Match {
            player1,
            player2,
            sprt: test,
            ..
        } => {
            for spec in [player1, player2] {
                if !spec.contains("weights=") {
                    spec.parse::<matches::PlayerSpec>()
                        .map_err(CliError::Usage)?;
                }
            }
            sprt::parse(test).map(drop)
        }
        Command::Pdn {
            action: PdnAction::Stats { sprt: test, .. },
            ..
        } => sprt::parse(test).map(drop),
        _ => Ok(()),
    }
}

/// One search per processor, at most 8.
/// Analysis searches at once by default: half the processors, at least one.
#[cfg(feature = "serve")]
fn default_analysts() -> usize {
    (default_searchers() / 2).max(1)
}

#[cfg(feature = "serve")]
fn default_searchers() -> usize {
    std::thread::available_parallelism().map_or(2, |n| n.get().min(8))
}

/// The game of `dama analyze`'s or `dama board`'s position options.
fn game_of(p: &PositionArgs) -> Result<dama_rules::Game, CliError> {
    source::game(p.variant, p.fen.as_deref(), p.pdn.as_deref(), p.game, p.ply)
}

/// The position of a `--fen` argument, or the start position.
fn position(text: Option<&str>) -> Result<Position, Error> {
    text.map_or(Ok(Position::start()), fen::parse)
}

/// Calls `f` with each line of standard input, without its `\n` or `\r\n`: the text, or
/// `line N: not UTF-8` for a line that is not text (the caller prints it as an error and
/// goes on). The stdin loops of `dama moves --stdin` and `dama egtb probe --stdin`.
pub(crate) fn each_stdin_line(
    mut f: impl FnMut(Result<&str, String>) -> Result<(), CliError>,
) -> Result<(), CliError> {
    use std::io::BufRead;
    let mut input = std::io::stdin().lock();
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(CliError::Input)?
            == 0
        {
            break;
        }
        let text = line.strip_suffix(b"\n").unwrap_or(&line);
        let text = text.strip_suffix(b"\r").unwrap_or(text);
        f(std::str::from_utf8(text).map_err(|_| format!("line {number}: not UTF-8")))?;
    }
    Ok(())
}
