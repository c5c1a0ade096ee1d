//! A small neural evaluation (NNUE-style) for Italian: sparse piece-square inputs, a first
//! layer kept as an accumulator that follows the moves, and a small dense tail, all in
//! integer arithmetic (see docs/tuning.md for the choices and the measurements).
//!
//! # The network
//!
//! - **Inputs**, per perspective (White's and Black's): 4 kinds × 32 squares = [`INPUTS`]
//!   features: own men, own kings, the opponent's men, the opponent's kings, each on the
//!   square seen from that side (Black's board turned 180°, so square `n` is `33 - n`).
//!   No buckets: with 32 squares and two piece types the whole board is 128 bits, and the
//!   data (tens of millions of positions at most here) would spread thin over buckets.
//! - **Accumulator**: per perspective [`HIDDEN`] `i16`, the bias plus the first layer's
//!   column of every feature present. A move changes 2 to 14 features; the search adds and
//!   subtracts those columns instead of summing all again ([`Network::update`]).
//! - **Tail**: the side to move's accumulator then the other's, clipped to `0..=QA`
//!   ([`QA`] stands for 1.0), a dense layer of [`TAIL`] outputs (`i16` weights, scale
//!   [`QB`], `i32` sums), clipped again, and one output (`i32` weights, scale [`QO`]): the
//!   evaluation in hundredths of a man for the side to move.
//!
//! The integer inference has two paths that give the same value bit for bit (a test):
//! [`Network::evaluate`] from an accumulator (AVX2 intrinsics where the CPU has them, with
//! the tail in bytes, `vpmaddubsw`, when its weights fit [`TAIL8_MAX`]; elsewhere fixed-size
//! chunks that the compiler turns into SIMD: SSE2's `pmaddwd`, NEON on ARM), and
//! [`Network::evaluate_scalar`], square by square from scratch.
//!
//! # The net file (version 1)
//!
//! All integers little-endian:
//!
//! | bytes | content |
//! |---|---|
//! | 8 | magic `DAMANNUE` |
//! | 4 | version, `1` |
//! | 1 | variant (its place in `Variant::ALL`; 0 Italian) |
//! | 4 × 3 | inputs, hidden, tail: [`INPUTS`], [`HIDDEN`], [`TAIL`] |
//! | 2 × inputs × hidden | first layer, by feature then hidden unit, `i16` |
//! | 2 × hidden | first layer's bias, `i16` |
//! | 2 × tail × 2 hidden | tail weights, by output then input, `i16` |
//! | 4 × tail | tail bias, `i32` |
//! | 4 × tail | output weights, `i32` |
//! | 4 | output bias, `i32` |
//! | 8 | FNV-1a 64 checksum of every byte before it |
//!
//! The first layer's weights must keep every accumulator inside `i16` (at most 24 features
//! are on at once): a file whose bias plus the 24 largest columns could overflow is refused.

use dama_rules::{Bitboard, Color, Position, Variant};

use crate::Error;

/// The net file's first bytes.
pub const MAGIC: &[u8; 8] = b"DAMANNUE";
/// The net file format's version.
pub const VERSION: u32 = 1;
/// Input features per perspective: 4 kinds × 32 squares.
pub const INPUTS: usize = 128;
/// Accumulator width per perspective.
pub const HIDDEN: usize = 128;
/// Outputs of the dense layer after the accumulators.
pub const TAIL: usize = 16;
/// The integer that stands for 1.0 in the activations.
pub const QA: i32 = 127;
/// The scale of the tail weights (a power of two: the tail's sums are shifted by its log).
pub const QB: i32 = 64;
/// `log2(QB)`.
const QB_SHIFT: u32 = 6;
/// The scale of the output weights.
pub const QO: i32 = 1024;
/// The most features on at once (24 pieces).
const MAX_ON: i32 = 24;
/// Evaluations are kept inside this bound, below every table or proven score.
pub const EVAL_BOUND: i32 = 20_000;

/// The weights of a network, as integers.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    /// The variant it was trained for.
    pub variant: Variant,
    /// First layer, `[feature][hidden]`.
    pub w1: Box<[[i16; HIDDEN]; INPUTS]>,
    /// First layer's bias.
    pub b1: [i16; HIDDEN],
    /// Tail, `[output][input]`, the side to move's half first.
    pub w2: Box<[[i16; 2 * HIDDEN]; TAIL]>,
    /// Tail bias (scale `QA × QB`).
    pub b2: [i32; TAIL],
    /// Output weights (scale `QO`).
    pub w3: [i32; TAIL],
    /// Output bias (scale `QA × QO`).
    pub b3: i32,
    /// The tail weights as `i8` when every one is within ±[`TAIL8_MAX`] (see
    /// [`Network::tail8_of`]): the AVX2 path then multiplies bytes (`vpmaddubsw`), 32 products
    /// an instruction instead of 16.
    pub(crate) tail8: Option<Box<[[i8; 2 * HIDDEN]; TAIL]>>,
    /// Whether, on the byte path, each `i16` lane of a row's `vpmaddubsw` sums stays inside
    /// `i16` over the whole row (see [`Network::tail8_wide_of`]): the row's products are then
    /// added in `i16` and widened once, not every four.
    pub(crate) tail8_wide: bool,
}

/// The largest tail weight (in absolute value) that the byte path takes: four products of a
/// clipped input (at most [`QA`]) and such a weight still sum inside `i16`.
pub const TAIL8_MAX: i16 = 64;

/// The accumulators of a position: `[White's perspective, Black's]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(align(64))]
pub struct Accumulator(pub [[i16; HIDDEN]; 2]);

impl Default for Accumulator {
    fn default() -> Accumulator {
        Accumulator([[0; HIDDEN]; 2])
    }
}

/// The piece sets of a position in feature order for White's perspective: White's men,
/// White's kings, Black's men, Black's kings.
#[inline(always)]
fn sets(pos: &Position) -> [Bitboard; 4] {
    [
        pos.men(Color::White),
        pos.kings(Color::White),
        pos.men(Color::Black),
        pos.kings(Color::Black),
    ]
}

/// The feature of set `kind` (in [`sets`] order) on square index `sq` for perspective `p`
/// (0 White, 1 Black).
#[inline(always)]
fn feature(p: usize, kind: usize, sq: usize) -> usize {
    if p == 0 {
        kind * 32 + sq
    } else {
        (kind ^ 2) * 32 + (31 - sq)
    }
}

/// The square index (0 to 31) of each bit of the padded layout of [`Bitboard::bits`].
const SQUARE_OF_BIT: [u8; 64] = {
    let mut t = [0u8; 64];
    let mut bit = 0;
    while bit < 36 {
        t[bit] = (bit - (bit + 5) / 9) as u8;
        bit += 1;
    }
    t
};

/// Appends to `list` (holding `n`) the features of White's perspective of set `kind` on the
/// squares of the padded bits `bits`; past the list's end they are dropped (two positions
/// differ by at most 24 pieces of each sign).
#[inline(always)]
fn push_features(list: &mut [u8; 32], n: &mut usize, kind: usize, mut bits: u64) {
    while bits != 0 {
        let bit = bits.trailing_zeros() as usize;
        bits &= bits - 1;
        if *n < list.len() {
            list[*n] = (kind * 32) as u8 + SQUARE_OF_BIT[bit & 63];
            *n += 1;
        }
    }
}

/// The feature of Black's perspective for a feature `f` of White's: own and opponent
/// swapped (`kind ^ 2`, bit 6) and the square turned (`31 - sq`, the low five bits), so
/// `f ^ 95` ([`mirror_feature`] in one operation).
const MIRROR: usize = 0b101_1111;

/// The first-layer column of perspective `p` (0 White, 1 Black) for a feature `f` of
/// White's perspective (what [`Network::changed`] lists).
#[inline(always)]
fn column(p: usize, f: u8) -> usize {
    (usize::from(f) ^ if p == 0 { 0 } else { MIRROR }) & (INPUTS - 1)
}

/// The features on for the side to move's perspective (own men, own kings, the opponent's
/// men, the opponent's kings, squares from its side), in increasing order.
pub fn active_features(pos: &Position) -> Vec<u8> {
    let p = usize::from(pos.turn() == Color::Black);
    let mut out: Vec<u8> = sets(pos)
        .iter()
        .enumerate()
        .flat_map(|(kind, b)| b.iter().map(move |sq| feature(p, kind, sq.index()) as u8))
        .collect();
    out.sort_unstable();
    out
}

/// The same features for the other perspective: own and opponent swapped, the board turned.
pub fn mirror_feature(f: u8) -> u8 {
    let (kind, sq) = (f / 32, f % 32);
    (kind ^ 2) * 32 + (31 - sq)
}

/// The pieces an accumulator is made of: the four sets (White's men, White's kings,
/// Black's men, Black's kings). The empty board's accumulator is the bias alone
/// ([`Network::bias`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pieces(pub [Bitboard; 4]);

impl Pieces {
    /// The pieces of `pos`.
    #[inline(always)]
    pub fn of(pos: &Position) -> Pieces {
        Pieces(sets(pos))
    }

    /// The number of column changes that an update from `self` to `to` costs.
    #[inline(always)]
    pub fn changes(&self, to: &Pieces) -> u32 {
        (0..4).map(|k| (self.0[k] ^ to.0[k]).count()).sum()
    }

    /// The number of pieces: the columns of a refresh.
    #[inline(always)]
    pub fn count(&self) -> u32 {
        self.0.iter().map(|b| b.count()).sum()
    }
}

impl Accumulator {
    /// The number of column changes that [`Network::update`] from `from` to `to` costs.
    #[inline(always)]
    pub fn changes(from: &Position, to: &Position) -> u32 {
        Pieces::of(from).changes(&Pieces::of(to))
    }
}

impl Network {
    /// A network of these weights (the trainer's quantized net, a file's contents), with
    /// the byte copy of the tail ([`Network::tail8_of`]) made here. The ranges are not
    /// checked ([`Network::from_bytes`] checks them).
    pub fn new(
        variant: Variant,
        w1: Box<[[i16; HIDDEN]; INPUTS]>,
        b1: [i16; HIDDEN],
        w2: Box<[[i16; 2 * HIDDEN]; TAIL]>,
        b2: [i32; TAIL],
        w3: [i32; TAIL],
        b3: i32,
    ) -> Network {
        Network {
            variant,
            w1,
            b1,
            tail8: Network::tail8_of(&w2),
            tail8_wide: Network::tail8_wide_of(&w2),
            w2,
            b2,
            w3,
            b3,
        }
    }

    /// The tail weights as bytes, when every one is within ±[`TAIL8_MAX`] (`None` otherwise:
    /// the AVX2 path then multiplies `i16`); [`Network::new`] keeps them.
    pub fn tail8_of(w2: &[[i16; 2 * HIDDEN]; TAIL]) -> Option<Box<[[i8; 2 * HIDDEN]; TAIL]>> {
        if w2.iter().flatten().any(|w| w.abs() > TAIL8_MAX) {
            return None;
        }
        let mut out = Box::new([[0i8; 2 * HIDDEN]; TAIL]);
        for (row, src) in out.iter_mut().zip(w2.iter()) {
            for (d, &w) in row.iter_mut().zip(src.iter()) {
                *d = w as i8;
            }
        }
        Some(out)
    }

    /// Whether the byte path may add each row's products in `i16`: every weight within
    /// ±[`TAIL8_MAX`], and for every row and lane the 16 products that `vpmaddubsw` and
    /// `vpaddw` gather into one `i16` lane (bytes `32k + 2i` and `32k + 2i + 1` of the row,
    /// `k` in `0..8`) at most `QA × Σ|w|` ≤ 32767. The adds wrap, so a sum whose end fits
    /// is exact whatever its partial sums. The embedded net's worst lane is 15494.
    pub fn tail8_wide_of(w2: &[[i16; 2 * HIDDEN]; TAIL]) -> bool {
        Network::tail8_of(w2).is_some()
            && w2.iter().all(|row| {
                (0..16).all(|i| {
                    let lane = (0..2 * HIDDEN / 32)
                        .flat_map(|k| [32 * k + 2 * i, 32 * k + 2 * i + 1])
                        .map(|x| i32::from(row[x].abs()))
                        .sum::<i32>();
                    QA * lane <= i32::from(i16::MAX)
                })
            })
    }

    /// The accumulators of the empty board: the bias alone.
    pub fn bias(&self) -> Accumulator {
        Accumulator([self.b1; 2])
    }

    /// The accumulators of `pos`, from scratch.
    pub fn refresh(&self, pos: &Position) -> Accumulator {
        let mut acc = self.bias();
        for (kind, b) in sets(pos).iter().enumerate() {
            for sq in b.iter() {
                for (p, half) in acc.0.iter_mut().enumerate() {
                    add(half, &self.w1[feature(p, kind, sq.index())]);
                }
            }
        }
        acc
    }

    /// Turns `acc`, the accumulators of `from`, into those of `to` by the columns of the
    /// features that differ (in place: no copy of the accumulators).
    #[inline]
    #[allow(unsafe_code)]
    pub fn update(&self, acc: &mut Accumulator, from: &Position, to: &Position) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked on the line above), all `update_avx2` needs.
            return unsafe { self.update_avx2(acc, None, &Pieces::of(from), &Pieces::of(to)) };
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return self.update_simd128(acc, None, &Pieces::of(from), &Pieces::of(to));
        #[allow(unreachable_code)]
        self.update_portable(acc, None, &Pieces::of(from), &Pieces::of(to));
    }

    /// Writes into `dst` the accumulators of `to`, from `src`, those of `from` (one pass,
    /// no copy first): AVX2 where the CPU has it, else the portable code.
    #[inline]
    #[allow(unsafe_code)]
    pub fn update_into(
        &self,
        dst: &mut Accumulator,
        src: &Accumulator,
        from: &Position,
        to: &Position,
    ) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked on the line above), all `update_avx2` needs.
            return unsafe { self.update_avx2(dst, Some(src), &Pieces::of(from), &Pieces::of(to)) };
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return self.update_simd128(dst, Some(src), &Pieces::of(from), &Pieces::of(to));
        #[allow(unreachable_code)]
        self.update_portable(dst, Some(src), &Pieces::of(from), &Pieces::of(to));
    }

    /// The evaluation of the position of pieces `to` for the side to move `turn`, with its
    /// accumulators written into `dst` on the way: from `src`, those of `from`, or with no
    /// `src` from `dst`'s own (those of `from`). [`Network::update_into`] then
    /// [`Network::evaluate`] in one call: with AVX2 the accumulators go from the update to
    /// the tail in registers, and the CPU is asked once.
    #[inline]
    #[allow(unsafe_code)]
    pub fn update_evaluate(
        &self,
        dst: &mut Accumulator,
        src: Option<&Accumulator>,
        from: &Pieces,
        to: &Pieces,
        turn: Color,
    ) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked on the line above), all
            // `update_evaluate_avx2` needs.
            return unsafe { self.update_evaluate_avx2(dst, src, from, to, turn) };
        }
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        {
            self.update_simd128(dst, src, from, to);
            return self.evaluate_simd128(dst, turn);
        }
        #[allow(unreachable_code)]
        self.update_evaluate_portable(dst, src, from, to, turn)
    }

    /// [`Network::update_evaluate`] in the portable code: out of line on x86-64, where it is
    /// the exception, so that the callers stay small enough to be inlined.
    #[cfg_attr(target_arch = "x86_64", inline(never))]
    fn update_evaluate_portable(
        &self,
        dst: &mut Accumulator,
        src: Option<&Accumulator>,
        from: &Pieces,
        to: &Pieces,
        turn: Color,
    ) -> i32 {
        self.update_portable(dst, src, from, to);
        self.evaluate_portable(dst, turn)
    }

    /// [`Network::evaluate_portable`], out of line on x86-64 (as above).
    #[cfg_attr(target_arch = "x86_64", inline(never))]
    fn evaluate_fallback(&self, acc: &Accumulator, turn: Color) -> i32 {
        self.evaluate_portable(acc, turn)
    }

    /// Writes into `gone` and `came` the columns to take away and to add, as features of
    /// White's perspective, and returns how many of each. The caller's arrays, not returned
    /// ones: the copy of returned arrays read as a register what was just written byte by
    /// byte, and stalled the store forwarding (4 % of the samples, `perf annotate`).
    #[inline(always)]
    fn changed(
        from: &Pieces,
        to: &Pieces,
        gone: &mut [u8; 32],
        came: &mut [u8; 32],
    ) -> (usize, usize) {
        let (mut ng, mut nc) = (0, 0);
        for kind in 0..4 {
            let (a, b) = (from.0[kind].bits(), to.0[kind].bits());
            push_features(gone, &mut ng, kind, a & !b);
            push_features(came, &mut nc, kind, b & !a);
        }
        (ng, nc)
    }

    /// [`Network::update_into`] (or, with no `src`, [`Network::update`]) in AVX2 intrinsics:
    /// each half of the accumulator is held in eight registers while every changed column is
    /// taken away or added, then stored once.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    fn update_avx2(
        &self,
        dst: &mut Accumulator,
        src: Option<&Accumulator>,
        from: &Pieces,
        to: &Pieces,
    ) {
        // SAFETY: this function has AVX2, all `update_regs_avx2` needs.
        unsafe { self.update_regs_avx2(dst, src, from, to) };
    }

    /// [`Network::update_evaluate`] in AVX2: [`Network::update_regs_avx2`] then
    /// [`Network::tail_avx2`] on the registers it leaves.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    fn update_evaluate_avx2(
        &self,
        dst: &mut Accumulator,
        src: Option<&Accumulator>,
        from: &Pieces,
        to: &Pieces,
        turn: Color,
    ) -> i32 {
        // SAFETY: this function has AVX2, all `update_regs_avx2` and `tail_avx2` need.
        let halves = unsafe { self.update_regs_avx2(dst, src, from, to) };
        let us = usize::from(turn == Color::Black);
        // SAFETY: as above.
        unsafe { self.tail_avx2(&halves[us], &halves[1 - us]) }
    }

    /// The AVX2 update, which also hands back the two halves it stored, as registers.
    ///
    /// # Safety
    /// The CPU must have AVX2. Not a `target_feature` function, so that it can be
    /// `inline(always)`: inlined into the AVX2 functions that call it, it is their code
    /// (a call between them, with the halves passed through memory, cost 30 instructions
    /// an evaluation).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn update_regs_avx2(
        &self,
        dst: &mut Accumulator,
        src: Option<&Accumulator>,
        from: &Pieces,
        to: &Pieces,
    ) -> [[std::arch::x86_64::__m256i; HIDDEN / 16]; 2] {
        use std::arch::x86_64::*;
        const CHUNKS: usize = HIDDEN / 16;
        let (mut gone, mut came) = ([0u8; 32], [0u8; 32]);
        let (ng, nc) = Self::changed(from, to, &mut gone, &mut came);
        let mut halves = [[_mm256_setzero_si256(); CHUNKS]; 2];
        for (p, regs) in halves.iter_mut().enumerate() {
            let base = src
                .map_or(&dst.0[p], |s| &s.0[p])
                .as_ptr()
                .cast::<__m256i>();
            for (k, r) in regs.iter_mut().enumerate() {
                // SAFETY: `k < CHUNKS`: the read lies inside the half's `HIDDEN` values.
                *r = unsafe { _mm256_loadu_si256(base.add(k)) };
            }
            for &g in &gone[..ng] {
                let col = self.w1[column(p, g)].as_ptr().cast::<__m256i>();
                for (k, r) in regs.iter_mut().enumerate() {
                    // SAFETY: `k < CHUNKS`: the read lies inside the column.
                    *r = _mm256_sub_epi16(*r, unsafe { _mm256_loadu_si256(col.add(k)) });
                }
            }
            for &c in &came[..nc] {
                let col = self.w1[column(p, c)].as_ptr().cast::<__m256i>();
                for (k, r) in regs.iter_mut().enumerate() {
                    // SAFETY: `k < CHUNKS`: the read lies inside the column.
                    *r = _mm256_add_epi16(*r, unsafe { _mm256_loadu_si256(col.add(k)) });
                }
            }
            let out = dst.0[p].as_mut_ptr().cast::<__m256i>();
            for (k, r) in regs.iter().enumerate() {
                // SAFETY: `k < CHUNKS`: the write lies inside the half's `HIDDEN` values.
                unsafe { _mm256_storeu_si256(out.add(k), *r) };
            }
        }
        halves
    }

    /// [`Network::update_into`] (or, with no `src`, [`Network::update`]) in WebAssembly's
    /// SIMD128: each half of the accumulator held in sixteen registers of eight `i16` while
    /// the changed columns are taken away and added (wrapping, as the portable code).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    fn update_simd128(
        &self,
        dst: &mut Accumulator,
        src: Option<&Accumulator>,
        from: &Pieces,
        to: &Pieces,
    ) {
        use std::arch::wasm32::*;
        let (mut gone, mut came) = ([0u8; 32], [0u8; 32]);
        let (ng, nc) = Self::changed(from, to, &mut gone, &mut came);
        for p in 0..2 {
            let mut regs = load_half(src.map_or(&dst.0[p], |s| &s.0[p]));
            for &g in &gone[..ng] {
                let col = load_half(&self.w1[column(p, g)]);
                for (r, c) in regs.iter_mut().zip(col) {
                    *r = i16x8_sub(*r, c);
                }
            }
            for &c in &came[..nc] {
                let col = load_half(&self.w1[column(p, c)]);
                for (r, c) in regs.iter_mut().zip(col) {
                    *r = i16x8_add(*r, c);
                }
            }
            store_half(&mut dst.0[p], &regs);
        }
    }

    /// [`Network::evaluate`] in WebAssembly's SIMD128: the clipped inputs in 32 registers
    /// of eight `i16`, each tail row 32 `i32x4.dot_i16x8_s` into a sum of four lanes.
    /// Integer sums in another order: the same value bit for bit as the portable code (no
    /// partial sum overflows, by [`Network::check_range`]).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    fn evaluate_simd128(&self, acc: &Accumulator, turn: Color) -> i32 {
        use std::arch::wasm32::*;
        const CHUNKS: usize = HIDDEN / 8;
        let us = usize::from(turn == Color::Black);
        let zero = i16x8_splat(0);
        let top = i16x8_splat(QA as i16);
        let mut input = [zero; 2 * CHUNKS];
        for (half, side) in [us, 1 - us].into_iter().enumerate() {
            for (d, v) in input[half * CHUNKS..]
                .iter_mut()
                .zip(load_half(&acc.0[side]))
            {
                *d = i16x8_min(i16x8_max(v, zero), top);
            }
        }
        // Eight rows at a time: each input register is loaded once for the eight, and the
        // eight sums stay in registers (V8 has sixteen). Measured against one row at a time:
        // `dama bench --depth 16`'s positions in node, 893 against 960 CPU-ms (three runs
        // each, interleaved), the same nodes.
        let mut sums = [0i32; TAIL];
        for (rows, out) in self.w2.chunks_exact(8).zip(sums.chunks_exact_mut(8)) {
            let mut lanes = [i32x4_splat(0); 8];
            for (k, &x) in input.iter().enumerate() {
                for (l, row) in lanes.iter_mut().zip(rows) {
                    *l = i32x4_add(*l, i32x4_dot_i16x8(x, load8(&row[8 * k..])));
                }
            }
            for (o, l) in out.iter_mut().zip(lanes) {
                *o = i32x4_extract_lane::<0>(l)
                    .wrapping_add(i32x4_extract_lane::<1>(l))
                    .wrapping_add(i32x4_extract_lane::<2>(l))
                    .wrapping_add(i32x4_extract_lane::<3>(l));
            }
        }
        self.finish(&sums)
    }

    /// The portable update: `dst` becomes `src` (if given) and then takes the changed
    /// columns.
    #[inline(always)]
    fn update_portable(
        &self,
        dst: &mut Accumulator,
        src: Option<&Accumulator>,
        from: &Pieces,
        to: &Pieces,
    ) {
        let (mut gone, mut came) = ([0u8; 32], [0u8; 32]);
        let (ng, nc) = Self::changed(from, to, &mut gone, &mut came);
        for p in 0..2 {
            let out = &mut dst.0[p];
            if let Some(src) = src {
                *out = src.0[p];
            }
            for &g in &gone[..ng] {
                sub(out, &self.w1[column(p, g)]);
            }
            for &c in &came[..nc] {
                add(out, &self.w1[column(p, c)]);
            }
        }
    }

    /// The evaluation for the side to move `turn` from the accumulators, in hundredths of a
    /// man (the fast path: AVX2 where the CPU has it, else the portable code).
    #[inline]
    #[allow(unsafe_code)]
    pub fn evaluate(&self, acc: &Accumulator, turn: Color) -> i32 {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2 (checked on the line above), all `evaluate_avx2`
            // needs. Measured: `dama bench --depth 17` with a net, 1.23-1.46 M nodes/s with
            // the portable SSE2 code, the figures of docs/tuning.md with AVX2.
            return unsafe { self.evaluate_avx2(acc, turn) };
        }
        // WebAssembly has no run-time feature test: a module is built with SIMD128 or not
        // (dama-wasm's is, for the browsers that run it).
        #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
        return self.evaluate_simd128(acc, turn);
        #[allow(unreachable_code)]
        self.evaluate_fallback(acc, turn)
    }

    /// [`Network::evaluate`] in AVX2 intrinsics: the clipped accumulators stay in sixteen
    /// registers of 16 `i16`, each tail row is 16 `vpmaddwd` into two sums, and four rows'
    /// sums are reduced together by `vphaddd`. Integer sums in another order: the same value
    /// bit for bit (no partial sum overflows, by [`Network::check_range`]). The compiler's
    /// vectorisation of [`Network::evaluate_portable`] worked on 128-bit halves with spills:
    /// measured in docs/tuning.md.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    #[allow(unsafe_code)]
    fn evaluate_avx2(&self, acc: &Accumulator, turn: Color) -> i32 {
        use std::arch::x86_64::*;
        const CHUNKS: usize = HIDDEN / 16;
        let us = usize::from(turn == Color::Black);
        let mut halves = [[_mm256_setzero_si256(); CHUNKS]; 2];
        for (regs, side) in halves.iter_mut().zip([us, 1 - us]) {
            let src = acc.0[side].as_ptr().cast::<__m256i>();
            for (k, r) in regs.iter_mut().enumerate() {
                // SAFETY: `k < CHUNKS`, so the 32 bytes read lie inside the half's
                // `HIDDEN` values; unaligned loads need no alignment.
                *r = unsafe { _mm256_loadu_si256(src.add(k)) };
            }
        }
        // SAFETY: this function has AVX2, all `tail_avx2` needs.
        unsafe { self.tail_avx2(&halves[0], &halves[1]) }
    }

    /// The tail in AVX2 from the side to move's accumulator `us` and the other's `them`, as
    /// registers: clipped, then in bytes or in `i16` (see [`Network::evaluate_avx2`]).
    ///
    /// # Safety
    /// The CPU must have AVX2 (inlined into AVX2 functions, as
    /// [`Network::update_regs_avx2`]).
    #[cfg(target_arch = "x86_64")]
    #[inline(always)]
    #[allow(unsafe_code)]
    unsafe fn tail_avx2(
        &self,
        us: &[std::arch::x86_64::__m256i; HIDDEN / 16],
        them: &[std::arch::x86_64::__m256i; HIDDEN / 16],
    ) -> i32 {
        use std::arch::x86_64::*;
        const CHUNKS: usize = HIDDEN / 16;
        let zero = _mm256_setzero_si256();
        let top = _mm256_set1_epi16(QA as i16);
        let mut input = [zero; 2 * CHUNKS];
        for (d, &v) in input.iter_mut().zip(us.iter().chain(them)) {
            *d = _mm256_min_epi16(_mm256_max_epi16(v, zero), top);
        }
        // The tail units' outputs times their weights, eight units a lane each.
        let mut out = zero;
        if let Some(tail8) = &self.tail8 {
            // Bytes: the clipped inputs (0..=QA) packed 32 a register, in their order.
            let mut bytes = [zero; CHUNKS];
            for (k, b) in bytes.iter_mut().enumerate() {
                let packed = _mm256_packus_epi16(input[2 * k], input[2 * k + 1]);
                *b = _mm256_permute4x64_epi64::<0b11_01_10_00>(packed);
            }
            let ones = _mm256_set1_epi16(1);
            if self.tail8_wide {
                for j in (0..TAIL).step_by(8) {
                    let mut s = [zero; 8];
                    for (q, sq) in s.iter_mut().enumerate() {
                        let row = tail8[j + q].as_ptr().cast::<__m256i>();
                        let mut pairs = zero;
                        for (k, &b) in bytes.iter().enumerate() {
                            // SAFETY: `k < CHUNKS`: the read lies inside the row's
                            // `2 × HIDDEN` bytes.
                            let w = unsafe { _mm256_loadu_si256(row.add(k)) };
                            // Wrapping adds whose end fits `i16` (`tail8_wide_of`).
                            pairs = _mm256_add_epi16(pairs, _mm256_maddubs_epi16(b, w));
                        }
                        *sq = _mm256_madd_epi16(pairs, ones);
                    }
                    out = _mm256_add_epi32(out, units_avx2(self, j, sum8_avx2(&s)));
                }
                return output_avx2(self, out);
            }
            for j in (0..TAIL).step_by(8) {
                let mut s = [zero; 8];
                for (q, sq) in s.iter_mut().enumerate() {
                    let row = tail8[j + q].as_ptr().cast::<__m256i>();
                    let mut sum = zero;
                    for k in (0..CHUNKS).step_by(2) {
                        // SAFETY: `k + 1 < CHUNKS`: both reads lie inside the row's
                        // `2 × HIDDEN` bytes.
                        let (wa, wb) = unsafe {
                            (
                                _mm256_loadu_si256(row.add(k)),
                                _mm256_loadu_si256(row.add(k + 1)),
                            )
                        };
                        // Four products of at most QA × TAIL8_MAX each: inside i16.
                        let pairs = _mm256_add_epi16(
                            _mm256_maddubs_epi16(bytes[k], wa),
                            _mm256_maddubs_epi16(bytes[k + 1], wb),
                        );
                        sum = _mm256_add_epi32(sum, _mm256_madd_epi16(pairs, ones));
                    }
                    *sq = sum;
                }
                out = _mm256_add_epi32(out, units_avx2(self, j, sum8_avx2(&s)));
            }
            return output_avx2(self, out);
        }
        for j in (0..TAIL).step_by(8) {
            let mut s = [zero; 8];
            for (q, sq) in s.iter_mut().enumerate() {
                let row = self.w2[j + q].as_ptr().cast::<__m256i>();
                let (mut a, mut b) = (zero, zero);
                for k in (0..2 * CHUNKS).step_by(2) {
                    // SAFETY: `k + 1 < 2 × CHUNKS`: both reads lie inside the row's
                    // `2 × HIDDEN` values.
                    let (wa, wb) = unsafe {
                        (
                            _mm256_loadu_si256(row.add(k)),
                            _mm256_loadu_si256(row.add(k + 1)),
                        )
                    };
                    a = _mm256_add_epi32(a, _mm256_madd_epi16(input[k], wa));
                    b = _mm256_add_epi32(b, _mm256_madd_epi16(input[k + 1], wb));
                }
                *sq = _mm256_add_epi32(a, b);
            }
            out = _mm256_add_epi32(out, units_avx2(self, j, sum8_avx2(&s)));
        }
        output_avx2(self, out)
    }

    /// The output from the tail's sums (without their bias).
    #[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
    #[inline(always)]
    fn finish(&self, sums: &[i32; TAIL]) -> i32 {
        let mut out = self.b3;
        for ((&s, &b), &w) in sums.iter().zip(&self.b2).zip(&self.w3) {
            out += ((b + s) >> QB_SHIFT).clamp(0, QA) * w;
        }
        scale_out(out)
    }

    /// [`Network::evaluate`] for any CPU: fixed-size chunks that the compiler vectorises with
    /// the instructions it may assume (SSE2's `pmaddwd` on every x86-64).
    #[inline(always)]
    pub fn evaluate_portable(&self, acc: &Accumulator, turn: Color) -> i32 {
        let us = usize::from(turn == Color::Black);
        let mut input = [0i16; 2 * HIDDEN];
        for (dst, src) in input
            .chunks_exact_mut(HIDDEN)
            .zip([&acc.0[us], &acc.0[1 - us]])
        {
            for (d, &s) in dst.iter_mut().zip(src.iter()) {
                *d = s.clamp(0, QA as i16);
            }
        }
        let mut out = self.b3;
        for j in 0..TAIL {
            let z = self.b2[j] + dot(&input, &self.w2[j]);
            out += (z >> QB_SHIFT).clamp(0, QA) * self.w3[j];
        }
        scale_out(out)
    }

    /// The same evaluation computed from scratch, one square and one product at a time (the
    /// reference the fast path is tested against).
    pub fn evaluate_scalar(&self, pos: &Position) -> i32 {
        let us = usize::from(pos.turn() == Color::Black);
        let mut acc = [[0i32; HIDDEN]; 2];
        for (p, half) in acc.iter_mut().enumerate() {
            for (h, v) in half.iter_mut().enumerate() {
                *v = i32::from(self.b1[h]);
                for kind in 0..4 {
                    for i in 0..32 {
                        let on = sets(pos)[kind].iter().any(|sq| sq.index() == i);
                        if on {
                            *v += i32::from(self.w1[feature(p, kind, i)][h]);
                        }
                    }
                }
            }
        }
        let mut out = self.b3;
        for j in 0..TAIL {
            let mut z = self.b2[j];
            for i in 0..2 * HIDDEN {
                let a = if i < HIDDEN {
                    acc[us][i]
                } else {
                    acc[1 - us][i - HIDDEN]
                };
                z += a.clamp(0, QA) * i32::from(self.w2[j][i]);
            }
            out += (z >> QB_SHIFT).clamp(0, QA) * self.w3[j];
        }
        scale_out(out)
    }

    /// The network in the file format (see the module docs).
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(
            Variant::ALL
                .iter()
                .position(|&v| v == self.variant)
                .unwrap_or(0) as u8,
        );
        for n in [INPUTS, HIDDEN, TAIL] {
            out.extend_from_slice(&(n as u32).to_le_bytes());
        }
        for col in self.w1.iter() {
            col.iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
        self.b1
            .iter()
            .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        for row in self.w2.iter() {
            row.iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes()));
        }
        for v in self.b2.iter().chain(self.w3.iter()).chain([&self.b3]) {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let sum = crate::weights::fnv1a(&out);
        out.extend_from_slice(&sum.to_le_bytes());
        out
    }

    /// The size of a file of this build's shape.
    pub const fn file_size() -> usize {
        8 + 4 + 1 + 12 + 2 * INPUTS * HIDDEN + 2 * HIDDEN + 4 * TAIL * HIDDEN + 8 * TAIL + 4 + 8
    }

    /// Reads the file format (see the module docs).
    ///
    /// # Errors
    /// [`Error::BadWeights`] when the bytes are not a version-1 net file of this build's
    /// shape, the checksum does not match, or the first layer could overflow.
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, Error> {
        let bad = |why: String| Error::BadWeights { why };
        if bytes.len() < 25 || &bytes[..8] != MAGIC {
            return Err(bad(
                "the file does not start with \"DAMANNUE\" and a header: expected a dama net \
                 file"
                    .into(),
            ));
        }
        let word = |at: usize| {
            u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
        };
        let version = word(8);
        if version != VERSION {
            return Err(bad(format!(
                "net version {version}: expected version {VERSION}"
            )));
        }
        let code = bytes[12];
        let variant = Variant::ALL
            .get(usize::from(code))
            .copied()
            .ok_or_else(|| {
                bad(format!(
                    "variant {code} at byte 12: expected 0 to {}",
                    Variant::ALL.len() - 1
                ))
            })?;
        let (i, h, t) = (word(13) as usize, word(17) as usize, word(21) as usize);
        if (i, h, t) != (INPUTS, HIDDEN, TAIL) {
            return Err(bad(format!(
                "a net of {i} inputs, {h} hidden, {t} tail: expected {INPUTS}, {HIDDEN}, {TAIL}"
            )));
        }
        if bytes.len() != Network::file_size() {
            return Err(bad(format!(
                "{} bytes: expected {} for this shape",
                bytes.len(),
                Network::file_size()
            )));
        }
        let body = bytes.len() - 8;
        let stored = u64::from_le_bytes(bytes[body..].try_into().expect("8 bytes"));
        let computed = crate::weights::fnv1a(&bytes[..body]);
        if stored != computed {
            return Err(bad(format!(
                "checksum {stored:016x} does not match the contents ({computed:016x}): the \
                 file is corrupt"
            )));
        }
        let mut at = 25;
        let mut half = || {
            let v = i16::from_le_bytes([bytes[at], bytes[at + 1]]);
            at += 2;
            v
        };
        let mut w1 = Box::new([[0i16; HIDDEN]; INPUTS]);
        w1.iter_mut().flatten().for_each(|v| *v = half());
        let mut b1 = [0i16; HIDDEN];
        b1.iter_mut().for_each(|v| *v = half());
        let mut w2 = Box::new([[0i16; 2 * HIDDEN]; TAIL]);
        w2.iter_mut().flatten().for_each(|v| *v = half());
        let mut at = 25 + 2 * (INPUTS * HIDDEN + HIDDEN + 2 * TAIL * HIDDEN);
        let mut int = || {
            let v = word(at) as i32;
            at += 4;
            v
        };
        let mut b2 = [0i32; TAIL];
        b2.iter_mut().for_each(|v| *v = int());
        let mut w3 = [0i32; TAIL];
        w3.iter_mut().for_each(|v| *v = int());
        let b3 = int();
        let net = Network::new(variant, w1, b1, w2, b2, w3, b3);
        net.check_range().map_err(bad)?;
        Ok(net)
    }

    /// Whether every accumulator, tail sum and output stays inside its integer type.
    fn check_range(&self) -> Result<(), String> {
        for h in 0..HIDDEN {
            let mut col: Vec<i32> = self.w1.iter().map(|c| i32::from(c[h]).abs()).collect();
            col.sort_unstable_by(|a, b| b.cmp(a));
            let worst = i32::from(self.b1[h]).abs() + col.iter().take(MAX_ON as usize).sum::<i32>();
            if worst > i32::from(i16::MAX) {
                return Err(format!(
                    "hidden unit {h} could reach {worst}: expected first-layer weights that keep \
                     the accumulator within ±32767"
                ));
            }
        }
        for j in 0..TAIL {
            let worst = i64::from(self.b2[j]).abs()
                + self.w2[j]
                    .iter()
                    .map(|&w| i64::from(QA) * i64::from(w).abs())
                    .sum::<i64>();
            let out = i64::from(QA) * i64::from(self.w3[j]).abs() * TAIL as i64
                + i64::from(self.b3).abs();
            if worst > i64::from(i32::MAX) || out > i64::from(i32::MAX) {
                return Err(format!(
                    "tail unit {j} could overflow 32 bits: expected smaller tail weights"
                ));
            }
        }
        Ok(())
    }
}

/// The output sum (scale `QA × QO`, in men) as hundredths of a man, kept within
/// [`EVAL_BOUND`].
#[inline(always)]
fn scale_out(out: i32) -> i32 {
    (i64::from(out) * 100 / i64::from(QA * QO)).clamp(-i64::from(EVAL_BOUND), i64::from(EVAL_BOUND))
        as i32
}

/// The sums of the eight `i32` lanes of each of eight registers, in their order as the
/// lanes of one (`vphaddd` three times, then the two halves added): no round trip through
/// memory. Four sums stored as 16 bytes and read back as 32 stalled the store forwarding:
/// 6 % of the samples on one instruction (`perf annotate`).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn sum8_avx2(s: &[std::arch::x86_64::__m256i; 8]) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    // Within each 128-bit half: (s0 + s1 lanes pairwise), ..., then [s0, s1, s2, s3] of
    // the half's lanes.
    let ab = _mm256_hadd_epi32(_mm256_hadd_epi32(s[0], s[1]), _mm256_hadd_epi32(s[2], s[3]));
    let cd = _mm256_hadd_epi32(_mm256_hadd_epi32(s[4], s[5]), _mm256_hadd_epi32(s[6], s[7]));
    let low = _mm256_permute2x128_si256::<0x20>(ab, cd);
    let high = _mm256_permute2x128_si256::<0x31>(ab, cd);
    _mm256_add_epi32(low, high)
}

/// Tail units `j..j + 8` from their sums (without their bias), as [`Network::finish`]
/// takes them: biased, shifted, clipped and times their output weights.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
#[allow(unsafe_code)]
fn units_avx2(
    net: &Network,
    j: usize,
    sums: std::arch::x86_64::__m256i,
) -> std::arch::x86_64::__m256i {
    use std::arch::x86_64::*;
    let (b2, w3) = (&net.b2[j..j + 8], &net.w3[j..j + 8]);
    // SAFETY: both slices hold exactly the eight `i32` read; unaligned loads.
    let (b, w) = unsafe {
        (
            _mm256_loadu_si256(b2.as_ptr().cast::<__m256i>()),
            _mm256_loadu_si256(w3.as_ptr().cast::<__m256i>()),
        )
    };
    let z = _mm256_srai_epi32::<{ QB_SHIFT as i32 }>(_mm256_add_epi32(sums, b));
    let z = _mm256_min_epi32(
        _mm256_max_epi32(z, _mm256_setzero_si256()),
        _mm256_set1_epi32(QA),
    );
    _mm256_mullo_epi32(z, w)
}

/// The output from the units' terms of [`units_avx2`]: their sum and the output bias, as
/// hundredths of a man. Integer sums in another order than [`Network::finish`]'s, none
/// overflowing ([`Network::check_range`]): the same value bit for bit.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
fn output_avx2(net: &Network, out: std::arch::x86_64::__m256i) -> i32 {
    use std::arch::x86_64::*;
    let r = _mm_add_epi32(
        _mm256_castsi256_si128(out),
        _mm256_extracti128_si256::<1>(out),
    );
    let r = _mm_add_epi32(r, _mm_shuffle_epi32::<0b01_00_11_10>(r));
    let r = _mm_add_epi32(r, _mm_shuffle_epi32::<0b10_11_00_01>(r));
    scale_out(net.b3 + _mm_cvtsi128_si32(r))
}

/// Eight `i16` from a slice of at least eight, as one SIMD128 register.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
#[allow(unsafe_code)]
fn load8(chunk: &[i16]) -> std::arch::wasm32::v128 {
    assert!(chunk.len() >= 8);
    // SAFETY: the 16 bytes read lie inside `chunk` (checked above, and removed by the
    // compiler where the length is known); WebAssembly loads need no alignment.
    unsafe { std::arch::wasm32::v128_load(chunk.as_ptr().cast()) }
}

/// A half of an accumulator (or a first-layer column) as sixteen SIMD128 registers.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
fn load_half(half: &[i16; HIDDEN]) -> [std::arch::wasm32::v128; HIDDEN / 8] {
    let mut regs = [std::arch::wasm32::i16x8_splat(0); HIDDEN / 8];
    for (r, chunk) in regs.iter_mut().zip(half.chunks_exact(8)) {
        *r = load8(chunk);
    }
    regs
}

/// Sixteen SIMD128 registers written back to a half of an accumulator.
#[cfg(all(target_arch = "wasm32", target_feature = "simd128"))]
#[inline(always)]
#[allow(unsafe_code)]
fn store_half(half: &mut [i16; HIDDEN], regs: &[std::arch::wasm32::v128; HIDDEN / 8]) {
    for (chunk, r) in half.chunks_exact_mut(8).zip(regs) {
        // SAFETY: each chunk is exactly the 16 bytes written; no alignment is needed.
        unsafe { std::arch::wasm32::v128_store(chunk.as_mut_ptr().cast(), *r) };
    }
}

#[inline(always)]
fn add(acc: &mut [i16; HIDDEN], col: &[i16; HIDDEN]) {
    for (a, &c) in acc.iter_mut().zip(col.iter()) {
        *a = a.wrapping_add(c);
    }
}

#[inline(always)]
fn sub(acc: &mut [i16; HIDDEN], col: &[i16; HIDDEN]) {
    for (a, &c) in acc.iter_mut().zip(col.iter()) {
        *a = a.wrapping_sub(c);
    }
}

/// The dot product of the clipped inputs and a tail row, in 8 independent lanes of `i32`
/// that the compiler maps to `pmaddwd` (no overflow: [`Network::check_range`]).
#[inline(always)]
fn dot(input: &[i16; 2 * HIDDEN], row: &[i16; 2 * HIDDEN]) -> i32 {
    let mut lanes = [0i32; 8];
    for (a, b) in input.chunks_exact(8).zip(row.chunks_exact(8)) {
        for k in 0..8 {
            lanes[k] += i32::from(a[k]) * i32::from(b[k]);
        }
    }
    lanes.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::{RngExt, SeedableRng};

    /// A network with random weights in the ranges a trained one has.
    #[test]
    fn the_byte_path_is_taken_only_when_every_tail_weight_fits() {
        let mut w2 = Box::new([[0i16; 2 * HIDDEN]; TAIL]);
        w2[3][7] = -TAIL8_MAX;
        w2[5][200] = TAIL8_MAX;
        let bytes = Network::tail8_of(&w2).expect("weights within the bound");
        assert_eq!((bytes[3][7], bytes[5][200]), (-64, 64));
        w2[15][255] = TAIL8_MAX + 1;
        assert!(Network::tail8_of(&w2).is_none());
        w2[15][255] = -TAIL8_MAX - 1;
        assert!(Network::tail8_of(&w2).is_none());
    }

    #[test]
    fn the_byte_paths_i16_sums_are_taken_only_when_every_lane_fits() {
        // Lane 3 of row 2: bytes 32k + 6 and 32k + 7. Its sum of |w| may reach 258
        // (258 × QA = 32766), not 259.
        let mut w2 = Box::new([[0i16; 2 * HIDDEN]; TAIL]);
        for k in 0..8 {
            w2[2][32 * k + 6] = -16;
            w2[2][32 * k + 7] = 16;
        }
        w2[2][6] = -18;
        assert!(Network::tail8_wide_of(&w2), "258");
        w2[2][231] = 17;
        assert!(!Network::tail8_wide_of(&w2), "259");
        w2[2][231] = 16;
        w2[5][0] = TAIL8_MAX + 1;
        assert!(!Network::tail8_wide_of(&w2), "no byte path");
    }

    #[test]
    fn the_embedded_net_gives_the_same_value_on_every_path() {
        let net = crate::weights::network(Variant::Italian)
            .and_then(|w| w.net())
            .expect("the embedded Italian net");
        for seed in 0..2 {
            for pos in random_game_positions(seed, 120) {
                let acc = net.refresh(&pos);
                assert!(net.tail8.is_some(), "the embedded net takes the byte path");
                assert!(net.tail8_wide, "and its i16 sums");
                let fast = net.evaluate(&acc, pos.turn());
                assert_eq!(fast, net.evaluate_scalar(&pos), "{pos:?}");
                assert_eq!(fast, net.evaluate_portable(&acc, pos.turn()), "{pos:?}");
            }
        }
    }

    pub(crate) fn random_net(seed: u64) -> Network {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut w1 = Box::new([[0i16; HIDDEN]; INPUTS]);
        w1.iter_mut()
            .flatten()
            .for_each(|v| *v = rng.random_range(-300..300));
        let mut b1 = [0i16; HIDDEN];
        b1.iter_mut().for_each(|v| *v = rng.random_range(-100..200));
        // Odd seeds give tail weights that the byte path takes (up to its bound; seed 3 small
        // enough for its `i16` sums), even ones weights that it does not.
        let span = match seed % 4 {
            3 => 16,
            1 => TAIL8_MAX,
            _ => 200,
        };
        let mut w2 = Box::new([[0i16; 2 * HIDDEN]; TAIL]);
        w2.iter_mut()
            .flatten()
            .for_each(|v| *v = rng.random_range(-span..=span));
        Network::new(
            Variant::Italian,
            w1,
            b1,
            w2,
            std::array::from_fn(|_| rng.random_range(-100_000..100_000)),
            std::array::from_fn(|_| rng.random_range(-500..500)),
            rng.random_range(-5_000..5_000),
        )
    }

    fn random_game_positions(seed: u64, plies: usize) -> Vec<Position> {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let mut pos = Position::start();
        let mut out = vec![pos];
        for _ in 0..plies {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            pos = pos.after(moves[rng.random_range(0..moves.len())]);
            out.push(pos);
        }
        out
    }

    #[test]
    fn the_fast_path_and_the_scalar_path_agree_bit_for_bit() {
        for seed in 0..4 {
            let net = random_net(seed);
            assert_eq!(
                net.tail8.is_some(),
                seed % 2 == 1,
                "the byte path on odd seeds"
            );
            assert_eq!(net.tail8_wide, seed == 3, "the i16 sums on seed 3");
            let positions = random_game_positions(seed, 120);
            let mut acc = net.refresh(&positions[0]);
            for w in positions.windows(2) {
                net.update(&mut acc, &w[0], &w[1]);
                assert_eq!(acc, net.refresh(&w[1]), "incremental accumulator");
                let fast = net.evaluate(&acc, w[1].turn());
                assert_eq!(fast, net.evaluate_scalar(&w[1]), "seed {seed}");
                assert_eq!(fast, net.evaluate_portable(&acc, w[1].turn()));
                let (from, to) = (Pieces::of(&w[0]), Pieces::of(&w[1]));
                let mut fused = Accumulator::default();
                let src = net.refresh(&w[0]);
                let v = net.update_evaluate(&mut fused, Some(&src), &from, &to, w[1].turn());
                assert_eq!((v, &fused), (fast, &acc), "update_evaluate");
                let mut fused = src;
                let v = net.update_evaluate(&mut fused, None, &from, &to, w[1].turn());
                assert_eq!((v, &fused), (fast, &acc), "update_evaluate in place");
                let mut portable = Accumulator::default();
                net.update_portable(
                    &mut portable,
                    Some(&net.refresh(&w[0])),
                    &Pieces::of(&w[0]),
                    &Pieces::of(&w[1]),
                );
                assert_eq!(portable, acc, "the portable update");
            }
        }
    }

    #[test]
    fn an_update_between_unrelated_positions_is_exact() {
        let net = random_net(7);
        let a = random_game_positions(1, 40);
        let b = random_game_positions(2, 60);
        let mut acc = net.refresh(&a[40.min(a.len() - 1)]);
        let to = b[b.len() - 1];
        let src = acc;
        net.update(&mut acc, &a[40.min(a.len() - 1)], &to);
        assert_eq!(acc, net.refresh(&to));
        let mut into = Accumulator::default();
        net.update_into(&mut into, &src, &a[40.min(a.len() - 1)], &to);
        assert_eq!(into, acc, "update_into");
        let mut portable = src;
        net.update_portable(
            &mut portable,
            None,
            &Pieces::of(&a[40.min(a.len() - 1)]),
            &Pieces::of(&to),
        );
        assert_eq!(portable, acc, "the portable update in place");
    }

    #[test]
    fn the_mirrored_position_scores_the_same() {
        let net = random_net(3);
        for pos in random_game_positions(5, 80) {
            assert_eq!(net.evaluate_scalar(&pos), net.evaluate_scalar(&pos.flip()));
        }
    }

    #[test]
    fn the_mirror_in_one_operation_is_mirror_feature_and_the_square_table_is_square() {
        for f in 0..INPUTS as u8 {
            assert_eq!(
                usize::from(f) ^ MIRROR,
                usize::from(mirror_feature(f)),
                "{f}"
            );
            let (kind, sq) = (usize::from(f / 32), usize::from(f % 32));
            assert_eq!(feature(1, kind, sq), usize::from(f) ^ MIRROR);
        }
        for sq in 1..=32 {
            let s = dama_rules::Square::new(sq).expect("a square");
            let bit = Bitboard::from_square(s).bits().trailing_zeros() as usize;
            assert_eq!(usize::from(SQUARE_OF_BIT[bit]), s.index(), "square {sq}");
        }
    }

    #[test]
    fn mirror_feature_maps_the_side_to_moves_features_to_the_others() {
        for pos in random_game_positions(9, 60) {
            let mut mirrored: Vec<u8> = active_features(&pos)
                .into_iter()
                .map(mirror_feature)
                .collect();
            mirrored.sort_unstable();
            assert_eq!(mirrored, active_features(&pos.with_turn(!pos.turn())));
        }
    }

    #[test]
    fn a_net_file_round_trips_and_bad_ones_are_refused() {
        let net = random_net(11);
        let bytes = net.to_bytes();
        assert_eq!(bytes.len(), Network::file_size());
        assert_eq!(Network::from_bytes(&bytes).expect("a good file"), net);
        let mut broken = bytes.clone();
        broken[500] ^= 1;
        let e = Network::from_bytes(&broken).unwrap_err().to_string();
        assert!(e.contains("checksum"), "{e}");
        let e = Network::from_bytes(&bytes[..bytes.len() - 2])
            .unwrap_err()
            .to_string();
        assert!(e.contains("bytes: expected"), "{e}");
        let e = Network::from_bytes(b"DAMAEVAL and more bytes here..")
            .unwrap_err()
            .to_string();
        assert!(e.contains("DAMANNUE"), "{e}");
        let mut huge = net.clone();
        huge.w1[0][5] = 30_000;
        let e = Network::from_bytes(&huge.to_bytes())
            .unwrap_err()
            .to_string();
        assert!(e.contains("hidden unit 5"), "{e}");
    }
}
