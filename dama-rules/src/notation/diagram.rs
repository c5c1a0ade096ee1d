//! Pictures of a position: plain or ANSI-coloured text, and an SVG drawing.
//!
//! The SVG draws the square numbers as strokes (seven-segment digits), not as `<text>`: text
//! needs a font, which a rasteriser (`dama board --png` uses resvg) would have to find on the
//! system, where there may be none; strokes look the same in every viewer, with no font.
//!
//! Pure functions producing strings (no I/O): `dama board` prints them, the Python bindings
//! show them in a terminal and in Jupyter. White is at the bottom. [`text`] and [`svg`] draw
//! the Italian board (square 1 at the top left); [`text_in`] and [`svg_in`] draw a variant's
//! own board: its square names ([`pdn::square_name`]) and, where its players see the board
//! in a mirror ([`pdn::mirrored`]: English, Russian, Brazilian, Czech), the engine's columns
//! drawn the other way round.
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

use super::pdn;
use crate::{Color, Move, Position, Role, Square, Variant};

/// The engine square drawn at `row`, `col` (0..8, from the top left) of `variant`'s board.
fn square_at(variant: Variant, row: u8, col: u8) -> Option<Square> {
    let col = if pdn::mirrored(variant) { 7 - col } else { col };
    Square::from_coords(row, col)
}

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
    text_in(Variant::Italian, pos, highlight, colour)
}

/// [`text`] for `variant`'s own board: its square names on the right, mirrored where its
/// players see the board so.
///
/// ```
/// use dama_rules::{notation::diagram, Position, Variant};
/// let text = diagram::text_in(Variant::English, &Position::start(), None, false);
/// assert!(text.starts_with("  b   b   b   b     1  2  3  4\n"), "{text}");
/// let text = diagram::text_in(Variant::Russian, &Position::start(), None, false);
/// assert!(text.contains("w   w   w   w      a1 c1 e1 g1\n"), "{text}");
/// ```
pub fn text_in(variant: Variant, pos: &Position, highlight: Option<Move>, colour: bool) -> String {
    let mut out = String::new();
    for row in 0..8u8 {
        let mut numbers = Vec::new();
        for col in 0..8u8 {
            let Some(sq) = square_at(variant, row, col) else {
                out.push_str(if colour { "\x1b[47m  " } else { "  " });
                continue;
            };
            numbers.push(format!("{:>2}", pdn::square_name(variant, sq)));
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
    svg_in(Variant::Italian, pos, highlight)
}

/// [`svg`] for `variant`'s own board: its square names (algebraic names drawn as
/// seven-segment letters and digits), mirrored where its players see the board so.
pub fn svg_in(variant: Variant, pos: &Position, highlight: Option<Move>) -> String {
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
            let Some(sq) = square_at(variant, row, col) else {
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
                r##"<path d="{}" fill="none" stroke="#f4f4f4" stroke-width="1.4" stroke-linecap="round" stroke-linejoin="round"/>"##,
                label_path(&pdn::square_name(variant, sq), x + 4, y + 4)
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

/// The seven segments of a digit: a (top), b, c (right, top to bottom), d (bottom), e, f
/// (left, bottom to top), g (middle); each as its two ends in a 5×8 box.
const SEGMENTS: [((u32, u32), (u32, u32)); 7] = [
    ((0, 0), (5, 0)),
    ((5, 0), (5, 4)),
    ((5, 4), (5, 8)),
    ((0, 8), (5, 8)),
    ((0, 4), (0, 8)),
    ((0, 0), (0, 4)),
    ((0, 4), (5, 4)),
];

/// The segments each digit lights, as bits a = 1 .. g = 64.
const DIGITS: [u8; 10] = [
    0b011_1111, // 0: abcdef
    0b000_0110, // 1: bc
    0b101_1011, // 2: abdeg
    0b100_1111, // 3: abcdg
    0b110_0110, // 4: bcfg
    0b110_1101, // 5: acdfg
    0b111_1101, // 6: acdefg
    0b000_0111, // 7: abc
    0b111_1111, // 8
    0b110_1111, // 9: abcdfg
];

/// The segments of the file letters a..h as seven-segment displays write them
/// (A, b, C, d, E, F, G, H).
const LETTERS: [u8; 8] = [
    0b111_0111, // A: abcefg
    0b111_1100, // b: cdefg
    0b011_1001, // C: adef
    0b101_1110, // d: bcdeg
    0b111_1001, // E: adefg
    0b111_0001, // F: aefg
    0b011_1101, // G: acdef
    0b111_0110, // H: bcefg
];

/// The segments of a label character: a digit or a file letter (none for anything else).
fn segments(c: u8) -> u8 {
    match c {
        b'0'..=b'9' => DIGITS[usize::from(c - b'0')],
        b'a'..=b'h' => LETTERS[usize::from(c - b'a')],
        _ => 0,
    }
}

/// The SVG path of the number `n` in seven-segment digits, its top-left corner at `x`, `y`.
#[cfg(test)]
fn number_path(n: u8, x: u32, y: u32) -> String {
    label_path(&n.to_string(), x, y)
}

/// The SVG path of a square's label (digits, or a file letter and a digit) in seven-segment
/// characters, its top-left corner at `x`, `y`.
fn label_path(label: &str, x: u32, y: u32) -> String {
    let mut d = String::new();
    let mut ox = x;
    for c in label.bytes() {
        // A 1 is narrow: its stroke 2 from the left, the next digit 5 on.
        let (shift, advance) = if c == b'1' { (3, 5) } else { (0, 8) };
        let lit = segments(c);
        for (s, ((x0, y0), (x1, y1))) in SEGMENTS.iter().enumerate() {
            if lit & (1 << s) != 0 {
                let (x0, x1) = (ox + x0 - shift, ox + x1 - shift);
                let _ = write!(d, "M{x0} {}L{x1} {}", y + y0, y + y1);
            }
        }
        ox += advance;
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_start_has_24_pieces_in_the_picture() {
        let svg = svg(&Position::start(), None);
        assert_eq!(svg.matches("<circle").count(), 24);
        assert_eq!(svg.matches("<rect").count(), 64);
        assert!(
            !svg.contains("<text"),
            "no text: a PNG made from it needs no font"
        );
    }

    #[test]
    fn numbers_are_drawn_as_seven_segment_strokes() {
        // 1 lights b and c, drawn narrow; 8 all seven; 10 is 1 then 0 to its right.
        assert_eq!(number_path(1, 0, 0), "M2 0L2 4M2 4L2 8");
        assert_eq!(number_path(8, 0, 0).matches('M').count(), 7);
        let ten = number_path(10, 0, 0);
        assert_eq!(ten.matches('M').count(), 2 + 6);
        assert!(ten.contains("M5 0L10 0"), "{ten}");
        assert!(number_path(28, 0, 0).contains("M8 0L13 0"));
    }

    #[test]
    fn a_mirrored_board_draws_the_engine_columns_the_other_way() {
        let pos = crate::notation::fen::parse("W:W32:B1").expect("valid FEN");
        // Italian: 1 at the top left, 32 at the bottom right; English: the other way round,
        // and named by the English numbers (the engine's 1 is English 4, its 32 English 29).
        let italian = text(&pos, None, false);
        assert!(italian.starts_with("b  "), "{italian}");
        let english = text_in(Variant::English, &pos, None, false);
        let lines: Vec<&str> = english.lines().collect();
        assert!(lines[0].starts_with("  .   .   .   b "), "{english}");
        assert!(lines[0].ends_with(" 1  2  3  4"), "{english}");
        assert!(lines[7].starts_with("w "), "{english}");
        assert!(lines[7].ends_with("29 30 31 32"), "{english}");
        // The algebraic names are drawn as letters: a1 is the SVG's bottom-left square.
        let svg = svg_in(Variant::Russian, &pos, None);
        assert!(
            svg.contains(&label_path("a1", 4, 7 * 60 + 4)),
            "a1 at the bottom left"
        );
        assert_ne!(label_path("a1", 0, 0), label_path("1", 0, 0));
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
