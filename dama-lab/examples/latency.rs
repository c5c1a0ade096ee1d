//! Reply time per level over the positions of self-play games: mean and worst for Novice to
//! Strong (node budgets), and for Hard the time used against the time given.
//!
//! `cargo run --release -p dama-lab --example latency -- [positions] [hard-millis]`

use std::time::{Duration, Instant};

use dama_lab::matches::italian_openings;
use dama_rules::Game;
use dama_search::{Engine, Level, Limits, Signals};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let count: usize = args.first().map_or(100, |s| s.parse().expect("positions"));
    let hard_ms: u64 = args
        .get(1)
        .map_or(1000, |s| s.parse().expect("milliseconds"));
    // Positions: every 7th ply of games between Normal players from the built-in openings.
    let mut positions = Vec::new();
    let mut engine = Engine::with_hash(16);
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    'games: for opening in italian_openings() {
        let mut g = Game::new();
        for m in opening {
            g.play(m).expect("legal opening");
        }
        while g.outcome().is_none() {
            if g.moves().len().is_multiple_of(7) && g.legal_moves().len() > 1 {
                positions.push(g.clone());
                if positions.len() == count {
                    break 'games;
                }
            }
            let r = engine.play_level(
                &g,
                Level::Normal,
                &Limits::default(),
                &Signals::default(),
                &mut rng,
            );
            g.play(r.best.expect("a move")).expect("legal");
        }
    }
    for level in Level::ALL {
        let limits = if level == Level::Hard {
            Limits::move_time(Duration::from_millis(hard_ms))
        } else {
            Limits::default()
        };
        let mut times = Vec::new();
        let mut engine = Engine::new();
        for g in &positions {
            let t = Instant::now();
            engine.play_level(g, level, &limits, &Signals::default(), &mut rng);
            times.push(t.elapsed());
        }
        times.sort();
        let mean = times.iter().sum::<Duration>() / times.len() as u32;
        println!(
            "{level:7}: mean {:7.1} ms, median {:7.1} ms, worst {:7.1} ms, best {:7.1} ms over {} positions",
            ms(mean),
            ms(times[times.len() / 2]),
            ms(*times.last().expect("positions")),
            ms(times[0]),
            times.len()
        );
    }
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
