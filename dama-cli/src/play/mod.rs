//! `dama play`: the game against the computer, full screen or as plain text.

mod computer;
mod config;
mod layout;
mod plain;
mod tui;

use dama_rules::{Color, Position, Variant};
use dama_search::Level;

use crate::error::CliError;
use crate::exit::Status;
use computer::Computer;
use dama_play as model;
use model::Model;

/// What `dama play` was asked.
pub struct Options {
    /// Plain text on stdin/stdout instead of the full screen.
    pub plain: bool,
    /// The level; the remembered one (full screen) or Normal (plain) when absent.
    pub level: Option<Level>,
    /// The computer's seed; a fresh one when absent.
    pub seed: Option<u64>,
    /// The start position.
    pub start: Position,
    /// The player's side (the computer moves first when it is not to move).
    pub human: Color,
    /// The rules.
    pub variant: Variant,
}

/// Runs `dama play`.
pub fn run(opts: Options) -> Result<Status, CliError> {
    let seed = opts.seed.unwrap_or_else(computer::fresh_seed);
    tracing::debug!(seed, "computer seed");
    let computer = Computer::new(seed);
    if opts.plain {
        let model = Model::new(opts.variant, opts.start, opts.level.unwrap_or_default())
            .playing(opts.human);
        return plain::run(model, computer);
    }
    let level = opts.level.unwrap_or_else(config::load_level);
    tui::run(
        Model::new(opts.variant, opts.start, level).playing(opts.human),
        computer,
    )
}
