//! The validated position: pieces and side to move.

use std::fmt;

use crate::bitboard::BOARD;
use crate::zobrist::{BLACK_TO_MOVE, PIECE_KEYS};
use crate::{Bitboard, Color, Error, Move, Piece, Role, Setup, Square};

/// Squares of White's men at the start.
const WHITE_START: u64 = 0xF_7F80_0000;
/// Squares of Black's men at the start.
const BLACK_START: u64 = 0x1FEF;

/// A validated position: where the pieces are and whose move it is.
///
/// Small and `Copy`; equality and hashing cover pieces and side to move only (the repetition
/// identity); counters live in [`Game`](crate::Game). Positions hold at most 12 pieces a side.
///
/// ```
/// use dama_rules::Position;
/// let pos = Position::start();
/// assert_eq!(pos.legal_moves().len(), 7);
/// assert_eq!(pos.fen(), "W:W21,22,23,24,25,26,27,28,29,30,31,32:B1,2,3,4,5,6,7,8,9,10,11,12");
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash)]
pub struct Position {
    /// Pieces of each side, indexed by [`Color::index`].
    pub(crate) pieces: [u64; 2],
    /// Kings of both sides.
    pub(crate) kings: u64,
    pub(crate) turn: Color,
}

impl Default for Position {
    fn default() -> Position {
        Position::start()
    }
}

impl Position {
    /// The start position: White men on 21..=32, Black men on 1..=12, White to move.
    pub const fn start() -> Position {
        Position {
            pieces: [WHITE_START, BLACK_START],
            kings: 0,
            turn: Color::White,
        }
    }

    /// An empty board with `turn` to move.
    pub const fn empty(turn: Color) -> Position {
        Position {
            pieces: [0, 0],
            kings: 0,
            turn,
        }
    }

    /// The same pieces with `turn` to move.
    #[must_use]
    pub const fn with_turn(mut self, turn: Color) -> Position {
        self.turn = turn;
        self
    }

    /// Validates a [`Setup`].
    ///
    /// A side with no pieces is a position (a finished game: that side has lost), and so is
    /// one whose side to move has no move.
    ///
    /// ```
    /// use dama_rules::{notation::fen, Position};
    /// assert!(fen::parse("B:W18:B").is_ok());
    /// let err = fen::parse("W:W1:B32").unwrap_err().to_string();
    /// assert!(err.contains("white man on 1, white's promotion row"), "{err}");
    /// assert!(fen::parse("B:W:B").unwrap_err().to_string().contains("no pieces"));
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidPosition`] when there are no pieces at all, a side has more than 12
    /// pieces, or a man stands on its own promotion row (White's 1..=4, Black's 29..=32),
    /// naming the square.
    pub fn from_setup(setup: &Setup) -> Result<Position, Error> {
        if let Some(why) = setup.flaw(|sq| sq.to_string()) {
            return Err(Error::InvalidPosition { why });
        }
        let mut pos = Position::empty(setup.turn);
        for sq in Square::ALL {
            if let Some(piece) = setup.get(sq) {
                pos.put(sq, piece);
            }
        }
        Ok(pos)
    }

    /// The position with White's pieces `white`, Black's `black`, the kings among them
    /// `kings`, and `turn` to move: a fast constructor for programs that enumerate positions
    /// (endgame tables).
    ///
    /// ```
    /// use dama_rules::{Bitboard, Color, Position, Square};
    /// let sq = |n| Bitboard::from_square(Square::new(n).unwrap());
    /// let pos = Position::from_bitboards(sq(22), sq(18), sq(18), Color::White)?;
    /// assert_eq!(pos.fen(), "W:W22:BK18");
    /// # Ok::<_, dama_rules::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::InvalidPosition`] when the sides share a square, a king is on no piece, or a
    /// side has more than 12 pieces.
    pub fn from_bitboards(
        white: Bitboard,
        black: Bitboard,
        kings: Bitboard,
        turn: Color,
    ) -> Result<Position, Error> {
        let why = if (white & black).any() {
            "White and Black share a square".to_string()
        } else if (kings - (white | black)).any() {
            "a king stands on an empty square".to_string()
        } else if white.count() > 12 || black.count() > 12 {
            "a side has more than 12 pieces: expected at most 12".to_string()
        } else {
            return Ok(Position {
                pieces: [white.0, black.0],
                kings: kings.0,
                turn,
            });
        };
        Err(Error::InvalidPosition { why })
    }

    fn put(&mut self, sq: Square, piece: Piece) {
        let b = 1u64 << sq.bit();
        self.pieces[piece.color.index()] |= b;
        if piece.role == Role::King {
            self.kings |= b;
        }
    }

    /// Whose move it is.
    pub const fn turn(&self) -> Color {
        self.turn
    }

    /// All pieces of `color`.
    pub const fn pieces(&self, color: Color) -> Bitboard {
        Bitboard(self.pieces[color.index()])
    }

    /// The kings of `color`.
    pub const fn kings(&self, color: Color) -> Bitboard {
        Bitboard(self.pieces[color.index()] & self.kings)
    }

    /// The men of `color`.
    pub const fn men(&self, color: Color) -> Bitboard {
        Bitboard(self.pieces[color.index()] & !self.kings)
    }

    /// Every occupied square.
    pub const fn occupied(&self) -> Bitboard {
        Bitboard(self.pieces[0] | self.pieces[1])
    }

    /// Every empty square.
    pub const fn empty_squares(&self) -> Bitboard {
        Bitboard(!(self.pieces[0] | self.pieces[1]) & BOARD)
    }

    /// The piece on `sq`, if any.
    pub const fn piece_at(&self, sq: Square) -> Option<Piece> {
        let b = 1u64 << sq.bit();
        let color = if self.pieces[0] & b != 0 {
            Color::White
        } else if self.pieces[1] & b != 0 {
            Color::Black
        } else {
            return None;
        };
        let role = if self.kings & b != 0 {
            Role::King
        } else {
            Role::Man
        };
        Some(Piece { color, role })
    }

    /// Plays `m` without checking that it is legal.
    ///
    /// For hot paths (search, perft) with moves that came from this position's generator. Use
    /// [`Game::play`](crate::Game::play) or [`Position::play`] for moves from users.
    ///
    /// # Panics
    /// Never; but a move that is not legal here leaves a meaningless position (checked by a
    /// `debug_assert!` in debug builds when the mover is not the side to move).
    #[inline]
    pub fn play_unchecked(&mut self, m: Move) {
        *self = self.after(m);
    }

    /// [`Position::play_unchecked`] for a side known at compile time, so that the piece sets
    /// stay in registers.
    #[inline(always)]
    pub(crate) fn play_side<S: crate::movegen::Side>(&mut self, m: Move) {
        let us = S::COLOR.index();
        let from = 1u64 << m.from;
        let to = 1u64 << m.to;
        let king = ((self.kings & from != 0) | m.promotes) as u64;
        self.pieces[us] = self.pieces[us] & !from | to;
        self.pieces[us ^ 1] &= !m.captured;
        self.kings &= !(m.captured | from);
        self.kings |= to * king;
        self.turn = <S::Other as crate::movegen::Side>::COLOR;
    }

    /// Plays `m` if it is legal under rules `R`.
    ///
    /// ```
    /// use dama_rules::{variant::Italian, Position};
    /// let mut pos = Position::start();
    /// let m = pos.legal_moves()[0];
    /// pos.play::<Italian>(m)?;
    /// // The same move is not legal for Black: refused, nothing changes.
    /// let before = pos;
    /// assert!(pos.play::<Italian>(m).is_err());
    /// assert_eq!(pos, before);
    /// # Ok::<_, dama_rules::Error>(())
    /// ```
    ///
    /// # Errors
    /// [`Error::IllegalMove`] with the reason; the position is unchanged.
    pub fn play<R: crate::Rules>(&mut self, m: Move) -> Result<(), Error> {
        if self.moves::<R>().contains(&m) {
            self.play_unchecked(m);
            return Ok(());
        }
        Err(self.illegal_move_error::<R>(m))
    }

    /// The position after `m`, which is not checked; see [`Position::play_unchecked`].
    #[inline]
    #[must_use]
    pub fn after(&self, m: Move) -> Position {
        // Built from values, not by writing one side's set through an index into a copy: the
        // search reads the child whole right after, and a wide read over narrower fresh
        // writes waits for them to reach the cache (a store-forwarding stall, 7 % of the
        // search's time in a profile).
        let from = 1u64 << m.from;
        let to = 1u64 << m.to;
        let white = self.turn == Color::White;
        let (us, them) = if white {
            (self.pieces[0], self.pieces[1])
        } else {
            (self.pieces[1], self.pieces[0])
        };
        debug_assert!(us & from != 0, "{m:?} moves no piece of ours");
        let king = ((self.kings & from != 0) | m.promotes) as u64;
        // `from` may equal `to` when a capture loops back to its start square.
        let us = (us & !from) | to;
        let them = them & !m.captured;
        Position {
            pieces: if white { [us, them] } else { [them, us] },
            kings: (self.kings & !(m.captured | from)) | (to * king),
            turn: !self.turn,
        }
    }

    /// The Zobrist hash computed from scratch.
    pub fn hash(&self) -> u64 {
        let mut h = if self.turn == Color::Black {
            BLACK_TO_MOVE
        } else {
            0
        };
        for color in Color::ALL {
            for (role, set) in [
                (Role::Man, self.men(color)),
                (Role::King, self.kings(color)),
            ] {
                let p = Piece { color, role }.index();
                let mut bits = set.0;
                while bits != 0 {
                    h ^= PIECE_KEYS[p][bits.trailing_zeros() as usize];
                    bits &= bits - 1;
                }
            }
        }
        h
    }

    /// The hash of the position after `m`, given this position's hash `h`, updated
    /// incrementally; always equal to `self.after(m).hash()`.
    #[inline]
    pub fn hash_after(&self, h: u64, m: Move) -> u64 {
        let us = self.turn.index();
        let from_king = self.kings >> m.from & 1 != 0;
        let before = us * 2 + from_king as usize;
        let after = us * 2 + (from_king | m.promotes) as usize;
        let mut h = h ^ BLACK_TO_MOVE ^ PIECE_KEYS[before][m.from as usize];
        h ^= PIECE_KEYS[after][m.to as usize];
        let them = (us ^ 1) * 2;
        let mut cap = m.captured;
        while cap != 0 {
            let b = cap.trailing_zeros() as usize;
            h ^= PIECE_KEYS[them + (self.kings >> b & 1) as usize][b];
            cap &= cap - 1;
        }
        h
    }

    /// The same position seen from the other side: the board turned 180° and the colours
    /// swapped (including the side to move). Legal moves map by [`Move::flip`].
    #[must_use]
    pub fn flip(&self) -> Position {
        Position {
            pieces: [
                Bitboard(self.pieces[1]).flip().0,
                Bitboard(self.pieces[0]).flip().0,
            ],
            kings: Bitboard(self.kings).flip().0,
            turn: !self.turn,
        }
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Position({})", self.fen())
    }
}

impl fmt::Display for Position {
    /// A text diagram: White's view, `w`/`b` men, `W`/`B` kings, `.` empty dark squares.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for row in 0..8u8 {
            for col in 0..8u8 {
                let c = match Square::from_coords(row, col) {
                    None => ' ',
                    Some(sq) => self.piece_at(sq).map_or('.', Piece::hub_char),
                };
                write!(f, "{c}")?;
                if col < 7 {
                    write!(f, " ")?;
                }
            }
            writeln!(f)?;
        }
        write!(f, "{} to move", self.turn)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_squares_match_the_spec() {
        let p = Position::start();
        let white: Vec<u8> = p.pieces(Color::White).iter().map(Square::number).collect();
        let black: Vec<u8> = p.pieces(Color::Black).iter().map(Square::number).collect();
        assert_eq!(white, (21..=32).collect::<Vec<_>>());
        assert_eq!(black, (1..=12).collect::<Vec<_>>());
    }

    #[test]
    fn flip_of_start_is_start_with_black_to_move() {
        let p = Position::start().flip();
        assert_eq!(p.pieces, Position::start().pieces);
        assert_eq!(p.turn, Color::Black);
    }
}
