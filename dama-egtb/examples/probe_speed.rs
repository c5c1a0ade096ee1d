//! Probe speed of table files: cold (each probe in a block not read yet, often a file not yet
//! opened) and warm (the same probes again, from the block cache).
//!
//! `cargo run --release -p dama-egtb --example probe_speed -- DIR [PIECES] [PROBES]`

use std::time::Instant;

use dama_egtb::{solve::build_order, Tables};
use dama_rules::Variant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(dir) = args.first() else {
        eprintln!("usage: probe_speed DIR [PIECES] [PROBES]");
        std::process::exit(2);
    };
    let pieces: u32 = args.get(1).and_then(|s| s.parse().ok()).unwrap_or(5);
    let probes: usize = args.get(2).and_then(|s| s.parse().ok()).unwrap_or(2000);
    let classes: Vec<_> = build_order(pieces)
        .into_iter()
        .filter(|m| m.pieces() == pieces)
        .flat_map(|m| [m, m.flip()])
        .collect();
    // Positions spread over the classes and their numbering.
    let mut positions = Vec::new();
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    while positions.len() < probes {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let m = classes[(x % classes.len() as u64) as usize];
        if let Some(p) = m.placement((x >> 20) as usize % m.len()) {
            positions.push(p.position());
        }
    }
    let tables = Tables::open(dir).expect("a table directory");
    for pass in ["cold", "warm"] {
        let t = Instant::now();
        let mut known = 0;
        for pos in &positions {
            if let Ok(Some(_)) = tables.probe(Variant::Italian, pos) {
                known += 1;
            }
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / positions.len() as f64;
        println!(
            "{pass}: {} probes of {pieces}-piece positions, {known} known, {us:.1} µs a probe",
            positions.len()
        );
    }
}
