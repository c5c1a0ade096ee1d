//! The node search: principal-variation alpha-beta with a transposition table, forced
//! captures searched to a quiet position, reverse futility pruning and late-move reductions.

use std::marker::PhantomData;
use std::sync::atomic::Ordering;

use dama_rules::{Color, Move, MoveList, Position, Rules};

use crate::control::Control;
use crate::eval::evaluate_with;
use crate::nnue::{Accumulator, Network, Pieces};
use crate::ordering::{History, Killers};
use crate::score::{Score, INFINITE, TABLE_WIN, WIN};
use crate::tt::{Bound, Table};
use crate::weights::Weights;
use dama_egtb::Value;

/// Deepest ply a line may reach (extensions included).
pub(crate) const MAX_PLY: usize = 128;

/// Slots of a worker's cache of network values (a power of two).
const EVAL_CACHE: usize = 1 << 14;
/// The value of an empty slot of the cache (never an evaluation, which is within ±20,000).
const NO_VALUE: i32 = i32::MIN;

/// The plies above a node whose accumulators may be its start.
const ANCESTORS: usize = 3;

/// Nodes between two looks at the stop flag and the clock.
const CHECK_EVERY: u64 = 256;

/// One thread's search state.
pub(crate) struct Worker<'a, R: Rules> {
    pub tt: &'a Table,
    pub control: &'a Control<'a>,
    /// Nodes searched by this worker and not yet added to the shared count.
    pub nodes: u64,
    pub unreported: u64,
    pub seldepth: usize,
    /// Hashes of the game's positions and of the current line, the current node last.
    pub keys: Vec<u64>,
    /// Plies without progress after which the game is drawn.
    pub no_progress: u32,
    /// Whether a man move resets the no-progress count.
    pub man_move_is_progress: bool,
    /// The last plies before the no-progress draw, over which a static value fades to a
    /// draw (the knob `fade`).
    pub fade: i32,
    pub killers: Killers,
    pub history: History,
    pub pv: Vec<[Move; MAX_PLY]>,
    pub pv_len: [usize; MAX_PLY + 1],
    /// Per ply, the move scores for ordering: kept here, not zeroed on the stack at every
    /// node (1 KiB each; `memset` was 3 % of the samples of `dama bench`).
    pub scores: Box<[[i32; dama_rules::MAX_MOVES]]>,
    pub stopped: bool,
    /// The evaluation's weights.
    pub weights: &'a Weights,
    /// The network in `weights`, if any, and per ply an accumulator with the pieces it
    /// holds (at first none: the bias alone): exact for them whatever was searched since.
    pub net: Option<&'a Network>,
    pub accs: Box<[Accumulator]>,
    pub acc_pieces: Box<[Pieces]>,
    /// The network's last values by position hash, [`EVAL_CACHE`] slots (none without a
    /// network): the hash and the value, [`NO_VALUE`] in an empty slot.
    pub eval_cache: Box<[(u64, i32)]>,
    /// Whether this worker reports and owns the stop decision for time and nodes.
    pub main: bool,
    pub _rules: PhantomData<R>,
}

/// Move scores for ordering.
const TT_MOVE: i32 = 1 << 30;
const PROMOTION: i32 = 1 << 25;
const KILLER: [i32; 2] = [1 << 24, 1 << 23];

impl<'a, R: Rules> Worker<'a, R> {
    pub fn new(tt: &'a Table, control: &'a Control<'a>, keys: Vec<u64>, main: bool) -> Self {
        let rules = R::VARIANT.draw_rules();
        let weights = if let Some(w) = control.weights {
            w
        } else if control.knobs.hand_weights {
            crate::weights::hand_set(R::VARIANT)
        } else if control.knobs.classic_eval {
            crate::weights::classic(R::VARIANT)
        } else if control.knobs.pattern_eval {
            crate::weights::with_patterns(R::VARIANT)
        } else if control.knobs.net_eval {
            crate::weights::network(R::VARIANT)
                .unwrap_or_else(|| crate::weights::for_variant(R::VARIANT))
        } else {
            crate::weights::for_variant(R::VARIANT)
        };
        let net = weights.net().filter(|n| n.variant == R::VARIANT);
        let (stack, bias) = match net {
            Some(n) => (MAX_PLY + 1, n.bias()),
            None => (0, Accumulator::default()),
        };
        Worker {
            tt,
            control,
            nodes: 0,
            unreported: 0,
            seldepth: 0,
            keys,
            no_progress: rules.no_progress_plies,
            man_move_is_progress: rules.man_move_is_progress,
            fade: i32::from(control.knobs.fade),
            killers: Killers::default(),
            history: History::default(),
            pv: vec![[first_dummy(); MAX_PLY]; MAX_PLY + 1],
            pv_len: [0; MAX_PLY + 1],
            scores: vec![[0; dama_rules::MAX_MOVES]; MAX_PLY + 1].into_boxed_slice(),
            stopped: false,
            weights,
            net,
            accs: vec![bias; stack].into_boxed_slice(),
            acc_pieces: vec![Pieces::default(); stack].into_boxed_slice(),
            eval_cache: vec![(0, NO_VALUE); if stack > 0 { EVAL_CACHE } else { 0 }]
                .into_boxed_slice(),
            main,
            _rules: PhantomData,
        }
    }

    /// Counts a node and now and then looks at the stop flag, the clock and the node limit.
    #[inline]
    fn count_node(&mut self) {
        self.nodes += 1;
        self.unreported += 1;
        if self.unreported >= CHECK_EVERY {
            self.flush_nodes();
            if self.control.should_stop(self.main) {
                self.stopped = true;
            }
        }
    }

    pub fn flush_nodes(&mut self) {
        self.control
            .nodes
            .fetch_add(self.unreported, Ordering::Relaxed);
        self.unreported = 0;
    }

    /// The plies without progress after `m` is played in `pos`.
    #[inline(always)]
    pub fn quiet_after(&self, pos: &Position, m: Move, quiet: u32) -> u32 {
        let progress = m.is_capture()
            || m.promotes()
            || (self.man_move_is_progress && pos.men(pos.turn()).contains(m.from()));
        if progress {
            0
        } else {
            quiet + 1
        }
    }

    /// Whether the current node repeats a position of the line or the game since the last
    /// progress.
    #[inline(always)]
    fn repeats(&self, quiet: u32) -> bool {
        let n = self.keys.len();
        let key = self.keys[n - 1];
        let back = (quiet as usize).min(n - 1);
        (4..=back).step_by(2).any(|i| self.keys[n - 1 - i] == key)
    }

    /// The static value of a quiet node, pulled towards a draw as the no-progress count nears
    /// its limit (linearly over the last [`fade`](Self::fade) plies) so that the stronger side
    /// makes progress while it can.
    #[inline(always)]
    fn static_value(&mut self, pos: &Position, ply: usize, quiet: u32) -> i32 {
        let e = match self.net {
            Some(net) => self.net_value(net, pos, ply),
            None => evaluate_with(pos, self.weights),
        }
        .clamp(-Score::EVAL_MAX.0, Score::EVAL_MAX.0);
        let left = self.no_progress.saturating_sub(quiet) as i32;
        if left < self.fade {
            e * left / self.fade
        } else {
            e
        }
    }

    /// The network's value of `pos` at `ply`: from the cache when this hash's value is
    /// there (the same position met again: a re-search, the next iteration; two positions of
    /// one hash would share a value as they share a table entry), else computed and kept.
    #[inline(always)]
    fn net_value(&mut self, net: &Network, pos: &Position, ply: usize) -> i32 {
        let key = self.keys[self.keys.len() - 1];
        let slot = key as usize & (EVAL_CACHE - 1);
        let (k, v) = self.eval_cache[slot];
        if k == key && v != NO_VALUE {
            return v;
        }
        let v = self.net_value_computed(net, pos, ply);
        self.eval_cache[slot] = (key, v);
        v
    }

    /// The network's value of `pos` at `ply`, computed: its accumulator is made from this
    /// ply's last or one of the [`ANCESTORS`] plies' above, whichever differs by fewest
    /// pieces (the grandparent's when the parent was not evaluated), or from scratch, and
    /// evaluated in the same call.
    #[inline(always)]
    fn net_value_computed(&mut self, net: &Network, pos: &Position, ply: usize) -> i32 {
        let now = Pieces::of(pos);
        let same = self.acc_pieces[ply].changes(&now);
        if same == 0 {
            return net.evaluate(&self.accs[ply], pos.turn());
        }
        // The nearest of the plies above whose accumulator differs by fewest pieces.
        let (mut from, mut cost) = (ply, same);
        for a in (ply.saturating_sub(ANCESTORS)..ply).rev() {
            let c = self.acc_pieces[a].changes(&now);
            if c < cost {
                (from, cost) = (a, c);
            }
        }
        let v = if cost >= now.count() {
            self.accs[ply] = net.refresh(pos);
            net.evaluate(&self.accs[ply], pos.turn())
        } else if from == ply {
            let old = &self.acc_pieces[ply];
            net.update_evaluate(&mut self.accs[ply], None, old, &now, pos.turn())
        } else {
            let (above, here) = self.accs.split_at_mut(ply);
            let old = &self.acc_pieces[from];
            net.update_evaluate(&mut here[0], Some(&above[from]), old, &now, pos.turn())
        };
        self.acc_pieces[ply] = now;
        v
    }

    /// A draw's value for the side to move `ply` plies below the root: minus the contempt
    /// for the root's side, plus it for the other.
    #[inline(always)]
    fn draw(&self, ply: usize) -> i32 {
        let c = i32::from(self.control.knobs.contempt);
        if ply.is_multiple_of(2) {
            -c
        } else {
            c
        }
    }

    /// The exact value of a position with few pieces and no capture pending for either side,
    /// from the endgame tables; a win or loss whose next conversion the no-progress counter
    /// would not reach is left to the search.
    #[inline(always)]
    fn probe_endgame(&self, pos: &Position, ply: usize, quiet: u32) -> Option<i32> {
        let tables = self.control.endgames;
        if !tables.may_cover(R::VARIANT, pos.occupied().count())
            || pos.with_turn(!pos.turn()).must_capture::<R>()
        {
            return None;
        }
        let ply = ply as i32;
        match tables.probe::<R>(pos)? {
            Value::Draw => Some(self.draw(ply as usize)),
            Value::Win(n) if quiet + n < self.no_progress => Some(TABLE_WIN - ply - n as i32),
            Value::Loss(n) if quiet + n < self.no_progress => Some(-TABLE_WIN + ply + n as i32),
            _ => None,
        }
    }

    /// The value of a node at the horizon with no capture pending: what [`search`](Self::search)
    /// would return there, in the same order (no move, the draws, the tables, the mate
    /// distance, the static value), without listing the moves: most nodes are such leaves.
    #[inline(always)]
    fn quiet_leaf(&mut self, pos: &Position, alpha: i32, beta: i32, ply: usize, quiet: u32) -> i32 {
        if !pos.has_quiet_move() {
            return -WIN + ply as i32;
        }
        if quiet >= self.no_progress || self.repeats(quiet) {
            return self.draw(ply);
        }
        if ply >= MAX_PLY - 1 {
            return self.static_value(pos, ply, quiet);
        }
        if ply > 0 {
            if let Some(v) = self.probe_endgame(pos, ply, quiet) {
                return v;
            }
        }
        let alpha = alpha.max(-WIN + ply as i32);
        if alpha >= beta.min(WIN - ply as i32 - 1) {
            return alpha;
        }
        self.static_value(pos, ply, quiet)
    }

    /// Asks for the memory a child of hash `key` of a node searched to `depth` will read: its
    /// table bucket, and its cached network value when the child is at the horizon or in
    /// reach of reverse futility.
    #[inline(always)]
    fn prefetch_child(&self, key: u64, depth: i32) {
        if depth > i32::from(self.control.knobs.tt_depth) {
            self.tt.prefetch(key);
        }
        if self.net.is_some() && depth <= i32::from(self.control.knobs.rfp) + 1 {
            prefetch(&self.eval_cache[key as usize & (EVAL_CACHE - 1)]);
        }
    }

    /// Searches `pos` (whose hash is the last of `keys`) to `depth` plies.
    #[allow(clippy::too_many_arguments)]
    pub fn search(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        mut beta: i32,
        mut depth: i32,
        ply: usize,
        quiet: u32,
        pv_node: bool,
    ) -> i32 {
        self.pv_len[ply] = ply;
        self.count_node();
        if self.stopped {
            return 0;
        }
        self.seldepth = self.seldepth.max(ply);
        if depth <= 0 && !pos.must_capture::<R>() {
            return self.quiet_leaf(pos, alpha, beta, ply, quiet);
        }
        let mut list = MoveList::new();
        pos.generate::<R>(&mut list);
        if list.is_empty() {
            return -WIN + ply as i32;
        }
        if quiet >= self.no_progress || self.repeats(quiet) {
            return self.draw(ply);
        }
        if ply >= MAX_PLY - 1 {
            return self.static_value(pos, ply, quiet);
        }
        if ply > 0 && !list[0].is_capture() {
            if let Some(v) = self.probe_endgame(pos, ply, quiet) {
                return v;
            }
        }
        // Mate-distance pruning: no line from here beats a win found nearer the root.
        alpha = alpha.max(-WIN + ply as i32);
        beta = beta.min(WIN - ply as i32 - 1);
        if alpha >= beta {
            return alpha;
        }
        let capture = list[0].is_capture();
        if depth <= 0 && !capture {
            return self.static_value(pos, ply, quiet);
        }
        if list.len() == 1 && depth > 0 && self.control.knobs.single_reply {
            depth += 1;
        }

        let key = self.keys[self.keys.len() - 1];
        let mut tt_move = None;
        // The table's score where its bound says it is better than the static value: for
        // reverse futility (`rfptt`).
        let mut tt_bound = None;
        // Nodes one ply from the horizon and capture sequences below it are many and cheap:
        // the table would cost a cache miss for little.
        let use_tt = depth >= i32::from(self.control.knobs.tt_depth);
        if let Some(hit) = use_tt.then(|| self.tt.probe(key)).flatten() {
            tt_move = hit.move_index.filter(|&i| usize::from(i) < list.len());
            let s = Score::from_tt(hit.stored, ply).0;
            tt_bound = Some((s, hit.bound));
            if !pv_node && hit.depth >= depth {
                let cut = match hit.bound {
                    Bound::Exact => true,
                    Bound::Lower => s >= beta,
                    Bound::Upper => s <= alpha,
                };
                if cut {
                    return s;
                }
            }
        }

        if !pv_node
            && depth <= i32::from(self.control.knobs.rfp)
            && !capture
            && beta.abs() < WIN - 1_000
            && !pos.with_turn(!pos.turn()).must_capture::<R>()
        {
            let mut e = self.static_value(pos, ply, quiet);
            if let Some((s, bound)) = tt_bound.filter(|_| self.control.knobs.rfp_tt) {
                let better = match bound {
                    Bound::Exact => true,
                    Bound::Lower => s > e,
                    Bound::Upper => s < e,
                };
                if better && s.abs() < WIN - 1_000 {
                    e = s;
                }
            }
            if e - i32::from(self.control.knobs.rfp_margin) * depth >= beta {
                return e;
            }
        }

        self.score_moves(pos, &list, tt_move, ply);

        let alpha0 = alpha;
        let mut best = -INFINITE;
        let mut best_index = None;
        let us = pos.turn();
        // The scores do not change during the loop, so the next move is known while this one
        // is searched: its child's table bucket and cached value are asked for one move
        // ahead, and are in the cache by the time it is searched.
        let parent = key;
        let mut next = pick(list.len(), &mut self.scores[ply]);
        let mut next_key = pos.hash_after(parent, list[next]);
        self.prefetch_child(next_key, depth);
        for n in 0..list.len() {
            let (i, key) = (next, next_key);
            let m = list[i];
            if n + 1 < list.len() {
                next = pick(list.len(), &mut self.scores[ply]);
                next_key = pos.hash_after(parent, list[next]);
                self.prefetch_child(next_key, depth);
            }
            let child = pos.after(m);
            let child_quiet = self.quiet_after(pos, m, quiet);
            self.keys.push(key);
            let reduce = if depth >= 3 && !capture && !m.promotes() {
                self.reduction(n, depth, pv_node, us, m, ply)
            } else {
                0
            };
            let d = depth - 1;
            let mut v;
            if n == 0 {
                v = -self.search(&child, -beta, -alpha, d, ply + 1, child_quiet, pv_node);
            } else {
                v = -self.search(
                    &child,
                    -alpha - 1,
                    -alpha,
                    d - reduce,
                    ply + 1,
                    child_quiet,
                    false,
                );
                if v > alpha && reduce > 0 {
                    v = -self.search(&child, -alpha - 1, -alpha, d, ply + 1, child_quiet, false);
                }
                if v > alpha && v < beta && pv_node {
                    v = -self.search(&child, -beta, -alpha, d, ply + 1, child_quiet, true);
                }
            }
            self.keys.pop();
            if self.stopped {
                return 0;
            }
            if v > best {
                best = v;
                best_index = Some(i);
                if v > alpha {
                    alpha = v;
                    self.update_pv(ply, m);
                    if v >= beta {
                        if !capture {
                            self.killers.add(ply, m);
                            self.history.reward(us, m, depth);
                        }
                        break;
                    }
                }
            }
        }
        let bound = if best >= beta {
            Bound::Lower
        } else if best > alpha0 {
            Bound::Exact
        } else {
            Bound::Upper
        };
        if use_tt {
            self.tt.store(
                key,
                Score(best).to_tt(ply),
                bound,
                depth,
                best_index.map(|i| i as u8),
            );
        }
        best
    }

    /// Plies by which the `n`-th quiet move (from 0), `m`, is searched less: the `lmr`
    /// scheme's, then, with `hred`, one less for a killer and one more in a non-PV node for a
    /// move that has never cut.
    #[inline(always)]
    fn reduction(
        &self,
        n: usize,
        depth: i32,
        pv_node: bool,
        us: Color,
        m: Move,
        ply: usize,
    ) -> i32 {
        let r = self.table_reduction(n, depth, pv_node);
        if !self.control.knobs.history_reduction || r == 0 {
            r
        } else if self.killers.slot(ply, m).is_some() {
            r - 1
        } else if !pv_node && self.history.get(us, m) == 0 {
            (r + 1).min(depth - 2)
        } else {
            r
        }
    }

    /// The `lmr` scheme's reduction of the `n`-th quiet move (from 0).
    #[inline(always)]
    fn table_reduction(&self, n: usize, depth: i32, pv_node: bool) -> i32 {
        match self.control.knobs.lmr {
            0 => 0,
            1 => i32::from(n >= 3) + i32::from(n >= 8 && !pv_node),
            2 => {
                let first = if pv_node { 3 } else { 2 };
                i32::from(n >= first) + i32::from(n >= 6)
            }
            _ => {
                let table = match self.control.knobs.lmr {
                    4 => &LMR_TABLE_LESS,
                    5 => &LMR_TABLE_MORE,
                    _ => &LMR_TABLE,
                };
                let r = i32::from(table[(depth as usize).min(63)][n.min(63)]);
                (r - i32::from(pv_node)).clamp(0, depth - 2)
            }
        }
    }

    fn update_pv(&mut self, ply: usize, m: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        let line = &mut head[ply];
        line[ply] = m;
        let end = self.pv_len[ply + 1].max(ply + 1);
        line[ply + 1..end].copy_from_slice(&tail[0][ply + 1..end]);
        self.pv_len[ply] = end;
    }

    /// Scores the moves of `list` into this ply's scores.
    fn score_moves(&mut self, pos: &Position, list: &MoveList, tt_move: Option<u8>, ply: usize) {
        let scores = &mut self.scores[ply];
        let us = pos.turn();
        for (i, &m) in list.iter().enumerate() {
            scores[i] = if m.promotes() {
                PROMOTION
            } else if let Some(k) = self.killers.slot(ply, m) {
                KILLER[k]
            } else {
                self.history.get(us, m)
            };
        }
        if let Some(t) = tt_move {
            scores[usize::from(t)] = TT_MOVE;
        }
    }
}

/// Reductions of `lmr=3` by depth and move number (from 0): `0.5 + ln(depth) × ln(n + 1) / 2`,
/// rounded down, none for the first two moves. Made at compile time from a few terms of the
/// logarithm (`const` code has no `f64::ln`).
static LMR_TABLE: [[u8; 64]; 64] = lmr_table(2.0);
/// `lmr=4`: the same over 2.5 (reduces less).
static LMR_TABLE_LESS: [[u8; 64]; 64] = lmr_table(2.5);
/// `lmr=5`: the same over 1.6 (reduces more).
static LMR_TABLE_MORE: [[u8; 64]; 64] = lmr_table(1.6);

const fn lmr_table(divisor: f64) -> [[u8; 64]; 64] {
    let mut t = [[0u8; 64]; 64];
    let mut d = 1;
    while d < 64 {
        let mut n = 2;
        while n < 64 {
            let r = 0.5 + ln(d as f64) * ln((n + 1) as f64) / divisor;
            t[d][n] = r as u8;
            n += 1;
        }
        d += 1;
    }
    t
}

/// `ln(x)` for `x ≥ 1` in `const` code: halvings to `[1, 2)`, then the series of
/// `2 artanh((x - 1) / (x + 1))`, exact to far below the table's rounding.
const fn ln(mut x: f64) -> f64 {
    let mut k = 0.0;
    while x >= 2.0 {
        x /= 2.0;
        k += 1.0;
    }
    let y = (x - 1.0) / (x + 1.0);
    let (mut term, mut sum, mut i) = (y, 0.0, 1.0);
    while i < 41.0 {
        sum += term / i;
        term *= y * y;
        i += 2.0;
    }
    k * std::f64::consts::LN_2 + 2.0 * sum
}

/// Asks the processor to bring `r`'s cache line in (as [`Table::prefetch`]): the value
/// cache's probe waited for it, 6 % of the search's samples on the compare (`perf annotate`).
#[inline(always)]
fn prefetch<T>(r: &T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unsafe_code)]
    // SAFETY: a prefetch is a hint that never faults; the address is a reference's anyway.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(r).cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = r;
}

/// The index of the best-scored move not yet picked; its score is used up.
#[inline(always)]
fn pick(len: usize, scores: &mut [i32]) -> usize {
    let mut best = 0;
    let mut best_score = i32::MIN;
    for (i, &s) in scores.iter().enumerate().take(len) {
        if s > best_score {
            best_score = s;
            best = i;
        }
    }
    scores[best] = i32::MIN;
    best
}

fn first_dummy() -> Move {
    Position::start().legal_moves()[0]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_const_logarithm_matches_the_library_one() {
        for x in [1.0, 1.5, 2.0, 3.0, 10.0, 63.0, 64.0] {
            assert!((ln(x) - f64::ln(x)).abs() < 1e-12, "ln({x})");
        }
    }

    #[test]
    fn the_reduction_table_grows_with_depth_and_move_number() {
        for (d, row) in LMR_TABLE.iter().enumerate().skip(1) {
            for (n, &r) in row.iter().enumerate() {
                let want = if n < 2 {
                    0
                } else {
                    (0.5 + f64::ln(d as f64) * f64::ln((n + 1) as f64) / 2.0) as u8
                };
                assert_eq!(r, want, "depth {d} move {n}");
            }
        }
        assert_eq!(LMR_TABLE[3][2], 1);
        assert_eq!(LMR_TABLE[10][10], 3);
    }
}
