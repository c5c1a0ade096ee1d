//! Move generation: quiet moves, the fast "can anything capture" test, bulk counting, and the
//! entry points that pick captures or quiet moves.
//!
//! Everything is generic over a [`Rules`] type and a [`Side`] type, so each combination is
//! compiled on its own and no rule is tested per node.

use crate::bitboard::BOARD;
use crate::capture::{self, Best, Count};
use crate::variant::Priority;
use crate::{Color, Move, MoveList, Position, Rules};

/// Diagonal steps in the padded layout: up-left, up-right, down-left, down-right.
pub(crate) const DIRS: [i32; 4] = [-5, -4, 4, 5];

/// One diagonal step of every bit of `b` (bits may land on ghosts; mask before use).
#[inline(always)]
pub(crate) const fn shift(b: u64, d: i32) -> u64 {
    if d > 0 {
        b << d
    } else {
        b >> -d
    }
}

/// The side to move, as a type.
pub(crate) trait Side {
    /// The opponent.
    type Other: Side;
    const COLOR: Color;
    /// The two forward steps of a man.
    const FORWARD: [i32; 2];
    /// The two backward steps.
    const BACKWARD: [i32; 2];
    /// The far row, where this side's men promote.
    const PROMOTION: u64;
}

pub(crate) struct WhiteSide;
pub(crate) struct BlackSide;

impl Side for WhiteSide {
    type Other = BlackSide;
    const COLOR: Color = Color::White;
    const FORWARD: [i32; 2] = [-5, -4];
    const BACKWARD: [i32; 2] = [4, 5];
    const PROMOTION: u64 = 0xF;
}

impl Side for BlackSide {
    type Other = WhiteSide;
    const COLOR: Color = Color::Black;
    const FORWARD: [i32; 2] = [4, 5];
    const BACKWARD: [i32; 2] = [-5, -4];
    const PROMOTION: u64 = 0xF << 32;
}

/// The bitboards the generators work on, seen from the side to move.
#[derive(Copy, Clone)]
pub(crate) struct View {
    pub men: u64,
    pub kings: u64,
    pub them: u64,
    pub them_kings: u64,
    pub empty: u64,
}

impl View {
    #[inline(always)]
    pub fn of<S: Side>(pos: &Position) -> View {
        let us = pos.pieces[S::COLOR.index()];
        let them = pos.pieces[S::COLOR.index() ^ 1];
        View {
            men: us & !pos.kings,
            kings: us & pos.kings,
            them,
            them_kings: them & pos.kings,
            empty: !(us | them) & BOARD,
        }
    }

    /// Enemy pieces a man may jump.
    #[inline(always)]
    pub fn man_victims<R: Rules>(&self) -> u64 {
        if R::MEN_CAPTURE_KINGS {
            self.them
        } else {
            self.them & !self.them_kings
        }
    }
}

/// The steps along which a man of side `S` captures under rules `R`, padded with zeros.
#[inline(always)]
pub(crate) const fn man_capture_dirs<R: Rules, S: Side>() -> [i32; 4] {
    if R::MEN_CAPTURE_BACKWARDS {
        [S::FORWARD[0], S::FORWARD[1], S::BACKWARD[0], S::BACKWARD[1]]
    } else {
        [S::FORWARD[0], S::FORWARD[1], 0, 0]
    }
}

/// Whether some man of the side to move can capture.
#[inline(always)]
fn men_can_capture<R: Rules, S: Side>(v: &View) -> bool {
    let victims = v.man_victims::<R>();
    man_capture_dirs::<R, S>()
        .into_iter()
        .any(|d| d != 0 && shift(shift(v.men, d) & victims, d) & v.empty != 0)
}

/// Whether some king of the side to move can capture.
#[inline(always)]
fn kings_can_capture<R: Rules>(v: &View) -> bool {
    if v.kings == 0 {
        return false;
    }
    for d in DIRS {
        if R::KINGS_FLY {
            let mut ray = shift(v.kings, d);
            loop {
                if shift(ray & v.them, d) & v.empty != 0 {
                    return true;
                }
                ray = shift(ray & v.empty, d);
                if ray == 0 {
                    break;
                }
            }
        } else if shift(shift(v.kings, d) & v.them, d) & v.empty != 0 {
            return true;
        }
    }
    false
}

/// Whether the side to move has any capture.
#[inline]
pub(crate) fn can_capture<R: Rules, S: Side>(v: &View) -> bool {
    men_can_capture::<R, S>(v) || kings_can_capture::<R>(v)
}

/// The fast path for the most common capture positions (the caller has checked that no king
/// can capture): no man can jump more than once. Returns, per entry of [`man_capture_dirs`], the men that jump along
/// that step and are legal under the priority rule; `None` when the full search is needed.
#[inline]
fn single_man_jumps<R: Rules, S: Side>(v: &View) -> Option<[u64; 4]> {
    let victims = v.man_victims::<R>();
    let dirs = man_capture_dirs::<R, S>();
    let mut jumpers = [0u64; 4];
    let mut king_takers = [0u64; 4];
    for (i, d) in dirs.into_iter().enumerate() {
        if d == 0 {
            continue;
        }
        let over = shift(v.men, d) & victims;
        let land = shift(over, d) & v.empty;
        if land == 0 {
            continue;
        }
        let goes_on_from = if R::PROMOTION_CONTINUES {
            if land & S::PROMOTION != 0 {
                return None;
            }
            land
        } else if R::PROMOTION_AT_END_ONLY {
            land
        } else {
            land & !S::PROMOTION
        };
        // A further jump straight back is blocked by the piece just taken, and any other
        // further jump sees the board as it was: the start square is behind that piece.
        for d2 in dirs {
            if d2 != 0 && d2 != -d && shift(shift(goes_on_from, d2) & victims, d2) & v.empty != 0 {
                return None;
            }
        }
        jumpers[i] = shift(land, -2 * d);
        if matches!(R::PRIORITY, Priority::Spanish) {
            king_takers[i] = shift(shift(land, -d) & v.them_kings, -d);
        }
    }
    if matches!(R::PRIORITY, Priority::Spanish) && king_takers.iter().any(|&k| k != 0) {
        return Some(king_takers);
    }
    Some(jumpers)
}

/// Appends the legal captures of the side to move (which has at least one).
#[inline]
fn captures<R: Rules, S: Side>(v: &View, kings_capture: bool, list: &mut MoveList) {
    let simple = if kings_capture {
        None
    } else {
        single_man_jumps::<R, S>(v)
    };
    let Some(jumpers) = simple else {
        capture::generate::<R, S, _>(v, &mut Best::new(list));
        return;
    };
    for (d, mut from) in man_capture_dirs::<R, S>().into_iter().zip(jumpers) {
        while from != 0 {
            let f = from.trailing_zeros();
            from &= from - 1;
            let to = (f as i32 + 2 * d) as u32;
            let over = shift(1u64 << f, d);
            list.push(Move::new(f, to, over, S::PROMOTION >> to & 1 != 0));
        }
    }
}

/// The number of legal captures of the side's men, from the bitboards, when no king can
/// capture, men capture forwards only, and the priority rule ranks men's sequences by length
/// alone (Italian, where men cannot take kings; Brazilian) or not at all (English, Czech);
/// `None` under other rules.
///
/// A man capturing forwards never comes back to a square it passed, so the board is the same
/// for the whole sequence (the pieces it takes and its start square are behind it), and a
/// sequence is its start square and its steps. The men that can make the steps `d1..dk` are
/// then found for all men at once by shifting their set along, and no two sequences make the
/// same move.
#[inline]
fn count_forward_men<R: Rules, S: Side>(v: &View) -> Option<u64> {
    let longest = match R::PRIORITY {
        _ if R::MEN_CAPTURE_BACKWARDS || R::PROMOTION_CONTINUES => return None,
        Priority::Italian if !R::MEN_CAPTURE_KINGS => true,
        Priority::MostPieces => true,
        Priority::Free | Priority::KingFirst => false,
        Priority::Italian | Priority::Spanish => return None,
    };
    let jumps = Jumps {
        victims: v.man_victims::<R>(),
        empty: v.empty,
        dirs: S::FORWARD,
    };
    let [a, b] = S::FORWARD;
    let (fa, fb) = (jumps.jump(v.men, a), jumps.jump(v.men, b));
    Some(if longest {
        let again = jumps.jump(fa, a) | jumps.jump(fa, b) | jumps.jump(fb, a) | jumps.jump(fb, b);
        if again == 0 {
            // The common case: single jumps only.
            return Some(u64::from(fa.count_ones() + fb.count_ones()));
        }
        longest_of(jumps.longest(fa, 1), jumps.longest(fb, 1)).1
    } else {
        jumps.complete(fa) + jumps.complete(fb)
    })
}

/// The fixed board of [`count_forward_men`].
struct Jumps {
    victims: u64,
    empty: u64,
    dirs: [i32; 2],
}

/// The longer of two (length, count) pairs, or their counts added when equally long.
#[inline(always)]
fn longest_of(x: (u32, u64), y: (u32, u64)) -> (u32, u64) {
    match x.0.cmp(&y.0) {
        std::cmp::Ordering::Greater => x,
        std::cmp::Ordering::Less => y,
        std::cmp::Ordering::Equal => (x.0, x.1 + y.1),
    }
}

impl Jumps {
    /// Where the pieces on `f` land after one jump along `d`.
    #[inline(always)]
    fn jump(&self, f: u64, d: i32) -> u64 {
        shift(shift(f, d) & self.victims, d) & self.empty
    }

    /// The length and number of the longest sequences going on from the men on `f`, which
    /// have jumped `k` times (0, 0 when `f` is empty).
    fn longest(&self, f: u64, k: u32) -> (u32, u64) {
        if f == 0 {
            return (0, 0);
        }
        let [a, b] = self.dirs;
        let (fa, fb) = (self.jump(f, a), self.jump(f, b));
        if fa | fb == 0 {
            return (k, u64::from(f.count_ones()));
        }
        longest_of(self.longest(fa, k + 1), self.longest(fb, k + 1))
    }

    /// The number of complete sequences going on from the men on `f`, which have jumped.
    fn complete(&self, f: u64) -> u64 {
        if f == 0 {
            return 0;
        }
        let [a, b] = self.dirs;
        let (fa, fb) = (self.jump(f, a), self.jump(f, b));
        let stuck = f & !(shift(fa, -2 * a) | shift(fb, -2 * b));
        u64::from(stuck.count_ones()) + self.complete(fa) + self.complete(fb)
    }
}

/// The number of legal captures of the side to move (which has at least one).
#[inline]
fn count_captures<R: Rules, S: Side>(v: &View, kings_capture: bool) -> u64 {
    if !kings_capture {
        if let Some(n) = count_forward_men::<R, S>(v) {
            return n;
        }
    }
    let simple = if kings_capture {
        None
    } else {
        single_man_jumps::<R, S>(v)
    };
    match simple {
        Some(jumpers) => jumpers.iter().map(|j| u64::from(j.count_ones())).sum(),
        None if !kings_capture && !R::MEN_CAPTURE_BACKWARDS && !R::PROMOTION_CONTINUES => {
            // No two sequences of forward-capturing men make the same move: count them.
            let mut count = Count::new();
            capture::generate_men::<R, S, _>(v, &mut count);
            count.n
        }
        None => {
            let mut list = MoveList::new();
            capture::generate::<R, S, _>(v, &mut Best::new(&mut list));
            list.len() as u64
        }
    }
}

/// Appends the quiet moves of the side to move.
#[inline]
fn quiet_moves<R: Rules, S: Side>(v: &View, list: &mut MoveList) {
    for d in S::FORWARD {
        let mut targets = shift(v.men, d) & v.empty;
        while targets != 0 {
            let to = targets.trailing_zeros();
            targets &= targets - 1;
            let promotes = S::PROMOTION >> to & 1 != 0;
            list.push(Move::new((to as i32 - d) as u32, to, 0, promotes));
        }
    }
    if v.kings == 0 {
        return;
    }
    if R::KINGS_FLY {
        let mut kings = v.kings;
        while kings != 0 {
            let from = kings.trailing_zeros();
            kings &= kings - 1;
            for d in DIRS {
                let mut ray = shift(1u64 << from, d) & v.empty;
                while ray != 0 {
                    list.push(Move::new(from, ray.trailing_zeros(), 0, false));
                    ray = shift(ray, d) & v.empty;
                }
            }
        }
    } else {
        for d in DIRS {
            let mut targets = shift(v.kings, d) & v.empty;
            while targets != 0 {
                let to = targets.trailing_zeros();
                targets &= targets - 1;
                list.push(Move::new((to as i32 - d) as u32, to, 0, false));
            }
        }
    }
}

/// Number of quiet moves of the side to move, without listing them.
#[inline]
fn count_quiet<R: Rules, S: Side>(v: &View) -> u64 {
    let mut n = 0;
    for d in S::FORWARD {
        n += (shift(v.men, d) & v.empty).count_ones();
    }
    if v.kings != 0 {
        for d in DIRS {
            let mut ray = shift(v.kings, d) & v.empty;
            n += ray.count_ones();
            if R::KINGS_FLY {
                // Rays of different kings in one direction never overlap: each stops at the
                // first occupied square, which is where another king's ray would start.
                while ray != 0 {
                    ray = shift(ray, d) & v.empty;
                    n += ray.count_ones();
                }
            }
        }
    }
    n as u64
}

/// Whether the side to move has a quiet move: an empty square one step ahead of a man or
/// beside a king (a flying king's longer moves pass over that square).
#[inline(always)]
fn has_quiet<S: Side>(v: &View) -> bool {
    let mut reach = shift(v.men, S::FORWARD[0]) | shift(v.men, S::FORWARD[1]);
    if v.kings != 0 {
        for d in DIRS {
            reach |= shift(v.kings, d);
        }
    }
    reach & v.empty != 0
}

/// Calls `f` with the position after each quiet move when the side to move has no capture;
/// otherwise appends its legal captures to `list` and returns `true`.
///
/// The children are built from the bitboards directly: no move is listed or decoded.
#[inline(always)]
pub(crate) fn for_each_quiet_child<R: Rules, S: Side>(
    pos: &Position,
    list: &mut MoveList,
    mut f: impl FnMut(&Position),
) -> bool {
    let v = View::of::<S>(pos);
    let kings_capture = kings_can_capture::<R>(&v);
    if kings_capture || men_can_capture::<R, S>(&v) {
        captures::<R, S>(&v, kings_capture, list);
        return true;
    }
    let us = S::COLOR.index();
    let mut child = *pos;
    child.turn = S::Other::COLOR;
    for d in S::FORWARD {
        let mut targets = shift(v.men, d) & v.empty;
        while targets != 0 {
            let to = targets & targets.wrapping_neg();
            targets ^= to;
            let mut next = child;
            next.pieces[us] ^= to | shift(to, -d);
            next.kings |= to & S::PROMOTION;
            f(&next);
        }
    }
    if v.kings == 0 {
        return false;
    }
    if R::KINGS_FLY {
        let mut kings = v.kings;
        while kings != 0 {
            let from = kings & kings.wrapping_neg();
            kings ^= from;
            for d in DIRS {
                let mut ray = shift(from, d) & v.empty;
                while ray != 0 {
                    let mut next = child;
                    next.pieces[us] ^= from | ray;
                    next.kings ^= from | ray;
                    f(&next);
                    ray = shift(ray, d) & v.empty;
                }
            }
        }
    } else {
        for d in DIRS {
            let mut targets = shift(v.kings, d) & v.empty;
            while targets != 0 {
                let to = targets & targets.wrapping_neg();
                targets ^= to;
                let moved = to | shift(to, -d);
                let mut next = child;
                next.pieces[us] ^= moved;
                next.kings ^= moved;
                f(&next);
            }
        }
    }
    false
}

/// Perft(2) of `pos`, side `S` to move, for rules with short-range kings: the sum over the
/// children of their numbers of legal moves.
///
/// After a quiet move from `a` to `b`, the opponent (when it has no capture) has the quiet
/// moves it had before, plus the steps of its pieces onto `a`, less the steps onto `b`: the
/// children's counts need no population count each.
#[inline]
pub(crate) fn perft2_short<R: Rules, S: Side>(pos: &Position) -> u64 {
    debug_assert!(!R::KINGS_FLY);
    let v = View::of::<S>(pos);
    let kings_capture = kings_can_capture::<R>(&v);
    if kings_capture || men_can_capture::<R, S>(&v) {
        let mut list = MoveList::new();
        captures::<R, S>(&v, kings_capture, &mut list);
        let mut total = 0;
        for &m in &list {
            let mut next = *pos;
            next.play_side::<S>(m);
            total += count_for_side::<R, S::Other>(&next);
        }
        return total;
    }
    let them = View::of::<S::Other>(pos);
    let base = count_quiet::<R, S::Other>(&them);
    let us = S::COLOR.index();
    let mut child = *pos;
    child.turn = S::Other::COLOR;
    let mut total = 0;
    for d in S::FORWARD {
        let mut targets = shift(v.men, d) & v.empty;
        while targets != 0 {
            let to = targets & targets.wrapping_neg();
            targets ^= to;
            let from = shift(to, -d);
            let mut next = child;
            next.pieces[us] ^= to | from;
            next.kings |= to & S::PROMOTION;
            total += leaf_count::<R, S::Other>(&next, from, to, base, &them);
        }
    }
    if v.kings != 0 {
        for d in DIRS {
            let mut targets = shift(v.kings, d) & v.empty;
            while targets != 0 {
                let to = targets & targets.wrapping_neg();
                targets ^= to;
                let from = shift(to, -d);
                let mut next = child;
                next.pieces[us] ^= to | from;
                next.kings ^= to | from;
                total += leaf_count::<R, S::Other>(&next, from, to, base, &them);
            }
        }
    }
    total
}

/// The number of legal moves of `next`, side `S` to move, reached by a quiet move from
/// `from` to `to` from a position where side `S` had the view `before` and `base` quiet moves.
#[inline(always)]
fn leaf_count<R: Rules, S: Side>(
    next: &Position,
    from: u64,
    to: u64,
    base: u64,
    before: &View,
) -> u64 {
    let w = View::of::<S>(next);
    let kings_capture = kings_can_capture::<R>(&w);
    if kings_capture || men_can_capture::<R, S>(&w) {
        return count_captures::<R, S>(&w, kings_capture);
    }
    // The steps of side `S` onto `sq`: they appear on `from` and vanish on `to`.
    let onto = |sq: u64| -> u64 {
        let mut n = 0;
        for d in S::FORWARD {
            n += u64::from(shift(sq, -d) & before.men != 0);
        }
        if before.kings != 0 {
            for d in DIRS {
                n += u64::from(shift(sq, -d) & before.kings != 0);
            }
        }
        n
    };
    base + onto(from) - onto(to)
}

#[inline]
pub(crate) fn legal_for_side<R: Rules, S: Side>(pos: &Position, list: &mut MoveList) {
    let v = View::of::<S>(pos);
    let kings_capture = kings_can_capture::<R>(&v);
    if kings_capture || men_can_capture::<R, S>(&v) {
        captures::<R, S>(&v, kings_capture, list);
    } else {
        quiet_moves::<R, S>(&v, list);
    }
}

#[inline]
pub(crate) fn count_for_side<R: Rules, S: Side>(pos: &Position) -> u64 {
    let v = View::of::<S>(pos);
    let kings_capture = kings_can_capture::<R>(&v);
    if kings_capture || men_can_capture::<R, S>(&v) {
        count_captures::<R, S>(&v, kings_capture)
    } else {
        count_quiet::<R, S>(&v)
    }
}

impl Position {
    /// Appends the legal moves under rules `R` to `list` (which is cleared first).
    ///
    /// ```
    /// use dama_rules::{variant::Italian, MoveList, Position};
    /// let mut list = MoveList::new();
    /// Position::start().generate::<Italian>(&mut list);
    /// assert_eq!(list.len(), 7);
    /// ```
    #[inline]
    pub fn generate<R: Rules>(&self, list: &mut MoveList) {
        list.clear();
        match self.turn {
            Color::White => legal_for_side::<R, WhiteSide>(self, list),
            Color::Black => legal_for_side::<R, BlackSide>(self, list),
        }
    }

    /// The legal moves under rules `R`.
    #[inline]
    pub fn moves<R: Rules>(&self) -> MoveList {
        let mut list = MoveList::new();
        self.generate::<R>(&mut list);
        list
    }

    /// The legal moves under Italian rules.
    pub fn legal_moves(&self) -> MoveList {
        self.moves::<crate::variant::Italian>()
    }

    /// The legal moves under the rules of `variant`.
    pub fn legal_moves_for(&self, variant: crate::Variant) -> MoveList {
        crate::with_rules!(variant, R => self.moves::<R>())
    }

    /// The number of legal moves under rules `R`; quiet moves are counted without being listed.
    #[inline]
    pub fn count_moves<R: Rules>(&self) -> u64 {
        match self.turn {
            Color::White => count_for_side::<R, WhiteSide>(self),
            Color::Black => count_for_side::<R, BlackSide>(self),
        }
    }

    /// Whether the side to move has a move that is not a capture (the same in every variant:
    /// a man steps forward, a king any way), legal only when no capture is pending: with
    /// [`must_capture`](Self::must_capture) it says whether the side to move has any legal
    /// move, and nothing is listed (the search's leaves).
    ///
    /// ```
    /// use dama_rules::{variant::Italian, Position};
    /// let start = Position::start();
    /// assert!(start.has_quiet_move() && !start.must_capture::<Italian>());
    /// ```
    #[inline]
    pub fn has_quiet_move(&self) -> bool {
        match self.turn {
            Color::White => has_quiet::<WhiteSide>(&View::of::<WhiteSide>(self)),
            Color::Black => has_quiet::<BlackSide>(&View::of::<BlackSide>(self)),
        }
    }

    /// Whether the side to move must capture under rules `R`.
    #[inline]
    pub fn must_capture<R: Rules>(&self) -> bool {
        match self.turn {
            Color::White => can_capture::<R, WhiteSide>(&View::of::<WhiteSide>(self)),
            Color::Black => can_capture::<R, BlackSide>(&View::of::<BlackSide>(self)),
        }
    }
}
