//! Time to depth with several search threads against one, over a set of positions: the
//! quick measure of a Lazy-SMP scheme (a match decides).
//!
//! `cargo run --release -p dama-lab --example smp -- DEPTH POSITIONS THREADS [knobs]`
//!
//! Positions are the built-in openings played on by 12 plies of a depth-6 search. Prints the
//! geometric mean of time(1 thread) / time(THREADS threads) to DEPTH. Positions with a forced
//! reply are left out.

use std::time::Instant;

use dama_lab::matches::italian_openings;
use dama_rules::Game;
use dama_search::{Engine, Knobs, Limits};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let depth: u32 = args.first().map_or(18, |s| s.parse().expect("depth"));
    let count: usize = args.get(1).map_or(20, |s| s.parse().expect("positions"));
    let threads: usize = args.get(2).map_or(2, |s| s.parse().expect("threads"));
    let knobs: Knobs = args
        .get(3)
        .map_or("", String::as_str)
        .parse()
        .expect("knobs");
    let openings = italian_openings();
    let mut log_ratio = 0.0;
    let (mut t1_sum, mut tn_sum) = (0.0, 0.0);
    let mut n = 0;
    for line in openings
        .iter()
        .step_by((openings.len() / count).max(1))
        .take(count)
    {
        let mut game = Game::new();
        for &m in line {
            game.play(m).expect("an opening move");
        }
        let mut engine = Engine::with_hash(64);
        for _ in 0..12 {
            match engine.search(&game, &Limits::depth(6)).best {
                Some(m) if game.outcome().is_none() => game.play(m).expect("a legal move"),
                _ => break,
            };
        }
        // A forced reply is answered at once whatever the threads.
        if game.outcome().is_some() || game.legal_moves().len() < 2 {
            continue;
        }
        let timed = |threads: usize| {
            let mut engine = Engine::with_hash(64);
            engine.set_threads(threads);
            engine.set_knobs(knobs);
            let t = Instant::now();
            engine.search(&game, &Limits::depth(depth));
            t.elapsed().as_secs_f64()
        };
        let t1 = timed(1);
        let tn = timed(threads);
        log_ratio += (t1 / tn).ln();
        t1_sum += t1;
        tn_sum += tn;
        n += 1;
        println!(
            "{n:3} 1 thread {t1:7.3} s  {threads} threads {tn:7.3} s  x{:.2}",
            t1 / tn
        );
    }
    println!(
        "{n} positions to depth {depth}: total {t1_sum:.2} s v {tn_sum:.2} s, geometric mean speed-up x{:.3}",
        (log_ratio / n as f64).exp()
    );
}
