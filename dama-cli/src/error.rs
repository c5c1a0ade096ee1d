//! What can stop a `dama` command.

use std::io;

/// An error of the `dama` command, printed once on stderr by `main`.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// Bad input for the rules: a FEN, a move, a variant.
    #[error(transparent)]
    Rules(#[from] dama_rules::Error),
    /// Standard input could not be read.
    #[error("cannot read standard input: {0}")]
    Input(#[source] io::Error),
    /// The output could not be written (a closed pipe, a full disk).
    #[error("cannot write the output: {0}")]
    Output(#[source] io::Error),
}
