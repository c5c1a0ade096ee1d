//! Pictures of a position: plain or ANSI-coloured text, and an SVG drawing.
//!
//! Pure functions producing strings (no I/O): `dama board` prints them, the Python bindings
//! show them in a terminal and in Jupyter. Italian orientation: square 1 at the top left,
//! White at the bottom.
//!
//! ```
//! use dama_rules::{notation::diagram, Position};
//! let pos = Position::start();
//! let text = diagram::text(&pos, None, false);
//! assert!(text.starts_with("b   b   b   b       1  2  3  4\n"), "{text}");
//! assert!(text.ends_with("white to move\n"));
//! assert_eq!(diagram::svg(&pos, None).matches("<circle").count(), 24);
//! ```

use std::fmt::Write as _;

use crate::{Color, Move, Position, Role, Square};

/// Whether `sq` is the start or end of `m` and whether `m` captures on it.
fn marked(m: Option<Move>, sq: Square) -> (bool, bool) {
    m.map_or((false, false), |m| {
        (m.from() == sq || m.to() == sq, m.captured().contains(sq))
    })
}

/// The board as text: each square two characters wide (`w`/`b` men, `W`/`B` kings, `.` an
/// empty square, `x` a square `highlight` captures on), square numbers on the right, then
/// the side to move. With `colour`, ANSI escapes colour the squares and the pieces and tint
/// `highlight`'s squares.
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
pub fn svg(pos: &Position, highlight: Option<Move>) -> String {
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
        let svg = svg(&Position::start(), None);
        assert_eq!(svg.matches("<circle").count(), 24);
        assert_eq!(svg.matches("<rect").count(), 64);
    }

    #[test]
    fn a_highlighted_capture_marks_the_captured_square() {
        let pos = crate::notation::fen::parse("W:W18:B14").expect("valid FEN");
        let m = pos.legal_moves()[0];
        // Drawn after the move, the captured square is empty and marked.
        let text = text(&pos.after(m), Some(m), false);
        assert_eq!(text.matches('x').count(), 1, "{text}");
        assert!(svg(&pos, Some(m)).contains("#b5523b"));
    }
}
