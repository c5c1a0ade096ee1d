//! An unvalidated arrangement of pieces, as parsers produce it.

use crate::{Color, Piece, Position, Square};

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
