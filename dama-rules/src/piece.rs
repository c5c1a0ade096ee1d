//! Pieces: a colour and a kind.

use crate::Color;

/// The kind of a piece.
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash, Debug)]
pub enum Role {
    /// A man (pedina): moves forward one square.
    Man,
    /// A king (dama).
    King,
}

/// A piece on the board.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub struct Piece {
    /// Its side.
    pub color: Color,
    /// Man or king.
    pub role: Role,
}

impl Piece {
    /// The letter of the Hub position string: `w`, `b` for men, `W`, `B` for kings.
    pub const fn hub_char(self) -> char {
        match (self.color, self.role) {
            (Color::White, Role::Man) => 'w',
            (Color::White, Role::King) => 'W',
            (Color::Black, Role::Man) => 'b',
            (Color::Black, Role::King) => 'B',
        }
    }

    /// Index 0..4 (white man, white king, black man, black king), for tables.
    pub const fn index(self) -> usize {
        self.color.index() * 2 + self.role as usize
    }
}
