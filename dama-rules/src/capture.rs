//! Capture sequences: depth-first search over complete sequences, ranked by the variant's
//! priority rule.
//!
//! Captured pieces stay on the board until the sequence is complete, so the set of empty squares
//! is fixed for the whole search (the moving piece's start square counts as empty); a piece
//! already captured can neither be jumped again nor landed on.

use crate::movegen::{man_capture_dirs, shift, Side, View, DIRS};
use crate::variant::Priority;
use crate::{Move, MoveList, Rules};

/// Longest possible sequence: every enemy piece (at most 12) captured.
pub(crate) const MAX_JUMPS: usize = 12;

/// Receives each complete capture sequence with its rank (larger is better) and landing path.
pub(crate) trait Collector {
    fn add(&mut self, m: Move, rank: u32, parts: RankParts, path: &[u8]);
}

/// Keeps the legal moves: the sequences of the best rank, each distinct move once.
pub(crate) struct Best<'a> {
    list: &'a mut MoveList,
    best: u32,
}

impl<'a> Best<'a> {
    pub fn new(list: &'a mut MoveList) -> Best<'a> {
        list.clear();
        Best { list, best: 0 }
    }
}

impl Collector for Best<'_> {
    #[inline]
    fn add(&mut self, m: Move, rank: u32, _parts: RankParts, _path: &[u8]) {
        if rank < self.best {
            return;
        }
        if rank > self.best {
            self.best = rank;
            self.list.clear();
        } else if self.list.contains(&m) {
            return;
        }
        self.list.push(m);
    }
}

/// Counts the legal moves: the sequences of the best rank. Only for searches in which no two
/// sequences make the same move (see [`generate_men`]).
pub(crate) struct Count {
    best: u32,
    pub n: u64,
}

impl Count {
    pub fn new() -> Count {
        Count { best: 0, n: 0 }
    }
}

impl Collector for Count {
    #[inline(always)]
    fn add(&mut self, _m: Move, rank: u32, _parts: RankParts, _path: &[u8]) {
        if rank > self.best {
            self.best = rank;
            self.n = 1;
        } else if rank == self.best {
            self.n += 1;
        }
    }
}

/// Components of a sequence's rank, as the priority rules see them.
#[derive(Copy, Clone, Eq, PartialEq, Debug)]
pub(crate) struct RankParts {
    /// Pieces captured.
    pub pieces: u32,
    /// Whether the capturing piece started as a king.
    pub by_king: bool,
    /// Kings captured.
    pub kings: u32,
    /// Bit `15 - j` set when jump `j` (from 0) takes a king: larger is earlier.
    pub early: u32,
}

/// Packs rank parts into one integer ordered as the variant's priority rule orders sequences.
#[inline(always)]
pub(crate) fn rank<R: Rules>(p: RankParts) -> u32 {
    match R::PRIORITY {
        Priority::Italian => p.pieces << 24 | (p.by_king as u32) << 23 | p.kings << 18 | p.early,
        Priority::Spanish => p.pieces << 8 | p.kings,
        Priority::KingFirst => p.by_king as u32,
        Priority::MostPieces => p.pieces,
        Priority::Free => 0,
    }
}

struct Search<'c, C: Collector> {
    v: View,
    from: u32,
    by_king: bool,
    path: [u8; MAX_JUMPS],
    out: &'c mut C,
}

impl<C: Collector> Search<'_, C> {
    #[inline(always)]
    fn finish<R: Rules>(&mut self, at: u32, captured: u64, n: usize, early: u32, promotes: bool) {
        let parts = RankParts {
            pieces: n as u32,
            by_king: self.by_king,
            kings: (captured & self.v.them_kings).count_ones(),
            early,
        };
        let m = Move::new(self.from, at, captured, promotes);
        self.out.add(m, rank::<R>(parts), parts, &self.path[..n]);
    }

    #[inline(always)]
    fn early_bit(&self, over: u64, n: usize) -> u32 {
        ((over & self.v.them_kings != 0) as u32) << (15 - n)
    }

    /// Jumps of a man standing on `at` after `n` jumps.
    fn man<R: Rules, S: Side>(&mut self, at: u32, captured: u64, n: usize, early: u32) {
        let victims = self.v.man_victims::<R>() & !captured;
        let here = 1u64 << at;
        let mut any = false;
        for d in man_capture_dirs::<R, S>() {
            if d == 0 {
                continue;
            }
            let over = shift(here, d) & victims;
            let land = shift(over, d) & self.v.empty;
            if land == 0 {
                continue;
            }
            any = true;
            let to = land.trailing_zeros();
            self.path[n] = to as u8;
            let (cap, early) = (captured | over, early | self.early_bit(over, n));
            if n + 1 >= MAX_JUMPS {
                self.finish::<R>(to, cap, n + 1, early, land & S::PROMOTION != 0);
            } else if land & S::PROMOTION == 0 || R::PROMOTION_AT_END_ONLY {
                self.man::<R, S>(to, cap, n + 1, early);
            } else if R::PROMOTION_CONTINUES {
                self.king_flying::<R>(to, cap, n + 1, early, true);
            } else {
                self.finish::<R>(to, cap, n + 1, early, true);
            }
        }
        if !any && n > 0 {
            let promotes = R::PROMOTION_AT_END_ONLY && here & S::PROMOTION != 0;
            self.finish::<R>(at, captured, n, early, promotes);
        }
    }

    /// Jumps of a short-range king standing on `at`.
    fn king_short<R: Rules>(&mut self, at: u32, captured: u64, n: usize, early: u32) {
        let victims = self.v.them & !captured;
        let here = 1u64 << at;
        let mut any = false;
        for d in DIRS {
            let over = shift(here, d) & victims;
            let land = shift(over, d) & self.v.empty;
            if land == 0 {
                continue;
            }
            any = true;
            let to = land.trailing_zeros();
            self.path[n] = to as u8;
            let (cap, early) = (captured | over, early | self.early_bit(over, n));
            if n + 1 >= MAX_JUMPS {
                self.finish::<R>(to, cap, n + 1, early, false);
            } else {
                self.king_short::<R>(to, cap, n + 1, early);
            }
        }
        if !any && n > 0 {
            self.finish::<R>(at, captured, n, early, false);
        }
    }

    /// The enemy piece a flying king on `here` would jump in direction `d`, and the empty
    /// squares it could land on beyond it (0, 0 when there is no jump).
    #[inline(always)]
    fn flying_jump(&self, here: u64, d: i32, captured: u64) -> (u64, u64) {
        let mut x = shift(here, d);
        while x & self.v.empty != 0 {
            x = shift(x, d);
        }
        let over = x & self.v.them & !captured;
        let mut land = shift(over, d) & self.v.empty;
        let mut lands = 0;
        while land != 0 {
            lands |= land;
            land = shift(land, d) & self.v.empty;
        }
        (over, lands)
    }

    fn flying_can_jump(&self, at: u64, captured: u64) -> bool {
        DIRS.into_iter()
            .any(|d| self.flying_jump(at, d, captured).1 != 0)
    }

    /// Jumps of a flying king standing on `at`. A king that can go on capturing from some
    /// landing square must land on such a square.
    fn king_flying<R: Rules>(
        &mut self,
        at: u32,
        captured: u64,
        n: usize,
        early: u32,
        promotes: bool,
    ) {
        let mut any = false;
        for d in DIRS {
            let (over, lands) = self.flying_jump(1u64 << at, d, captured);
            if lands == 0 {
                continue;
            }
            any = true;
            let cap = captured | over;
            let early = early | self.early_bit(over, n);
            let mut go_on = 0;
            let mut rest = lands;
            while rest != 0 {
                let b = rest & rest.wrapping_neg();
                rest ^= b;
                if n + 1 < MAX_JUMPS && self.flying_can_jump(b, cap) {
                    go_on |= b;
                }
            }
            let mut targets = if go_on != 0 { go_on } else { lands };
            while targets != 0 {
                let to = targets.trailing_zeros();
                targets &= targets - 1;
                self.path[n] = to as u8;
                if go_on != 0 {
                    self.king_flying::<R>(to, cap, n + 1, early, promotes);
                } else {
                    self.finish::<R>(to, cap, n + 1, early, promotes);
                }
            }
        }
        if !any && n > 0 {
            self.finish::<R>(at, captured, n, early, promotes);
        }
    }
}

/// One complete capture sequence, for explanations and PDN paths.
#[derive(Clone, Debug)]
pub(crate) struct Sequence {
    pub mv: Move,
    pub rank: u32,
    pub parts: RankParts,
    /// Landing squares (bits of the padded layout), the last one is `mv.to`.
    pub path: Vec<u8>,
}

/// Keeps every complete sequence, legal or not (slow; not for hot paths).
#[derive(Default)]
pub(crate) struct All(pub Vec<Sequence>);

impl Collector for All {
    fn add(&mut self, mv: Move, rank: u32, parts: RankParts, path: &[u8]) {
        self.0.push(Sequence {
            mv,
            rank,
            parts,
            path: path.to_vec(),
        });
    }
}

/// Every complete capture sequence of the side to move, legal or not.
pub(crate) fn all_sequences<R: Rules>(pos: &crate::Position) -> Vec<Sequence> {
    use crate::movegen::{BlackSide, WhiteSide};
    let mut all = All::default();
    match pos.turn() {
        crate::Color::White => {
            generate::<R, WhiteSide, _>(&View::of::<WhiteSide>(pos), &mut all);
        }
        crate::Color::Black => {
            generate::<R, BlackSide, _>(&View::of::<BlackSide>(pos), &mut all);
        }
    }
    all.0
}

/// Runs every complete capture sequence of the side to move into `out`.
#[inline]
pub(crate) fn generate<R: Rules, S: Side, C: Collector>(v: &View, out: &mut C) {
    let mut search = Search {
        v: *v,
        from: 0,
        by_king: false,
        path: [0; MAX_JUMPS],
        out,
    };
    search.men::<R, S>(v);
    search.kings::<R>(v);
}

/// Runs every complete capture sequence of the side's men into `out` (for a caller that knows
/// no king can capture).
///
/// When men capture forwards only and stay men to the end of the sequence, each jump lands two
/// rows further on, so the captured set fixes the path: no two sequences make the same move,
/// and a [`Count`] may count them.
#[inline]
pub(crate) fn generate_men<R: Rules, S: Side, C: Collector>(v: &View, out: &mut C) {
    let mut search = Search {
        v: *v,
        from: 0,
        by_king: false,
        path: [0; MAX_JUMPS],
        out,
    };
    search.men::<R, S>(v);
}

impl<C: Collector> Search<'_, C> {
    /// The sequences of every man that can capture.
    #[inline(always)]
    fn men<R: Rules, S: Side>(&mut self, v: &View) {
        let victims = v.man_victims::<R>();
        let mut men = 0;
        for d in man_capture_dirs::<R, S>() {
            if d != 0 {
                men |= shift(shift(v.empty, -d) & victims, -d);
            }
        }
        men &= v.men;
        while men != 0 {
            let from = men.trailing_zeros();
            men &= men - 1;
            self.from = from;
            self.v.empty = v.empty | 1 << from;
            self.man::<R, S>(from, 0, 0, 0);
        }
    }

    /// The sequences of every king that can capture.
    #[inline(always)]
    fn kings<R: Rules>(&mut self, v: &View) {
        self.by_king = true;
        let mut kings = v.kings;
        if !R::KINGS_FLY {
            let mut takers = 0;
            for d in DIRS {
                takers |= shift(shift(v.empty, -d) & v.them, -d);
            }
            kings &= takers;
        }
        while kings != 0 {
            let from = kings.trailing_zeros();
            kings &= kings - 1;
            self.from = from;
            self.v.empty = v.empty | 1 << from;
            if R::KINGS_FLY {
                self.king_flying::<R>(from, 0, 0, 0, false);
            } else {
                self.king_short::<R>(from, 0, 0, 0);
            }
        }
    }
}
