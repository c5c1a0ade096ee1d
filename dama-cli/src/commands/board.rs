//! `dama board`: a position as coloured text in the terminal, or as an SVG picture (both drawn
//! by `dama_rules::notation::diagram`, which the Python bindings share).

use std::io::{self, IsTerminal, Write};
use std::path::Path;

use dama_rules::notation::diagram;
use dama_rules::{Move, Position};

use crate::error::CliError;
use crate::exit::Status;

/// Draws `pos`, with `highlight` marked, as text (coloured on a terminal unless `plain`) and
/// as SVG into `svg` when given.
pub fn run(
    pos: &Position,
    highlight: Option<Move>,
    svg: Option<&Path>,
    plain: bool,
) -> Result<Status, CliError> {
    if let Some(path) = svg {
        std::fs::write(path, diagram::svg(pos, highlight))
            .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    let colour = !plain && io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = io::stdout().lock();
    out.write_all(diagram::text(pos, highlight, colour).as_bytes())
        .map_err(CliError::Output)?;
    Ok(Status::Ok)
}
