//! `dama pdn`: check, list the positions of, or rewrite the games of a PDN file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, IsTerminal, Write};
use std::path::Path;

use dama_rules::notation::pdn::{self, PdnGame, Reader};
use dama_rules::{Error, Variant};

use super::progress::{Progress, Reading, LARGE_FILE};
use crate::cli::PdnAction;
use crate::error::CliError;
use crate::exit::Status;

/// Runs `dama pdn ACTION FILE`.
///
/// Bad games are reported and the others processed: `check` prints one line per bad game on
/// stdout, `fens` and `convert` print them on stderr (stdout carries the positions or the
/// PDN). Status 1 when a game is bad, 2 when the file cannot be read or holds no game at all
/// (an empty file, or text without a move: nothing was checked).
pub fn run(variant: Variant, action: PdnAction) -> Result<Status, CliError> {
    let (path, each): (&Path, Each) = match &action {
        PdnAction::Check { file } => (file, |_, _, _| Ok(())),
        PdnAction::Fens { file } => (file, fens),
        PdnAction::Convert { file } => (file, convert),
        PdnAction::Stats { .. } => unreachable!("`dama pdn stats` is run by commands::matches"),
    };
    let check = matches!(action, PdnAction::Check { .. });
    // A bar for a large file, unless its positions or games flood the same terminal.
    let show = check || !io::stdout().is_terminal();
    let input = match open(path, show) {
        Ok(input) => input,
        Err(err) => {
            eprintln!("dama: cannot read {}: {err}", path.display());
            return Ok(Status::BadInput);
        }
    };
    let stdout = io::stdout();
    let mut out = Out {
        out: BufWriter::new(stdout.lock()),
        written: 0,
        progress: input.1.clone(),
    };
    let (input, progress) = input;
    let report = matches!(action, PdnAction::Convert { .. });
    let status = each_game(Reader::new(input, variant), &mut out, each, check, report);
    // The bar leaves before the last lines are written.
    progress.finish();
    let status = status.and_then(|status| out.out.flush().map(|()| status));
    match status {
        Ok(Err(err)) => {
            eprintln!("dama: {}: {err}", path.display());
            Ok(Status::BadInput)
        }
        Ok(Ok(None)) => {
            eprintln!(
                "dama: {}: no games in it: expected PDN games (tags like [White \"...\"], moves \
                 like 1. 22-18 11-15)",
                path.display()
            );
            Ok(Status::BadInput)
        }
        Ok(Ok(Some(status))) => Ok(status),
        Err(err) => Err(CliError::Output(err)),
    }
}

/// Runs `each` on every good game and reports the bad ones (and, with `report`, what a good
/// one had that was dropped); the read error that ended the
/// input early, if any; `None` when there was no game at all.
fn each_game(
    games: Reader<Box<dyn BufRead>>,
    out: &mut Out,
    each: Each,
    check: bool,
    report: bool,
) -> io::Result<Result<Option<Status>, Error>> {
    let (mut count, mut bad) = (0usize, 0usize);
    let mut games = games;
    while let Some(game) = games.next() {
        count += 1;
        match game {
            Ok(game) => {
                let dropped = games.dropped();
                if report && !dropped.is_empty() {
                    // What the canonical PDN cannot hold is said, not lost silently.
                    out.progress
                        .suspend(|| eprintln!("dama: game {count}: dropped {dropped}"));
                }
                each(out, count, game)?;
            }
            Err(err @ Error::PdnRead { .. }) => return Ok(Err(err)),
            Err(err) if check => {
                bad += 1;
                let progress = out.progress.clone();
                progress.suspend(|| writeln!(out.out, "{err}").and_then(|()| out.out.flush()))?;
            }
            Err(err) => {
                bad += 1;
                out.progress.suspend(|| eprintln!("dama: {err}"));
            }
        }
    }
    out.progress.finish();
    if count == 0 {
        return Ok(Ok(None));
    }
    if check {
        writeln!(out.out, "{count} games, {bad} bad")?;
    }
    Ok(Ok(Some(if bad > 0 {
        Status::Negative
    } else {
        Status::Ok
    })))
}

/// What is done with each good game: its number in the file and the game.
type Each = fn(&mut Out, usize, PdnGame) -> io::Result<()>;

/// Standard output, how many games were written to it, and the bar of the bytes read.
struct Out<'a> {
    out: BufWriter<io::StdoutLock<'a>>,
    written: usize,
    progress: Progress,
}

/// The input, and a bar of the bytes read when `show` and it is a large file.
fn open(path: &Path, show: bool) -> io::Result<(Box<dyn BufRead>, Progress)> {
    if path == Path::new("-") {
        return Ok((Box::new(BufReader::new(io::stdin())), Progress::none()));
    }
    let file = File::open(path)?;
    let meta = file.metadata()?;
    if meta.is_dir() {
        return Err(io::Error::other("it is a directory"));
    }
    let input = BufReader::with_capacity(1 << 16, file);
    if show && meta.len() >= LARGE_FILE {
        let progress = Progress::bytes(meta.len());
        return Ok((Box::new(Reading::new(input, progress.clone())), progress));
    }
    Ok((Box::new(input), Progress::none()))
}

/// One line per position: game number, ply (0 = start), FEN.
fn fens(out: &mut Out, number: usize, game: PdnGame) -> io::Result<()> {
    for (ply, pos) in game.positions().enumerate() {
        writeln!(out.out, "{number} {ply} {}", pos.fen())?;
    }
    Ok(())
}

/// The canonical PDN, games separated by a blank line (what it cannot hold, variations and
/// marks, is reported on stderr by [`each_game`]).
fn convert(out: &mut Out, _number: usize, game: PdnGame) -> io::Result<()> {
    // The reader gives only legal moves, which the writer takes.
    let text = pdn::write(&game).map_err(|e| io::Error::other(e.to_string()))?;
    if out.written > 0 {
        writeln!(out.out)?;
    }
    out.written += 1;
    out.out.write_all(text.as_bytes())
}
