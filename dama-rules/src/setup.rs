//! An unvalidated arrangement of pieces, as parsers produce it.

use crate::{Color, Piece, Position, Role, Square};

/// Pieces on squares and a side to move, not yet checked; [`Position::from_setup`] validates it.
#[derive(Clone, Debug, Eq, PartialEq)]
pub struct Setup {
    /// The piece on each square, by zero-based square index.
    pub board: [Option<Piece>; 32],
    /// Whose move it is.
    pub turn: Color,
}

impl Setup {
    /// An empty board with White to move.
    pub fn empty() -> Setup {
        Setup {
            board: [None; 32],
            turn: Color::White,
        }
    }

    /// The piece on `sq`.
    pub fn get(&self, sq: Square) -> Option<Piece> {
        self.board[sq.index()]
    }

    /// Puts `piece` on `sq` (or clears it).
    pub fn set(&mut self, sq: Square, piece: Option<Piece>) {
        self.board[sq.index()] = piece;
    }
}

impl Setup {
    /// What makes this setup no position, if anything, naming squares with `name` (the
    /// engine's numbers, or a file's own names): no pieces at all, more than 12 pieces a
    /// side, or a man on its own promotion row (White's 1..=4, Black's 29..=32), where it
    /// would have been crowned. A side with no pieces is a position: that side has lost.
    pub(crate) fn flaw(&self, name: impl Fn(Square) -> String) -> Option<String> {
        if self.board.iter().all(Option::is_none) {
            return Some(
                "there are no pieces at all: expected at least one (a side with none has lost)"
                    .into(),
            );
        }
        for color in Color::ALL {
            let n = self
                .board
                .iter()
                .flatten()
                .filter(|p| p.color == color)
                .count();
            if n > 12 {
                return Some(format!("{color} has {n} pieces: expected at most 12"));
            }
        }
        let crowned = Square::ALL.into_iter().find(|&sq| {
            self.get(sq)
                .is_some_and(|p| p.role == Role::Man && sq.row() == promotion_row(p.color))
        })?;
        let color = self.get(crowned).map(|p| p.color)?;
        let sq = name(crowned);
        Some(format!(
            "a {color} man on {sq}, {color}'s promotion row: a man there is crowned, expected \
             K{sq} (a king) or the man elsewhere"
        ))
    }
}

/// The row where `color`'s men are crowned: 0 (squares 1..=4) for White, 7 for Black.
fn promotion_row(color: Color) -> u8 {
    match color {
        Color::White => 0,
        Color::Black => 7,
    }
}

impl From<&Position> for Setup {
    fn from(pos: &Position) -> Setup {
        let mut setup = Setup::empty();
        setup.turn = pos.turn();
        for sq in Square::ALL {
            setup.set(sq, pos.piece_at(sq));
        }
        setup
    }
}
