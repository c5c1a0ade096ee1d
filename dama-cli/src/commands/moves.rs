//! `dama moves`: the legal moves of a position.

use std::io::{self, BufRead, BufWriter, Write};

use dama_rules::notation::{fen, pdn_move};
use dama_rules::{with_rules, Move, Position, Variant};

use crate::cli::FormatArg;
use crate::error::CliError;
use crate::exit::Status;

fn texts(variant: Variant, pos: &Position, format: FormatArg) -> Vec<String> {
    let mut list = pos.legal_moves_for(variant);
    list.sort();
    list.iter()
        .map(|&m: &Move| match format {
            FormatArg::Hub => m.to_string(),
            FormatArg::Pdn => with_rules!(variant, R => pdn_move::<R>(pos, m)),
        })
        .collect()
}

pub fn run(
    variant: Variant,
    fen_text: Option<&str>,
    format: FormatArg,
    stdin: bool,
) -> Result<Status, CliError> {
    let out = io::stdout();
    let mut out = BufWriter::new(out.lock());
    if !stdin {
        let pos = super::position(fen_text)?;
        for text in texts(variant, &pos, format) {
            writeln!(out, "{text}").map_err(CliError::Output)?;
        }
        out.flush().map_err(CliError::Output)?;
        return Ok(Status::Ok);
    }
    let mut status = Status::Ok;
    for line in io::stdin().lock().lines() {
        let line = line.map_err(CliError::Input)?;
        match fen::parse(&line) {
            Ok(pos) => writeln!(out, "{}", texts(variant, &pos, format).join(" ")),
            Err(err) => {
                status = Status::BadInput;
                writeln!(out, "error: {err}")
            }
        }
        .map_err(CliError::Output)?;
    }
    out.flush().map_err(CliError::Output)?;
    Ok(status)
}
