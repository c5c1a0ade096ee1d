//! Where a position comes from: `--fen`, a PDN game and ply, or standard input.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal, Read};
use std::path::Path;

use dama_rules::notation::fen;
use dama_rules::notation::pdn::{PdnGame, Reader};
use dama_rules::{Game, Position, Variant};

use crate::error::CliError;

/// Opens a file for reading (`-` is standard input).
pub fn open(path: &Path) -> Result<Box<dyn BufRead>, CliError> {
    if path == Path::new("-") {
        return Ok(Box::new(BufReader::new(io::stdin())));
    }
    let fail = |e: io::Error| CliError::Usage(format!("cannot read {}: {e}", path.display()));
    let file = File::open(path).map_err(fail)?;
    if file.metadata().map_err(fail)?.is_dir() {
        return Err(fail(io::Error::other("it is a directory")));
    }
    Ok(Box::new(BufReader::new(file)))
}

/// Game `number` (from 1) of a PDN file.
pub fn pdn_game(path: &Path, number: usize, variant: Variant) -> Result<PdnGame, CliError> {
    if number == 0 {
        return Err(CliError::Usage("--game counts from 1".into()));
    }
    let mut games = Reader::new(open(path)?, variant);
    match games.nth(number - 1) {
        Some(game) => game.map_err(|e| CliError::Usage(format!("{}: {e}", path.display()))),
        None => Err(CliError::Usage(format!(
            "{} has fewer than {number} games",
            path.display()
        ))),
    }
}

/// The most standard input read for one FEN line: far more than any FEN.
const STDIN_LIMIT: u64 = 1 << 20;

/// The position of the one FEN line standard input holds (blank lines aside).
///
/// # Errors
/// [`CliError::Usage`] when it holds no FEN or several (each would be a position to analyse:
/// one is taken, none guessed), or more than [`STDIN_LIMIT`] bytes; [`CliError::Input`] when
/// it cannot be read or is not UTF-8; a bad FEN's error.
fn stdin_position() -> Result<Position, CliError> {
    let mut text = String::new();
    io::stdin()
        .take(STDIN_LIMIT + 1)
        .read_to_string(&mut text)
        .map_err(CliError::Input)?;
    if text.len() as u64 > STDIN_LIMIT {
        return Err(CliError::Usage(format!(
            "standard input holds more than {STDIN_LIMIT} bytes: expected one FEN line"
        )));
    }
    let lines: Vec<&str> = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .collect();
    match lines[..] {
        [] => Err(CliError::Usage(
            "standard input is empty: expected one FEN line (or --fen, or --pdn)".into(),
        )),
        [line] => Ok(fen::parse(line)?),
        [first, ..] => Err(CliError::Usage(format!(
            "standard input holds {} FEN lines (the first {}): expected one; give each \
             position to its own run, or use --fen",
            lines.len(),
            dama_rules::quote(first)
        ))),
    }
}

/// A game from the options: the PDN game played up to `ply` (all of it by default), the FEN,
/// the one FEN line of standard input when it is not a terminal, or the start position.
pub fn game(
    variant: Variant,
    fen_text: Option<&str>,
    pdn: Option<&Path>,
    number: usize,
    ply: Option<usize>,
) -> Result<Game, CliError> {
    if let Some(path) = pdn {
        let record = pdn_game(path, number, variant)?;
        let ply = ply.unwrap_or(record.moves.len());
        if ply > record.moves.len() {
            return Err(CliError::Usage(format!(
                "--ply {ply}: game {number} has only {} moves",
                record.moves.len()
            )));
        }
        let mut game = Game::from_position(record.variant, record.start);
        for &m in &record.moves[..ply] {
            game.play(m)?;
        }
        return Ok(game);
    }
    let pos = match fen_text {
        Some(text) => fen::parse(text)?,
        None if !io::stdin().is_terminal() => stdin_position()?,
        None => Position::start(),
    };
    Ok(Game::from_position(variant, pos))
}
