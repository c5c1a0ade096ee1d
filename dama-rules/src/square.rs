//! Squares of the board, numbered 1..=32 as in Italian (FID) notation.

use std::fmt;

use crate::Error;

/// One of the 32 dark squares, numbered 1..=32 as printed.
///
/// Square 1 is the top-left dark square as White sees the board; numbering runs left to right,
/// top to bottom, so 29..=32 is White's back row. Internally a square also knows its bit in a
/// [`Bitboard`](crate::Bitboard) (see the layout drawn there).
///
/// ```
/// use dama_rules::Square;
/// let sq = Square::new(22).unwrap();
/// assert_eq!(sq.number(), 22);
/// assert_eq!(sq.row(), 5);
/// assert!(Square::new(33).is_none());
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Ord, PartialOrd, Hash)]
pub struct Square(u8);

impl Square {
    /// All 32 squares in ascending order.
    pub const ALL: [Square; 32] = {
        let mut all = [Square(0); 32];
        let mut i = 0;
        while i < 32 {
            all[i] = Square(i as u8);
            i += 1;
        }
        all
    };

    /// The square with printed number `n`, or `None` outside 1..=32.
    pub const fn new(n: u8) -> Option<Square> {
        if n >= 1 && n <= 32 {
            Some(Square(n - 1))
        } else {
            None
        }
    }

    /// The printed number, 1..=32.
    pub const fn number(self) -> u8 {
        self.0 + 1
    }

    /// Zero-based index, 0..32 (number minus one).
    pub const fn index(self) -> usize {
        self.0 as usize
    }

    /// The square at zero-based index `i`, or `None` when `i >= 32`.
    pub const fn from_index(i: usize) -> Option<Square> {
        if i < 32 {
            Some(Square(i as u8))
        } else {
            None
        }
    }

    /// Row, 0 (top, White's far row) to 7 (bottom, White's back row).
    pub const fn row(self) -> u8 {
        self.0 / 4
    }

    /// Column, 0 (left) to 7 (right), as White sees the board.
    pub const fn column(self) -> u8 {
        2 * (self.0 % 4) + (self.row() & 1)
    }

    /// The square at `row`, `column` if that is a playing (dark) square.
    pub const fn from_coords(row: u8, column: u8) -> Option<Square> {
        if row >= 8 || column >= 8 || !(row + column).is_multiple_of(2) {
            return None;
        }
        Some(Square(row * 4 + column / 2))
    }

    /// The bit of this square in the padded bitboard layout.
    pub(crate) const fn bit(self) -> u32 {
        let n = self.0 as u32;
        n + (n + 4) / 8
    }

    /// The square of a bit of the padded layout. The bit must be a playing bit.
    pub(crate) const fn from_bit(bit: u32) -> Square {
        Square((bit - (bit + 5) / 9) as u8)
    }

    /// The same square seen by the other player (the board turned 180°): `33 - number`.
    pub const fn flip(self) -> Square {
        Square(31 - self.0)
    }
}

impl fmt::Display for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.number())
    }
}

impl fmt::Debug for Square {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Square({})", self.number())
    }
}

impl TryFrom<u8> for Square {
    type Error = Error;

    fn try_from(n: u8) -> Result<Square, Error> {
        Square::new(n).ok_or(Error::SquareOutOfRange { got: n.into() })
    }
}

impl std::str::FromStr for Square {
    type Err = Error;

    fn from_str(s: &str) -> Result<Square, Error> {
        let n: u32 = s.trim().parse().map_err(|_| Error::MalformedSquare {
            text: s.to_string(),
        })?;
        u8::try_from(n)
            .ok()
            .and_then(Square::new)
            .ok_or(Error::SquareOutOfRange { got: n })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn coordinates_follow_the_spec_formula() {
        for sq in Square::ALL {
            let n = sq.number() - 1;
            let r = n / 4;
            let c = 2 * (n % 4) + (r & 1);
            assert_eq!((sq.row(), sq.column()), (r, c));
            assert_eq!(Square::from_coords(r, c), Some(sq));
        }
    }

    #[test]
    fn bits_round_trip_and_skip_ghosts() {
        let mut seen = 0u64;
        for sq in Square::ALL {
            let b = sq.bit();
            assert!(b < 36 && ![4, 13, 22, 31].contains(&b), "{sq:?} -> {b}");
            assert_eq!(Square::from_bit(b), sq);
            seen |= 1 << b;
        }
        assert_eq!(seen.count_ones(), 32);
    }

    #[test]
    fn parse_rejects_out_of_range() {
        assert!("0".parse::<Square>().is_err());
        assert!("33".parse::<Square>().is_err());
        assert!("x".parse::<Square>().is_err());
        assert_eq!("7".parse::<Square>().unwrap().number(), 7);
    }
}
