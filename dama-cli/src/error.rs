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
    /// An argument or a file that cannot be used, with what was wrong.
    #[error("{0}")]
    Usage(String),
    /// Something that should not happen (a search answering another position).
    #[error("internal error: {0}")]
    Internal(String),
    /// The terminal could not be driven.
    #[error("cannot drive the terminal: {0}")]
    Terminal(#[source] io::Error),
    /// The full-screen game was asked for without a terminal.
    #[error("the full-screen game needs a terminal on standard input and output; `dama play --plain` plays as text")]
    NotATerminal,
    /// The output could not be written (a closed pipe, a full disk).
    #[error("cannot write the output: {0}")]
    Output(#[source] io::Error),
}

impl CliError {
    /// Whether this is standard output closed by its reader (`dama perft | head -1`): the
    /// command then ends quietly with status 0 (see [`crate::output`]).
    pub fn is_closed_output(&self) -> bool {
        matches!(self, CliError::Output(e) if crate::output::is_closed(e))
    }
}
