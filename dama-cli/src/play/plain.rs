//! `dama play --plain`: the game as lines of text, for scripts, screen readers and tests.
//!
//! Before each of the player's moves: the board, then `fen <FEN>`. The player answers one
//! move per line (Hub or PDN), or `level N` (1..5 or a name). A refused move prints
//! `illegal <reason>` and the `fen` line again; each computer move prints `computer <move>`;
//! the end prints `result <1-0|0-1|1/2-1/2> score <points>`. End of input ends quietly.

use std::io::{self, BufRead, Write};

use dama_rules::{Position, Square};
use dama_search::{Level, Signals};

use super::computer::Computer;
use super::model::{title, Model};
use crate::error::CliError;
use crate::exit::Status;

/// Plays one game on standard input and output.
pub fn run(mut model: Model, mut computer: Computer) -> Result<Status, CliError> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut line = Vec::new();
    let mut show_board = true;
    loop {
        if let Some(result) = model.result_text() {
            write!(out, "{}", board(model.game().position())).map_err(CliError::Output)?;
            writeln!(out, "result {result} score {}", model.score()).map_err(CliError::Output)?;
            break;
        }
        if model.computer_to_move() {
            let m = computer
                .reply(model.game(), model.level(), &Signals::default())
                .ok_or_else(|| CliError::Internal("the computer found no move".into()))?;
            model
                .computer_moved(m)
                .map_err(|e| CliError::Internal(e.to_string()))?;
            writeln!(out, "computer {m}").map_err(CliError::Output)?;
            show_board = true;
            continue;
        }
        if show_board {
            write!(out, "{}", board(model.game().position())).map_err(CliError::Output)?;
        }
        writeln!(out, "fen {}", model.game().position().fen()).map_err(CliError::Output)?;
        out.flush().map_err(CliError::Output)?;
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(CliError::Input)?
            == 0
        {
            return Ok(Status::Ok);
        }
        show_board = false;
        let Ok(text) = std::str::from_utf8(&line) else {
            writeln!(out, "illegal the line is not UTF-8 text").map_err(CliError::Output)?;
            continue;
        };
        let text = text.trim();
        if let Some(level) = text.strip_prefix("level ") {
            match level.parse::<Level>() {
                Ok(level) => {
                    model.set_level(level);
                    writeln!(out, "level {} {}", level.number(), title(level))
                }
                Err(err) => writeln!(out, "illegal {err}"),
            }
            .map_err(CliError::Output)?;
            continue;
        }
        match model.type_move(text) {
            Ok(_) => show_board = true,
            Err(why) => writeln!(out, "illegal {why}").map_err(CliError::Output)?,
        }
    }
    out.flush().map_err(CliError::Output)?;
    Ok(Status::Ok)
}

/// The board as White sees it: `w`/`b` men, `W`/`B` kings, `.` empty dark squares, and the
/// numbers of each row's dark squares on the right.
pub fn board(pos: &Position) -> String {
    let mut out = String::new();
    for row in 0..8u8 {
        let mut cells = Vec::new();
        let mut numbers = Vec::new();
        for col in 0..8u8 {
            match Square::from_coords(row, col) {
                None => cells.push(' '),
                Some(sq) => {
                    cells.push(pos.piece_at(sq).map_or('.', |p| p.hub_char()));
                    numbers.push(format!("{:>2}", sq.number()));
                }
            }
        }
        let cells: Vec<String> = cells.iter().map(char::to_string).collect();
        out.push_str(cells.join(" ").trim_end());
        let pad = 16 - cells.join(" ").trim_end().len();
        out.push_str(&" ".repeat(pad));
        out.push_str("   ");
        out.push_str(&numbers.join(" "));
        out.push('\n');
    }
    out
}
