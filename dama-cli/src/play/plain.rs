//! `dama play --plain`: the game as lines of text, for scripts, screen readers and tests.
//!
//! Before each of the player's moves: the board as the player sees it (the variant's own
//! square names and orientation, the player's pieces at the bottom), then, when they apply,
//! `capture compulsory: <squares> must capture (<captures>)` and
//! `moves without progress: N/LIMIT` (from [`dama_play::NO_PROGRESS_SHOWN`] moves), then
//! `fen <FEN>` (engine numbers). The player answers one move per line (Hub or PDN, in the
//! variant's square names), or `level N` (1..5 or a name); blank lines are ignored. A move
//! that is not legal here prints `illegal <reason>`, a line that is not a move at all (or a
//! level that does not exist) `refused <reason>` (`refused "foo" is not a move: type one like
//! 21-17`), each followed by the `fen` line again; `level N` prints
//! `level N <Name>`, with `; <why>` when a win counts at a lower level; each computer move
//! prints `computer <move>`; the end prints `result <1-0|0-1|1/2-1/2> score <points>`. End of
//! input ends quietly.

use std::io::{self, BufRead, Write};

use dama_rules::Color;
use dama_search::{Level, Signals};

use super::computer::Computer;
use super::layout::shown_square;
use super::model::{title, Model};
use crate::error::CliError;
use crate::exit::Status;

/// What the player typed: a line with text, or the end of the input.
enum Line {
    Text(String),
    NotText,
    End,
}

/// The next line that is not blank.
fn next_line(input: &mut impl BufRead) -> Result<Line, CliError> {
    let mut line = Vec::new();
    loop {
        line.clear();
        if input
            .read_until(b'\n', &mut line)
            .map_err(CliError::Input)?
            == 0
        {
            return Ok(Line::End);
        }
        match std::str::from_utf8(&line) {
            Ok(text) if text.trim().is_empty() => continue,
            Ok(text) => return Ok(Line::Text(text.trim().to_string())),
            Err(_) => return Ok(Line::NotText),
        }
    }
}

/// Plays one game on standard input and output.
pub fn run(mut model: Model, mut computer: Computer) -> Result<Status, CliError> {
    let stdin = io::stdin();
    let mut input = stdin.lock();
    let stdout = io::stdout();
    let mut out = stdout.lock();
    let mut show_board = true;
    loop {
        if let Some(result) = model.result_text() {
            write!(out, "{}", board(&model)).map_err(CliError::Output)?;
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
            writeln!(out, "computer {}", model.move_text(m)).map_err(CliError::Output)?;
            show_board = true;
            continue;
        }
        if show_board {
            write!(out, "{}{}", board(&model), turn_notes(&model)).map_err(CliError::Output)?;
        }
        writeln!(out, "fen {}", model.game().position().fen()).map_err(CliError::Output)?;
        out.flush().map_err(CliError::Output)?;
        show_board = false;
        let text = match next_line(&mut input)? {
            Line::End => return Ok(Status::Ok),
            Line::NotText => {
                writeln!(out, "refused the line is not UTF-8 text").map_err(CliError::Output)?;
                continue;
            }
            Line::Text(text) => text,
        };
        if let Some(level) = text.strip_prefix("level ") {
            match level.parse::<Level>() {
                Ok(level) => {
                    model.set_level(level);
                    let note = model
                        .level_note()
                        .map_or(String::new(), |n| format!("; {n}"));
                    writeln!(out, "level {} {}{note}", level.number(), title(level))
                }
                Err(_) => writeln!(
                    out,
                    "refused level \"{}\": expected 1..5 or a name (novice, easy, normal, \
                     strong, hard)",
                    level.trim().chars().take(20).collect::<String>()
                ),
            }
            .map_err(CliError::Output)?;
            continue;
        }
        let malformed = is_malformed(&model, &text);
        match model.type_move(&text) {
            Ok(_) => show_board = true,
            Err(why) if malformed => writeln!(out, "refused {why}").map_err(CliError::Output)?,
            Err(why) => writeln!(out, "illegal {why}").map_err(CliError::Output)?,
        }
    }
    out.flush().map_err(CliError::Output)?;
    Ok(Status::Ok)
}

/// Whether `text` is not a move at all (rather than a move that is not legal here).
fn is_malformed(model: &Model, text: &str) -> bool {
    let engine = dama_rules::notation::pdn::engine_text(model.game().variant(), text.trim());
    matches!(
        model.game().clone().play_text(&engine),
        Err(dama_rules::Error::MalformedMove { .. })
    )
}

/// The lines that tell the player what the turn asks: the compulsory capture, and the moves
/// without progress once they count.
fn turn_notes(model: &Model) -> String {
    let mut out = String::new();
    let must = model.must_capture();
    if must.any() {
        let mut names: Vec<String> = must.iter().map(|sq| model.name(sq)).collect();
        names.sort_by(|a, b| (a.len(), a).cmp(&(b.len(), b)));
        let captures: Vec<String> = model
            .game()
            .sorted_legal_moves()
            .iter()
            .map(|&m| model.move_text(m))
            .collect();
        out.push_str(&format!(
            "capture compulsory: {} must capture ({})\n",
            names.join(", "),
            captures.join(" ")
        ));
    }
    if let Some((moves, limit)) = model.no_progress() {
        out.push_str(&format!("moves without progress: {moves}/{limit}\n"));
    }
    out
}

/// The board as the player sees it: `w`/`b` men, `W`/`B` kings, `.` empty dark squares, and
/// the names of each row's dark squares on the right. The variant's own orientation (see
/// [`dama_rules::notation::pdn::mirrored`]); turned round when the player has the dark pieces.
pub fn board(model: &Model) -> String {
    let variant = model.game().variant();
    let pos = model.game().position();
    let turned = model.human() == Color::Black;
    let mut out = String::new();
    for row in 0..8u8 {
        let mut cells = Vec::new();
        let mut numbers = Vec::new();
        for col in 0..8u8 {
            match shown_square(variant, turned, row, col) {
                None => cells.push(' '),
                Some(sq) => {
                    cells.push(pos.piece_at(sq).map_or('.', |p| p.hub_char()));
                    numbers.push(format!("{:>2}", model.name(sq)));
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
