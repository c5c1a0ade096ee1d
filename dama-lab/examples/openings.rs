//! Writes the built-in balanced opening set (`src/openings.txt`): every three-ply opening of
//! Italian draughts, one per resulting position, kept when a fixed-depth search scores it
//! within ±0.25 man.
//!
//! `cargo run --release -p dama-lab --example openings -- [depth] > dama-lab/src/openings.txt`

use std::collections::HashSet;

use dama_rules::{Game, Move};
use dama_search::{Engine, Limits};

fn main() {
    let depth: u32 = std::env::args()
        .nth(1)
        .map_or(14, |s| s.parse().expect("a depth"));
    let mut lines: Vec<Vec<Move>> = vec![vec![]];
    for _ in 0..3 {
        let mut next = Vec::new();
        for line in &lines {
            let g = replay(line);
            for &m in g.legal_moves().iter() {
                let mut l = line.clone();
                l.push(m);
                next.push(l);
            }
        }
        lines = next;
    }
    let mut seen = HashSet::new();
    let mut engine = Engine::with_hash(64);
    println!("# Balanced three-ply Italian openings: |score| <= 0.25 man at depth {depth}.");
    println!("# Regenerate: cargo run --release -p dama-search --example openings -- {depth}");
    let total = lines.len();
    let mut kept = 0;
    for line in lines {
        let g = replay(&line);
        if !seen.insert(*g.position()) {
            continue;
        }
        engine.clear();
        let r = engine.search(&g, &Limits::depth(depth));
        if r.score.0.abs() <= 25 {
            kept += 1;
            let text: Vec<String> = line.iter().map(|m| m.to_string()).collect();
            println!("{}", text.join(" "));
        }
    }
    eprintln!("{kept} openings kept of {total} lines");
}

fn replay(line: &[Move]) -> Game {
    let mut g = Game::new();
    for &m in line {
        g.play(m).expect("generated moves are legal");
    }
    g
}
