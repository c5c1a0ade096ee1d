//! Quick perft from the start (or a FEN) for every variant, with timings.
use dama_rules::{notation::fen, perft::perft, with_rules, Position, Variant};
use std::time::Instant;

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(9);
    let only: Option<Variant> = std::env::args().nth(2).and_then(|a| a.parse().ok());
    let pos = std::env::args()
        .nth(3)
        .map(|f| fen::parse(&f).expect("a valid FEN"))
        .unwrap_or_else(Position::start);
    for v in Variant::ALL {
        if only.is_some_and(|o| o != v) {
            continue;
        }
        let t = Instant::now();
        let n = with_rules!(v, R => perft::<R>(&pos, depth));
        let s = t.elapsed().as_secs_f64();
        println!(
            "{v}: depth {depth} nodes {n} {s:.3}s {:.1} M/s",
            n as f64 / s / 1e6
        );
    }
}
