//! `dama board`: a position as coloured text in the terminal, or as an SVG picture.

use std::fmt::Write as _;
use std::io::{self, IsTerminal, Write};
use std::path::Path;

use dama_rules::{Color, Move, Position, Role, Square};

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
        std::fs::write(path, picture(pos, highlight))
            .map_err(|e| CliError::Usage(format!("cannot write {}: {e}", path.display())))?;
    }
    let colour = !plain && io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none();
    let mut out = io::stdout().lock();
    out.write_all(text(pos, highlight, colour).as_bytes())
        .map_err(CliError::Output)?;
    Ok(Status::Ok)
}

fn marked(m: Option<Move>, sq: Square) -> (bool, bool) {
    m.map_or((false, false), |m| {
        (m.from() == sq || m.to() == sq, m.captured().contains(sq))
    })
}

/// The board as text: each square two characters wide, square numbers on the right.
pub fn text(pos: &Position, highlight: Option<Move>, colour: bool) -> String {
    let mut out = String::new();
    for row in 0..8u8 {
        let mut numbers = Vec::new();
        for col in 0..8u8 {
            let Some(sq) = Square::from_coords(row, col) else {
                out.push_str(if colour { "\x1b[47m  " } else { "  " });
                continue;
            };
            numbers.push(format!("{:>2}", sq.number()));
            let (moved, captured) = marked(highlight, sq);
            let c = match pos.piece_at(sq) {
                Some(p) => p.hub_char(),
                None if captured => 'x',
                None => '.',
            };
            if colour {
                let bg = if moved || captured { "43" } else { "42" };
                let fg = match pos.piece_at(sq).map(|p| p.color) {
                    Some(Color::White) => "1;97",
                    _ => "1;30",
                };
                let _ = write!(out, "\x1b[{bg};{fg}m{c} ");
            } else {
                out.push(c);
                out.push(' ');
            }
        }
        if colour {
            out.push_str("\x1b[0m");
        }
        let _ = writeln!(out, "   {}", numbers.join(" "));
    }
    let _ = writeln!(out, "{} to move", pos.turn());
    out
}

/// The board as an SVG picture, Italian orientation (square 1 top left, White at the
/// bottom), square numbers in the corners, the highlighted move's squares tinted.
pub fn picture(pos: &Position, highlight: Option<Move>) -> String {
    const S: u32 = 60;
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{w}" viewBox="0 0 {w} {w}">"#,
        w = 8 * S
    );
    for row in 0..8u8 {
        for col in 0..8u8 {
            let (x, y) = (u32::from(col) * S, u32::from(row) * S);
            let Some(sq) = Square::from_coords(row, col) else {
                let _ = writeln!(
                    out,
                    r##"<rect x="{x}" y="{y}" width="{S}" height="{S}" fill="#eedfc0"/>"##
                );
                continue;
            };
            let (moved, captured) = marked(highlight, sq);
            let fill = if moved {
                "#c9a227"
            } else if captured {
                "#b5523b"
            } else {
                "#5d8a4e"
            };
            let _ = writeln!(
                out,
                r#"<rect x="{x}" y="{y}" width="{S}" height="{S}" fill="{fill}"/>"#
            );
            let _ = writeln!(
                out,
                r##"<text x="{}" y="{}" font-family="sans-serif" font-size="11" fill="#f4f4f4">{}</text>"##,
                x + 3,
                y + 12,
                sq.number()
            );
            if let Some(p) = pos.piece_at(sq) {
                let (body, edge) = match p.color {
                    Color::White => ("#f7f3e8", "#6b6b6b"),
                    Color::Black => ("#262626", "#000000"),
                };
                let (cx, cy) = (x + S / 2, y + S / 2 + 2);
                let _ = writeln!(
                    out,
                    r#"<circle cx="{cx}" cy="{cy}" r="{}" fill="{body}" stroke="{edge}" stroke-width="2"/>"#,
                    S * 2 / 5
                );
                if p.role == Role::King {
                    let _ = writeln!(
                        out,
                        r##"<circle cx="{cx}" cy="{cy}" r="{}" fill="none" stroke="#d4a017" stroke-width="3"/>"##,
                        S / 5
                    );
                }
            }
        }
    }
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_has_24_pieces_in_the_picture() {
        let svg = picture(&Position::start(), None);
        assert_eq!(svg.matches("<circle").count(), 24);
        assert_eq!(svg.matches("<rect").count(), 64);
    }
}
