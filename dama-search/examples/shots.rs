//! The share of the proven shots of `tests/data/shots.txt` that the search finds at a fixed
//! depth (the move it plays is one of the winning moves).
//!
//! `cargo run --release -p dama-search --example shots -- [depth]`

use dama_rules::{notation::fen, Game, Variant};
use dama_search::{Engine, Limits};

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .map_or(10, |s| s.parse().expect("a depth"));
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/data/shots.txt");
    let text = std::fs::read_to_string(path).expect("reading shots.txt");
    let (mut found, mut total, mut nodes) = (0, 0, 0);
    let mut engine = Engine::with_hash(32);
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let mut parts = line.split(';');
        let f = parts.next().expect("a FEN");
        let answers: Vec<&str> = parts.next().expect("answers").split_whitespace().collect();
        let game = Game::from_position(Variant::Italian, fen::parse(f).expect("a FEN"));
        engine.clear();
        let r = engine.search(&game, &Limits::depth(depth));
        let best = r.best.map(|m| m.to_string()).unwrap_or_default();
        total += 1;
        nodes += r.nodes;
        if answers.contains(&best.as_str()) {
            found += 1;
        } else {
            println!(
                "missed {f}: played {best} ({}), wanted {answers:?}",
                r.score
            );
        }
    }
    println!("found {found} of {total} at depth {depth} ({nodes} nodes)");
}
