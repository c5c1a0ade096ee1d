//! An independent solver, to check the tables against: it shares nothing with `dama-egtb`
//! but the move generator of `dama-rules`. No index, no slices, no unmoves: every position of
//! a closed set is listed (sorted 128-bit keys), its moves are generated forward, and the
//! values are found on the whole graph at once, by a plain retrograde over its reversed
//! edges: first win/draw/loss, then the distance to conversion (MTC) by levels.
//!
//! MTC as the docs define it: a position without a legal move has lost in 0; a capture or a
//! man move (a conversion) counts 1 whatever comes after it, valued by the win/draw/loss of
//! where it leads; a king move counts 1 more than the value it leads to; the winner takes
//! the shortest win, the loser the longest loss.

#![allow(dead_code)]

use dama_egtb::Value;
use dama_rules::{Bitboard, Color, Position, Rules, Square};

/// The child of an edge when the side to move there has no piece left: a loss in 0, not
/// listed as a position.
const NO_PIECES: u32 = u32::MAX >> 1;
/// The flag of an edge that is a conversion.
const CONVERSION: u32 = 1 << 31;

/// Every position of a set closed under moves, solved.
pub struct Solved {
    /// The positions, as [`key`]s, sorted.
    pub keys: Vec<u128>,
    /// Their values for the side to move.
    pub values: Vec<Value>,
}

/// The key of a position: the three bitboards and the turn.
pub fn key(pos: &Position) -> u128 {
    let w = u128::from(pos.pieces(Color::White).bits());
    let b = u128::from(pos.pieces(Color::Black).bits());
    let k = u128::from((pos.kings(Color::White) | pos.kings(Color::Black)).bits());
    let t = u128::from(pos.turn() == Color::Black);
    w | b << 40 | k << 80 | t << 120
}

/// The position of a key.
pub fn position(key: u128) -> Position {
    let mask = (1u128 << 40) - 1;
    let bb = |x: u128| Bitboard::from_bits(x as u64).expect("a playing bitboard");
    let turn = if key >> 120 & 1 == 1 {
        Color::Black
    } else {
        Color::White
    };
    Position::from_bitboards(
        bb(key & mask),
        bb(key >> 40 & mask),
        bb(key >> 80 & mask),
        turn,
    )
    .expect("a valid position")
}

/// Every position, either side to move, with at most `max` pieces, a piece for each side and
/// piece counts (white men, white kings, black men, black kings) that `accept` takes. Men
/// stand only where they may (not on their promotion row).
pub fn enumerate(max: u32, accept: &dyn Fn([u32; 4]) -> bool) -> Vec<u128> {
    fn go(
        s: usize,
        max: u32,
        counts: [u32; 4],
        bbs: [Bitboard; 3],
        accept: &dyn Fn([u32; 4]) -> bool,
        out: &mut Vec<u128>,
    ) {
        if s == 32 || counts.iter().sum::<u32>() == max {
            if counts[0] + counts[1] > 0 && counts[2] + counts[3] > 0 && accept(counts) {
                for turn in [Color::White, Color::Black] {
                    let pos = Position::from_bitboards(bbs[0], bbs[1], bbs[2], turn)
                        .expect("a valid position");
                    out.push(key(&pos));
                }
            }
            return;
        }
        go(s + 1, max, counts, bbs, accept, out);
        let sq = Square::ALL[s];
        for kind in 0..4 {
            // A white man never stands on row 0, a black man never on row 7.
            if (kind == 0 && sq.row() == 0) || (kind == 2 && sq.row() == 7) {
                continue;
            }
            let mut c = counts;
            c[kind] += 1;
            let mut b = bbs;
            let side = kind / 2;
            b[side] = b[side].with(sq);
            if kind % 2 == 1 {
                b[2] = b[2].with(sq);
            }
            go(s + 1, max, c, b, accept, out);
        }
    }
    let mut out = Vec::new();
    let e = Bitboard::default();
    go(0, max, [0; 4], [e, e, e], accept, &mut out);
    out.sort_unstable();
    out.dedup();
    out
}

/// Solves the positions `keys` (sorted, closed under moves) under rules `R`.
///
/// # Panics
/// When a move leads outside the set (the set is not closed): a bug of the caller.
pub fn solve<R: Rules>(keys: Vec<u128>) -> Solved {
    let n = keys.len();
    // Forward edges, with the conversion flag.
    let mut start = Vec::with_capacity(n + 1);
    let mut edges: Vec<u32> = Vec::new();
    for &k in &keys {
        start.push(edges.len());
        let pos = position(k);
        let kings = pos.kings(pos.turn());
        for m in pos.moves::<R>().iter() {
            let child = pos.after(*m);
            let conv = if m.is_capture() || !kings.contains(m.from()) {
                CONVERSION
            } else {
                0
            };
            let c = if child.pieces(child.turn()).is_empty() {
                NO_PIECES
            } else {
                let ck = key(&child);
                let i = keys
                    .binary_search(&ck)
                    .unwrap_or_else(|_| panic!("{} leads outside the set", pos.fen()));
                i as u32
            };
            edges.push(c | conv);
        }
    }
    start.push(edges.len());
    // Reversed edges.
    let mut rcount = vec![0u32; n + 1];
    for &e in &edges {
        let c = e & !CONVERSION;
        if c != NO_PIECES {
            rcount[c as usize + 1] += 1;
        }
    }
    for i in 0..n {
        rcount[i + 1] += rcount[i];
    }
    let mut rfill = rcount.clone();
    let mut rev = vec![0u32; edges.len()];
    for p in 0..n {
        for &e in &edges[start[p]..start[p + 1]] {
            let c = e & !CONVERSION;
            if c != NO_PIECES {
                rev[rfill[c as usize] as usize] = p as u32 | (e & CONVERSION);
                rfill[c as usize] += 1;
            }
        }
    }
    let preds = |c: usize| &rev[rcount[c] as usize..rcount[c + 1] as usize];

    // Win/draw/loss: a position is won when a move leads to a loss, lost when every move
    // leads to a win.
    const UNKNOWN: u8 = 0;
    const WIN: u8 = 1;
    const LOSS: u8 = 2;
    let mut wdl = vec![UNKNOWN; n];
    let mut left: Vec<u32> = (0..n).map(|p| (start[p + 1] - start[p]) as u32).collect();
    let mut queue = Vec::new();
    for p in 0..n {
        let out = &edges[start[p]..start[p + 1]];
        if out.is_empty() {
            wdl[p] = LOSS;
            queue.push(p);
        } else if out.iter().any(|&e| e & !CONVERSION == NO_PIECES) {
            wdl[p] = WIN;
            queue.push(p);
        }
    }
    while let Some(c) = queue.pop() {
        for &r in preds(c) {
            let p = (r & !CONVERSION) as usize;
            if wdl[p] != UNKNOWN {
                continue;
            }
            if wdl[c] == LOSS {
                wdl[p] = WIN;
                queue.push(p);
            } else {
                left[p] -= 1;
                if left[p] == 0 {
                    wdl[p] = LOSS;
                    queue.push(p);
                }
            }
        }
    }

    // MTC by levels: level d holds the positions whose distance is d.
    const NONE: u32 = u32::MAX;
    let mut dist = vec![NONE; n];
    let mut king_moves: Vec<u32> = vec![0; n];
    let mut levels: Vec<Vec<u32>> = vec![Vec::new(), Vec::new()];
    for p in 0..n {
        let out = &edges[start[p]..start[p + 1]];
        let child_loses = |e: u32| {
            let c = e & !CONVERSION;
            c == NO_PIECES || wdl[c as usize] == LOSS
        };
        match wdl[p] {
            LOSS if out.is_empty() => {
                dist[p] = 0;
                levels[0].push(p as u32);
            }
            LOSS => {
                king_moves[p] = out.iter().filter(|&&e| e & CONVERSION == 0).count() as u32;
                if king_moves[p] == 0 {
                    dist[p] = 1;
                    levels[1].push(p as u32);
                }
            }
            WIN if out.iter().any(|&e| e & CONVERSION != 0 && child_loses(e)) => {
                dist[p] = 1;
                levels[1].push(p as u32);
            }
            _ => {}
        }
    }
    let mut d = 0;
    while d < levels.len() {
        let level = std::mem::take(&mut levels[d]);
        for &c in &level {
            let c = c as usize;
            for &r in preds(c) {
                if r & CONVERSION != 0 {
                    continue;
                }
                let p = r as usize;
                if dist[p] != NONE {
                    continue;
                }
                let next = match (wdl[p], wdl[c]) {
                    (WIN, LOSS) => true,
                    (LOSS, WIN) => {
                        king_moves[p] -= 1;
                        king_moves[p] == 0
                    }
                    _ => false,
                };
                if next {
                    dist[p] = d as u32 + 1;
                    if levels.len() <= d + 1 {
                        levels.push(Vec::new());
                    }
                    levels[d + 1].push(p as u32);
                }
            }
        }
        d += 1;
    }
    let values = (0..n)
        .map(|p| match wdl[p] {
            WIN => Value::Win(dist[p]),
            LOSS => Value::Loss(dist[p]),
            _ => Value::Draw,
        })
        .collect::<Vec<_>>();
    assert!(
        values.iter().all(|v| v.distance() != Some(NONE)),
        "every decided position has a distance"
    );
    Solved { keys, values }
}

/// Piece counts of a class name like `KKM-K` (kings and men of White, `-`, of Black), as
/// (white men, white kings, black men, black kings).
pub fn counts(name: &str) -> Option<[u32; 4]> {
    let (w, b) = name.split_once('-')?;
    let count = |s: &str, c: char| s.chars().filter(|&x| x == c).count() as u32;
    let ok = |s: &str| s.chars().all(|c| c == 'K' || c == 'M');
    (ok(w) && ok(b)).then(|| [count(w, 'M'), count(w, 'K'), count(b, 'M'), count(b, 'K')])
}

/// Whether counts `c` can arise from counts `from` by play: men only become kings, pieces
/// only go.
pub fn reachable(from: [u32; 4], c: [u32; 4]) -> bool {
    c[0] <= from[0]
        && c[0] + c[1] <= from[0] + from[1]
        && c[2] <= from[2]
        && c[2] + c[3] <= from[2] + from[3]
}

/// The DTW of every position of `solved` (plies to the end of the game, every move one ply,
/// the winner hurrying and the loser delaying), from its win/draw/loss alone, by a method
/// unlike the generator's: sweeps over the forward edges, sweep `d` giving distance `d` to
/// every win with a lost child at `d - 1` and to every loss whose children are all known at
/// less than `d`. Slow (a pass over everything per distance), and plain.
pub fn dtw<R: Rules>(solved: &Solved) -> Vec<Value> {
    let n = solved.keys.len();
    let children: Vec<Vec<Option<usize>>> = solved
        .keys
        .iter()
        .map(|&k| {
            let pos = position(k);
            pos.moves::<R>()
                .iter()
                .map(|m| {
                    let child = pos.after(*m);
                    if child.pieces(child.turn()).is_empty() {
                        None
                    } else {
                        let i = solved.keys.binary_search(&key(&child));
                        Some(i.unwrap_or_else(|_| panic!("{} leads outside the set", pos.fen())))
                    }
                })
                .collect()
        })
        .collect();
    const UNKNOWN: u32 = u32::MAX;
    let mut dist: Vec<u32> = (0..n)
        .map(|p| {
            let lost = matches!(solved.values[p], Value::Loss(_));
            if lost && children[p].is_empty() {
                0
            } else {
                UNKNOWN
            }
        })
        .collect();
    let mut d = 1;
    loop {
        let before = dist.clone();
        // A child without pieces has lost in 0.
        let known = |c: &Option<usize>| c.map_or(Some(0), |c| (before[c] < d).then(|| before[c]));
        let mut left = 0;
        for p in 0..n {
            if before[p] != UNKNOWN {
                continue;
            }
            match solved.values[p] {
                Value::Draw => continue,
                Value::Win(_) => {
                    let wins_now = children[p].iter().any(|c| {
                        let lost = c.is_none_or(|c| matches!(solved.values[c], Value::Loss(_)));
                        lost && known(c) == Some(d - 1)
                    });
                    if wins_now {
                        dist[p] = d;
                    }
                }
                Value::Loss(_) => {
                    let all: Option<Vec<u32>> = children[p].iter().map(known).collect();
                    if let Some(all) = all {
                        dist[p] = all.into_iter().max().unwrap_or(0) + 1;
                    }
                }
            }
            if dist[p] == UNKNOWN {
                left += 1;
            }
        }
        if left == 0 || d > 1_000 {
            break;
        }
        d += 1;
    }
    solved
        .values
        .iter()
        .zip(&dist)
        .map(|(v, &d)| {
            assert!(
                v.wdl() == dama_egtb::Wdl::Draw || d != UNKNOWN,
                "a decided position without a distance"
            );
            match v {
                Value::Win(_) => Value::Win(d),
                Value::Loss(_) => Value::Loss(d),
                Value::Draw => Value::Draw,
            }
        })
        .collect()
}
