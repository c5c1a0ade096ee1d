//! Moves and heap-free move lists.

use std::fmt;
use std::ops::Deref;

use arrayvec::ArrayVec;

use crate::{Bitboard, Square};

/// A move: where the piece starts, where it ends and which pieces it captures.
///
/// Two capture sequences with the same start, end and captured set are the same move (they give
/// the same position), so a move does not carry its path; [`Position::capture_paths`]
/// recovers the landing squares for PDN when they are needed.
///
/// [`Position::capture_paths`]: crate::Position::capture_paths
#[derive(Copy, Clone, Eq, PartialEq, Hash)]
pub struct Move {
    pub(crate) captured: u64,
    pub(crate) from: u8,
    pub(crate) to: u8,
    pub(crate) promotes: bool,
}

impl Move {
    pub(crate) const fn new(from: u32, to: u32, captured: u64, promotes: bool) -> Move {
        Move {
            captured,
            from: from as u8,
            to: to as u8,
            promotes,
        }
    }

    /// The square the moving piece starts on.
    pub const fn from(self) -> Square {
        Square::from_bit(self.from as u32)
    }

    /// The square the moving piece ends on.
    pub const fn to(self) -> Square {
        Square::from_bit(self.to as u32)
    }

    /// The captured pieces' squares (empty for a quiet move).
    pub const fn captured(self) -> Bitboard {
        Bitboard(self.captured)
    }

    /// Whether the move captures.
    pub const fn is_capture(self) -> bool {
        self.captured != 0
    }

    /// Whether a man becomes a king with this move.
    pub const fn promotes(self) -> bool {
        self.promotes
    }

    /// The same move seen from the other side of the board (every square `n` becomes `33 - n`).
    #[must_use]
    pub const fn flip(self) -> Move {
        Move {
            captured: Bitboard(self.captured).flip().0,
            from: 35 - self.from,
            to: 35 - self.to,
            promotes: self.promotes,
        }
    }

    /// Hub notation: `22-18`, or `from x to x captured...` with captured squares ascending.
    pub fn hub(self) -> HubMove {
        HubMove(self)
    }
}

/// Display adaptor writing a move in Hub notation; see [`Move::hub`].
#[derive(Copy, Clone, Debug)]
pub struct HubMove(Move);

impl fmt::Display for HubMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let m = self.0;
        if m.is_capture() {
            write!(f, "{}x{}", m.from(), m.to())?;
            for sq in m.captured() {
                write!(f, "x{sq}")?;
            }
            Ok(())
        } else {
            write!(f, "{}-{}", m.from(), m.to())
        }
    }
}

impl fmt::Display for Move {
    /// Hub notation (see [`Move::hub`]).
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.hub().fmt(f)
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Move({}{})",
            self.hub(),
            if self.promotes { "=K" } else { "" }
        )
    }
}

impl PartialOrd for Move {
    fn partial_cmp(&self, other: &Move) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Move {
    /// By start square, end square, then captured squares (as a sorted list), as printed.
    fn cmp(&self, other: &Move) -> std::cmp::Ordering {
        (self.from(), self.to())
            .cmp(&(other.from(), other.to()))
            .then_with(|| self.captured().iter().cmp(other.captured().iter()))
            .then(self.promotes.cmp(&other.promotes))
    }
}

/// Capacity of a [`MoveList`].
///
/// Worst cases with at most 12 pieces a side: quiet moves of 12 flying kings stay well below
/// 12 × 13 = 156, and the distinct capture moves of the dense positions the tests build stay
/// below 100; 256 leaves room for both.
pub const MAX_MOVES: usize = 256;

/// A list of moves on the stack: move generation never allocates.
#[derive(Clone, Default)]
pub struct MoveList(ArrayVec<Move, MAX_MOVES>);

impl MoveList {
    /// An empty list.
    pub fn new() -> MoveList {
        MoveList(ArrayVec::new())
    }

    #[inline]
    pub(crate) fn push(&mut self, m: Move) {
        let pushed = self.0.try_push(m);
        debug_assert!(pushed.is_ok(), "MAX_MOVES too small");
    }

    #[inline]
    pub(crate) fn clear(&mut self) {
        self.0.clear();
    }

    /// Sorts the moves by start, end and captured squares.
    pub fn sort(&mut self) {
        self.0.sort_unstable();
    }

    /// Keeps the moves for which `f` is true.
    pub fn retain(&mut self, f: impl FnMut(&mut Move) -> bool) {
        self.0.retain(f);
    }
}

impl Deref for MoveList {
    type Target = [Move];
    fn deref(&self) -> &[Move] {
        &self.0
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl IntoIterator for MoveList {
    type Item = Move;
    type IntoIter = arrayvec::IntoIter<Move, MAX_MOVES>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.0.iter()).finish()
    }
}
