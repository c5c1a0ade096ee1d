//! Sets of squares as bits of a `u64`.
//!
//! The layout pads the board with one ghost bit every two rows so that every diagonal step is
//! a constant shift (4 or 5 bits) for every square, and a step off the left or right edge lands
//! on a ghost bit or outside the 36 used bits:
//!
//! ```text
//!  squares (as printed)            bits
//!     1   2   3   4              0   1   2   3      (ghost 4)
//!   5   6   7   8              5   6   7   8
//!     9  10  11  12              9  10  11  12      (ghost 13)
//!  13  14  15  16             14  15  16  17
//!    17  18  19  20             18  19  20  21      (ghost 22)
//!  21  22  23  24             23  24  25  26
//!    25  26  27  28             27  28  29  30      (ghost 31)
//!  29  30  31  32             32  33  34  35
//! ```
//!
//! Steps: up-left −5, up-right −4, down-left +4, down-right +5. Turning the board 180° is
//! reversing the 36 bits.

use std::fmt;
use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not, Sub};

use crate::Square;

/// The 32 playing bits of the padded layout.
pub(crate) const BOARD: u64 = 0xF_7FBF_DFEF;

/// A set of squares.
///
/// ```
/// use dama_rules::{Bitboard, Square};
/// let sq = |n| Square::new(n).unwrap();
/// let set = Bitboard::from_square(sq(5)) | Bitboard::from_square(sq(30));
/// assert_eq!(set.count(), 2);
/// assert_eq!(set.iter().map(Square::number).collect::<Vec<_>>(), [5, 30]);
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Default)]
pub struct Bitboard(pub(crate) u64);

impl Bitboard {
    /// The empty set.
    pub const EMPTY: Bitboard = Bitboard(0);
    /// All 32 squares.
    pub const ALL: Bitboard = Bitboard(BOARD);

    /// The set holding only `sq`.
    pub const fn from_square(sq: Square) -> Bitboard {
        Bitboard(1 << sq.bit())
    }

    /// The set of the given squares.
    pub fn from_squares<I: IntoIterator<Item = Square>>(squares: I) -> Bitboard {
        squares.into_iter().fold(Bitboard::EMPTY, |b, s| b.with(s))
    }

    /// The set of the squares of one row (0 = top).
    pub const fn row(r: u8) -> Bitboard {
        match Square::from_coords(r, r & 1) {
            Some(first) => Bitboard(0xF << first.bit()),
            None => Bitboard::EMPTY,
        }
    }

    /// Whether `sq` is in the set.
    pub const fn contains(self, sq: Square) -> bool {
        self.0 & (1 << sq.bit()) != 0
    }

    /// This set with `sq` added.
    #[must_use]
    pub const fn with(self, sq: Square) -> Bitboard {
        Bitboard(self.0 | 1 << sq.bit())
    }

    /// This set with `sq` removed.
    #[must_use]
    pub const fn without(self, sq: Square) -> Bitboard {
        Bitboard(self.0 & !(1 << sq.bit()))
    }

    /// Number of squares in the set.
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    /// Whether the set is empty.
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    /// Whether the set has at least one square.
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    /// The lowest-numbered square, if any.
    pub const fn first(self) -> Option<Square> {
        if self.0 == 0 {
            None
        } else {
            Some(Square::from_bit(self.0.trailing_zeros()))
        }
    }

    /// The squares in ascending order.
    pub const fn iter(self) -> Squares {
        Squares(self.0)
    }

    /// The set seen from the other side: every square `n` becomes `33 - n`.
    #[must_use]
    pub const fn flip(self) -> Bitboard {
        Bitboard(self.0.reverse_bits() >> 28)
    }

    /// The raw bits of the padded layout described in the module docs.
    pub const fn bits(self) -> u64 {
        self.0
    }

    /// The set with the raw bits `bits` of the padded layout (the inverse of
    /// [`Bitboard::bits`]); `None` when a bit is not one of the 32 squares.
    ///
    /// ```
    /// use dama_rules::Bitboard;
    /// assert_eq!(Bitboard::from_bits(Bitboard::ALL.bits()), Some(Bitboard::ALL));
    /// assert_eq!(Bitboard::from_bits(1 << 4), None); // a ghost bit
    /// ```
    pub const fn from_bits(bits: u64) -> Option<Bitboard> {
        if bits & !BOARD != 0 {
            None
        } else {
            Some(Bitboard(bits))
        }
    }
}

/// Iterator over the squares of a [`Bitboard`], ascending.
#[derive(Clone, Debug)]
pub struct Squares(u64);

impl Iterator for Squares {
    type Item = Square;

    #[inline]
    fn next(&mut self) -> Option<Square> {
        if self.0 == 0 {
            return None;
        }
        let bit = self.0.trailing_zeros();
        self.0 &= self.0 - 1;
        Some(Square::from_bit(bit))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Squares {}

impl IntoIterator for Bitboard {
    type Item = Square;
    type IntoIter = Squares;

    fn into_iter(self) -> Squares {
        self.iter()
    }
}

impl FromIterator<Square> for Bitboard {
    fn from_iter<I: IntoIterator<Item = Square>>(iter: I) -> Bitboard {
        Bitboard::from_squares(iter)
    }
}

macro_rules! bit_op {
    ($tr:ident, $f:ident, $tra:ident, $fa:ident, $op:tt) => {
        impl $tr for Bitboard {
            type Output = Bitboard;
            #[inline]
            fn $f(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $tra for Bitboard {
            #[inline]
            fn $fa(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Sub for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn sub(self, rhs: Bitboard) -> Bitboard {
        Bitboard(self.0 & !rhs.0)
    }
}

impl Not for Bitboard {
    type Output = Bitboard;
    #[inline]
    fn not(self) -> Bitboard {
        Bitboard(!self.0 & BOARD)
    }
}

impl fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set()
            .entries(self.iter().map(Square::number))
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn board_mask_is_the_32_squares() {
        let all: Bitboard = Square::ALL.into_iter().collect();
        assert_eq!(all, Bitboard::ALL);
        assert_eq!(Bitboard::ALL.count(), 32);
    }

    #[test]
    fn flip_maps_n_to_33_minus_n() {
        for sq in Square::ALL {
            assert_eq!(
                Bitboard::from_square(sq).flip(),
                Bitboard::from_square(sq.flip())
            );
            assert_eq!(sq.flip().number(), 33 - sq.number());
        }
    }

    #[test]
    fn rows_hold_four_squares_in_order() {
        for r in 0..8u8 {
            let nums: Vec<u8> = Bitboard::row(r).iter().map(Square::number).collect();
            assert_eq!(nums, (1..=4).map(|k| r * 4 + k).collect::<Vec<_>>());
        }
    }
}
