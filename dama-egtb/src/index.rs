//! Numbering positions of one material class.
//!
//! Sets of squares are `u32` masks over square indices (bit `n - 1` is square `n`, so bit 0 is
//! square 1, top left, and row `r` holds bits `4r..4r+4`). A position is stored with White to
//! move (Black to move is the same position turned round, [`Position::flip`]); its number is
//!
//! ```text
//! men configuration × kings per configuration + kings placement
//! men configuration = rank(white men among squares 5..=32) × C(28, black men)
//!                   + rank(black men among squares 1..=28)
//! kings placement   = rank(white kings among the squares no man holds) × C(free − wk, bk)
//!                   + rank(black kings among the squares left)
//! ```
//!
//! with colex ranks. White and Black men may be numbered onto the same square: such numbers
//! are holes (no position), stored as draws and skipped by every pass; with at most 6 pieces
//! they are a few per cent of a class. Positions of one men configuration are contiguous,
//! which is the unit the generator solves.
//!
//! [`Position::flip`]: dama_rules::Position::flip

use dama_rules::{Bitboard, Color, Position};

/// The most pieces of one kind (white men, ...) a class may hold.
pub const MAX_KIND: usize = 7;

/// Binomial coefficients `BINOM[n][k]`, `n <= 32`, `k <= MAX_KIND`.
pub(crate) const BINOM: [[u64; MAX_KIND + 1]; 33] = {
    let mut t = [[0u64; MAX_KIND + 1]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k <= MAX_KIND {
            t[n][k] = if n == 0 {
                0
            } else {
                t[n - 1][k - 1] + t[n - 1][k]
            };
            k += 1;
        }
        n += 1;
    }
    t
};

/// `C(n, k)` as a `usize`.
#[inline(always)]
pub(crate) const fn binom(n: u32, k: u32) -> usize {
    BINOM[n as usize][k as usize] as usize
}

/// The colex rank of `set` among the sets of its size: the sum of `C(s_i, i)` over its squares
/// `s_1 < s_2 < ...` (`i` from 1).
#[inline(always)]
pub(crate) fn rank(mut set: u32) -> usize {
    let mut r = 0;
    let mut i = 1;
    while set != 0 {
        r += BINOM[set.trailing_zeros() as usize][i];
        set &= set - 1;
        i += 1;
    }
    r as usize
}

/// The set of `k` squares with colex rank `r` (the inverse of [`rank`]).
pub(crate) fn unrank(mut r: usize, k: u32) -> u32 {
    let mut set = 0;
    for i in (1..=k as usize).rev() {
        let mut s = i - 1;
        while s < 31 && BINOM[s + 1][i] as usize <= r {
            s += 1;
        }
        r -= BINOM[s][i] as usize;
        set |= 1 << s;
    }
    set
}

/// `set` with the squares of `holes` taken out of the numbering (squares above a hole move
/// down one); `set` and `holes` are disjoint.
#[inline(always)]
pub(crate) fn squeeze(mut set: u32, holes: u32) -> u32 {
    let mut out = 0;
    while set != 0 {
        let sq = set.trailing_zeros();
        out |= 1 << (sq - (holes & ((1u32 << sq) - 1)).count_ones());
        set &= set - 1;
    }
    out
}

/// The inverse of [`squeeze`]: the `i`-th lowest bit of `set` goes to the `i`-th lowest square
/// not in `holes`.
#[inline(always)]
pub(crate) fn spread(mut set: u32, holes: u32) -> u32 {
    let mut free = !holes;
    let mut out = 0;
    while set != 0 {
        let skip = set.trailing_zeros();
        // Drop the `skip` lowest free squares, then take the next one.
        for _ in 0..skip {
            free &= free - 1;
        }
        out |= free & free.wrapping_neg();
        free &= free - 1;
        set = set.checked_shr(skip + 1).unwrap_or(0);
    }
    out
}

/// The next larger set with the same number of squares (Gosper's hack); `x` is not empty.
#[inline(always)]
pub(crate) fn next_set(x: u32) -> u32 {
    let low = x & x.wrapping_neg();
    let r = x.wrapping_add(low);
    (((r ^ x) >> 2) / low) | r
}

/// The squares of a padded bitboard as a `u32` mask of square indices.
#[inline(always)]
pub(crate) const fn compact(bits: u64) -> u32 {
    (bits & 0xF
        | bits >> 1 & 0xFF0
        | bits >> 2 & 0xF_F000
        | bits >> 3 & 0xFF0_0000
        | bits >> 4 & 0xF000_0000) as u32
}

/// The inverse of [`compact`].
#[inline(always)]
pub(crate) const fn expand(m: u32) -> u64 {
    let m = m as u64;
    m & 0xF
        | (m & 0xFF0) << 1
        | (m & 0xF_F000) << 2
        | (m & 0xFF0_0000) << 3
        | (m & 0xF000_0000) << 4
}

/// A set of squares turned 180°: square `n` becomes `33 - n`.
#[inline(always)]
pub(crate) const fn flip(m: u32) -> u32 {
    m.reverse_bits()
}

/// A position as four square masks, White to move.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default)]
pub struct Placement {
    /// White men (never on squares 1..=4).
    pub white_men: u32,
    /// White kings.
    pub white_kings: u32,
    /// Black men (never on squares 29..=32).
    pub black_men: u32,
    /// Black kings.
    pub black_kings: u32,
}

impl Placement {
    /// The placement of a position with White to move (or of `pos.flip()` when Black is to
    /// move, so that the side to move is always "white").
    #[inline]
    pub fn of(pos: &Position) -> Placement {
        let pos = if pos.turn() == Color::Black {
            pos.flip()
        } else {
            *pos
        };
        Placement {
            white_men: compact(pos.men(Color::White).bits()),
            white_kings: compact(pos.kings(Color::White).bits()),
            black_men: compact(pos.men(Color::Black).bits()),
            black_kings: compact(pos.kings(Color::Black).bits()),
        }
    }

    /// The position, White to move.
    #[inline]
    pub fn position(&self) -> Position {
        let bb = |m: u32| Bitboard::from_bits(expand(m)).unwrap_or_default();
        Position::from_bitboards(
            bb(self.white_men | self.white_kings),
            bb(self.black_men | self.black_kings),
            bb(self.white_kings | self.black_kings),
            Color::White,
        )
        .unwrap_or(Position::empty(Color::White))
    }

    /// Every occupied square.
    pub const fn occupied(&self) -> u32 {
        self.white_men | self.white_kings | self.black_men | self.black_kings
    }

    /// The material class.
    pub const fn material(&self) -> Material {
        Material {
            white_men: self.white_men.count_ones() as u8,
            white_kings: self.white_kings.count_ones() as u8,
            black_men: self.black_men.count_ones() as u8,
            black_kings: self.black_kings.count_ones() as u8,
        }
    }
}

/// A material class: how many men and kings each side has, White to move.
///
/// ```
/// use dama_egtb::Material;
/// let m: Material = "KKM-K".parse()?;
/// assert_eq!((m.white_kings, m.white_men, m.black_kings), (2, 1, 1));
/// assert_eq!(m.to_string(), "KKM-K");
/// assert_eq!(m.flip().to_string(), "K-KKM");
/// # Ok::<_, dama_egtb::Error>(())
/// ```
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default, PartialOrd, Ord)]
pub struct Material {
    /// White men.
    pub white_men: u8,
    /// White kings.
    pub white_kings: u8,
    /// Black men.
    pub black_men: u8,
    /// Black kings.
    pub black_kings: u8,
}

impl Material {
    /// The class `wm` white men, `wk` white kings against `bm`, `bk`.
    pub const fn new(wm: u8, wk: u8, bm: u8, bk: u8) -> Material {
        Material {
            white_men: wm,
            white_kings: wk,
            black_men: bm,
            black_kings: bk,
        }
    }

    /// Every piece.
    pub const fn pieces(self) -> u32 {
        (self.white_men + self.white_kings + self.black_men + self.black_kings) as u32
    }

    /// Men of both sides.
    pub const fn men(self) -> u32 {
        (self.white_men + self.black_men) as u32
    }

    /// The same class with the colours swapped (the positions with Black to move).
    pub const fn flip(self) -> Material {
        Material::new(
            self.black_men,
            self.black_kings,
            self.white_men,
            self.white_kings,
        )
    }

    /// Whether both sides have a piece and no kind holds more than [`MAX_KIND`]: a class the
    /// tables can hold.
    pub const fn is_table(self) -> bool {
        self.white_men as usize <= MAX_KIND
            && self.white_kings as usize <= MAX_KIND
            && self.black_men as usize <= MAX_KIND
            && self.black_kings as usize <= MAX_KIND
            && self.white_men + self.white_kings > 0
            && self.black_men + self.black_kings > 0
    }

    /// A dense key below 4096.
    pub(crate) const fn key(self) -> usize {
        ((self.white_men as usize * 8 + self.white_kings as usize) * 8 + self.black_men as usize)
            * 8
            + self.black_kings as usize
    }

    /// Number of men configurations (holes included).
    pub const fn configs(self) -> usize {
        binom(28, self.white_men as u32) * binom(28, self.black_men as u32)
    }

    /// Number of kings placements per men configuration.
    pub const fn kings_per_config(self) -> usize {
        let free = 32 - self.men();
        binom(free, self.white_kings as u32)
            * binom(free - self.white_kings as u32, self.black_kings as u32)
    }

    /// Number of indices (positions and holes).
    pub const fn len(self) -> usize {
        self.configs() * self.kings_per_config()
    }

    /// Whether the class has no index at all (never, for a table class).
    pub const fn is_empty(self) -> bool {
        self.len() == 0
    }

    /// The configuration number of the men `wm` (white) and `bm` (black).
    #[inline(always)]
    pub(crate) fn config_index(self, wm: u32, bm: u32) -> usize {
        rank(wm >> 4) * binom(28, self.black_men as u32) + rank(bm)
    }

    /// The men of configuration `c`, `None` for a hole (a white and a black man on one square).
    pub(crate) fn config(self, c: usize) -> Option<(u32, u32)> {
        let nb = binom(28, self.black_men as u32);
        let wm = unrank(c / nb, self.white_men as u32) << 4;
        let bm = unrank(c % nb, self.black_men as u32);
        (wm & bm == 0).then_some((wm, bm))
    }

    /// The kings placement number within a configuration whose men are `men`.
    #[inline(always)]
    pub(crate) fn kings_index(self, men: u32, wk: u32, bk: u32) -> usize {
        let free = 32 - self.men() - self.white_kings as u32;
        rank(squeeze(wk, men)) * binom(free, self.black_kings as u32) + rank(squeeze(bk, men | wk))
    }

    /// The number of `p`, which must be of this class.
    #[inline]
    pub fn index(self, p: &Placement) -> usize {
        debug_assert_eq!(p.material(), self);
        let men = p.white_men | p.black_men;
        self.config_index(p.white_men, p.black_men) * self.kings_per_config()
            + self.kings_index(men, p.white_kings, p.black_kings)
    }

    /// The placement numbered `i`, `None` for a hole or a number past the end.
    pub fn placement(self, i: usize) -> Option<Placement> {
        if i >= self.len() {
            return None;
        }
        let k = self.kings_per_config();
        let (wm, bm) = self.config(i / k)?;
        let (wk, bk) = self.kings_at(wm | bm, i % k);
        Some(Placement {
            white_men: wm,
            white_kings: wk,
            black_men: bm,
            black_kings: bk,
        })
    }

    /// The kings of placement `j` within a configuration whose men are `men`.
    pub(crate) fn kings_at(self, men: u32, j: usize) -> (u32, u32) {
        let free = 32 - self.men() - self.white_kings as u32;
        let nb = binom(free, self.black_kings as u32);
        let wk = spread(unrank(j / nb, self.white_kings as u32), men);
        let bk = spread(unrank(j % nb, self.black_kings as u32), men | wk);
        (wk, bk)
    }

    /// The potential of a men configuration: the forward steps the men have left before
    /// promotion. Every man move lowers it by one, so configurations solved in increasing
    /// potential only ever move into solved ones.
    pub(crate) fn potential(wm: u32, bm: u32) -> u32 {
        let mut p = 0;
        let mut s = wm;
        while s != 0 {
            p += s.trailing_zeros() / 4;
            s &= s - 1;
        }
        let mut s = bm;
        while s != 0 {
            p += 7 - s.trailing_zeros() / 4;
            s &= s - 1;
        }
        p
    }
}

impl std::fmt::Display for Material {
    /// Kings then men of White, `-`, the same of Black: `KKM-K`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let side = |k: u8, m: u8| "K".repeat(k as usize) + &"M".repeat(m as usize);
        write!(
            f,
            "{}-{}",
            side(self.white_kings, self.white_men),
            side(self.black_kings, self.black_men)
        )
    }
}

impl std::str::FromStr for Material {
    type Err = crate::Error;

    fn from_str(s: &str) -> Result<Material, crate::Error> {
        let bad = || crate::Error::Material {
            text: s.to_string(),
        };
        let (w, b) = s.split_once('-').ok_or_else(bad)?;
        let count = |side: &str| -> Result<(u8, u8), crate::Error> {
            let (mut k, mut m) = (0u8, 0u8);
            for c in side.chars() {
                match c {
                    'K' | 'k' => k += 1,
                    'M' | 'm' => m += 1,
                    _ => return Err(bad()),
                }
                if k as usize > MAX_KIND || m as usize > MAX_KIND {
                    return Err(bad());
                }
            }
            Ok((m, k))
        };
        let ((wm, wk), (bm, bk)) = (count(w)?, count(b)?);
        let m = Material::new(wm, wk, bm, bk);
        if m.is_table() {
            Ok(m)
        } else {
            Err(bad())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn compact_and_expand_are_inverse() {
        for sq in dama_rules::Square::ALL {
            let bits = Bitboard::from_square(sq).bits();
            assert_eq!(compact(bits), 1 << sq.index());
            assert_eq!(expand(1 << sq.index()), bits);
        }
    }

    #[test]
    fn flip_matches_the_board_turn() {
        for sq in dama_rules::Square::ALL {
            assert_eq!(flip(1 << sq.index()), 1 << sq.flip().index());
        }
    }

    #[test]
    fn unrank_inverts_rank() {
        for k in 0..4u32 {
            for r in 0..binom(32, k).min(3000) {
                assert_eq!(rank(unrank(r, k)), r);
            }
        }
    }

    #[test]
    fn spread_inverts_squeeze() {
        let holes = 0b1011_0010_0000_1001u32;
        let set = 0b0100_0101_0110_0100u32;
        assert_eq!(spread(squeeze(set, holes), holes), set);
    }
}
