//! One module per subcommand.

mod moves;
mod pdn;
mod perft;

use dama_rules::notation::fen;
use dama_rules::{Error, Position};

use crate::cli::Command;
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
        } => Ok(perft::run(variant, fen.as_deref(), depth, divide)?),
        Command::Pdn { variant, action } => Ok(pdn::run(variant, action)?),
        Command::Play {
            plain,
            level,
            seed,
            fen,
            variant,
        } => crate::play::run(crate::play::Options {
            plain,
            level,
            seed,
            start: position(fen.as_deref())?,
            variant,
        }),
    }
}

/// The position of a `--fen` argument, or the start position.
fn position(text: Option<&str>) -> Result<Position, Error> {
    text.map_or(Ok(Position::start()), fen::parse)
}
