//! `dama pdn`: check, list the positions of, or rewrite the games of a PDN file.

use std::fs::File;
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::Path;

use dama_rules::notation::pdn::{self, PdnGame, Reader};
use dama_rules::{Error, Variant};

use crate::cli::PdnAction;
use crate::exit::Status;

/// Runs `dama pdn ACTION FILE`.
///
/// Bad games are reported and the others processed: `check` prints one line per bad game on
/// stdout, `fens` and `convert` print them on stderr (stdout carries the positions or the
/// PDN). Status 1 when a game is bad, 2 when the file cannot be read.
pub fn run(variant: Variant, action: PdnAction) -> Result<Status, Error> {
    let (path, each): (&Path, Each) = match &action {
        PdnAction::Check { file } => (file, |_, _, _| Ok(())),
        PdnAction::Fens { file } => (file, fens),
        PdnAction::Convert { file } => (file, convert),
        PdnAction::Stats { .. } => unreachable!("`dama pdn stats` is run by commands::matches"),
    };
    let check = matches!(action, PdnAction::Check { .. });
    let input = match open(path) {
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
    };
    let status = each_game(Reader::new(input, variant), &mut out, each, check)
        .and_then(|status| out.out.flush().map(|()| status));
    match status {
        Ok(Err(err)) => {
            eprintln!("dama: {}: {err}", path.display());
            Ok(Status::BadInput)
        }
        Ok(Ok(status)) => Ok(status),
        Err(err) => {
            eprintln!("dama: cannot write the output: {err}");
            Ok(Status::BadInput)
        }
    }
}

/// Runs `each` on every good game and reports the bad ones; the read error that ended the
/// input early, if any.
fn each_game(
    games: Reader<Box<dyn BufRead>>,
    out: &mut Out,
    each: Each,
    check: bool,
) -> io::Result<Result<Status, Error>> {
    let (mut count, mut bad) = (0usize, 0usize);
    for (i, game) in games.enumerate() {
        count += 1;
        match game {
            Ok(game) => each(out, i + 1, game)?,
            Err(err @ Error::PdnRead { .. }) => return Ok(Err(err)),
            Err(err) if check => {
                bad += 1;
                writeln!(out.out, "{err}")?;
            }
            Err(err) => {
                bad += 1;
                eprintln!("dama: {err}");
            }
        }
    }
    if check {
        writeln!(out.out, "{count} games, {bad} bad")?;
    }
    Ok(Ok(if bad > 0 {
        Status::Negative
    } else {
        Status::Ok
    }))
}

/// What is done with each good game: its number in the file and the game.
type Each = fn(&mut Out, usize, PdnGame) -> io::Result<()>;

/// Standard output and how many games were written to it.
struct Out<'a> {
    out: BufWriter<io::StdoutLock<'a>>,
    written: usize,
}

fn open(path: &Path) -> io::Result<Box<dyn BufRead>> {
    if path == Path::new("-") {
        return Ok(Box::new(BufReader::new(io::stdin())));
    }
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(io::Error::other("it is a directory"));
    }
    Ok(Box::new(BufReader::with_capacity(1 << 16, file)))
}

/// One line per position: game number, ply (0 = start), FEN.
fn fens(out: &mut Out, number: usize, game: PdnGame) -> io::Result<()> {
    for (ply, pos) in game.positions().enumerate() {
        writeln!(out.out, "{number} {ply} {}", pos.fen())?;
    }
    Ok(())
}

/// The canonical PDN, games separated by a blank line.
fn convert(out: &mut Out, _number: usize, game: PdnGame) -> io::Result<()> {
    // The reader gives only legal moves, which the writer takes.
    let text = pdn::write(&game).map_err(|e| io::Error::other(e.to_string()))?;
    if out.written > 0 {
        writeln!(out.out)?;
    }
    out.written += 1;
    out.out.write_all(text.as_bytes())
}
