//! `dama moves`: the legal moves of a position.

use std::io::{self, BufRead, BufWriter, Write};

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
    let mut input = io::stdin().lock();
    let mut line = Vec::new();
    for number in 1.. {
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(CliError::Input)?
            == 0
        {
            break;
        }
        let answer = match std::str::from_utf8(trim_newline(&line)) {
            Err(_) => Err(format!("line {number}: not UTF-8")),
            Ok(text) => fen::parse(text)
                .map(|pos| texts(variant, &pos, format).join(" "))
                .map_err(|err| err.to_string()),
        };
        match answer {
            Ok(moves) => writeln!(out, "{moves}"),
            Err(why) => {
                status = Status::BadInput;
                writeln!(out, "error: {why}")
            }
        }
        .map_err(CliError::Output)?;
    }
    out.flush().map_err(CliError::Output)?;
    Ok(status)
}

/// `line` without its `\n` or `\r\n`.
fn trim_newline(line: &[u8]) -> &[u8] {
    let line = line.strip_suffix(b"\n").unwrap_or(line);
    line.strip_suffix(b"\r").unwrap_or(line)
}
