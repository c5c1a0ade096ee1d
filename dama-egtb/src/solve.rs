//! The retrograde generator.
//!
//! # Order
//!
//! A material class is solved together with its colour-swapped twin (the positions with Black
//! to move), smaller classes first: fewer pieces, then fewer men. Within the pair, the men
//! configurations are solved one at a time in increasing *potential* (the forward steps the
//! men have left, one step per man move). So every conversion leads somewhere solved already:
//! a capture into a class with fewer pieces, a promotion into one with fewer men, any other
//! man move into a configuration of lower potential. These per-configuration units are finer
//! than the leading-rank slices of Chinook and KingsRow (a slice by the most advanced man's
//! rank still holds the moves of the men behind it), and need no iteration between slices.
//!
//! # One unit: retrograde over the king moves
//!
//! 1. A forward pass runs the `dama-rules` move generator on every position of the unit (both
//!    sides to move). No legal move: a loss in 0. A capture is compulsory, so a position with
//!    one has only captures: its value is the best of theirs (read in smaller classes, which
//!    need only win/draw/loss), a win or loss in 1 or a draw. Otherwise a man move that wins
//!    makes a win in 1; the others are noted (a drawing one means the position is never lost),
//!    and the king moves are counted.
//! 2. Backward passes, one per distance `d = 0, 1, ...`: every position decided at `d` unmakes
//!    the quiet king moves that could have led to it (they stay in the unit; a king flies back
//!    in the variants whose kings fly). A predecessor of a loss is a win in `d + 1` (the first
//!    found is the shortest); a predecessor of a win loses one of its counted king moves, and
//!    when none is left it is a loss in `d + 1` (the last found is the longest), or a draw if
//!    one of its man moves draws.
//! 3. What is left undecided is a draw.
//!
//! The distance is MTC (see [`Value`]): conversions are exits valued by what is already
//! known, king moves the internal retrograde. The values ignore the 40-move rule.

use dama_rules::{Move, MoveList, Position, Rules, Square};

use crate::index::{binom, flip, next_set, spread, Material, Placement};
use crate::value::{Value, Wdl};
use crate::Error;

/// Where a lookup finds the byte of a position: in memory (a build) or in files (a probe).
pub(crate) trait Source {
    /// The stored byte of index `i` of class `m`, `None` when the class is not held.
    fn byte(&self, m: Material, i: usize) -> Result<Option<u8>, Error>;

    /// The metric of the stored bytes.
    fn metric(&self) -> Metric {
        Metric::Mtc
    }
}

/// The stored byte of `v` in `metric`.
pub(crate) fn encode_in(v: Value, metric: Metric) -> Result<u8, Error> {
    match metric {
        Metric::Mtc => v.encode(),
        Metric::Dtw => v.encode_dtw(),
    }
    .ok_or(Error::DistanceOverflow)
}

/// The value of a stored byte in `metric`.
pub(crate) const fn decode_in(b: u8, metric: Metric) -> Value {
    match metric {
        Metric::Mtc => Value::decode(b),
        Metric::Dtw => Value::decode_dtw(b),
    }
}

/// The value of `pos` (either side to move) read from `src`. With `resolve_captures`, a
/// position whose side to move must capture is valued by its captures (the files do not
/// store those positions); otherwise its stored byte is used. `None` when a class needed is
/// not held.
pub(crate) fn value_of<R: Rules, S: Source + ?Sized>(
    src: &S,
    pos: &Position,
    resolve_captures: bool,
) -> Result<Option<Value>, Error> {
    let p = Placement::of(pos);
    let m = p.material();
    if m.white_men + m.white_kings == 0 {
        return Ok(Some(Value::Loss(0)));
    }
    if m.black_men + m.black_kings == 0 {
        // The opponent is already without pieces (not a position of play): a win if the side
        // to move can move at all.
        return Ok(Some(if pos.count_moves::<R>() > 0 {
            Value::Win(1)
        } else {
            Value::Loss(0)
        }));
    }
    if !m.is_table() {
        return Ok(None);
    }
    if resolve_captures && pos.must_capture::<R>() {
        let mut best: Option<Wdl> = None;
        for m in pos.moves::<R>().iter() {
            let Some(v) = value_of::<R, S>(src, &pos.after(*m), true)? else {
                return Ok(None);
            };
            let w = v.wdl().flip();
            best = Some(match (best, w) {
                (Some(Wdl::Win), _) | (_, Wdl::Win) => Wdl::Win,
                (Some(Wdl::Draw), _) | (_, Wdl::Draw) => Wdl::Draw,
                _ => Wdl::Loss,
            });
        }
        return Ok(Some(match best {
            Some(Wdl::Win) => Value::Win(1),
            Some(Wdl::Draw) => Value::Draw,
            Some(Wdl::Loss) => Value::Loss(1),
            None => Value::Loss(0),
        }));
    }
    let metric = src.metric();
    Ok(src.byte(m, m.index(&p))?.map(|b| decode_in(b, metric)))
}

/// The classes a class's conversions lead into (captures by either side, with or without a
/// promotion on the way, and promotions), each as the class of its positions with White to
/// move or its twin; classes where a side has no piece are left out.
pub fn dependencies(a: Material) -> Vec<Material> {
    let mut out = Vec::new();
    for (us, them) in [(a, false), (a.flip(), true)] {
        let _ = them;
        let (wm, wk, bm, bk) = (us.white_men, us.white_kings, us.black_men, us.black_kings);
        // Promotion of a man without capture.
        if wm > 0 {
            out.push(Material::new(wm - 1, wk + 1, bm, bk));
        }
        for p in 0..=u8::from(wm > 0) {
            for i in 0..=bm {
                for j in 0..=bk {
                    if i + j == 0 {
                        continue;
                    }
                    out.push(Material::new(wm - p, wk + p, bm - i, bk - j));
                }
            }
        }
    }
    let mut canon: Vec<Material> = out
        .into_iter()
        .filter(|m| m.is_table())
        .map(canonical)
        .filter(|&m| m != canonical(a))
        .collect();
    canon.sort();
    canon.dedup();
    canon
}

/// The member of the pair `{m, m.flip()}` that the build names.
pub fn canonical(m: Material) -> Material {
    m.min(m.flip())
}

/// Every class with at most `pieces` pieces, one per pair, in an order where each one's
/// dependencies come first.
pub fn build_order(pieces: u32) -> Vec<Material> {
    let mut all = Vec::new();
    for wm in 0..=pieces as u8 {
        for wk in 0..=pieces as u8 {
            for bm in 0..=pieces as u8 {
                for bk in 0..=pieces as u8 {
                    let m = Material::new(wm, wk, bm, bk);
                    if m.is_table() && m.pieces() <= pieces && canonical(m) == m {
                        all.push(m);
                    }
                }
            }
        }
    }
    all.sort_by_key(|m| (m.pieces(), m.men(), *m));
    all
}

/// The store plus the pair being built.
struct BuildSource<'a, S: Source + ?Sized> {
    store: &'a S,
    a: Material,
    va: &'a [u8],
    b: Material,
    vb: &'a [u8],
}

impl<S: Source + ?Sized> Source for BuildSource<'_, S> {
    fn metric(&self) -> Metric {
        self.store.metric()
    }

    #[inline]
    fn byte(&self, m: Material, i: usize) -> Result<Option<u8>, Error> {
        if m == self.a {
            Ok(self.va.get(i).copied())
        } else if m == self.b {
            Ok(self.vb.get(i).copied())
        } else {
            self.store.byte(m, i)
        }
    }
}

/// One diagonal from a square: the square indices along it, nearest first.
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

/// One side of a unit: a class and a men configuration, White to move.
#[derive(Copy, Clone)]
struct Part {
    mat: Material,
    wm: u32,
    bm: u32,
    men: u32,
    kings: usize,
}

/// The working state of a position: decided, or the king moves not yet known to lose.
const DONE: u8 = 0xFF;
/// Set in the state when a man move draws: the position can no longer be lost.
const DRAW_EXIT: u8 = 0x80;

/// Reusable buffers of one thread.
#[derive(Default)]
struct Scratch {
    val: [Vec<u8>; 2],
    st: [Vec<u8>; 2],
    /// `levels[d][part * 2 + win]`: positions decided at distance `d`, as `wk | bk << 32`.
    levels: Vec<[Vec<u64>; 4]>,
    /// DTW only: `seeds[d][part]`, positions with a man move winning in `d`, decided then
    /// unless a king move wins sooner.
    seeds: Vec<[Vec<u64>; 2]>,
    /// DTW only: per position, the shortest win by a man move (0: none).
    exit_win: [Vec<u16>; 2],
    /// DTW only: per position, the longest loss by a man move (0: none).
    exit_loss: [Vec<u16>; 2],
    list: MoveList,
}

impl Scratch {
    fn push(&mut self, d: u32, part: usize, win: bool, wk: u32, bk: u32) {
        let d = d as usize;
        if self.levels.len() <= d {
            self.levels.resize_with(d + 1, Default::default);
        }
        self.levels[d][part * 2 + win as usize].push(u64::from(wk) | u64::from(bk) << 32);
    }

    fn seed(&mut self, d: u32, part: usize, wk: u32, bk: u32) {
        let d = d as usize;
        if self.seeds.len() <= d {
            self.seeds.resize_with(d + 1, Default::default);
        }
        self.seeds[d][part].push(u64::from(wk) | u64::from(bk) << 32);
    }
}

/// The metric a table's distances are in.
#[derive(Copy, Clone, Eq, PartialEq, Hash, Debug, Default)]
pub enum Metric {
    /// Moves to conversion (the files' metric, see [`Value`]).
    #[default]
    Mtc,
    /// Distance to win: plies to the end of the game (the loser left without a legal
    /// move), every ply counted, the winner hurrying and the loser delaying it. What says
    /// which of two winning king moves brings the end closer, where MTC cannot.
    Dtw,
}

/// Calls `f(j, wk, bk)` for every kings placement of `part`, in index order.
#[inline]
fn for_each_kings(part: &Part, mut f: impl FnMut(usize, u32, u32)) {
    let nf = 32 - part.men.count_ones();
    let (nw, nb) = (
        u32::from(part.mat.white_kings),
        u32::from(part.mat.black_kings),
    );
    let mut j = 0;
    let mut wr = (1u32 << nw) - 1;
    for _ in 0..binom(nf, nw) {
        let wk = spread(wr, part.men);
        let mut br = (1u32 << nb) - 1;
        for _ in 0..binom(nf - nw, nb) {
            f(j, wk, spread(br, part.men | wk));
            j += 1;
            if nb > 0 {
                br = next_set(br);
            }
        }
        if nw > 0 {
            wr = next_set(wr);
        }
    }
}

/// The value of the position after `m` for the side that played it, one ply further (DTW:
/// the stored bytes of `src` hold every position, captures included).
#[inline]
fn dtw_after<R: Rules, S: Source>(src: &S, pos: &Position, m: Move) -> Result<Value, Error> {
    let child = pos.after(m);
    match value_of::<R, S>(src, &child, false)? {
        Some(v) => Ok(one_ply_before(v)),
        None => Err(Error::Missing {
            material: Placement::of(&child).material(),
        }),
    }
}

/// The value of a position whose move leads to a position of value `v`, in DTW.
#[inline]
pub(crate) const fn one_ply_before(v: Value) -> Value {
    match v {
        Value::Win(d) => Value::Loss(d + 1),
        Value::Loss(d) => Value::Win(d + 1),
        Value::Draw => Value::Draw,
    }
}

/// The value of the position after `m` for the side that played it, as win/draw/loss.
#[inline]
fn wdl_after<R: Rules, S: Source>(src: &S, pos: &Position, m: Move) -> Result<Wdl, Error> {
    let child = pos.after(m);
    match value_of::<R, S>(src, &child, true)? {
        Some(v) => Ok(v.wdl().flip()),
        None => Err(Error::Missing {
            material: Placement::of(&child).material(),
        }),
    }
}

/// Solves one unit: `parts[0]` and its twin `parts[1]` (or `parts[0]` alone when it is its
/// own twin). The values are left in `s.val`.
fn solve_unit<R: Rules, S: Source>(
    src: &S,
    parts: &[Part],
    s: &mut Scratch,
    metric: Metric,
) -> Result<(), Error> {
    let dtw = metric == Metric::Dtw;
    let other = |p: usize| if parts.len() == 1 { 0 } else { 1 - p };
    for lvl in &mut s.levels {
        for l in lvl.iter_mut() {
            l.clear();
        }
    }
    for lvl in &mut s.seeds {
        for l in lvl.iter_mut() {
            l.clear();
        }
    }
    for (p, part) in parts.iter().enumerate() {
        s.val[p].clear();
        s.val[p].resize(part.kings, 0);
        s.st[p].clear();
        s.st[p].resize(part.kings, DONE);
        if dtw {
            for x in [&mut s.exit_win[p], &mut s.exit_loss[p]] {
                x.clear();
                x.resize(part.kings, 0);
            }
        }
        let mut list = std::mem::take(&mut s.list);
        let mut err = None;
        for_each_kings(part, |j, wk, bk| {
            if err.is_some() {
                return;
            }
            let pl = Placement {
                white_men: part.wm,
                white_kings: wk,
                black_men: part.bm,
                black_kings: bk,
            };
            let pos = pl.position();
            pos.generate::<R>(&mut list);
            let decided = if list.is_empty() {
                Some(Value::Loss(0))
            } else if dtw {
                // Every move counts one ply; captures and man moves are exits valued by
                // what is already solved, king moves the retrograde below.
                let capture = list[0].is_capture();
                let (mut kings, mut draw_exit) = (0u8, false);
                let (mut best_win, mut worst_loss) = (u32::MAX, 0u32);
                for &m in list.iter() {
                    if !capture && wk & 1 << m.from().index() != 0 {
                        kings += 1;
                        continue;
                    }
                    match dtw_after::<R, S>(src, &pos, m) {
                        Ok(Value::Win(d)) => best_win = best_win.min(d),
                        Ok(Value::Draw) => draw_exit = true,
                        Ok(Value::Loss(d)) => worst_loss = worst_loss.max(d),
                        Err(e) => err = Some(e),
                    }
                }
                if best_win == 1 || (kings == 0 && best_win != u32::MAX) {
                    Some(Value::Win(best_win))
                } else if kings == 0 {
                    Some(if draw_exit {
                        Value::Draw
                    } else {
                        Value::Loss(worst_loss)
                    })
                } else {
                    let never_lost = draw_exit || best_win != u32::MAX;
                    s.st[p][j] = kings | if never_lost { DRAW_EXIT } else { 0 };
                    // Distances past a byte's reach fail when they are stored.
                    if best_win != u32::MAX {
                        s.exit_win[p][j] = u16::try_from(best_win).unwrap_or(u16::MAX);
                        s.seed(best_win, p, wk, bk);
                    }
                    s.exit_loss[p][j] = u16::try_from(worst_loss).unwrap_or(u16::MAX);
                    None
                }
            } else if list[0].is_capture() {
                let mut best = Wdl::Loss;
                for &m in list.iter() {
                    match wdl_after::<R, S>(src, &pos, m) {
                        Ok(w) => {
                            if w == Wdl::Win || (w == Wdl::Draw && best == Wdl::Loss) {
                                best = w;
                            }
                        }
                        Err(e) => err = Some(e),
                    }
                    if best == Wdl::Win {
                        break;
                    }
                }
                Some(match best {
                    Wdl::Win => Value::Win(1),
                    Wdl::Draw => Value::Draw,
                    Wdl::Loss => Value::Loss(1),
                })
            } else {
                let mut kings = 0u8;
                let mut draw_exit = false;
                let mut win = false;
                for &m in list.iter() {
                    if wk & 1 << m.from().index() != 0 {
                        kings += 1;
                        continue;
                    }
                    match wdl_after::<R, S>(src, &pos, m) {
                        Ok(Wdl::Win) => {
                            win = true;
                            break;
                        }
                        Ok(Wdl::Draw) => draw_exit = true,
                        Ok(Wdl::Loss) => {}
                        Err(e) => err = Some(e),
                    }
                }
                if win {
                    Some(Value::Win(1))
                } else if kings == 0 {
                    Some(if draw_exit {
                        Value::Draw
                    } else {
                        Value::Loss(1)
                    })
                } else {
                    s.st[p][j] = kings | if draw_exit { DRAW_EXIT } else { 0 };
                    None
                }
            };
            if let Some(v) = decided {
                match encode_in(v, metric) {
                    Ok(b) => s.val[p][j] = b,
                    Err(e) => err = Some(e),
                }
                match v {
                    Value::Win(d) => s.push(d, p, true, wk, bk),
                    Value::Loss(d) => s.push(d, p, false, wk, bk),
                    Value::Draw => {}
                }
            }
        });
        s.list = list;
        if let Some(e) = err {
            return Err(e);
        }
    }
    let fly = R::KINGS_FLY;
    let mut d = 0;
    while d < s.levels.len().max(s.seeds.len()) {
        if s.levels.len() <= d {
            s.levels.resize_with(d + 1, Default::default);
        }
        // DTW: a man move winning in `d` decides the positions no king move won sooner.
        let seeded = if d < s.seeds.len() { parts } else { &[] };
        for (p, part) in seeded.iter().enumerate() {
            let seeds = std::mem::take(&mut s.seeds[d][p]);
            for &e in &seeds {
                let (wk, bk) = (e as u32, (e >> 32) as u32);
                let j = part.mat.kings_index(part.men, wk, bk);
                if s.st[p][j] != DONE {
                    s.st[p][j] = DONE;
                    s.val[p][j] = encode_in(Value::Win(d as u32), metric)?;
                    s.push(d as u32, p, true, wk, bk);
                }
            }
            s.seeds[d][p] = seeds;
        }
        for p in 0..parts.len() {
            let q = other(p);
            let pq = parts[q];
            let occupied_men = parts[p].men;
            for win in [false, true] {
                let list = std::mem::take(&mut s.levels[d][p * 2 + win as usize]);
                for &e in &list {
                    let (wk, bk) = (e as u32, (e >> 32) as u32);
                    let occupied = occupied_men | wk | bk;
                    let mut kings = bk;
                    while kings != 0 {
                        let to = kings.trailing_zeros();
                        kings &= kings - 1;
                        let without = bk & !(1 << to);
                        for ray in &RAYS[to as usize] {
                            for &from in &ray.squares[..ray.len as usize] {
                                if occupied & 1 << from != 0 {
                                    break;
                                }
                                let pred_wk = flip(without | 1 << from);
                                let pred_bk = flip(wk);
                                let j = pq.mat.kings_index(pq.men, pred_wk, pred_bk);
                                let st = s.st[q][j];
                                if st != DONE {
                                    let next = d as u32 + 1;
                                    if !win {
                                        s.st[q][j] = DONE;
                                        s.val[q][j] = encode_in(Value::Win(next), metric)?;
                                        s.push(next, q, true, pred_wk, pred_bk);
                                    } else {
                                        let st = st - 1;
                                        if st & !DRAW_EXIT != 0 {
                                            s.st[q][j] = st;
                                        } else if dtw && s.exit_win[q][j] != 0 {
                                            // Won by a man move: its seed decides it.
                                            s.st[q][j] = DRAW_EXIT;
                                        } else if st & DRAW_EXIT != 0 {
                                            s.st[q][j] = DONE;
                                        } else {
                                            // DTW: a man move may lose more slowly.
                                            let l = if dtw {
                                                next.max(u32::from(s.exit_loss[q][j]))
                                            } else {
                                                next
                                            };
                                            s.st[q][j] = DONE;
                                            s.val[q][j] = encode_in(Value::Loss(l), metric)?;
                                            s.push(l, q, false, pred_wk, pred_bk);
                                        }
                                    }
                                }
                                if !fly {
                                    break;
                                }
                            }
                        }
                    }
                }
                s.levels[d][p * 2 + win as usize] = list;
            }
        }
        d += 1;
    }
    Ok(())
}

/// The values of a class and, when it is not its own twin, of its twin.
pub(crate) type Solved = (Box<[u8]>, Option<Box<[u8]>>);

/// Solves the class `a` and its twin in `metric`, reading smaller classes in `store` (in the
/// same metric); `threads` workers. Returns the values of `a` and (if different) of
/// `a.flip()`.
pub(crate) fn solve_pair<R: Rules, S: Source + Sync + ?Sized>(
    store: &S,
    a: Material,
    threads: usize,
    metric: Metric,
) -> Result<Solved, Error> {
    let b = a.flip();
    let same = a == b;
    let mut va = vec![0u8; a.len()];
    let mut vb = vec![0u8; if same { 0 } else { b.len() }];
    let ka = a.kings_per_config();
    let kb = b.kings_per_config();
    // Units in increasing potential.
    let mut units: Vec<(u32, usize, u32, u32)> = Vec::new();
    for c in 0..a.configs() {
        let Some((wm, bm)) = a.config(c) else {
            continue;
        };
        let cb = b.config_index(flip(bm), flip(wm));
        if same && cb < c {
            continue;
        }
        units.push((Material::potential(wm, bm), c, wm, bm));
    }
    units.sort_unstable();
    let threads = threads.max(1);
    let mut start = 0;
    while start < units.len() {
        let pot = units[start].0;
        let mut end = start;
        while end < units.len() && units[end].0 == pot {
            end += 1;
        }
        let group = &units[start..end];
        let src = BuildSource {
            store,
            a,
            va: &va,
            b: if same { Material::default() } else { b },
            vb: &vb,
        };
        type Out = Vec<(usize, Vec<u8>, usize, Vec<u8>)>;
        let run = |t: usize| -> Result<Out, Error> {
            let mut s = Scratch::default();
            let mut out = Vec::new();
            for &(_, c, wm, bm) in group.iter().skip(t).step_by(threads) {
                let pa = Part {
                    mat: a,
                    wm,
                    bm,
                    men: wm | bm,
                    kings: ka,
                };
                let (fwm, fbm) = (flip(bm), flip(wm));
                let cb = b.config_index(fwm, fbm);
                let pb = Part {
                    mat: b,
                    wm: fwm,
                    bm: fbm,
                    men: fwm | fbm,
                    kings: kb,
                };
                let single = same && cb == c;
                let parts: &[Part] = if single { &[pa] } else { &[pa, pb] };
                solve_unit::<R, _>(&src, parts, &mut s, metric)?;
                let vb_out = if single { Vec::new() } else { s.val[1].clone() };
                out.push((c, s.val[0].clone(), cb, vb_out));
            }
            Ok(out)
        };
        let results: Vec<Result<Out, Error>> = if threads == 1 || group.len() == 1 {
            vec![run(0)]
        } else {
            std::thread::scope(|sc| {
                let handles: Vec<_> = (0..threads).map(|t| sc.spawn(move || run(t))).collect();
                handles
                    .into_iter()
                    .map(|h| h.join().unwrap_or(Err(Error::WorkerPanicked)))
                    .collect()
            })
        };
        for r in results {
            for (c, vals_a, cb, vals_b) in r? {
                va[c * ka..(c + 1) * ka].copy_from_slice(&vals_a);
                if !vals_b.is_empty() {
                    let target = if same { &mut va } else { &mut vb };
                    target[cb * kb..(cb + 1) * kb].copy_from_slice(&vals_b);
                }
            }
        }
        start = end;
    }
    Ok((
        va.into_boxed_slice(),
        (!same).then(|| vb.into_boxed_slice()),
    ))
}

/// The value of a position computed from its successors' values in `src` through the move
/// generator: what the verify pass compares with the stored value.
pub(crate) fn from_successors<R: Rules, S: Source + ?Sized>(
    src: &S,
    pos: &Position,
    resolve_captures: bool,
    metric: Metric,
) -> Result<Option<Value>, Error> {
    let list = pos.moves::<R>();
    if list.is_empty() {
        return Ok(Some(Value::Loss(0)));
    }
    let us_kings = pos.kings(pos.turn());
    let mut best: Option<Value> = None;
    for &m in list.iter() {
        let Some(child) = value_of::<R, S>(src, &pos.after(m), resolve_captures)? else {
            return Ok(None);
        };
        let conversion = m.is_capture() || !us_kings.contains(m.from());
        let v = match (conversion && metric == Metric::Mtc, child) {
            (true, c) => match c.wdl() {
                Wdl::Win => Value::Loss(1),
                Wdl::Draw => Value::Draw,
                Wdl::Loss => Value::Win(1),
            },
            (false, c) => one_ply_before(c),
        };
        if best.is_none_or(|b| v.key() > b.key()) {
            best = Some(v);
        }
    }
    Ok(best)
}

/// Counts over one class.
#[derive(Copy, Clone, Eq, PartialEq, Debug, Default)]
pub struct Stats {
    /// Positions (holes left out), White to move.
    pub positions: u64,
    /// Won by the side to move.
    pub wins: u64,
    /// Drawn.
    pub draws: u64,
    /// Lost by the side to move.
    pub losses: u64,
    /// The longest win, plies to conversion.
    pub longest_win: u32,
    /// The longest loss, plies to conversion.
    pub longest_loss: u32,
}

/// The statistics of a table held in memory (every index, captures included).
pub(crate) fn stats_of(m: Material, values: &[u8], metric: Metric) -> Stats {
    let mut s = Stats::default();
    let k = m.kings_per_config();
    for c in 0..m.configs() {
        if m.config(c).is_none() {
            continue;
        }
        for &b in &values[c * k..(c + 1) * k] {
            s.positions += 1;
            match decode_in(b, metric) {
                Value::Win(d) => {
                    s.wins += 1;
                    s.longest_win = s.longest_win.max(d);
                }
                Value::Draw => s.draws += 1,
                Value::Loss(d) => {
                    s.losses += 1;
                    s.longest_loss = s.longest_loss.max(d);
                }
            }
        }
    }
    s
}

/// Calls `f` for every placement of class `m` (holes left out), in index order.
pub(crate) fn for_each_placement(m: Material, mut f: impl FnMut(usize, Placement)) {
    let k = m.kings_per_config();
    for c in 0..m.configs() {
        let Some((wm, bm)) = m.config(c) else {
            continue;
        };
        let part = Part {
            mat: m,
            wm,
            bm,
            men: wm | bm,
            kings: k,
        };
        for_each_kings(&part, |j, wk, bk| {
            f(
                c * k + j,
                Placement {
                    white_men: wm,
                    white_kings: wk,
                    black_men: bm,
                    black_kings: bk,
                },
            )
        });
    }
}
