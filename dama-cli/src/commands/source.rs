//! Where a position comes from: `--fen`, a PDN game and ply, or standard input.

use std::fs::File;
use std::io::{self, BufRead, BufReader, IsTerminal};
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
        Some(game) => Ok(game?),
        None => Err(CliError::Usage(format!(
            "{} has fewer than {number} games",
            path.display()
        ))),
    }
}

/// A game from the options: the PDN game played up to `ply` (all of it by default), the FEN,
/// one FEN line of standard input when it is not a terminal, or the start position.
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
        None if !io::stdin().is_terminal() => {
            let mut line = String::new();
            io::stdin().read_line(&mut line).map_err(CliError::Input)?;
            if line.trim().is_empty() {
                Position::start()
            } else {
                fen::parse(line.trim())?
            }
        }
        None => Position::start(),
    };
    Ok(Game::from_position(variant, pos))
}
