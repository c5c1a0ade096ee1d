//! `dama moves`: the legal moves of a position.

use std::io::{self, BufWriter, Write};

use dama_rules::notation::{fen, pdn_move_for};
use dama_rules::{Move, Position, Variant};

use crate::cli::FormatArg;
use crate::error::CliError;
use crate::exit::Status;

fn texts(variant: Variant, pos: &Position, format: FormatArg) -> Vec<String> {
    let mut list = pos.legal_moves_for(variant);
    list.sort();
    list.iter()
        .map(|&m: &Move| match format {
            FormatArg::Hub => m.to_string(),
            FormatArg::Pdn => pdn_move_for(variant, pos, m),
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
    super::each_stdin_line(|line| {
        let answer = line.and_then(|text| {
            fen::parse(text)
                .map(|pos| texts(variant, &pos, format).join(" "))
                .map_err(|err| err.to_string())
        });
        match answer {
            Ok(moves) => writeln!(out, "{moves}"),
            Err(why) => {
                status = Status::BadInput;
                writeln!(out, "error: {why}")
            }
        }
        .map_err(CliError::Output)
    })?;
    out.flush().map_err(CliError::Output)?;
    Ok(status)
}
