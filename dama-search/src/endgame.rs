//! Exact endgame tables for kings-only positions with at most [`MAX_PIECES`] pieces.
//!
//! [`probe`] gives the value of such a position with the exact distance to the end of the game
//! (in plies, winner minimising, loser maximising; a side with no legal move has lost), and
//! [`best_move`] a move that keeps it. Every material split is covered, with either side to
//! move: 1v1, 2v1, 1v2, 2v2, 3v1, 1v3, 3v2, 2v3, 4v1, 1v4.
//!
//! ```
//! use dama_rules::{variant::Italian, Position};
//! use dama_search::endgame::{self, Value};
//!
//! // Two kings against one: White wins, and the table knows in how many plies.
//! let pos: Position = "W:WK18,K22:BK29".parse()?;
//! let value = endgame::probe::<Italian>(&pos).unwrap();
//! assert!(matches!(value, Value::Win(plies) if plies <= 33));
//! // The best move keeps the win and shortens it.
//! let m = endgame::best_move::<Italian>(&pos).unwrap();
//! let next = endgame::probe::<Italian>(&pos.after(m)).unwrap();
//! assert_eq!(next, Value::Loss(value.plies().unwrap() - 1));
//! # Ok::<_, dama_rules::Error>(())
//! ```
//!
//! # Method
//!
//! Retrograde analysis, one *material class* at a time (the two tables `a v b` and `b v a` with
//! the side to move first), smaller classes first. Within a class:
//!
//! 1. A forward pass over every position runs the `dama-rules` move generator once. A position
//!    with no legal move is lost in 0. A capture leaves the class (captures are compulsory, so a
//!    position with a capture has only captures), so its value is read off the smaller tables
//!    already built (or is a loss in 0 for a side left with no piece). Any other position stores
//!    its number of (quiet) moves.
//! 2. Backward passes, one per distance `d = 0, 1, 2, ...`: every position decided at distance
//!    `d` unmakes the quiet king moves that could have led to it. A predecessor of a loss is a win
//!    in `d + 1` (the first one found is the shortest); a predecessor of a win loses one of its
//!    move counts, and when none is left it is a loss in `d + 1` (the last one is the longest).
//! 3. Whatever is left undecided is a draw.
//!
//! Quiet king moves are the same in every rule set except that kings fly in Spanish, Czech,
//! Russian and Brazilian, so the backward step has one switch, `Rules::KINGS_FLY`; captures
//! (and their priority rules) only ever come from the `dama-rules` generator. A table whose every
//! value agrees with its successors' values through that generator is exact (by induction on
//! the distance, which falls by one each ply); the tests check this for every position with at
//! most 4 pieces in Italian, English and Spanish and for a sample of 5-piece positions, and the
//! `endgame_report` example for every position of every rule set.
//!
//! A kings-only position looks the same to both colours (kings have no direction), so one table
//! serves both: it is indexed by the side to move's kings and the other side's kings.
//!
//! # Draw rules
//!
//! The tables ignore every draw rule (no-progress counters, repetition, the Spanish three-kings
//! rule). For Italian this is safe: the longest game in the tables lasts 68 plies (the longest
//! win 67), and a kings-only position is always entered by a capture or a promotion, which
//! reset the 40-move counter, so the counter (80 plies) cannot run out before the end. Plies
//! between captures are fewer still: at most 49 under play that hurries captures ([`Stats`]'s
//! `longest_to_capture`; 48 with the stronger side to move in 3 v 2, as `strategy.md` §3 says).
//! Spanish wins last at most 31 plies, within its 40-ply king-move rule.
//!
//! # Figures
//!
//! Memory: one byte per position (0 = draw, else distance + 1; odd distances are wins),
//! 6,575,472 positions, 6.27 MiB per rule set that has been probed (boxed slices, nothing
//! else). While a class is built, a move count per position and the lists of decided positions
//! take some 20 MB more (the report example peaks at 28 MB resident). A class is built on the first probe that needs it, with the classes it captures into,
//! so a probe of 2 kings against 1 builds only the 1v1 and 2v1 tables; [`prepare`] builds all.
//!
//! Build time, Italian, release build, one thread, on a shared 2-core machine under load (wall
//! clock; the whole build is 1.4 s of CPU). Flying kings (Spanish, Czech, Russian, Brazilian)
//! take about twice as long, 2.5 to 3.5 s in all; English the same as Italian.
//!
//! | class | positions | build |
//! |---|---|---|
//! | 1v1 | 992 | < 1 ms |
//! | 2v1, 1v2 | 29,760 | 4 ms |
//! | 3v1, 1v3 | 287,680 | 0.07 s |
//! | 2v2 | 215,760 | 0.03 s |
//! | 4v1, 1v4 | 2,013,760 | 0.56 s |
//! | 3v2, 2v3 | 4,027,520 | 1.05 s |
//!
//! Italian statistics over all legal placements, first-named side to move, with [`stats`]
//! (the last column is `strategy.md`'s MTC, plies to the next capture). The 2v1, 3v1, 2v2 and
//! 3v2 rows reproduce `strategy.md` §3 exactly (34 draws in 2v1; 3v1: 100 %, MTC 12; 2v2: 27 %
//! / 71 %, MTC 19; 3v2: 99.0 % / 0.9 %, MTC 48). The "12" of 3v1 is plies to a capture, not to
//! the end: the strong side may force the lone king to take one of its kings, into a won 2v1.
//!
//! | ending | win | draw | loss | longest game | MTC |
//! |---|---|---|---|---|---|
//! | 1v1 | 23.19 % | 65.93 % | 10.89 % | 11 | 11 |
//! | 2v1 | 99.77 % (14,846) | 0.23 % (34) | 0 | 33 | 33 |
//! | 1v2 | 2.77 % | 9.74 % | 87.49 % | 34 | 34 |
//! | 3v1 | 100 % | 0 | 0 | 29 | 12 |
//! | 1v3 | 0.42 % | 1.62 % | 97.96 % | 34 | 13 |
//! | 2v2 | 27.05 % | 71.12 % | 1.83 % | 49 | 19 |
//! | 4v1 | 100 % | 0 | 0 | 29 | 12 |
//! | 1v4 | 0.07 % | 0.31 % | 99.62 % | 34 | 13 |
//! | 3v2 | 99.05 % (1,994,608) | 0.90 % (18,090) | 0.05 % (1,062) | 67 | 48 |
//! | 2v3 | 4.61 % | 25.52 % | 69.87 % | 68 | 49 |
//!
//! `cargo run --release -p dama-search --example endgame_report -- [variant] [--check]` prints
//! these figures; `--check` compares every position of every table, either colour to move,
//! with its successors through the `dama-rules` generator (0 disagreements for all six rule
//! sets), which proves the tables exact.

use std::sync::OnceLock;

use dama_rules::{Color, Move, MoveList, Piece, Position, Role, Rules, Setup, Square, Variant};

/// The most pieces, both sides together, that the tables cover.
pub const MAX_PIECES: u32 = 5;

/// The value of a position for the side to move under optimal play, in plies to the end of the
/// game.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug)]
pub enum Value {
    /// The side to move wins; its opponent is left without a legal move after this many plies
    /// (always odd).
    Win(u32),
    /// The side to move loses; it is left without a legal move after this many plies (always
    /// even; 0 when it has none now).
    Loss(u32),
    /// Neither side can force a win.
    Draw,
}

impl Value {
    /// The distance to the end of the game in plies, `None` for a draw.
    pub const fn plies(self) -> Option<u32> {
        match self {
            Value::Win(d) | Value::Loss(d) => Some(d),
            Value::Draw => None,
        }
    }

    /// The value for the side that made the move leading to a position worth `self`.
    pub const fn before(self) -> Value {
        match self {
            Value::Win(d) => Value::Loss(d + 1),
            Value::Loss(d) => Value::Win(d + 1),
            Value::Draw => Value::Draw,
        }
    }

    /// A key ordering values from the side to move's view: larger is better (quick wins, then
    /// draws, then slow losses).
    const fn key(self) -> i64 {
        match self {
            Value::Win(d) => i64::MAX - d as i64,
            Value::Loss(d) => i64::MIN + d as i64,
            Value::Draw => 0,
        }
    }

    /// The value stored for this one: 0 for a draw, else the distance plus one.
    fn encode(self) -> u8 {
        match self.plies() {
            None => 0,
            Some(d) => u8::try_from(d + 1)
                .ok()
                .filter(|&b| b < FIXED_DRAW)
                .expect("distances stay below 254 plies"),
        }
    }

    /// The value of a stored byte; see [`Value::encode`].
    const fn decode(byte: u8) -> Value {
        match byte {
            0 => Value::Draw,
            b if (b - 1) % 2 == 1 => Value::Win(b as u32 - 1),
            b => Value::Loss(b as u32 - 1),
        }
    }
}

/// The value of a kings-only position with at most [`MAX_PIECES`] pieces under rules `R`.
///
/// `None` when a side has a man or there are more than [`MAX_PIECES`] pieces, except that a
/// side to move with no piece has lost (`Loss(0)`) and a side to move facing no piece wins in 1
/// if it can move at all, whatever the material. The first call for a material class builds
/// its table (about a second for the largest, in release builds; other threads asking for it
/// meanwhile wait); later calls are an index computation and a load, with no allocation. Safe
/// to call from any number of threads.
pub fn probe<R: Rules>(pos: &Position) -> Option<Value> {
    let us = pos.pieces(pos.turn());
    let them = pos.pieces(!pos.turn());
    if us.is_empty() {
        return Some(Value::Loss(0));
    }
    if them.is_empty() {
        return Some(if pos.count_moves::<R>() > 0 {
            Value::Win(1)
        } else {
            Value::Loss(0)
        });
    }
    let men = pos.men(Color::White) | pos.men(Color::Black);
    if men.any() || us.count() + them.count() > MAX_PIECES {
        return None;
    }
    Some(lookup::<R>(compact(us.bits()), compact(them.bits())))
}

/// A legal move that keeps the value of `pos` (the fastest win, the longest loss, or a draw),
/// `None` when [`probe`] does not know `pos` or the side to move has no legal move.
pub fn best_move<R: Rules>(pos: &Position) -> Option<Move> {
    let value = probe::<R>(pos)?;
    let mut list = MoveList::new();
    pos.generate::<R>(&mut list);
    list.iter()
        .copied()
        .find(|&m| probe::<R>(&pos.after(m)).map(Value::before) == Some(value))
}

/// Builds every table for rules `R` now (1.4 s of CPU for Italian in release builds), so that
/// later probes never wait; an engine may call it on a background thread at start-up.
pub fn prepare<R: Rules>() {
    for class in 0..CLASSES.len() {
        class_table::<R>(class);
    }
}

/// Counts over one table: every placement of the side to move's `to_move` kings and the other
/// side's `other` kings.
#[derive(Copy, Clone, Eq, PartialEq, Debug, Default)]
pub struct Stats {
    /// Number of positions (legal placements).
    pub positions: u64,
    /// Positions the side to move wins.
    pub wins: u64,
    /// Drawn positions.
    pub draws: u64,
    /// Positions the side to move loses.
    pub losses: u64,
    /// The longest win, in plies (0 if there is none).
    pub longest_win: u32,
    /// The longest loss, in plies (0 if there is none).
    pub longest_loss: u32,
    /// The most plies to the next capture (by either side) or the end of the game, over the
    /// won and lost positions, when the winner hurries to capture (or to end the game) and the
    /// loser delays it, the winner keeping the win: what the no-progress counters see. This is
    /// the "MTC" of `strategy.md`.
    pub longest_to_capture: u32,
}

/// Statistics of the table where the side to move has `to_move` kings and the other side
/// `other` (building it if needed); `None` for a split outside the tables.
///
/// A diagnostic: `longest_to_capture` needs a second retrograde pass over the class, as long
/// as building it.
pub fn stats<R: Rules>(to_move: u32, other: u32) -> Option<Stats> {
    let class = class_index(to_move, other)?;
    let table = class_table::<R>(class);
    let start = part_offset(to_move, other);
    let part = &table[start..start + part_len(to_move, other)];
    let to_capture = solve(
        CLASSES[class].0,
        CLASSES[class].1,
        R::KINGS_FLY,
        |us, them, list| match forward::<R>(us, them, list) {
            Start::Known(Value::Win(_)) => Start::Known(Value::Win(1)),
            Start::Known(Value::Loss(d)) => Start::Known(Value::Loss(d.min(1))),
            other => other,
        },
    );
    let mut s = Stats {
        positions: part.len() as u64,
        longest_to_capture: to_capture[start..start + part.len()]
            .iter()
            .map(|&b| u32::from(b.saturating_sub(1)))
            .max()
            .unwrap_or(0),
        ..Stats::default()
    };
    for &b in part {
        match Value::decode(b) {
            Value::Win(d) => {
                s.wins += 1;
                s.longest_win = s.longest_win.max(d);
            }
            Value::Loss(d) => {
                s.losses += 1;
                s.longest_loss = s.longest_loss.max(d);
            }
            Value::Draw => s.draws += 1,
        }
    }
    Some(s)
}

// ---------------------------------------------------------------------------------------------
// Indexing. Sets of squares are `u32` masks over square indices (bit `n - 1` = square `n`).

/// Binomial coefficients `BINOM[n][k]` for `n <= 32`, `k <= 5`.
const BINOM: [[u32; 6]; 33] = {
    let mut t = [[0u32; 6]; 33];
    let mut n = 0;
    while n <= 32 {
        t[n][0] = 1;
        let mut k = 1;
        while k < 6 {
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

/// The material classes `(strong, weak)`, ordered so that every capture leads to an earlier
/// class (or ends the game).
const CLASSES: [(u32, u32); 6] = [(1, 1), (2, 1), (3, 1), (2, 2), (4, 1), (3, 2)];

/// The class holding the table with `a` kings to move against `b`.
fn class_index(a: u32, b: u32) -> Option<usize> {
    let key = (a.max(b), a.min(b));
    CLASSES.iter().position(|&c| c == key)
}

/// Number of positions with `a` kings to move against `b`.
const fn part_len(a: u32, b: u32) -> usize {
    BINOM[32][a as usize] as usize * BINOM[32 - a as usize][b as usize] as usize
}

/// Where the table `a v b` starts in its class: the stronger side to move comes first.
const fn part_offset(a: u32, b: u32) -> usize {
    if a >= b {
        0
    } else {
        part_len(b, a)
    }
}

/// Positions in a class (both tables).
const fn class_len(strong: u32, weak: u32) -> usize {
    if strong == weak {
        part_len(strong, weak)
    } else {
        2 * part_len(strong, weak)
    }
}

/// The squares of a padded bitboard (`Bitboard::bits`) as a `u32` mask of square indices.
const fn compact(bits: u64) -> u32 {
    (bits & 0xF
        | bits >> 1 & 0xFF0
        | bits >> 2 & 0xF_F000
        | bits >> 3 & 0xFF0_0000
        | bits >> 4 & 0xF000_0000) as u32
}

/// `COLEX[i][s] = C(s, i + 1)`: what square `s` adds to the rank of a set when it is the set's
/// `(i + 1)`-th lowest square.
const COLEX: [[u32; 32]; 5] = {
    let mut t = [[0u32; 32]; 5];
    let mut i = 0;
    while i < 5 {
        let mut s = 0;
        while s < 32 {
            t[i][s] = BINOM[s][i + 1];
            s += 1;
        }
        i += 1;
    }
    t
};

/// The colex rank of a set of at most 5 squares among the sets of its size: the sum of
/// `C(s_i, i)` over its squares `s_1 < s_2 < ...`.
#[inline(always)]
fn rank(mut set: u32) -> usize {
    let mut r = 0;
    for row in &COLEX {
        if set == 0 {
            break;
        }
        r += row[set.trailing_zeros() as usize & 31];
        set &= set - 1;
    }
    debug_assert_eq!(set, 0, "at most 5 squares");
    r as usize
}

/// `set` with the squares of `holes` taken out of the numbering (squares above a hole move
/// down one); `set` and `holes` are disjoint.
#[inline(always)]
fn squeeze(mut set: u32, holes: u32) -> u32 {
    let mut out = 0;
    while set != 0 {
        let sq = set.trailing_zeros();
        out |= 1 << (sq - (holes & ((1 << sq) - 1)).count_ones());
        set &= set - 1;
    }
    out
}

/// The inverse of [`squeeze`]: the `i`-th lowest bit of `set` goes to the `i`-th lowest square
/// not in `holes`.
fn spread(mut set: u32, holes: u32) -> u32 {
    let mut free = !holes;
    let mut out = 0;
    while set != 0 {
        if set & 1 != 0 {
            out |= free & free.wrapping_neg();
        }
        set >>= 1;
        free &= free - 1;
    }
    out
}

/// Index of the position with kings `us` to move against `them`, within its class.
#[inline(always)]
fn index(us: u32, them: u32) -> usize {
    let (a, b) = (us.count_ones(), them.count_ones());
    part_offset(a, b)
        + rank(us) * BINOM[32 - a as usize][b as usize] as usize
        + rank(squeeze(them, us))
}

/// The next larger set with the same number of squares (Gosper's hack; wraps after the last).
fn next_set(x: u32) -> u32 {
    let low = x & x.wrapping_neg();
    let r = x.wrapping_add(low);
    (((r ^ x) >> 2) / low) | r
}

/// Calls `f(us, them, index)` for every position of the table `a v b`, in index order.
fn for_each_position(a: u32, b: u32, mut f: impl FnMut(u32, u32, usize)) {
    let inner = BINOM[32 - a as usize][b as usize];
    let mut i = part_offset(a, b);
    let mut us = (1u32 << a) - 1;
    for _ in 0..BINOM[32][a as usize] {
        let mut rest = (1u32 << b) - 1;
        for _ in 0..inner {
            f(us, spread(rest, us), i);
            i += 1;
            rest = next_set(rest);
        }
        us = next_set(us);
    }
}

// ---------------------------------------------------------------------------------------------
// Tables per rule set, built on first use.

/// The tables of one rule set, one per material class.
struct Tables {
    classes: [OnceLock<Box<[u8]>>; CLASSES.len()],
}

impl Tables {
    const fn new() -> Tables {
        Tables {
            classes: [const { OnceLock::new() }; CLASSES.len()],
        }
    }
}

/// One set of tables per variant, in the order of [`Variant::ALL`].
static TABLES: [Tables; Variant::ALL.len()] = [const { Tables::new() }; Variant::ALL.len()];

/// The table of class `class` under rules `R`, built on first use.
fn class_table<R: Rules>(class: usize) -> &'static [u8] {
    let slot = Variant::ALL
        .iter()
        .position(|&v| v == R::VARIANT)
        .expect("every variant is listed in Variant::ALL");
    TABLES[slot].classes[class].get_or_init(|| build_class::<R>(class))
}

/// The value of the position with kings `us` to move against kings `them` (`them` not empty,
/// at most [`MAX_PIECES`] together).
fn lookup<R: Rules>(us: u32, them: u32) -> Value {
    if us == 0 {
        return Value::Loss(0);
    }
    let class = class_index(us.count_ones(), them.count_ones())
        .expect("lookups stay within the supported material");
    Value::decode(class_table::<R>(class)[index(us, them)])
}

/// The position with White kings `us` to move against Black kings `them`.
fn position(us: u32, them: u32) -> Position {
    let mut setup = Setup::empty();
    for (set, color) in [(us, Color::White), (them, Color::Black)] {
        let mut set = set;
        while set != 0 {
            let sq = Square::from_index(set.trailing_zeros() as usize).expect("32 squares");
            setup.set(
                sq,
                Some(Piece {
                    color,
                    role: Role::King,
                }),
            );
            set &= set - 1;
        }
    }
    setup.turn = Color::White;
    Position::from_setup(&setup).expect("at most five pieces")
}

/// The set of squares of a bitboard of `dama-rules`.
fn squares(b: dama_rules::Bitboard) -> u32 {
    compact(b.bits())
}

/// What the forward pass learns of one position.
#[derive(Copy, Clone, Debug)]
enum Start {
    /// Only quiet moves, this many of them: decided by the backward passes.
    Quiet(u8),
    /// Decided already (no legal move, or captures into smaller tables).
    Known(Value),
}

/// The forward pass for the position with kings `us` to move against `them`.
fn forward<R: Rules>(us: u32, them: u32, list: &mut MoveList) -> Start {
    position(us, them).generate::<R>(list);
    match list.first() {
        None => Start::Known(Value::Loss(0)),
        Some(m) if m.is_capture() => {
            let best = list
                .iter()
                .map(|m| {
                    let to = 1 << m.to().index();
                    let from = 1 << m.from().index();
                    lookup::<R>(them & !squares(m.captured()), us & !from | to).before()
                })
                .max_by_key(|v| v.key())
                .expect("the list is not empty");
            Start::Known(best)
        }
        Some(_) => Start::Quiet(u8::try_from(list.len()).expect("at most 52 king moves")),
    }
}

/// Builds the table of class `class` (its smaller classes on the way, through [`lookup`]).
fn build_class<R: Rules>(class: usize) -> Box<[u8]> {
    let (strong, weak) = CLASSES[class];
    solve(strong, weak, R::KINGS_FLY, |us, them, list| {
        forward::<R>(us, them, list)
    })
}

/// During a build: a decided draw (a capture into a drawn table).
const FIXED_DRAW: u8 = u8::MAX;

/// Retrograde analysis of one class, given the forward pass `start`. Returns one byte per
/// position as [`Value::encode`] (for distance-to-mate starts); the distances are whatever the
/// known starts count, plus one per quiet ply.
fn solve(
    strong: u32,
    weak: u32,
    fly: bool,
    mut start: impl FnMut(u32, u32, &mut MoveList) -> Start,
) -> Box<[u8]> {
    let len = class_len(strong, weak);
    // 0 = undecided, FIXED_DRAW, else distance + 1.
    let mut val = vec![0u8; len];
    let mut count = vec![0u8; len];
    // levels[d] = (losses, wins) decided at distance d, as `us | them << 32`.
    let mut levels: Vec<[Vec<u64>; 2]> = Vec::new();
    let mut list = MoveList::new();
    let parts: &[(u32, u32)] = if strong == weak {
        &[(strong, weak)]
    } else {
        &[(strong, weak), (weak, strong)]
    };
    for &(a, b) in parts {
        for_each_position(a, b, |us, them, i| match start(us, them, &mut list) {
            Start::Quiet(n) => count[i] = n,
            Start::Known(Value::Draw) => val[i] = FIXED_DRAW,
            Start::Known(v) => {
                val[i] = v.encode();
                let d = v.plies().expect("not a draw");
                push(&mut levels, d, matches!(v, Value::Win(_)), us, them);
            }
        });
    }
    let mut d = 0;
    while d < levels.len() {
        let next = u8::try_from(d + 2).ok().filter(|&b| b < FIXED_DRAW);
        let [losses, wins] = std::mem::take(&mut levels[d]);
        for (win, decided) in [(false, losses), (true, wins)] {
            for q in decided {
                let (us, them) = (q as u32, (q >> 32) as u32);
                for_each_unmove(us, them, fly, |prev| {
                    let i = index(prev, us);
                    if val[i] != 0 {
                        return;
                    }
                    if win {
                        count[i] -= 1;
                        if count[i] > 0 {
                            return;
                        }
                    }
                    val[i] = next.expect("distances stay below 254 plies");
                    push(&mut levels, d as u32 + 1, !win, prev, us);
                });
            }
        }
        d += 1;
    }
    val.iter()
        .map(|&b| if b == FIXED_DRAW { 0 } else { b })
        .collect()
}

/// Records a position decided at distance `d` for the backward pass of that distance.
fn push(levels: &mut Vec<[Vec<u64>; 2]>, d: u32, win: bool, us: u32, them: u32) {
    let d = d as usize;
    if levels.len() <= d {
        levels.resize_with(d + 1, Default::default);
    }
    levels[d][win as usize].push(u64::from(us) | u64::from(them) << 32);
}

/// One diagonal from a square: the squares along it, nearest first.
#[derive(Copy, Clone)]
struct Ray {
    len: u8,
    squares: [u8; 7],
}

/// `RAYS[s][dir]`: the four diagonals from square index `s`.
const RAYS: [[Ray; 4]; 32] = {
    let empty = Ray {
        len: 0,
        squares: [0; 7],
    };
    let mut rays = [[empty; 4]; 32];
    let steps: [(i32, i32); 4] = [(-1, -1), (-1, 1), (1, -1), (1, 1)];
    let mut s = 0;
    while s < 32 {
        let sq = Square::ALL[s];
        let mut dir = 0;
        while dir < 4 {
            let (mut r, mut c) = (sq.row() as i32, sq.column() as i32);
            loop {
                r += steps[dir].0;
                c += steps[dir].1;
                if r < 0 || r > 7 || c < 0 || c > 7 {
                    break;
                }
                let Some(next) = Square::from_coords(r as u8, c as u8) else {
                    break;
                };
                let ray = &mut rays[s][dir];
                ray.squares[ray.len as usize] = next.index() as u8;
                ray.len += 1;
            }
            dir += 1;
        }
        s += 1;
    }
    rays
};

/// Calls `f(prev)` for every set `prev` of the other side's kings from which a quiet king move
/// leads to the position `us` to move against `them` (the move was `them`'s).
#[inline]
fn for_each_unmove(us: u32, them: u32, fly: bool, mut f: impl FnMut(u32)) {
    let occupied = us | them;
    let mut kings = them;
    while kings != 0 {
        let to = kings.trailing_zeros();
        kings &= kings - 1;
        let without = them & !(1 << to);
        for ray in &RAYS[to as usize] {
            for &from in &ray.squares[..ray.len as usize] {
                if occupied & 1 << from != 0 {
                    break;
                }
                f(without | 1 << from);
                if !fly {
                    break;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use dama_rules::variant::{English, Italian, Spanish};

    use super::*;

    /// A small xorshift generator: reproducible positions without a dependency.
    struct Rng(u64);

    impl Rng {
        fn below(&mut self, n: u32) -> u32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 % u64::from(n)) as u32
        }

        /// A random set of `n` squares avoiding `taken`.
        fn squares(&mut self, n: u32, taken: u32) -> u32 {
            let mut set = 0u32;
            while set.count_ones() < n {
                let sq = 1 << self.below(32);
                if (set | taken) & sq == 0 {
                    set |= sq;
                }
            }
            set
        }
    }

    fn fen(text: &str) -> Position {
        text.parse().expect("a valid FEN")
    }

    /// The value of `pos` computed from its successors' stored values through the move
    /// generator of `dama-rules`.
    fn from_successors<R: Rules>(pos: &Position) -> Value {
        pos.moves::<R>()
            .iter()
            .map(|&m| probe::<R>(&pos.after(m)).expect("successors are in the tables"))
            .map(Value::before)
            .max_by_key(|v| v.key())
            .unwrap_or(Value::Loss(0))
    }

    /// Checks every position of the table `a v b`, with White and with Black to move, against
    /// its successors. Distances strictly fall along wins and losses, so agreement everywhere
    /// proves the table exact (by induction on the distance).
    fn check_table<R: Rules>(a: u32, b: u32) {
        for_each_position(a, b, |us, them, _| {
            let white = position(us, them);
            let black = position(them, us).with_turn(Color::Black);
            let stored = probe::<R>(&white).unwrap();
            assert_eq!(probe::<R>(&black), Some(stored));
            assert_eq!(from_successors::<R>(&white), stored, "{white:?}");
            assert_eq!(from_successors::<R>(&black), stored, "{black:?}");
        });
    }

    #[test]
    fn compact_numbers_squares_from_zero() {
        for sq in Square::ALL {
            let bits = dama_rules::Bitboard::from_square(sq).bits();
            assert_eq!(compact(bits), 1 << sq.index());
        }
    }

    #[test]
    fn indices_number_each_table_densely() {
        for (a, b) in [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3)] {
            let mut next = part_offset(a, b);
            for_each_position(a, b, |us, them, i| {
                assert_eq!(us & them, 0);
                assert_eq!((us.count_ones(), them.count_ones()), (a, b));
                assert_eq!(i, next);
                assert_eq!(index(us, them), i);
                next += 1;
            });
            assert_eq!(next, part_offset(a, b) + part_len(a, b));
        }
        let strong: usize = CLASSES.iter().map(|&(s, w)| class_len(s, w)).sum();
        assert_eq!(strong, 6_575_472);
    }

    #[test]
    fn two_kings_against_one_match_the_reference_solve() {
        // strategy.md §3: 99.8 % wins, 34 drawn positions, at most 33 plies.
        let s = stats::<Italian>(2, 1).unwrap();
        assert_eq!(s.positions, 32 * 31 * 30 / 2);
        assert_eq!((s.wins, s.draws, s.losses), (14_846, 34, 0));
        assert_eq!((s.longest_win, s.longest_to_capture), (33, 33));
    }

    #[test]
    fn three_kings_against_one_always_win() {
        // strategy.md §3: 100 % wins, at most 12 plies to the next capture. The capture can be
        // the lone king's, forced by a sacrifice into a won 2 v 1: the game itself can last 29.
        let s = stats::<Italian>(3, 1).unwrap();
        assert_eq!((s.wins, s.draws, s.losses), (143_840, 0, 0));
        assert_eq!((s.longest_win, s.longest_to_capture), (29, 12));
    }

    #[test]
    fn two_kings_against_two_match_the_reference_solve() {
        // strategy.md §3: 27 % wins, 71 % draws, at most 19 plies to the next capture.
        let s = stats::<Italian>(2, 2).unwrap();
        assert_eq!((s.wins, s.draws, s.losses), (58_361, 153_456, 3_943));
        assert_eq!(s.longest_to_capture, 19);
    }

    #[test]
    fn three_kings_against_two_match_the_reference_solve() {
        // strategy.md §3: 99.0 % wins, 0.9 % draws, at most 48 plies to the next capture.
        let s = stats::<Italian>(3, 2).unwrap();
        assert_eq!((s.wins, s.draws, s.losses), (1_994_608, 18_090, 1_062));
        assert_eq!((s.longest_win, s.longest_to_capture), (67, 48));
        // The five-piece tables agree with the move generator (a sample; the example
        // `endgame_report --check` goes through all of them).
        let mut rng = Rng(0xd1b5_4a32_d192_ed03);
        for (a, b) in [(3, 2), (2, 3)] {
            for _ in 0..2000 {
                let us = rng.squares(a, 0);
                let pos = position(us, rng.squares(b, us));
                assert_eq!(
                    probe::<Italian>(&pos),
                    Some(from_successors::<Italian>(&pos))
                );
            }
        }
    }

    #[test]
    fn probes_from_several_threads_agree() {
        // Several threads ask for the same (maybe unbuilt) tables at once.
        let probe_all = || {
            let mut rng = Rng(0x1234_5678_9abc_def1);
            (0..2000)
                .map(|_| {
                    let us = rng.squares(3, 0);
                    probe::<English>(&position(us, rng.squares(1, us)))
                })
                .collect::<Vec<_>>()
        };
        let results: Vec<_> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..4).map(|_| s.spawn(probe_all)).collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(results.iter().all(|r| *r == results[0]));
        assert!(results[0].iter().all(|v| matches!(v, Some(Value::Win(_)))));
    }

    #[test]
    fn side_without_a_move_has_lost() {
        // The lone king in the single corner, its only neighbour taken and the square beyond
        // it too.
        let blocked = fen("B:WK28,K23:BK32");
        assert!(blocked.moves::<Italian>().is_empty());
        assert_eq!(probe::<Italian>(&blocked), Some(Value::Loss(0)));
        assert_eq!(best_move::<Italian>(&blocked), None);
        assert_eq!(probe::<Italian>(&fen("W:W:BK5,K6")), Some(Value::Loss(0)));
        assert_eq!(probe::<Italian>(&fen("B:W:BK5,6")), Some(Value::Win(1)));
    }

    #[test]
    fn positions_outside_the_tables_are_not_probed() {
        assert_eq!(probe::<Italian>(&fen("W:WK18,22:BK29")), None);
        assert_eq!(probe::<Italian>(&fen("W:WK1,K2,K3:BK29,K30,K31")), None);
        assert_eq!(best_move::<Italian>(&Position::start()), None);
        assert_eq!(stats::<Italian>(5, 1), None);
    }

    #[test]
    fn best_move_wins_two_kings_against_one_as_promised() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        let mut played = 0;
        while played < 200 {
            let us = rng.squares(2, 0);
            let mut pos = position(us, rng.squares(1, us));
            let Some(Value::Win(d)) = probe::<Italian>(&pos) else {
                continue;
            };
            for ply in 0..d {
                let m = best_move::<Italian>(&pos).expect("the game is not over");
                pos.play::<Italian>(m).unwrap();
                let left = d - ply - 1;
                let expected = if left % 2 == 0 {
                    Value::Loss(left)
                } else {
                    Value::Win(left)
                };
                assert_eq!(probe::<Italian>(&pos), Some(expected));
            }
            assert!(pos.moves::<Italian>().is_empty());
            played += 1;
        }
    }

    #[test]
    fn colours_and_board_turned_keep_the_value() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (a, b) in [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3)] {
            for _ in 0..300 {
                let us = rng.squares(a, 0);
                let them = rng.squares(b, us);
                let pos = position(us, them);
                let value = probe::<Italian>(&pos);
                assert!(value.is_some());
                // Board turned 180° and colours swapped.
                assert_eq!(probe::<Italian>(&pos.flip()), value);
                // Colours swapped only.
                let swapped = position(them, us).with_turn(Color::Black);
                assert_eq!(probe::<Italian>(&swapped), value);
            }
        }
    }

    #[test]
    fn tables_agree_with_the_move_generator() {
        for (a, b) in [(1, 1), (2, 1), (1, 2), (2, 2), (3, 1), (1, 3)] {
            check_table::<Italian>(a, b);
            check_table::<English>(a, b);
            check_table::<Spanish>(a, b);
        }
    }
}
