//! The Hub protocol's position string: side to move and 32 characters, one per square in
//! 1..=32 order (`w`, `b` men, `W`, `B` kings, `e` empty).

use crate::{quote, Color, Error, Piece, Position, Role, Setup, Square};

/// Reads a Hub position string like `Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww`.
///
/// ```
/// use dama_rules::{notation::hub, Position};
/// let text = hub::write(&Position::start());
/// assert_eq!(text, "Wbbbbbbbbbbbbeeeeeeeewwwwwwwwwwww");
/// assert_eq!(hub::parse(&text)?, Position::start());
/// # Ok::<_, dama_rules::Error>(())
/// ```
///
/// # Errors
/// [`Error::MalformedHubPosition`] quoting the text.
pub fn parse(text: &str) -> Result<Position, Error> {
    let bad = |why: String| Error::MalformedHubPosition {
        text: text.to_string(),
        why,
    };
    let chars: Vec<char> = text.trim().chars().collect();
    if chars.len() != 33 {
        return Err(bad(format!(
            "expected a side letter and 32 squares (33 characters), got {}",
            chars.len()
        )));
    }
    let mut setup = Setup::empty();
    setup.turn = match chars[0] {
        'W' | 'w' => Color::White,
        'B' | 'b' => Color::Black,
        c => {
            let side = c.to_string();
            return Err(bad(format!("side to move {} is not W or B", quote(&side))));
        }
    };
    for (sq, &c) in Square::ALL.iter().zip(&chars[1..]) {
        let piece = match c {
            'w' => Some((Color::White, Role::Man)),
            'W' => Some((Color::White, Role::King)),
            'b' => Some((Color::Black, Role::Man)),
            'B' => Some((Color::Black, Role::King)),
            'e' | '.' => None,
            _ => {
                let found = c.to_string();
                return Err(bad(format!(
                    "square {sq} has {}: expected w, b, W, B or e",
                    quote(&found)
                )));
            }
        };
        setup.set(*sq, piece.map(|(color, role)| Piece { color, role }));
    }
    Position::from_setup(&setup).map_err(|e| bad(e.to_string()))
}

/// Writes the Hub position string.
pub fn write(pos: &Position) -> String {
    let mut out = String::with_capacity(33);
    out.push(pos.turn().letter());
    for sq in Square::ALL {
        out.push(pos.piece_at(sq).map_or('e', Piece::hub_char));
    }
    out
}
