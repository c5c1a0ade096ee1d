//! FEN in the PDN style: `W:W21-32:B1-12`.
//!
//! The reader accepts what real files contain: sections in either order, a side with no pieces
//! (`B:W18:B`), squares in any order, ranges (`21-32`, `K1-4`), surrounding quotes, a trailing
//! `.`, lower-case letters, and the move-counter sections `H` and `F` some programs append
//! (ignored). It rejects a square outside 1..=32, a square listed twice and unknown letters,
//! naming the offending item; and, as no game can reach them, a man on its own promotion row
//! (a white man on 1..=4, a black one on 29..=32: it would have been crowned) and a board with
//! no pieces at all, naming the square (see [`Position::from_setup`]).
//!
//! # Incomplete forms
//!
//! Accepted, because files write them and they can mean only one thing:
//! - an empty section, `:B` or `:W`: that side has no pieces (`B:W18:B`, the form PDN files
//!   use for a finished game);
//! - empty items, as a trailing or doubled comma leaves them (`W:W21,,22,:B1`);
//! - no `H` or `F` counter sections (they are ignored anyway).
//!
//! Rejected: a FEN without a `W` or a `B` section (`W:W22`, or the side to move alone). A side
//! with no pieces has its own form, the empty section, so a missing section is what a FEN cut
//! short looks like (a truncated line, a tag value broken at a colon); reading it as "no
//! pieces" would turn it silently into a finished game.

use crate::{quote, Color, Error, Piece, Position, Role, Setup, Square};

/// Reads a FEN.
///
/// ```
/// use dama_rules::{notation::fen, Color};
/// let pos = fen::parse("B:W18,K5:B")?;
/// assert_eq!(pos.turn(), Color::Black);
/// assert_eq!(fen::write(&pos), "B:WK5,18:B");
/// assert!(fen::parse("W:W33:B1").unwrap_err().to_string().contains("33"));
/// # Ok::<_, dama_rules::Error>(())
/// ```
///
/// # Errors
/// [`Error::MalformedFen`] quoting the FEN and naming the bad item, or saying why the pieces
/// are no position.
pub fn parse(fen: &str) -> Result<Position, Error> {
    let setup = parse_setup(fen)?;
    Position::from_setup(&setup).map_err(|e| Error::MalformedFen {
        fen: fen.to_string(),
        why: match e {
            Error::InvalidPosition { why } => why,
            other => other.to_string(),
        },
    })
}

/// Reads a FEN into an unvalidated [`Setup`].
///
/// # Errors
/// [`Error::MalformedFen`] quoting the FEN and naming the bad item.
pub fn parse_setup(fen: &str) -> Result<Setup, Error> {
    let bad = |why: String| Error::MalformedFen {
        fen: fen.to_string(),
        why,
    };
    let text = fen
        .trim()
        .trim_matches('"')
        .trim()
        .trim_end_matches('.')
        .trim();
    let mut sections = text.split(':');
    let mut setup = Setup::empty();
    setup.turn = match sections.next().map(str::trim) {
        Some("W" | "w") => Color::White,
        Some("B" | "b") => Color::Black,
        Some(other) => {
            return Err(bad(format!(
                "side to move {} is not W or B (a FEN reads like \"W:W21,22:B1,K2\": the side \
                 to move, then each side's squares, K before a king)",
                quote(other)
            )))
        }
        None => return Err(bad("it is empty".into())),
    };
    let mut seen_side = [false, false];
    for section in sections {
        let section = section.trim();
        let mut chars = section.chars();
        let color = match chars.next() {
            Some('W' | 'w') => Color::White,
            Some('B' | 'b') => Color::Black,
            Some('H' | 'h' | 'F' | 'f')
                if section[1..].trim().chars().all(|c| c.is_ascii_digit()) =>
            {
                continue
            }
            _ => {
                return Err(bad(format!(
                    "section {} does not start with W or B",
                    quote(section)
                )))
            }
        };
        if std::mem::replace(&mut seen_side[color.index()], true) {
            return Err(bad(format!("the {color} pieces are listed twice")));
        }
        for item in chars.as_str().split(',') {
            parse_item(item.trim(), color, &mut setup).map_err(bad)?;
        }
    }
    if let Some(color) = Color::ALL.into_iter().find(|c| !seen_side[c.index()]) {
        let letter = color.letter();
        return Err(bad(format!(
            "there is no {letter} section: expected the {color} pieces, or an empty \":{letter}\" \
             when {color} has none"
        )));
    }
    Ok(setup)
}

fn parse_item(item: &str, color: Color, setup: &mut Setup) -> Result<(), String> {
    if item.is_empty() {
        return Ok(());
    }
    let (role, squares) = match item.strip_prefix(['K', 'k']) {
        Some(rest) => (Role::King, rest),
        None => (Role::Man, item),
    };
    let number = |s: &str| -> Result<Square, String> {
        let n: u32 = s.trim().parse().map_err(|_| {
            format!(
                "item {} is not a square, a range or K with a square",
                quote(item)
            )
        })?;
        u8::try_from(n).ok().and_then(Square::new).ok_or_else(|| {
            format!(
                "square {n} in {} is out of range: expected 1..=32",
                quote(item)
            )
        })
    };
    let (lo, hi) = match squares.split_once('-') {
        Some((a, b)) => (number(a)?, number(b)?),
        None => {
            let s = number(squares)?;
            (s, s)
        }
    };
    if lo > hi {
        return Err(format!("range {} runs backwards", quote(item)));
    }
    for n in lo.number()..=hi.number() {
        let sq = Square::new(n).expect("within lo..=hi, both valid squares");
        if setup.get(sq).is_some() {
            return Err(format!("square {sq} is listed twice"));
        }
        setup.set(sq, Some(Piece { color, role }));
    }
    Ok(())
}

/// Writes the canonical FEN: side to move, `:W` list, `:B` list, squares ascending, kings
/// with `K`.
pub fn write(pos: &Position) -> String {
    let mut out = String::with_capacity(80);
    out.push(pos.turn().letter());
    for color in Color::ALL {
        out.push(':');
        out.push(color.letter());
        let mut first = true;
        for sq in pos.pieces(color) {
            if !first {
                out.push(',');
            }
            first = false;
            if pos.kings(color).contains(sq) {
                out.push('K');
            }
            out.push_str(&sq.to_string());
        }
    }
    out
}

impl Position {
    /// The canonical FEN (see [`write()`]).
    pub fn fen(&self) -> String {
        write(self)
    }
}

impl std::str::FromStr for Position {
    type Err = Error;

    /// Reads a FEN (see [`parse()`]).
    fn from_str(s: &str) -> Result<Position, Error> {
        parse(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_ranges_read_as_start() {
        assert_eq!(parse("W:W21-32:B1-12").unwrap(), Position::start());
    }

    #[test]
    fn tolerant_forms_are_accepted() {
        let p = parse("\"B:B12,K1:W32,28.\"").unwrap();
        assert_eq!(write(&p), "B:W28,32:BK1,12");
        assert_eq!(parse("W:WK1-4:B5").unwrap().kings(Color::White).count(), 4);
        assert!(parse("W:W21:B1:H0:F1").is_ok());
        assert_eq!(parse("B:W18:B").unwrap().pieces(Color::Black).count(), 0);
        assert_eq!(parse("W:W21,,22,:B1").unwrap().fen(), "W:W21,22:B1");
    }

    #[test]
    fn a_man_on_its_promotion_row_is_refused_and_named() {
        for (fen, needle) in [
            ("W:W1:B32", "a white man on 1, white's promotion row"),
            ("B:W1,22:B18", "a white man on 1,"),
            ("W:W4,22:B9", "a white man on 4,"),
            ("B:W22:B9,29", "a black man on 29, black's promotion row"),
            ("W:W22:B32", "expected K32 (a king)"),
        ] {
            let err = parse(fen).unwrap_err().to_string();
            assert!(err.contains(needle) && err.contains(fen), "{fen}: {err}");
        }
        // Kings there, and men on their own back rows, are fine.
        assert!(parse("W:WK1,29:BK32,4").is_ok());
    }

    #[test]
    fn no_pieces_at_all_is_refused_but_one_side_without_pieces_is_a_finished_game() {
        for fen in ["B:W:B", "W:B:W", "W:W,:B"] {
            let err = parse(fen).unwrap_err().to_string();
            assert!(err.contains("no pieces at all"), "{fen}: {err}");
        }
        let pos = parse("B:W18:B").unwrap();
        assert!(pos.legal_moves().is_empty());
        assert!(parse("W:W:B18").unwrap().legal_moves().is_empty());
    }

    #[test]
    fn a_missing_section_is_refused_and_named() {
        for (fen, needle) in [
            (
                "W:W22",
                "no B section: expected the black pieces, or an empty \":B\"",
            ),
            (
                "B:B1",
                "no W section: expected the white pieces, or an empty \":W\"",
            ),
            ("W", "no W section"),
            ("W:W22:H0:F1", "no B section"),
        ] {
            let err = parse(fen).unwrap_err().to_string();
            assert!(err.contains(needle), "{fen}: {err}");
        }
    }

    #[test]
    fn bad_items_are_named() {
        for (fen, needle) in [
            ("W:W0:B1", "0"),
            ("W:W5:B5", "listed twice"),
            ("W:W5:X1", "X1"),
            ("W:WQ5:B1", "Q5"),
            ("X:W5:B1", "\"X\""),
            ("", "W or B"),
            ("W:W5:B1:W6", "twice"),
            ("W:W21-32,1:B2-13", "13"),
        ] {
            let err = parse(fen).unwrap_err().to_string();
            assert!(err.contains(needle), "{fen}: {err}");
            assert!(err.contains(fen), "{fen}: {err}");
        }
    }
}
