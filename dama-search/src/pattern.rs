//! Patterns of men over overlapping board windows, in the spirit of Scan's evaluation.
//!
//! The board is covered by nine overlapping 4×4 windows (rows and columns starting at 0, 2
//! and 4), each holding 8 playing squares. The men on a window's squares, read in square
//! order as ternary digits (0 empty or a king, 1 a White man, 2 a Black man), give an index
//! `0..6561`; each window has a table of weights by index, one for the middle game and one
//! for the endgame, blended by the number of pieces on the board (see [`crate::eval`]).
//!
//! In the padded 36-bit layout every window's squares sit at the same offsets
//! `{0, 1, 5, 6, 9, 10, 14, 15}` from its first bit, so an index costs a shift, four masks
//! and two lookups in a 256-entry table; the nine indices are computed from scratch at each
//! evaluation (no state to keep in step with the moves).
//!
//! Turning the board (square `n` ↔ `33 - n`) and swapping the colours maps window `w` to
//! window `8 - w` with its digits reversed and 1 ↔ 2 ([`mirror`]); the tables keep
//! `weight[8 - w][mirror(i)] = -weight[w][i]`, so the evaluation is colour-symmetric by
//! construction. Only windows 0..=4 are free (and half of window 4).
//!
//! ```
//! use dama_rules::Position;
//! use dama_search::pattern::{indices, mirror, WINDOWS};
//! let start = indices(&Position::start());
//! // The top-left window: Black men on its first six squares (digit 2), its last row empty.
//! assert_eq!(start[0], 2 * (1 + 3 + 9 + 27 + 81 + 243));
//! // The bottom-right window: its first row empty, White men (digit 1) on the rest.
//! assert_eq!(start[8], 9 + 27 + 81 + 243 + 729 + 2187);
//! assert_eq!(mirror(start[0]), start[8]);
//! assert_eq!(WINDOWS, 9);
//! ```

use dama_rules::{Color, Position};

/// Number of windows.
pub const WINDOWS: usize = 9;
/// Squares in a window.
pub const SQUARES: usize = 8;
/// Indices per window: `3^8`.
pub const ENTRIES: usize = 6561;
/// Windows with free weights (the others are their mirrors).
pub const FREE_WINDOWS: usize = 5;

/// The first bit (padded layout) of each window.
const BASE: [u32; WINDOWS] = [0, 1, 2, 9, 10, 11, 18, 19, 20];
/// A window's bits relative to its first bit, in square order.
const OFFSETS: [u32; SQUARES] = [0, 1, 5, 6, 9, 10, 14, 15];

/// The ternary value of each 8-bit set: bit `j` becomes digit 1 at `3^j`.
static TERNARY: [u16; 256] = ternary();

const fn ternary() -> [u16; 256] {
    let mut t = [0u16; 256];
    let mut b = 0;
    while b < 256 {
        let (mut v, mut p, mut j) = (0u16, 1u16, 0);
        while j < 8 {
            if b >> j & 1 == 1 {
                v += p;
            }
            p *= 3;
            j += 1;
        }
        t[b] = v;
        b += 1;
    }
    t
}

/// The window's 8 bits of `bits` (padded layout) as a byte, in square order.
#[inline(always)]
const fn gather(bits: u64, base: u32) -> usize {
    let x = bits >> base;
    ((x & 0x3) | (x >> 3 & 0xC) | (x >> 5 & 0x30) | (x >> 8 & 0xC0)) as usize
}

/// The nine windows' indices of `pos`'s men.
#[inline(always)]
pub fn indices(pos: &Position) -> [u16; WINDOWS] {
    let white = pos.men(Color::White).bits();
    let black = pos.men(Color::Black).bits();
    let mut out = [0u16; WINDOWS];
    for (o, &base) in out.iter_mut().zip(&BASE) {
        *o = TERNARY[gather(white, base)] + 2 * TERNARY[gather(black, base)];
    }
    out
}

/// [`indices`] the slow way, square by square, to test the fast one against.
pub fn indices_by_squares(pos: &Position) -> [u16; WINDOWS] {
    let mut out = [0u16; WINDOWS];
    for (w, o) in out.iter_mut().enumerate() {
        let (row0, col0) = (2 * (w / 3) as u8, 2 * (w % 3) as u8);
        let mut digits = Vec::new();
        for sq in (1..=32).filter_map(dama_rules::Square::new) {
            let (r, c) = (sq.row(), sq.column());
            if (row0..row0 + 4).contains(&r) && (col0..col0 + 4).contains(&c) {
                digits.push(if pos.men(Color::White).contains(sq) {
                    1
                } else if pos.men(Color::Black).contains(sq) {
                    2
                } else {
                    0
                });
            }
        }
        *o = digits.iter().rev().fold(0, |acc, d| acc * 3 + d);
    }
    out
}

/// The index of the same men seen from the other side: digits reversed, colours swapped.
pub const fn mirror(index: u16) -> u16 {
    let (mut i, mut out, mut j) = (index, 0u16, 0);
    while j < SQUARES {
        let d = i % 3;
        i /= 3;
        let swapped = if d == 0 { 0 } else { 3 - d };
        out = out * 3 + swapped;
        j += 1;
    }
    out
}

/// Where a window's index lands among the free weights: `(free window, index, sign)`, or
/// `None` for the indices of the middle window that are their own mirror (weight 0).
#[inline]
pub fn free_slot(window: usize, index: u16) -> Option<(usize, u16, i32)> {
    match window {
        0..=3 => Some((window, index, 1)),
        4 => {
            let m = mirror(index);
            match index.cmp(&m) {
                std::cmp::Ordering::Less => Some((4, index, 1)),
                std::cmp::Ordering::Greater => Some((4, m, -1)),
                std::cmp::Ordering::Equal => None,
            }
        }
        _ => Some((WINDOWS - 1 - window, mirror(index), -1)),
    }
}

/// The bit positions of a window (for tests and documentation).
pub fn window_bits(window: usize) -> [u32; SQUARES] {
    OFFSETS.map(|o| BASE[window] + o)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn windows_are_four_by_four_blocks_of_playing_squares() {
        const BOARD: u64 = 0xF_7FBF_DFEF;
        let mut cover = [0u32; 36];
        for w in 0..WINDOWS {
            for b in window_bits(w) {
                assert_eq!(BOARD >> b & 1, 1, "window {w} bit {b}");
                cover[b as usize] += 1;
            }
        }
        // Every playing square is in at least one window; the centre ones in four.
        for (b, &c) in cover.iter().enumerate() {
            assert_eq!(c > 0, BOARD >> b & 1 == 1, "bit {b}");
        }
        assert_eq!(cover.iter().max(), Some(&4));
    }

    #[test]
    fn mirror_is_an_involution() {
        for i in 0..ENTRIES as u16 {
            assert_eq!(mirror(mirror(i)), i);
        }
        assert_eq!(mirror(1), 2 * 3u16.pow(7));
    }

    #[test]
    fn free_slots_pair_each_window_with_its_mirror() {
        assert_eq!(free_slot(8, 5), Some((0, mirror(5), -1)));
        assert_eq!(free_slot(2, 5), Some((2, 5, 1)));
        assert_eq!(free_slot(4, 0), None);
    }
}
