//! Kings-only endings played out by Hard against Hard at a fixed time per move: how many
//! random starts the stronger side converts inside the 40-move rule.
//!
//! `cargo run --release -p dama-search --example endings -- [starts] [millis]`
//!
//! Starts are random placements of 2 kings v 1, 3 v 1 and 3 v 2 with the stronger side to
//! move; a start the endgame tables call a draw is counted apart (it cannot be won).

use std::time::Duration;

use dama_egtb::Value;
use dama_rules::{
    variant::Italian, Color, Game, Outcome, Piece, Position, Role, Setup, Square, Variant,
};
use dama_search::{Endgames, Engine, Level, Limits, Signals};
use rand::{RngExt, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn random_start(rng: &mut ChaCha8Rng, strong: usize, weak: usize) -> Position {
    loop {
        let mut setup = Setup::empty();
        let mut squares: Vec<u8> = (1..=32).collect();
        for i in 0..strong + weak {
            let k = rng.random_range(i..squares.len());
            squares.swap(i, k);
            let color = if i < strong {
                Color::White
            } else {
                Color::Black
            };
            let sq = Square::new(squares[i]).expect("1..=32");
            setup.set(
                sq,
                Some(Piece {
                    color,
                    role: Role::King,
                }),
            );
        }
        let pos = Position::from_setup(&setup).expect("few pieces");
        if !pos.legal_moves().is_empty() {
            return pos;
        }
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let starts: usize = args.first().map_or(200, |s| s.parse().expect("starts"));
    let ms: u64 = args
        .get(1)
        .map_or(500, |s| s.parse().expect("milliseconds"));
    let limits = Limits::move_time(Duration::from_millis(ms));
    let mut rng = ChaCha8Rng::seed_from_u64(2026);
    let mut engine = Engine::with_hash(16);
    let mut seed = ChaCha8Rng::seed_from_u64(1);
    for (strong, weak) in [(2, 1), (3, 1), (3, 2)] {
        let (mut won, mut drawn_starts, mut longest) = (0, 0, 0);
        let mut failed = Vec::new();
        for _ in 0..starts {
            let start = random_start(&mut rng, strong, weak);
            if Endgames::memory_only().probe::<Italian>(&start) == Some(Value::Draw) {
                drawn_starts += 1;
                continue;
            }
            let mut game = Game::from_position(Variant::Italian, start);
            engine.clear();
            while game.outcome().is_none() {
                let r =
                    engine.play_level(&game, Level::Hard, &limits, &Signals::default(), &mut seed);
                game.play(r.best.expect("a move")).expect("a legal move");
            }
            if game.outcome() == Some(Outcome::Win(Color::White)) {
                won += 1;
                longest = longest.max(game.moves().len());
            } else {
                failed.push(start.fen());
            }
        }
        println!(
            "{strong}K v {weak}K: won {won} of {} winnable starts (longest {longest} plies), {drawn_starts} drawn starts skipped; not won: {failed:?}",
            starts - drawn_starts
        );
    }
}
