//! Iterative deepening at the root: aspiration windows, multi-PV, Lazy-SMP helper threads,
//! and the answer of the last complete depth when a search is stopped.

use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use dama_rules::{Game, Move, Position, Rules};

use crate::alphabeta::Worker;
use crate::control::{Control, Signals};
use crate::score::{Score, INFINITE};
use crate::time::Moment;
use crate::time::TimeManager;
use crate::tt::Table;
use crate::{Info, Limits, RootLine, SearchResult};

#[derive(Clone)]
struct RootMove {
    m: Move,
    score: i32,
    pv: Vec<Move>,
}

/// A complete iteration: its depth, the root moves best first, the selective depth.
type Done = (u32, Vec<RootMove>, usize);

/// Everything one search needs besides the table.
pub(crate) struct Job<'a> {
    pub game: &'a Game,
    pub limits: &'a Limits,
    pub signals: &'a Signals,
    pub threads: usize,
    pub multipv: usize,
    pub knobs: crate::control::Knobs,
    /// Search a single legal move to the limits (analysis) rather than play it at once.
    pub search_forced: bool,
    pub endgames: &'a crate::egtb::Endgames,
    /// Weights in place of the built-in ones.
    pub weights: Option<&'a crate::weights::Weights>,
}

pub(crate) fn run<R: Rules>(
    tt: &Table,
    job: &Job<'_>,
    on_info: &mut dyn FnMut(&Info),
) -> SearchResult {
    let start = Moment::now();
    let game = job.game;
    let legal = game.legal_moves();
    // A game a draw rule has ended still has legal moves: a GUI playing on gets one.
    if legal.is_empty() {
        return SearchResult::none(start.elapsed());
    }
    tt.new_search();
    // A move on the clock never waits for an in-memory table to be built.
    let timed_endgames;
    let endgames = if job.limits.time != crate::TimeControl::None {
        timed_endgames = job.endgames.clone().never_waiting();
        &timed_endgames
    } else {
        job.endgames
    };
    // A won or lost ending the tables know: see Endgames::root_play.
    if job.multipv == 1 {
        let rules = R::VARIANT.draw_rules();
        let quiet = game.quiet_plies();
        let play =
            endgames.root_play::<R>(game.position(), game.keys(), quiet, rules.no_progress_plies);
        if let Some(crate::egtb::RootPlay {
            mv: m,
            value,
            to_end,
        }) = play
        {
            // Where DTW knows the end, the score is the win or loss at that distance (as the
            // search's own: "win in 21"); else the tables' win to conversion.
            let score = match (value, to_end) {
                (dama_egtb::Value::Win(_), Some(e)) => Score::win_in(e + 1),
                (dama_egtb::Value::Loss(_), Some(e)) => Score::loss_in(e + 1),
                (dama_egtb::Value::Win(d), None) => Score(crate::score::TABLE_WIN - d as i32),
                (dama_egtb::Value::Loss(d), None) => Score(-crate::score::TABLE_WIN + d as i32),
                (dama_egtb::Value::Draw, _) => Score::DRAW,
            };
            let time = start.elapsed();
            on_info(&Info {
                depth: 1,
                seldepth: 1,
                multipv: 1,
                score,
                nodes: 1,
                nps: 0,
                time,
                pv: vec![m],
            });
            return SearchResult {
                best: Some(m),
                ponder: None,
                score,
                depth: 1,
                seldepth: 1,
                pv: vec![m],
                nodes: 1,
                time,
                lines: vec![RootLine {
                    mv: m,
                    score,
                    pv: vec![m],
                }],
            };
        }
    }
    let control = Control {
        endgames,
        knobs: job.knobs,
        weights: job.weights,
        signals: job.signals,
        halt: Default::default(),
        nodes: Default::default(),
        node_limit: job.limits.nodes,
        time: TimeManager::new(job.limits.time, start, job.knobs),
    };
    let roots: Vec<RootMove> = legal
        .iter()
        .map(|&m| RootMove {
            m,
            score: -INFINITE,
            pv: vec![m],
        })
        .collect();
    let max_depth = if legal.len() == 1 && !job.search_forced {
        1
    } else {
        job.limits
            .depth
            .unwrap_or(Limits::MAX_DEPTH)
            .clamp(1, Limits::MAX_DEPTH)
    };
    let multipv = job.multipv.clamp(1, roots.len());
    // A forced reply needs no helper.
    let threads = if roots.len() == 1 {
        1
    } else {
        job.threads.max(1)
    };
    let (done, seldepth) = std::thread::scope(|scope| {
        for id in 1..threads {
            let (control, roots) = (&control, roots.clone());
            scope.spawn(move || {
                let mut w = Worker::<R>::new(tt, control, game.keys().to_vec(), false);
                let t = Team { id };
                deepen(&mut w, game, roots, max_depth, 1, &t, &mut |_| {});
            });
        }
        let mut w = Worker::<R>::new(tt, &control, game.keys().to_vec(), true);
        let team = Team { id: 0 };
        let done = deepen(
            &mut w,
            game,
            roots.clone(),
            max_depth,
            multipv,
            &team,
            on_info,
        );
        control.halt.store(true, Relaxed);
        (done, w.seldepth)
    });
    let done = done.unwrap_or((0, roots, seldepth));
    SearchResult {
        nodes: control.nodes.load(Relaxed),
        time: start.elapsed(),
        ..answer(done, multipv)
    }
}

/// One thread's place among the search threads.
struct Team {
    /// 0 for the main thread, which reports, watches the clock and gives the answer.
    id: usize,
}

/// The result of a complete iteration.
fn answer((depth, lines, seldepth): Done, multipv: usize) -> SearchResult {
    let lines: Vec<RootLine> = lines
        .into_iter()
        .map(|r| RootLine {
            mv: r.m,
            score: Score(r.score),
            pv: r.pv,
        })
        .collect();
    SearchResult {
        best: lines.first().map(|l| l.mv),
        ponder: lines.first().and_then(|l| l.pv.get(1).copied()),
        score: lines.first().map_or(Score::DRAW, |l| l.score),
        depth,
        seldepth: seldepth as u32,
        pv: lines.first().map(|l| l.pv.clone()).unwrap_or_default(),
        nodes: 0,
        time: Duration::ZERO,
        lines: lines.into_iter().take(multipv).collect(),
    }
}

/// Iterative deepening for one thread, returning its last complete iteration. Lazy SMP in
/// its plain form: the threads share the transposition table only; helpers (`id > 0`)
/// report nothing, the odd ones start one depth deeper so that the threads spread over two
/// depths, and the main thread's iteration is the answer. (Two more elaborate schemes, a
/// helper skipping depths others search and the main thread taking over a helper's deeper
/// iteration, were measured no stronger and removed.)
fn deepen<R: Rules>(
    w: &mut Worker<'_, R>,
    game: &Game,
    mut roots: Vec<RootMove>,
    max_depth: u32,
    multipv: usize,
    team: &Team,
    on_info: &mut dyn FnMut(&Info),
) -> Option<Done> {
    let pos = *game.position();
    let quiet = game.quiet_plies();
    let mut done: Option<Done> = None;
    let first = 1 + (team.id % 2) as u32;
    let mut depth = first - 1;
    while depth < max_depth {
        depth += 1;
        if depth > 1 && !w.control.time.may_start_depth(&w.control.signals.pondering) {
            break;
        }
        w.seldepth = 0;
        for pv_idx in 0..multipv {
            aspirate(w, &pos, &mut roots, pv_idx, depth as i32, quiet);
            if w.stopped {
                if w.control.knobs.partial && multipv == 1 {
                    if let Some(better) = partial_answer(&roots, done.as_ref()) {
                        done = Some(better);
                    }
                }
                break;
            }
            roots[pv_idx..].sort_by_key(|r| std::cmp::Reverse(r.score));
            if w.main {
                w.flush_nodes();
                on_info(&line_info(
                    w.control,
                    depth,
                    w.seldepth,
                    pv_idx + 1,
                    &roots[pv_idx],
                ));
            }
        }
        if w.stopped {
            break;
        }
        // Search instability can leave a later line scoring above an earlier one: the
        // lines are reported best first.
        roots[..multipv].sort_by_key(|r| std::cmp::Reverse(r.score));
        done = Some((depth, roots.clone(), w.seldepth));
        let best = Score(roots[0].score);
        // A forced result proven with depth to spare: deeper search will not change it. A
        // timed search answers now; analysis, pondering and node budgets go on.
        if best.plies_to_end().is_some_and(|n| depth > n + 6)
            && w.control.node_limit.is_none()
            && w.control.time.has_limit()
            && !w.control.signals.pondering.load(Relaxed)
        {
            break;
        }
    }
    w.flush_nodes();
    done
}

/// The answer when an iteration was stopped after it proved a root move better than the last
/// complete iteration's best: in the root search a move after the first gets a score only
/// when its search finished above alpha, which is at least the first move's score. The
/// depth reported stays the last complete one. `None` when there is no such move.
fn partial_answer(roots: &[RootMove], done: Option<&Done>) -> Option<Done> {
    let (depth, _, seldepth) = done?;
    let (i, _) = roots
        .iter()
        .enumerate()
        .skip(1)
        .filter(|(_, r)| r.score > -INFINITE)
        .max_by_key(|(_, r)| r.score)?;
    let mut lines = roots.to_vec();
    let better = lines.remove(i);
    lines.insert(0, better);
    Some((*depth, lines, *seldepth))
}

/// The report of one root line at the current node count and time.
fn line_info(
    control: &Control<'_>,
    depth: u32,
    seldepth: usize,
    multipv: usize,
    root: &RootMove,
) -> Info {
    let elapsed = control.time.elapsed();
    let nodes = control.nodes.load(Relaxed);
    Info {
        depth,
        seldepth: seldepth as u32,
        multipv,
        score: Score(root.score),
        nodes,
        nps: nps(nodes, elapsed),
        time: elapsed,
        pv: root.pv.clone(),
    }
}

fn nps(nodes: u64, elapsed: Duration) -> u64 {
    (nodes as f64 / elapsed.as_secs_f64().max(1e-6)) as u64
}

/// Searches root move `pv_idx` and those after it with a window around its last score,
/// widening on failure.
fn aspirate<R: Rules>(
    w: &mut Worker<'_, R>,
    pos: &Position,
    roots: &mut [RootMove],
    pv_idx: usize,
    depth: i32,
    quiet: u32,
) {
    let prev = roots[pv_idx].score;
    let mut delta = i32::from(w.control.knobs.aspiration) + prev.abs() / 8;
    let use_window = depth >= 5 && !Score(prev).is_win() && !Score(prev).is_loss();
    let (mut alpha, mut beta) = if use_window {
        (prev - delta, prev + delta)
    } else {
        (-INFINITE, INFINITE)
    };
    loop {
        let v = root_search(w, pos, roots, pv_idx, depth, alpha, beta, quiet);
        if w.stopped {
            return;
        }
        if v <= alpha && alpha > -INFINITE {
            alpha = (v - delta).max(-INFINITE);
        } else if v >= beta && beta < INFINITE {
            beta = (v + delta).min(INFINITE);
        } else {
            return;
        }
        delta *= 2;
        if delta > 400 {
            alpha = -INFINITE;
            beta = INFINITE;
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn root_search<R: Rules>(
    w: &mut Worker<'_, R>,
    pos: &Position,
    roots: &mut [RootMove],
    pv_idx: usize,
    depth: i32,
    mut alpha: i32,
    beta: i32,
    quiet: u32,
) -> i32 {
    let root_key = w.keys[w.keys.len() - 1];
    let mut best = -INFINITE;
    for r in &mut roots[pv_idx..] {
        r.score = -INFINITE;
    }
    for (n, root) in roots.iter_mut().enumerate().skip(pv_idx) {
        let m = root.m;
        let child = pos.after(m);
        let child_quiet = w.quiet_after(pos, m, quiet);
        w.keys.push(pos.hash_after(root_key, m));
        let d = depth - 1;
        let mut v;
        if n == pv_idx {
            v = -w.search(&child, -beta, -alpha, d, 1, child_quiet, true);
        } else {
            v = -w.search(&child, -alpha - 1, -alpha, d, 1, child_quiet, false);
            if v > alpha && v < beta {
                v = -w.search(&child, -beta, -alpha, d, 1, child_quiet, true);
            }
        }
        w.keys.pop();
        if w.stopped {
            return best;
        }
        if n == pv_idx || v > alpha {
            root.score = v;
            let mut pv = vec![m];
            pv.extend_from_slice(&w.pv[1][1..w.pv_len[1].max(1)]);
            root.pv = pv;
        }
        best = best.max(v);
        if v > alpha {
            alpha = v;
            if v >= beta {
                break;
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    fn roots(scores: &[i32]) -> Vec<RootMove> {
        let moves = Position::start().legal_moves();
        scores
            .iter()
            .zip(moves.iter())
            .map(|(&score, &m)| RootMove {
                m,
                score,
                pv: vec![m],
            })
            .collect()
    }

    #[test]
    fn an_interrupted_iteration_gives_its_proved_better_move_and_nothing_else() {
        let last = (9, roots(&[30, 10, 5, 0]), 12);
        // Stopped while the first move was searched: no move has a score yet.
        let none = roots(&[-INFINITE, -INFINITE, -INFINITE, -INFINITE]);
        assert!(partial_answer(&none, Some(&last)).is_none());
        // The first move done, nothing better found: the complete iteration stands.
        let first_only = roots(&[20, -INFINITE, -INFINITE, -INFINITE]);
        assert!(partial_answer(&first_only, Some(&last)).is_none());
        // Two moves proved better in turn: the later (higher) one, first, at the last
        // complete depth.
        let better = roots(&[20, 25, -INFINITE, 40]);
        let (depth, lines, seldepth) = partial_answer(&better, Some(&last)).unwrap();
        assert_eq!((depth, seldepth), (9, 12));
        assert_eq!((lines[0].m, lines[0].score), (better[3].m, 40));
        assert_eq!(lines.len(), 4);
        // No complete iteration: nothing to stand on.
        assert!(partial_answer(&better, None).is_none());
    }
}
