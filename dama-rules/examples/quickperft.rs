//! Quick perft from the start for every variant.
use dama_rules::{perft::perft, with_rules, Position, Variant};
use std::time::Instant;

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(9);
    let only: Option<Variant> = std::env::args().nth(2).and_then(|a| a.parse().ok());
    for v in Variant::ALL {
        if only.is_some_and(|o| o != v) {
            continue;
        }
        let t = Instant::now();
        let counts: Vec<u64> = (1..=depth)
            .map(|d| with_rules!(v, R => perft::<R>(&Position::start(), d)))
            .collect();
        println!("{v}: {counts:?} {:.2}s", t.elapsed().as_secs_f64());
    }
}
